"""Argument typing follows the whole JSON Schema, as real tool definitions write it.

tests/data/real_tool_schemas.json holds tool schemas from MCP servers, pydantic and
OpenAPI-derived tools (each with its source link) and argument texts as models write
them; every XML-style syntax types them alike, and JSON syntaxes keep what they hold.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parsergen
from parsergen.runtime import accumulate
from parsergen.runtime.arguments.writer import ArgumentsWriter, keeps_members
from parsergen.runtime.coercion import coerce_value
from parsergen.runtime.json_text import to_json
from parsergen.runtime.schema_compiler import compile_schema
from parsergen.runtime.schema_nodes import Compiled, schema_types
from parsergen.runtime.schema_types import ToolTyping, tool_properties
from support.compiled import COMPILED

DATA = json.loads((Path(__file__).parent / "data" / "real_tool_schemas.json").read_text("utf-8"))
CASES = [(case, n) for case in DATA["cases"] for n in range(len(case["calls"]))]
IDS = [f"{case['id']}-{n}" for case, n in CASES]


def _qwen3(name: str, args: dict[str, str], expected: dict[str, Any]) -> str:
    params = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in args.items())
    return f"</think><tool_call>\n<function={name}>\n{params}</function>\n</tool_call>"


def _glm47(name: str, args: dict[str, str], expected: dict[str, Any]) -> str:
    params = "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n"
                     for k, v in args.items())
    return f"</think><tool_call>{name}\n{params}</tool_call>"


def _dsml(name: str, args: dict[str, str], expected: dict[str, Any]) -> str:
    # The model marks a string value string="true", any other value "false" (JSON).
    params = "".join(
        f'<｜DSML｜parameter name="{k}" string="{"true" if isinstance(expected[k], str) else "false"}">'
        f"{v}</｜DSML｜parameter>\n" for k, v in args.items())
    return (f'<｜DSML｜function_calls>\n<｜DSML｜invoke name="{name}">\n{params}'
            "</｜DSML｜invoke>\n</｜DSML｜function_calls>")


XML_STYLE = {"qwen3": _qwen3, "glm47_moe": _glm47, "deepseek_v32": _dsml}


def _tools(case: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": case["tool"]}]


def _arguments(fmt: str, text: str, tools: list[dict[str, Any]]) -> list[Any]:
    """The calls' arguments from parse(), checked equal to streaming's at two steps."""
    module = parsergen.load(fmt)
    message = module.parse(text, tools=tools)
    out = [json.loads(call.arguments) for call in message.tool_calls]
    for step in (1, 7):
        parser = module.ChatParser(tools=tools)
        deltas = [parser.feed(text[i:i + step]) for i in range(0, len(text), step)]
        streamed = accumulate(deltas + [parser.finish()])
        assert [json.loads(c.arguments) for c in streamed.tool_calls] == out, (fmt, step)
    return out


@pytest.mark.parametrize("fmt", sorted(XML_STYLE))
@pytest.mark.parametrize(("case", "n"), CASES, ids=IDS)
def test_xml_style_arguments_are_typed_by_the_real_schema(fmt: str, case: dict[str, Any],
                                                          n: int) -> None:
    call = case["calls"][n]
    text = XML_STYLE[fmt](case["tool"]["name"], call["args"], call["expected"])
    assert _arguments(fmt, text, _tools(case)) == [call["expected"]], case["source"]


@pytest.mark.parametrize("fmt", ["hermes", "deepseek_v31"])
@pytest.mark.parametrize(("case", "n"), CASES, ids=IDS)
def test_json_syntaxes_keep_typed_values_as_written(fmt: str, case: dict[str, Any],
                                                    n: int) -> None:
    expected = case["calls"][n]["expected"]
    name, args = case["tool"]["name"], json.dumps(expected, ensure_ascii=False)
    if fmt == "hermes":
        text = f'<tool_call>\n{{"name": "{name}", "arguments": {args}}}\n</tool_call>'
    else:
        text = (f"</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{name}<｜tool▁sep｜>"
                f"{args}<｜tool▁call▁end｜><｜tool▁calls▁end｜>")
    assert _arguments(fmt, text, _tools(case)) == [expected], case["source"]


def test_refs_resolve_in_defs_definitions_and_the_root_with_cycles() -> None:
    schema = {"type": "object", "properties": {
        "a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/definitions/B"},
        "self": {"anyOf": [{"$ref": "#"}, {"type": "null"}]},
        "loop": {"$ref": "#/$defs/L1"}, "broken": {"$ref": "#/$defs/missing"},
        "remote": {"$ref": "https://example.com/s.json"}},
        "$defs": {"A": {"type": "integer"}, "L1": {"$ref": "#/$defs/L2"},
                  "L2": {"$ref": "#/$defs/L1"}},
        "definitions": {"B": {"type": "boolean"}}}
    props = compile_schema(schema).props
    assert props is not None
    assert schema_types(props["a"]) == {"integer"}
    assert schema_types(props["b"]) == {"boolean"}
    assert schema_types(props["self"]) == {"object", "null"}
    assert schema_types(props["loop"]) == {"string"}  # a $ref cycle admits what nothing says
    assert schema_types(props["broken"]) == schema_types(props["remote"]) == {"string"}
    assert props["self"].props is not None and props["self"].props["a"] is props["a"]


def test_allof_merges_and_intersects_types() -> None:
    schema = {"allOf": [{"$ref": "#/$defs/Base"}, {"properties": {"n": {"type": "integer"}}}],
              "type": ["integer", "string"],
              "$defs": {"Base": {"type": "object", "properties": {"flag": {"type": "boolean"}}}}}
    compiled = compile_schema({"properties": {"x": schema}, "$defs": schema["$defs"]})
    x = compiled.props["x"]  # type: ignore[index]
    assert set(x.props) == {"flag", "n"}
    assert schema_types({"allOf": [{"type": "integer"}, {"minimum": 0}]}) == {"integer", "string"}
    assert schema_types(compile_schema({"allOf": [{"type": "integer"}, {"minimum": 0}]})) \
        == {"integer"}


def test_nested_properties_items_and_additional_properties_type_parsed_values() -> None:
    schema = {"type": "object", "properties": {"q": {"$ref": "#/$defs/Q"}},
              "$defs": {"Q": {"type": "object",
                              "properties": {"limit": {"anyOf": [{"type": "integer"},
                                                                 {"type": "null"}]},
                                             "ids": {"type": "array",
                                                     "items": {"type": "integer"}}},
                              "additionalProperties": {"type": "number"}}}}
    value = {"q": {"limit": "5", "ids": ["1", "2"], "ratio": "0.5", "other": "x"}}
    assert coerce_value(value, schema) == {
        "q": {"limit": 5, "ids": [1, 2], "ratio": 0.5, "other": "x"}}


def test_additional_properties_type_other_keys_of_the_arguments() -> None:
    tools = [{"function": {"name": "set_env", "parameters": {
        "type": "object", "properties": {"name": {"type": "string"}},
        "additionalProperties": {"type": "integer"}}}}]
    writer = ArgumentsWriter(tool_properties(tools, "set_env"))
    out = writer.begin("name") + writer.text("7") + writer.begin("RETRIES") + writer.text("3")
    assert out + writer.close() == json.dumps({"name": "7", "RETRIES": 3})


def test_typing_is_compiled_once_per_tool_name() -> None:
    tools = [{"function": {"name": "f", "parameters": {"properties": {"n": {"type": "integer"}}}}}]
    typing = ToolTyping(tools)
    first = typing.properties("f")
    assert first is typing.properties("f") and isinstance(first["n"], Compiled)
    assert typing.properties("g") is None and typing.compiled == {"f": first, "g": None}


@pytest.mark.skipif(COMPILED, reason="compiled code calls tool_properties directly, "
                    "past a module attribute patched from Python")
def test_a_chat_parser_compiles_each_tool_once_for_many_calls(monkeypatch) -> None:
    from parsergen.runtime import schema_types as st

    seen: list[str] = []
    real = st.function_properties

    def counting(fn: Any) -> Any:
        seen.append(fn["name"])
        return real(fn)

    monkeypatch.setattr(st, "function_properties", counting)
    case = DATA["cases"][1]
    call = case["calls"][0]
    text = _qwen3(case["tool"]["name"], call["args"], call["expected"]) * 50
    assert _arguments("qwen3", text, _tools(case)) == [call["expected"]] * 50
    assert seen == [case["tool"]["name"]] * 3  # once for parse(), once per streaming parser


@pytest.mark.parametrize("depth, typed", [(200, True), (5000, False), (50000, False)])
def test_a_schema_nested_past_the_stack_leaves_its_calls_untyped(depth: int, typed: bool) -> None:
    # (Compiled, 50,000 levels overflowed the C stack before MAX_SCHEMA_NESTING.)
    schema: dict[str, Any] = {"type": "integer"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"a": schema}}
    typing = ToolTyping([{"function": {"name": "deep", "parameters": schema}}])
    assert (typing.properties("deep") is not None) == typed


class _Walked(dict):  # type: ignore[type-arg]
    """A compiled tool's properties as a plain mapping (same ``get``): keeps_members then
    walks the schema member by member instead of asking Properties.keeps."""

    def __init__(self, properties: Any) -> None:
        super().__init__(dict(properties))
        self.properties = properties

    def get(self, key: Any, default: Any = None) -> Any:
        return self.properties.get(key, default)

    def __bool__(self) -> bool:
        return bool(self.properties)


def test_properties_keeps_answers_as_the_schema_walk() -> None:
    import random
    rng = random.Random(7)
    names = ["string", "integer", "number", "boolean", "null", "array", "object"]
    values = ["s", 1, 1.5, True, None, [1], {"a": 1}]
    kept = rejected = 0
    for _ in range(2000):
        props: dict[str, Any] = {}
        for key in "abcd":
            pick = rng.random()
            props[key] = (None if pick < 0.1 else {} if pick < 0.2 else True if pick < 0.3
                          else {"anyOf": [{"type": rng.choice(names)}, {"type": rng.choice(names)}]}
                          if pick < 0.4 else {"type": rng.sample(names, 2)} if pick < 0.55
                          else {"type": rng.choice(names)})
        schema: dict[str, Any] = {"type": "object", "properties": props}
        if rng.random() < 0.3:
            schema["additionalProperties"] = {"type": rng.choice(names)}
        compiled = compile_schema(schema).props
        members = {k: rng.choice(values) for k in rng.sample("abcdef", rng.randint(0, 5))}
        want = keeps_members(_Walked(compiled), members)
        assert compiled.keeps(members) == want, (schema, members)
        kept, rejected = kept + want, rejected + (not want)
    assert kept > 200 and rejected > 200  # both answers were tried


def test_equal_schemas_share_one_compiled_form_and_a_cyclic_one_is_its_own() -> None:
    def tools(params: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"type": "function", "function": {"name": "f", "parameters": params}}]

    def plain() -> dict[str, Any]:
        return {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert tool_properties(tools(plain()), "f") is tool_properties(tools(plain()), "f")
    # A mapping that is not a dict is typed alike, compiled on its own.
    proxy = tool_properties(tools(MappingProxyType(plain())), "f")  # type: ignore[arg-type]
    assert proxy is not tool_properties(tools(plain()), "f")
    assert schema_types(proxy["n"]) == {"integer"}
    # Two cycles back to different nodes print alike ({...}): they must not share.
    outer: dict[str, Any] = {"type": "object", "properties": {}}
    outer["properties"]["x"] = {"type": "object", "properties": {"y": outer}}
    inner: dict[str, Any] = {"type": "object", "properties": {}}
    inner["properties"]["x"] = {"type": "object", "properties": {}}
    inner["properties"]["x"]["properties"]["y"] = inner["properties"]["x"]
    assert repr(outer) == repr(inner)
    a, b = tool_properties(tools(outer), "f"), tool_properties(tools(inner), "f")
    assert a is not b
    assert "x" in dict(a["x"].props["y"].props) and "y" in dict(b["x"].props["y"].props)


_LOOSE = st.sampled_from([1, 1.0, True, 0, False, "1", None])
_LOOSE_PROPERTY = st.fixed_dictionaries({}, optional={
    "type": st.sampled_from(["string", "integer", "number", "boolean", ["integer", "null"]]),
    "enum": st.lists(_LOOSE, max_size=2), "nullable": _LOOSE, "default": _LOOSE,
    "minimum": _LOOSE})
_LOOSE_SCHEMA = st.fixed_dictionaries({"type": st.just("object"), "properties": st.dictionaries(
    st.sampled_from("ab"), _LOOSE_PROPERTY, max_size=2)}, optional={
    "additionalProperties": _LOOSE})


def _typed(props: Any) -> Any:
    """What typing reads of compiled properties: each key's types, and the extra's."""
    if props is None:
        return None
    return ({k: schema_types(v) for k, v in dict.items(props)},
            None if props.extra is None else schema_types(props.extra))


@settings(max_examples=300, deadline=None)
@given(schemas=st.lists(_LOOSE_SCHEMA, min_size=2, max_size=4))
def test_a_tool_schema_seen_before_is_typed_as_compiled_afresh(
        schemas: list[dict[str, Any]]) -> None:
    """Request after request, one tool's schema is matched with the last one compiled
    for its name by == (cheaper than its marshal); where == takes 1, 1.0 and true for
    one another in what typing reads (an enum's values, nullable), each is still typed
    as it is."""
    from parsergen.runtime.schema_types import function_properties
    for params in schemas:
        got = function_properties({"name": "loose", "parameters": params})
        assert _typed(got) == _typed(compile_schema(params).props), params


def test_equal_but_differently_typed_enums_are_each_typed_as_they_are() -> None:
    from parsergen.runtime.schema_types import function_properties
    for value, types in ((1, {"integer"}), (True, {"boolean"}), (1.0, {"number"}),
                         (1, {"integer"})):
        params = {"type": "object", "properties": {"a": {"enum": [value]}}}
        got = function_properties({"name": "enum_tool", "parameters": params})
        assert schema_types(got["a"]) == types
    plain = {"type": "object", "properties": {"a": {"type": "integer"}}}
    first = function_properties({"name": "plain_tool", "parameters": plain})
    again = {"type": "object", "properties": {"a": {"type": "integer"}}}
    assert function_properties({"name": "plain_tool", "parameters": again}) is first


def test_the_first_definition_of_a_tool_name_types_its_calls() -> None:
    first = {"type": "object", "properties": {"n": {"type": "integer"}}}
    tools = [{"function": {"name": "f", "parameters": first}},
             {"function": {"name": "f", "parameters": {"type": "object", "properties": {
                 "n": {"type": "string"}}}}},
             {"function": {"name": 7}}, "not a tool"]
    typing = ToolTyping(tools)
    assert typing.names == {"f"}
    assert dict(typing.properties("f")) == dict(tool_properties(tools, "f"))
    assert schema_types(typing.properties("f")["n"]) == {"integer"}
    assert typing.properties("g") is None


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(-10**40, 10**40)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(value=_JSON_VALUES)
def test_to_json_is_what_json_dumps_writes(value: Any) -> None:
    """Every value the writer writes (scalars on their own path) is json.dumps's text."""
    assert to_json(value) == json.dumps(value, ensure_ascii=False)
