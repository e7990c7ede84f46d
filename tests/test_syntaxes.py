"""The argument syntax registry: the spec schema comes from it, and every registered
syntax reads back what it renders, whatever the split."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest

import parsergen
from parsergen.compiler.build import project_root, schema_output
from parsergen.compiler.reference import summary, tool_body_schema
from parsergen.compiler.validate import schema
from parsergen.runtime.arguments import (
    SYNTAXES,
    ArgumentsWriter,
    arguments_schema,
    json_type,
    syntax,
)
from parsergen.runtime.bodies import BODIES as BODY_CLASSES
from support import with_types

BODIES = {"json", "text", "json_object", "json_array", "python_list", "python_lines"}

ARGS: list[dict[str, Any]] = [
    {},
    {"city": "Paris"},
    {"city": "Zürich, \"CH\"", "days": 3, "ratio": 1.5, "flag": True},
    {"items": ["a", "b c"], "obj": {"k": "v", "n": 2}, "note": "two\nlines"},
    {"empty": "", "neg": -7, "off": False},
]


def _options_by_syntax() -> dict[str, list[dict[str, Any]]]:
    """Every distinct ``arguments`` mapping of the bundled formats, by syntax, with a
    format that uses it (for its call template)."""
    out: dict[str, list[tuple[dict[str, Any], str]]] = {}
    for name in parsergen.formats():
        options = dict(parsergen.load(name).ChatParser.ARGUMENTS)
        seen = out.setdefault(options["syntax"], [])
        if all(o != options for o, _ in seen):
            seen.append((options, name))
    return out


OPTIONS = _options_by_syntax()
CASES = [(name, fmt) for name in SYNTAXES for _, fmt in OPTIONS.get(name, [])]


def test_schema_syntaxes_are_the_registry() -> None:
    choices = schema()["$defs"]["arguments"]["oneOf"]
    assert [c["properties"]["syntax"]["const"] for c in choices] == list(SYNTAXES)


def test_schema_file_is_written_from_the_registries() -> None:
    out = schema_output(project_root())
    assert out is not None
    assert out.path.read_text(encoding="utf-8") == out.text, "run 'parsergen build'"
    written = json.loads(out.text)
    assert written["$defs"]["arguments"] == arguments_schema()
    # The tool_body choice, and its description of each body, come from BODIES.
    tool_body = written["properties"]["tool_body"]
    assert tool_body == tool_body_schema() and tool_body["enum"] == list(BODY_CLASSES)
    for name, cls in BODY_CLASSES.items():
        assert f"{name}: {summary(cls).replace('``', '')}" in tool_body["description"]


# Syntaxes only an imported response_template uses (no bundled format renders them), each
# read against its reference instead: kv_lines against transformers' kv-lines content
# parser on any split (test_arguments.py, test_kv_lines_any_split_reads_as_transformers).
TEMPLATE_ONLY = {"kv_lines"}


def test_every_registered_syntax_is_used_by_a_format() -> None:
    # The round trip below takes its options from the formats that use a syntax.
    assert set(OPTIONS) | TEMPLATE_ONLY == set(SYNTAXES)
    assert not set(OPTIONS) & TEMPLATE_ONLY  # (a bundled user: round-trip it instead)


def test_registry_entries_declare_the_protocol() -> None:
    for name, cls in SYNTAXES.items():
        assert cls.name == name
        assert cls.bodies and set(cls.bodies) <= BODIES, name
        assert cls.schema["type"] == "object" and "syntax" not in cls.schema["properties"]


def test_an_unknown_syntax_is_an_error_not_a_fallback() -> None:
    with pytest.raises(ValueError, match="unknown argument syntax 'yaml'"):
        syntax({"syntax": "yaml"})
    with pytest.raises(KeyError):
        syntax({})


def _schema(value: Any) -> dict[str, Any]:
    """A JSON Schema that types ``value`` all the way down (text alone is untyped)."""
    out: dict[str, Any] = {"type": json_type(value)}
    if isinstance(value, dict):
        out["properties"] = {k: _schema(v) for k, v in value.items()}
    elif isinstance(value, list) and value:
        out["items"] = _schema(value[0])
    return out


def _text(fmt: str, name: str, args: Mapping[str, Any]) -> str:
    """What a reader of the format's syntax reads for a call: the rendered arguments, or,
    when the syntax names the call, the call template's text (markers are the grammar's)."""
    module = parsergen.load(fmt)
    syn = module.ChatParser.SYNTAX
    rendered = "".join(text for text, _ in syn.render(args))
    if not syn.names_call:
        if module.StreamingParser.BODY.name != "text":
            return rendered
        # A text body gives the reader all TOOL_ARGS text: what the call template writes
        # after the arguments up to its next marker too (Gemma 4's closing brace).
        parts = list(module.RENDERER.call)
        after = parts[parts.index(("field", "arguments")) + 1 :]
        kinds = [kind for kind, _ in after]
        tail = after[: kinds.index("marker") if "marker" in kinds else len(after)]
        return rendered + "".join(value for kind, value in tail if kind == "text")
    fields = {"name": name, "name_json": json.dumps(name), "arguments": rendered,
              "index": "0", "index1": "1"}
    return "".join(fields[value] if kind == "field" else value
                   for kind, value in module.RENDERER.call if kind != "marker")


@pytest.mark.parametrize("syntax_name, fmt", CASES)
@pytest.mark.parametrize("args", ARGS, ids=range(len(ARGS)))
def test_every_syntax_reads_back_what_it_renders(syntax_name: str, fmt: str,
                                                 args: dict[str, Any]) -> None:
    syn = syntax(parsergen.load(fmt).ChatParser.ARGUMENTS)
    assert syn.name == syntax_name
    properties = {k: _schema(v) for k, v in args.items()}
    text = _text(fmt, "get_weather", args)
    results = []
    for size in (1, len(text) or 1):
        names: list[str] = []

        def make_writer(name: str) -> ArgumentsWriter:
            names.append(name)
            return ArgumentsWriter(properties)

        reader = syn.reader(make_writer, None if syn.names_call else "get_weather")
        out = [reader.feed(text[i : i + size]) for i in range(0, len(text), size)]
        out.append(reader.finish())
        assert names == ["get_weather"]
        assert reader.writer is not None and reader.writer.warnings == []
        results.append("".join(out))
    assert results[0] == results[1]
    assert with_types(json.loads(results[0])) == with_types(args)
