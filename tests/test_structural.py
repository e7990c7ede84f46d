"""Structural tags (xgrammar's format, as plain data) built from the specs' render templates.

No xgrammar here: tests/integration/test_structural.py compiles the tags and runs
rendered calls through them where xgrammar imports.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import parsergen
from parsergen.runtime.structural import structural_tag

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city", "days"]}}}
SEARCH = {"type": "function", "function": {"name": "search", "parameters": {
    "type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}}
TOOLS = [WEATHER, SEARCH]
SCHEMA = WEATHER["function"]["parameters"]
# Formats xgrammar has no style for (minicpm5: <param name=..> with CDATA; SGLang enables
# no structural tag for MiniCPM5 either; muse: <atem:parameter> elements, and vLLM's muse
# parser opts out of required/named constraints, supports_required_and_named = False;
# dots: stripped values, which no xgrammar XML style reads, and vLLM's dots parser sets
# supports_required_and_named = False too).
NO_TAG = ("dots", "functiongemma", "gemma4", "k2_horizon", "kimi_k3", "lfm2", "llama4_pythonic",
          "minicpm5", "muse", "muse_glimmer", "olmo3", "pythonic", "step3")


def tag(name: str, choice: Any = "required", tools: Any = TOOLS) -> Any:
    return parsergen.structural_tag(name, tools, tool_choice=choice)


def args(style: str, schema: Any = SCHEMA) -> dict[str, Any]:
    return {"type": "json_schema", "json_schema": schema, "style": style}


def call_formats() -> list[str]:
    return [n for n in parsergen.formats() if parsergen.load(n).RENDERER.call is not None]


def test_hermes_calls_are_its_render_template() -> None:
    # <tool_call>\n{"name": ..., "arguments": ...}\n</tool_call>, separated by "\n".
    assert tag("hermes") == {"type": "structural_tag", "format": {
        "type": "tags_with_separator", "separator": "\n", "at_least_one": True,
        "stop_after_first": False, "tags": [
            {"type": "tag", "begin": '<tool_call>\n{"name": "get_weather", "arguments": ',
             "content": args("json"), "end": "}\n</tool_call>"},
            {"type": "tag", "begin": '<tool_call>\n{"name": "search", "arguments": ',
             "content": args("json", SEARCH["function"]["parameters"]),
             "end": "}\n</tool_call>"}]}}


def test_hermes_auto_triggers_on_the_call_marker() -> None:
    fmt = tag("hermes", "auto")["format"]
    assert fmt["type"] == "triggered_tags" and fmt["triggers"] == ["<tool_call>"]
    assert [t["begin"] for t in fmt["tags"]] == [
        '<tool_call>\n{"name": "get_weather", "arguments": ',
        '<tool_call>\n{"name": "search", "arguments": ']


def test_llama3_json_has_no_marker_so_its_envelope_text_triggers() -> None:
    fmt = tag("llama3_json", "auto")["format"]
    assert fmt["triggers"] == ['{"name": ']
    assert fmt["tags"][0] == {"type": "tag",
                              "begin": '{"name": "get_weather", "parameters": ',
                              "content": args("json"), "end": "}"}
    assert tag("llama3_json")["format"]["separator"] == "; "


def test_mistral_call_has_no_end() -> None:
    first = tag("mistral")["format"]["tags"][0]
    assert first == {"type": "tag", "begin": "[TOOL_CALLS]get_weather[ARGS]",
                     "content": args("json"), "end": ""}


def test_kimi_k2_section_wraps_calls_and_its_index_is_digits() -> None:
    fmt = tag("kimi_k2", "auto")["format"]
    assert fmt["triggers"] == ["<|tool_calls_section_begin|>"]
    (section,) = fmt["tags"]
    assert section["begin"] == "<|tool_calls_section_begin|>"
    assert section["end"] == "<|tool_calls_section_end|>"
    call = section["content"]["tags"][0]
    assert call["begin"] == "<|tool_call_begin|>functions.get_weather:"
    assert call["content"] == {"type": "sequence", "elements": [
        {"type": "regex", "pattern": "[0-9]+"},
        {"type": "const_string", "value": "<|tool_call_argument_begin|>"}, args("json")]}
    assert call["end"] == "<|tool_call_end|>"


def test_deepseek_v3_required_is_one_section() -> None:
    fmt = tag("deepseek_v3")["format"]
    assert fmt["type"] == "tag"
    assert (fmt["begin"], fmt["end"]) == ("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>")
    call = fmt["content"]["tags"][0]
    assert call["begin"] == "<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
    assert call["end"] == "\n```<｜tool▁call▁end｜>"
    assert fmt["content"]["at_least_one"] is True


def test_qwen3_parameters_use_xgrammars_qwen_xml_style() -> None:
    call = tag("qwen3")["format"]["tags"][0]
    assert call == {"type": "tag", "begin": "<tool_call>\n<function=get_weather>\n",
                    "content": args("qwen_xml"), "end": "</function>\n</tool_call>"}


@pytest.mark.parametrize("name", NO_TAG)
def test_formats_whose_arguments_xgrammar_cannot_read_have_none(name: str) -> None:
    assert parsergen.load(name).ChatParser.SYNTAX.structural_style() is None
    for choice in ("auto", "required", "get_weather"):
        assert tag(name, choice) is None


def test_every_other_format_with_calls_has_a_tag() -> None:
    have = {n for n in call_formats() if tag(n) is not None}
    assert have == set(call_formats()) - set(NO_TAG)


@pytest.mark.parametrize("name", [n for n in call_formats() if n not in NO_TAG])
def test_each_calls_constants_are_its_render(name: str) -> None:
    """A call's begin starts and its end finishes the module's own render of it."""
    module = parsergen.load(name)
    fmt = tag(name, "get_weather")["format"]
    calls = fmt["content"] if fmt["type"] == "tag" else fmt
    assert calls["stop_after_first"] is True
    (call,) = calls["tags"]
    empty = module.render({})
    text = module.render({"tool_calls": [{"function": {
        "name": "get_weather", "arguments": {"city": "Paris", "days": 3}}}]})[len(empty):]
    if fmt["type"] == "tag":
        assert text.startswith(fmt["begin"]) and text.endswith(fmt["end"])
        text = text[len(fmt["begin"]):len(text) - len(fmt["end"])]
    assert text.startswith(call["begin"]) and text.endswith(call["end"])


def test_named_choice_keeps_only_that_tool() -> None:
    for choice in ("search", {"type": "function", "function": {"name": "search"}}):
        fmt = tag("hermes", choice)["format"]
        assert [t["begin"] for t in fmt["tags"]] == [
            '<tool_call>\n{"name": "search", "arguments": ']
        assert fmt["stop_after_first"] is True


def test_choices_without_a_tag_and_bad_choices() -> None:
    assert tag("hermes", "none") is None
    assert tag("hermes", "auto", tools=[]) is None
    with pytest.raises(ValueError, match="no function tools"):
        tag("hermes", "required", tools=[])
    with pytest.raises(ValueError, match="'nope'"):
        tag("hermes", "nope")


def test_tools_as_objects_and_non_strict_tools() -> None:
    class Model:
        def model_dump(self) -> dict[str, Any]:
            return WEATHER

    assert tag("hermes", tools=[Model()]) == tag("hermes", tools=[WEATHER])
    loose = {"type": "function", "function": dict(WEATHER["function"], strict=False)}
    assert tag("hermes", tools=[loose])["format"]["tags"][0]["content"] == args(
        "json", {"type": "object"})
    bare = {"type": "function", "function": {"name": "ping"}}
    assert tag("hermes", tools=[bare])["format"]["tags"][0]["content"] == args(
        "json", {"type": "object"})


def test_tags_are_plain_json() -> None:
    for name in call_formats():
        for choice in ("auto", "required", "search"):
            value = tag(name, choice)
            assert value is None or json.loads(json.dumps(value)) == value
