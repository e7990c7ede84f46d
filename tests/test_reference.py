"""The argument syntax and tool body reference in docs/: written by ``parsergen build``
from the registries, complete, and fresh (``build --check`` fails when it is stale)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from parsergen.compiler import cli
from parsergen.compiler.build import project_root, reference_output
from parsergen.compiler.reference import HEADER, REFERENCE_PATH, summary, syntax_reference
from parsergen.runtime.arguments import SYNTAXES
from parsergen.runtime.bodies import BODIES

TEXT = syntax_reference()


def _section(kind: str, name: str) -> str:
    """The text of one syntax's or body's section, up to the next anchor."""
    start = TEXT.index(f'<a id="{kind}-{name}"></a>')
    end = TEXT.find("<a id=", start + 1)
    return TEXT[start : end if end >= 0 else len(TEXT)]


def test_the_reference_file_is_fresh() -> None:
    out = reference_output(project_root())
    assert out is not None and out.path == project_root() / REFERENCE_PATH
    assert out.path.read_text(encoding="utf-8") == out.text, "run 'parsergen build'"


def test_it_is_marked_generated_and_deterministic() -> None:
    assert TEXT.startswith(HEADER + "\n") and TEXT == syntax_reference()


def test_syntaxes_then_bodies_each_sorted() -> None:
    headings = re.findall(r"^### `(\w+)`$", TEXT, re.M)
    assert headings == sorted(SYNTAXES) + sorted(BODIES)
    assert TEXT.index("## Argument syntaxes") < TEXT.index("## Tool bodies")


@pytest.mark.parametrize("name", sorted(SYNTAXES))
def test_every_syntax_has_its_doc_options_and_bodies(name: str) -> None:
    cls = SYNTAXES[name]
    section = _section("syntax", name)
    assert summary(cls).replace("``", "`") in section
    for option, prop in cls.schema["properties"].items():
        required = "yes" if option in cls.schema["required"] else "no"
        assert re.search(rf"^\| `{option}` \| .+ \| {required} \| ", section, re.M), option
        if "description" in prop:
            assert prop["description"].split()[0] in section
    if not cls.schema["properties"]:
        assert "No options besides `syntax`." in section
    bodies = re.search(r"^Tool bodies: (.*)\.$", section, re.M)
    assert bodies is not None
    listed = re.findall(r"\[`(\w+)`\]\(#body-\1\)( \(default\))?", bodies.group(1))
    assert [b for b, _ in listed] == sorted(cls.bodies)
    assert [b for b, default in listed if default] == [cls.bodies[0]]


@pytest.mark.parametrize("name", sorted(BODIES))
def test_every_body_has_its_doc_and_the_syntaxes_that_allow_it(name: str) -> None:
    section = _section("body", name)
    assert summary(BODIES[name]).replace("``", "`") in section
    allowed = re.search(r"^Allowed with `arguments.syntax`: (.*)\.$", section, re.M)
    assert allowed is not None
    assert re.findall(r"\[`(\w+)`\]", allowed.group(1)) == sorted(
        s for s, cls in SYNTAXES.items() if name in cls.bodies)
    defaults = sorted(s for s, cls in SYNTAXES.items() if cls.bodies[0] == name)
    assert (f"The default for: {', '.join(f'`{s}`' for s in defaults)}." in section) == bool(
        defaults)


def test_every_registered_class_reads_as_reference_text() -> None:
    # The reference quotes these: a class without a docstring would leave a hole.
    for cls in [*SYNTAXES.values(), *BODIES.values()]:
        assert summary(cls).endswith("."), cls.__name__


def test_markers_in_option_descriptions_are_shown_not_taken_for_html() -> None:
    rows = [line for line in TEXT.splitlines() if line.startswith("| `")]
    assert rows and not any("<" in row for row in rows)


def test_build_check_fails_on_a_stale_reference_and_build_writes_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A tree with the project's schema and no specs: only the registry outputs and the
    # (empty) format index are generated.
    (tmp_path / "grammars").mkdir()
    shutil.copy(project_root() / "grammars" / "schema.json", tmp_path / "grammars")
    monkeypatch.setattr("parsergen.compiler.build.project_root", lambda: tmp_path)
    reference = tmp_path / REFERENCE_PATH
    assert cli.main(["build"]) == 0
    assert reference.read_text(encoding="utf-8") == TEXT
    capsys.readouterr()
    assert cli.main(["build", "--check"]) == 0
    reference.write_text(TEXT.replace("Tool bodies:", "Bodies:", 1), encoding="utf-8")
    assert cli.main(["build", "--check"]) == 1
    assert f"stale: {reference}" in capsys.readouterr().err
    reference.unlink()
    assert cli.main(["build", "--check"]) == 1
    assert cli.main(["build"]) == 0 and reference.read_text(encoding="utf-8") == TEXT


def test_readme_points_to_the_reference() -> None:
    readme = (project_root() / "README.md").read_text(encoding="utf-8")
    assert f"]({REFERENCE_PATH})" in readme
