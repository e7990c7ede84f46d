"""docs/spec.md, the spec language reference: written by ``parsergen build`` from the
schema, the registries and its template, complete (every field with a description and
an example, every state, event and body), and its tutorial runs as written."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import shutil
from pathlib import Path

import pytest
import yaml

from parsergen.compiler import cli
from parsergen.compiler.build import project_root, schema_output, spec_doc_output
from parsergen.compiler.reference import HEADER, REFERENCE_PATH
from parsergen.compiler.specdoc import EVENT_MEANINGS, SPEC_DOC_PATH, fields, spec_reference
from parsergen.runtime.bodies import BODIES
from parsergen.runtime.events import STATE_NAMES, EventType
from support.tokenizers import _byte_level

ROOT = project_root()
SCHEMA_TEXT = (ROOT / "grammars" / "schema.json").read_text(encoding="utf-8")
SCHEMA = json.loads(SCHEMA_TEXT)
TEXT = (ROOT / SPEC_DOC_PATH).read_text(encoding="utf-8")


def test_the_file_is_fresh_and_marked_generated() -> None:
    out = spec_doc_output(ROOT)
    assert out is not None and out.path == ROOT / SPEC_DOC_PATH
    assert TEXT == out.text, "run 'parsergen build'"
    assert TEXT.startswith(HEADER + "\n")


def test_it_is_written_from_the_schema_build_writes() -> None:
    schema = schema_output(ROOT)
    assert schema is not None and spec_reference(schema.text) == TEXT


def test_every_field_has_a_description_and_an_example() -> None:
    found = fields(SCHEMA)
    top = {path for path, _, _ in found if "." not in path and "[]" not in path}
    assert top == set(SCHEMA["properties"])  # every top-level field is listed
    missing = [path for path, schema, _ in found
               if not schema.get("description") or not schema.get("examples")]
    assert missing == [], "add a description and examples to grammars/schema.json"


def test_every_field_is_in_the_reference() -> None:
    for path, _, _ in fields(SCHEMA):
        if "." in path or "[]" in path:
            assert f"| `{path}` |" in TEXT, path
        else:
            assert f"### `{path}`\n" in TEXT, path


def test_the_yaml_examples_read_back_as_the_schema_s() -> None:
    by_key = {path: schema for path, schema, _ in fields(SCHEMA) if "." not in path}
    fields_part = TEXT.split("\n## Fields\n", 1)[1].split("\n## Tutorial", 1)[0]
    blocks = re.findall(r"### `([^`]+)`\n.*?```yaml\n(.*?)```", fields_part, re.S)
    assert {key for key, _ in blocks} == {k for k, s in by_key.items() if s["examples"]}
    for key, block in blocks:
        # One example per top-level line (the others are its indented continuation).
        examples = re.split(r"\n(?=\S)", block.rstrip("\n"))
        assert [yaml.safe_load(e)[key] for e in examples] == by_key[key]["examples"]


def test_every_state_event_and_body_is_explained() -> None:
    for state in STATE_NAMES:
        assert f'<a id="state-{state}"></a>\n\n### `{state}`\n' in TEXT
    assert set(EVENT_MEANINGS) == {e.name for e in EventType}
    for event in EventType:
        assert f"| `{event.name}` | {EVENT_MEANINGS[event.name]} |" in TEXT
    for name, cls in BODIES.items():
        row = next(line for line in TEXT.splitlines() if line.startswith(f"| [`{name}`]"))
        assert all(f"`{state}`" in row for state in cls.exits_to), row


def test_it_links_the_argument_reference_and_is_linked() -> None:
    assert "](arguments-and-tool-bodies.md" in TEXT
    assert (ROOT / REFERENCE_PATH).is_file()
    for doc in ("README.md", "ARCHITECTURE.md"):
        assert f"]({SPEC_DOC_PATH})" in (ROOT / doc).read_text(encoding="utf-8"), doc


def test_build_check_fails_on_a_stale_spec_doc(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "grammars").mkdir()
    shutil.copy(ROOT / "grammars" / "schema.json", tmp_path / "grammars")
    monkeypatch.setattr("parsergen.compiler.build.project_root", lambda: tmp_path)
    doc = tmp_path / SPEC_DOC_PATH
    assert cli.main(["build"]) == 0 and doc.read_text(encoding="utf-8") == TEXT
    doc.write_text(TEXT.replace("## States", "## Stats", 1), encoding="utf-8")
    capsys.readouterr()
    assert cli.main(["build", "--check"]) == 1
    assert f"stale: {doc}" in capsys.readouterr().err


# -- the tutorial, as written -------------------------------------------------------

TUTORIAL = TEXT.split('<a id="tutorial"></a>', 1)[1]
_BLOCK = r"<!-- tutorial-{kind}: (.+?) -->\n```\w*\n(.*?)```"


def _files() -> dict[str, str]:
    """The files the tutorial writes, by name (each block's text without its last newline)."""
    return {name: body.removesuffix("\n")
            for name, body in re.findall(_BLOCK.format(kind="file"), TUTORIAL, re.S)}


def _commands() -> list[tuple[str, list[str]]]:
    """The commands the tutorial runs, each with the output lines it shows."""
    out = []
    for command, body in re.findall(_BLOCK.format(kind="command"), TUTORIAL, re.S):
        shown = body.splitlines()
        assert shown[0].startswith("$ ")
        out.append((command, shown[1:]))
    return out


@pytest.fixture
def tutorial_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, text in _files().items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    # LFM2's tool tokens as special tokens (ids assumed), over one token per byte.
    specials = [(64400, "<|tool_call_start|>", True), (64401, "<|tool_call_end|>", True),
                (64402, "<|im_end|>", True)]
    _byte_level(0, specials, eos="<|im_end|>").save_pretrained(tmp_path / "tokenizer")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_tutorial_writes_a_spec_a_completion_and_a_test() -> None:
    assert set(_files()) == {"my_lfm2.yaml", "completion.txt", "test_my_lfm2.py"}
    assert [c for c, _ in _commands()] == [
        "parsergen check my_lfm2.yaml", "parsergen check --tokenizer TOKENIZER my_lfm2.yaml",
        "parsergen parse --format my_lfm2.yaml completion.txt", "pytest -q test_my_lfm2.py"]


def test_the_tutorial_commands_print_what_it_shows(
        tutorial_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for command, shown in _commands():
        args = shlex.split(command.replace("TOKENIZER", str(tutorial_dir / "tokenizer")))
        if args[0] != "parsergen":
            continue
        capsys.readouterr()
        assert cli.main(args[1:]) == 0, command
        out, err = capsys.readouterr()
        assert out.splitlines() == shown, command
        assert "warning" not in err, err


def test_the_tutorial_test_passes(tutorial_dir: Path) -> None:
    spec = importlib.util.spec_from_file_location("test_my_lfm2", tutorial_dir / "test_my_lfm2.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tests = [getattr(module, n) for n in dir(module) if n.startswith("test_")]
    for test in tests:
        test()
    shown = dict(_commands())["pytest -q test_my_lfm2.py"]
    assert shown[-1] == f"{len(tests)} passed"


def test_the_tutorial_parse_result_is_the_one_it_states(tutorial_dir: Path) -> None:
    import parsergen

    lfm2 = parsergen.load(tutorial_dir / "my_lfm2.yaml")
    message = lfm2.parse(_files()["completion.txt"])
    assert f"content\n`{message.content}`" in TUTORIAL
    [call] = message.tool_calls
    assert f"`{call.name}` with arguments\n`{call.arguments}`" in TUTORIAL
