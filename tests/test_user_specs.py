"""A user's own spec by path: parsergen.load, the CLI, routing, errors and warnings.

Modules are cached by content, so each test that expects a first compile (and its
warnings) writes content of its own (a distinct description).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import parsergen
from parsergen.batch import parse_record
from parsergen.compiler import cli
from parsergen.specs import SPECS_VARIABLE, SpecWarning

ROOT = Path(__file__).resolve().parent.parent

# A new format that starts from a bundled one and claims its own models.
JAMBA = """\
$schema: parsergen://schema.json
name: my_jamba
description: {description}
extends: hermes
models: [jamba-{version}-mini]
"""
CALL = '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>'


def write(tmp_path: Path, text: str, name: str = "my_jamba.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def jamba(tmp_path: Path, description: str = "Jamba calls", version: str = "9") -> Path:
    return write(tmp_path, JAMBA.format(description=description, version=version))


def test_load_by_path_compiles_in_memory_and_parses(tmp_path: Path) -> None:
    generated = sorted(p.name for p in (ROOT / "generated").iterdir())
    path_entries = list(sys.path)
    module = parsergen.load(jamba(tmp_path))
    message = module.parse("Hi " + CALL)
    assert (module.FORMAT, message.content) == ("my_jamba", "Hi")
    assert [(c.name, c.arguments) for c in message.tool_calls] == [("f", '{"a": 1}')]
    assert parsergen.entry(tmp_path / "my_jamba.yaml").description == "Jamba calls"
    # No file written into the package, no sys.path entry.
    assert sorted(p.name for p in (ROOT / "generated").iterdir()) == generated
    assert sys.path == path_entries and not list(tmp_path.glob("*.py"))


def test_a_copy_of_a_bundled_grammar_renamed(tmp_path: Path) -> None:
    spec = yaml.safe_load((ROOT / "grammars" / "qwen3.yaml").read_text(encoding="utf-8"))
    spec.update(name="my_qwen", description="a copy of qwen3", models=["my-qwen-"])
    spec.pop("aliases", None)
    path = write(tmp_path, yaml.safe_dump(spec, allow_unicode=True), "my_qwen.yaml")
    module = parsergen.load(str(path))
    assert module.parse("hm</think>Hi", thinking=True).reasoning == "hm"
    assert module.parse("hm</think>Hi", thinking=True) == parsergen.load("qwen3").parse(
        "hm</think>Hi", thinking=True)


def test_same_content_same_module_changed_file_recompiled(tmp_path: Path) -> None:
    path = jamba(tmp_path, "cache test")
    first = parsergen.load(path)
    assert parsergen.load(str(path)) is first
    twin = write(tmp_path / "..", JAMBA.format(description="cache test", version="9"),
                 f"{tmp_path.name}_twin.yaml")
    assert parsergen.load(twin) is first  # same content elsewhere: the same module
    path.write_text(JAMBA.format(description="cache test, changed", version="9"))
    changed = parsergen.load(path)
    assert changed is not first and changed.SPEC["description"] == "cache test, changed"
    path.write_text(JAMBA.format(description="cache test", version="9"))
    assert parsergen.load(path) is first


def test_a_changed_base_next_to_the_spec_recompiles(tmp_path: Path) -> None:
    base = write(tmp_path, "name: base_part\ndescription: base\nterminals:\n"
                 "  END: \"</r>\"\ntransitions:\n  REASONING: {END: {to: CONTENT, "
                 "emit: [REASONING_END]}}\ninitial_state: REASONING\n"
                 "reasoning: {start: [], end: [END]}\n", "base_part.yaml")
    path = write(tmp_path, "name: derived\ndescription: derived\nextends: base_part\n",
                 "derived.yaml")
    first = parsergen.load(path)
    assert first.parse("a</r>b").reasoning == "a"
    base.write_text(base.read_text().replace('"</r>"', '"</x>"'))
    second = parsergen.load(path)
    assert second is not first and second.parse("a</x>b").reasoning == "a"


def test_a_path_loaded_again_is_not_read_again_until_it_changes(tmp_path: Path,
                                                                 monkeypatch) -> None:
    import parsergen.compiler.loader as loader

    path = jamba(tmp_path, "read once test")
    first = parsergen.load(path)
    week_ago = path.stat().st_mtime - 7 * 86400
    os.utime(path, (week_ago, week_ago))  # (a settled file: its stat signature is trusted)
    assert parsergen.load(path) is first  # (read and hashed: its mtime changed)
    calls = []
    monkeypatch.setattr(loader, "load_yaml", lambda *a: calls.append(a) or 1 / 0)
    assert parsergen.load(path) is first and parsergen.load(str(path)) is first
    assert parsergen.entry(path).description == "read once test"
    assert not calls  # the YAML was not parsed again
    monkeypatch.undo()
    path.write_text(JAMBA.format(description="read once test, changed", version="9"))
    assert parsergen.load(path).SPEC["description"] == "read once test, changed"


def test_cli_parse_check_list_detect_by_path(tmp_path: Path, capsys) -> None:
    path = jamba(tmp_path, "cli test", "7")
    completion = write(tmp_path, CALL, "c.txt")
    assert cli.main(["parse", "--format", str(path), str(completion)]) == 0
    assert 'TOOL_CALL_END[0] "</tool_call>"' in capsys.readouterr().out
    assert cli.main(["parse", "--format", str(path), "--openai", str(completion)]) == 0
    assert '"name": "f"' in capsys.readouterr().out
    assert cli.main(["check", str(path)]) == 0
    assert capsys.readouterr().out == f"{path}: ok (my_jamba)\n"
    assert cli.main(["detect", "--spec", str(path), "AI21/Jamba-7-Mini"]) == 0
    assert capsys.readouterr().out == (
        f"my_jamba ({path})\nwhy: the model name 'AI21/Jamba-7-Mini' matches my_jamba "
        f"({path})'s models pattern 'jamba-7-mini'\n")
    assert cli.main(["parse", "--spec", str(path), "--model", "jamba-7-mini",
                     str(completion)]) == 0
    assert "TOOL_CALL_START[0]" in capsys.readouterr().out
    assert cli.main(["list", "--spec", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"{'my_jamba':<20} cli test ({path})"


def test_routing_sees_specs_of_the_environment(tmp_path: Path, monkeypatch, capsys) -> None:
    path = jamba(tmp_path, "env test", "5")
    monkeypatch.setenv(SPECS_VARIABLE, os.pathsep.join([str(path), str(tmp_path / "gone.yaml")]))
    with pytest.warns(SpecWarning, match="gone.yaml is left out"):
        found = parsergen.route("ai21labs/AI21-Jamba-5-Mini")
    assert (found.format, found.spec) == ("my_jamba", str(path))
    assert found.parse(CALL).tool_calls[0].name == "f"
    assert parsergen.detect("jamba-5-mini") == "my_jamba"
    assert parsergen.load("my_jamba") is found.module  # by name, from the variable
    assert parsergen.route("Qwen/Qwen3-8B").spec is None  # bundled formats still route
    monkeypatch.setenv(SPECS_VARIABLE, str(path))
    assert cli.main(["detect", "jamba-5-mini"]) == 0
    assert capsys.readouterr().out == (
        f"my_jamba ({path})\nwhy: the model name 'jamba-5-mini' matches my_jamba ({path})'s "
        "models pattern 'jamba-5-mini'\n")


def test_batch_takes_a_spec_path(tmp_path: Path) -> None:
    path = str(jamba(tmp_path, "batch test", "3"))
    got = parse_record({"completion": CALL}, format=path)
    assert got["tool_calls"][0]["function"]["name"] == "f"
    got = parse_record({"completion": CALL, "model": "jamba-3-mini"}, specs=[path])
    assert got["tool_calls"][0]["function"]["name"] == "f"


def test_a_bad_path_is_an_error_not_a_traceback(tmp_path: Path, capsys) -> None:
    missing = tmp_path / "missing.yaml"
    with pytest.raises(parsergen.SpecError, match=r"missing\.yaml:1:1: \$: cannot read"):
        parsergen.load(missing)
    with pytest.raises(KeyError):
        parsergen.load("no_such_format")
    assert cli.main(["parse", "--format", str(missing), "-"]) == 2
    assert "missing.yaml:1:1: $: cannot read" in capsys.readouterr().err
    assert cli.main(["detect", "--spec", str(missing), "jamba"]) == 1
    assert "cannot read" in capsys.readouterr().err
    done = subprocess.run([sys.executable, "-m", "parsergen.compiler.cli", "parse", "--format",
                           str(missing), os.devnull], capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr == f"{missing}:1:1: $: cannot read: No such file or directory\n"


def test_bad_yaml_names_its_line(tmp_path: Path, capsys) -> None:
    path = write(tmp_path, "name: x\ndescription: y\n  terminals: [\n", "bad.yaml")
    with pytest.raises(parsergen.SpecError) as caught:
        parsergen.load(path)
    assert str(caught.value).startswith(f"{path}:3:12: $: invalid YAML")
    assert caught.value.diagnostics[0].position.line == 3
    assert cli.main(["check", str(path)]) == 1
    assert f"{path}:3:12: $: invalid YAML" in capsys.readouterr().err


def test_a_directory_or_binary_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(parsergen.SpecError, match="cannot read"):
        parsergen.load(tmp_path)
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"name: \xff\xfe\n")
    with pytest.raises(parsergen.SpecError, match=r"binary\.yaml:1:1: \$: not UTF-8 text"):
        parsergen.load(binary)


def test_a_schema_error_names_file_line_and_field(tmp_path: Path, capsys) -> None:
    path = write(tmp_path, "name: broken\ndescription: d\nterminals: 3\ntransitions: {}\n",
                 "broken.yaml")
    with pytest.raises(parsergen.SpecError, match=rf"{path}:3:1: \$\.terminals: "):
        parsergen.load(path)
    assert cli.main(["parse", "--format", str(path), "-"]) == 2
    assert f"{path}:3:1: $.terminals: " in capsys.readouterr().err


def test_colliding_models_warn_at_load_and_in_check(tmp_path: Path, capsys) -> None:
    text = JAMBA.format(description="collision test", version="9").replace(
        "models: [jamba-9-mini]", "models:\n  - jamba-9-mini\n  - qwen2.5\n")
    path = write(tmp_path, text)
    with pytest.warns(SpecWarning, match=r"my_jamba\.yaml:7:1: warning: \$\.models: "
                                         r"'qwen2\.5' and hermes's 'qwen2\.5' both match"):
        parsergen.load(path)
    assert cli.main(["check", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"{path}: ok (my_jamba)\n"
    assert captured.err.startswith(f"{path}:7:1: warning: $.models: 'qwen2.5' and hermes's")
    # The name then routes to neither format (nothing is guessed).
    assert parsergen.route("Qwen/Qwen2.5-7B-Instruct", specs=[path]) is None
    assert parsergen.detect("Qwen/Qwen2.5-7B-Instruct") == "hermes"


def test_a_name_of_a_bundled_format_warns(tmp_path: Path, capsys) -> None:
    path = write(tmp_path, (ROOT / "grammars" / "hermes.yaml").read_text(encoding="utf-8"),
                 "hermes.yaml")
    assert cli.main(["check", str(path)]) == 0
    err = capsys.readouterr().err
    assert f"{path}:2:1: warning: $.name: 'hermes' is also a bundled format's name" in err
    assert "$.schema" not in err  # ./schema.json means the bundled schema here too


def test_schema_resolves_to_the_bundled_schema(tmp_path: Path, capsys) -> None:
    assert cli.main(["schema"]) == 0
    printed = Path(capsys.readouterr().out.strip())
    assert printed.is_file() and printed.samefile(ROOT / "grammars" / "schema.json")
    for value in ("parsergen://schema.json", "./schema.json", str(printed)):
        text = JAMBA.format(description="schema test", version="2").replace(
            "parsergen://schema.json", value)
        path = write(tmp_path, text)
        assert cli.main(["check", str(path)]) == 0
        assert capsys.readouterr().err == ""
    path = write(tmp_path, JAMBA.format(description="schema test", version="2").replace(
        "parsergen://schema.json", "../elsewhere/schema.json"))
    assert cli.main(["check", str(path)]) == 0
    assert capsys.readouterr().err == (
        f"{path}:1:1: warning: $.$schema: '../elsewhere/schema.json' names no file next to "
        "this spec or the bundled schema; write '$schema: parsergen://schema.json' (or the "
        "path 'parsergen schema' prints)\n")
