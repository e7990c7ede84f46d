"""Variants real models write that a format's own syntax does not (#16 item 5): an
envelope's "args" key, Gemma 4 values in JSON quotes, Kimi arguments as a JSON string,
doubled DSML bars, GLM tags a model dropped.

Each case is parsed whole and streamed one character per delta; both must give the
message the model meant.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import parsergen
from parsergen.runtime.arguments.envelope import ARGUMENT_KEYS, EnvelopeArguments
from parsergen.runtime.arguments.writer import ArgumentsWriter
from test_model_writes import both, calls  # parse() equals the per-character stream


def warnings(fmt: str, text: str, **kwargs: Any) -> list[str]:
    """The warnings of parsing ``text`` whole."""
    parser = parsergen.load(fmt).ChatParser(**kwargs)
    parser.complete(text)
    return parser.warnings


def tool(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": {
        "type": "object", "properties": properties}}}


# -- JSON envelopes: the members that hold the arguments are the spec's data ------------

def _envelope(text: str, **kwargs: Any) -> tuple[str | None, Any]:
    reader = EnvelopeArguments(lambda name: ArgumentsWriter(None), **kwargs)
    out = "".join(reader.feed(ch) for ch in text) + reader.finish()
    return reader.name, json.loads(out)


def test_envelope_default_keys_include_args() -> None:
    assert ARGUMENT_KEYS == ("arguments", "parameters", "args")
    for key in ARGUMENT_KEYS:
        assert _envelope(f'{{"name": "f", "{key}": {{"a": 1}}}}') == ("f", {"a": 1})


def test_envelope_reads_only_the_keys_it_is_given() -> None:
    assert _envelope('{"name": "f", "args": {"a": 1}}', argument_keys=("arguments",)) == (
        "f", {})


def test_envelope_first_arguments_member_written_wins() -> None:
    text = '{"name": "f", "args": {"a": 1}, "arguments": {"b": 2}}'
    assert _envelope(text) == ("f", {"a": 1})


@pytest.mark.parametrize("key", ["arguments", "parameters", "args"])
def test_hermes_reads_every_declared_arguments_key(key: str) -> None:
    text = f'<tool_call>\n{{"name": "ha_call_service", "{key}": {{"action": "off"}}}}\n</tool_call>'
    msg = both("hermes", text)
    assert calls(msg) == [("ha_call_service", {"action": "off"})]
    assert not msg.content


def test_a_spec_without_args_keeps_its_own_keys() -> None:
    spec = parsergen.load("mistral_pre_v11").ChatParser.ARGUMENTS
    assert spec["argument_keys"] == ["arguments"]


# -- Gemma 4: values in plain JSON double quotes ----------------------------------------

def _gemma(args: str, tools: Any = None) -> Any:
    return both("gemma4", f"<|tool_call>call:f{{{args}}}<tool_call|>", tools=tools)


@pytest.mark.parametrize("args, value", [
    ('command:"ls"', {"command": "ls"}),
    ('memory: "The user\'s name is John."', {"memory": "The user's name is John."}),
    ('a:"x, y}",b:2', {"a": "x, y}", "b": 2}),
    ('a:"say \\"hi\\"\\n" ,b:"<|\\"|>"', {"a": 'say "hi"\n', "b": '<|"|>'}),
    ('n:"25"', {"n": "25"}),
    ('a:["x",1,{b:"y"}]', {"a": ["x", 1, {"b": "y"}]}),
    ('a:["x]", {b: "y}\\"]"}],c:1', {"a": ["x]", {"b": 'y}"]'}], "c": 1}),
])
def test_gemma4_json_quoted_value_is_that_string(args: str, value: Any) -> None:
    assert calls(_gemma(args)) == [("f", value)]


@pytest.mark.parametrize("args, value", [
    ('size:"5" inches', {"size": '"5" inches'}),  # not a whole JSON string: a bare word
    ('size:5"', {"size": '5"'}),
    ('a:"open', {"a": '"open'}),  # never closed: the words as written
    ('a:"bad \\q"', {"a": '"bad \\q"'}),  # no JSON escape
])
def test_gemma4_quote_that_is_no_json_string_stays_a_word(args: str, value: Any) -> None:
    assert calls(_gemma(args)) == [("f", value)]


def test_gemma4_json_quoted_value_typed_by_the_schema() -> None:
    tools = [tool("f", {"n": {"type": "integer"}, "s": {"type": "string"}})]
    assert calls(_gemma('n:"25",s:"ls"', tools)) == [("f", {"n": 25, "s": "ls"})]
    assert calls(_gemma('s:"5" inches', tools)) == [("f", {"s": '"5" inches'})]


# -- JSON arguments written as a JSON string --------------------------------------------

KIMI = ("<|tool_calls_section_begin|><|tool_call_begin|>functions.{name}:0"
        "<|tool_call_argument_begin|>{args}<|tool_call_end|><|tool_calls_section_end|>")


def test_kimi_k2_string_encoded_arguments_are_the_object_they_hold() -> None:
    args = json.dumps(json.dumps({"todos": [{"id": "a", "status": "done"}], "n": 1}))
    text = KIMI.format(name="TodoWrite", args=args)
    msg = both("kimi_k2", text, thinking=False)
    assert calls(msg) == [("TodoWrite", {"todos": [{"id": "a", "status": "done"}], "n": 1})]
    assert warnings("kimi_k2", text, thinking=False) == [
        "tool call 0: arguments written as a JSON string"]


def test_string_encoded_arguments_are_typed_by_the_schema() -> None:
    tools = [tool("f", {"n": {"type": "integer"}})]
    args = json.dumps('{"n": "3"}')
    msg = both("kimi_k2", KIMI.format(name="f", args=args), tools=tools, thinking=False)
    assert calls(msg) == [("f", {"n": 3})]


@pytest.mark.parametrize("args", ['"hello"', '"[1, 2]"'])
def test_string_that_holds_no_object_gives_no_arguments(args: str) -> None:
    text = KIMI.format(name="f", args=args)
    assert calls(both("kimi_k2", text, thinking=False)) == [("f", {})]
    assert "not a JSON object" in " ".join(warnings("kimi_k2", text, thinking=False))


def test_string_that_holds_a_cut_object_invents_nothing() -> None:
    text = KIMI.format(name="f", args='"{\\"a\\": 1, \\"b\\": "')
    assert calls(both("kimi_k2", text, thinking=False)) == [("f", {"a": 1})]


def test_string_encoded_arguments_in_a_plain_json_format() -> None:
    text = '<tool_call>\n{"name": "f", "arguments": "\\"{\\\\\\"a\\\\\\": 1}\\""}\n</tool_call>'
    assert calls(both("hermes", text)) == [("f", {"a": 1})]  # encoded twice, decoded twice


# -- tags in several spellings: DeepSeek V4.1's doubled fullwidth bars -------------------

def _v41(bars: str) -> str:
    d = f"{bars}DSML{bars}"
    return (f"Reading.\n\n<{d} calls>\n<{d} invoke name=\"read\">\n"
            f"<{d} parameter name=\"path\" string=\"true\">/tmp/a </{d} calls></{d} parameter>\n"
            f"<{d} parameter name=\"n\" string=\"false\">3</{d} parameter>\n"
            f"</{d} invoke>\n</{d} calls>")


@pytest.mark.parametrize("bars", ["｜", "｜｜"])
def test_deepseek_v41_reads_both_spellings_of_its_tags(bars: str) -> None:
    msg = both("deepseek_v41", _v41(bars), thinking=False)
    assert calls(msg) == [("read", {"path": f"/tmp/a </{bars}DSML{bars} calls>", "n": 3})]
    assert msg.content.strip() == "Reading."


def test_deepseek_v41_renders_the_canonical_spelling() -> None:
    module = parsergen.load("deepseek_v41")
    msg = module.ChatParser(thinking=False).complete(_v41("｜｜"))
    text = module.render(msg)
    assert "<｜｜DSML" not in text and '<｜DSML｜ parameter name="n"' in text
    assert module.ChatParser.SYNTAX.structural_style() == "deepseek_v4_1_xml"


def test_tagged_arguments_read_every_spelling_of_open_and_close() -> None:
    from parsergen.runtime.arguments.xml_parameters_reader import TaggedArguments

    reader = TaggedArguments(ArgumentsWriter(None), open=("<p=", "<param="), name_end=">",
                             close=("</p>", "</param>"))
    text = "<p=a>1</param><param=b>2<p=c>3</p>"
    out = "".join(reader.feed(ch) for ch in text) + reader.finish()
    assert json.loads(out) == {"a": "1", "b": "2", "c": "3"}


# -- GLM: a dropped <arg_value> or <arg_key> ---------------------------------------------

@pytest.mark.parametrize("args, value", [
    ("<arg_key>query</arg_key>how many days</arg_value>", {"query": "how many days"}),
    ("<arg_key>query</arg_key>\n how many days</arg_value>", {"query": "how many days"}),
    ("<arg_key>a</arg_key>x</arg_value><arg_key>b</arg_key><arg_value>y</arg_value>",
     {"a": "x", "b": "y"}),
    ("<arg_key>a</arg_key><arg_value>x</arg_value><arg_key>b</arg_key>y</arg_value>",
     {"a": "x", "b": "y"}),
    ("<arg_key>a</arg_key></arg_value>", {"a": ""}),
    ("<arg_key>a</arg_key><arg_value>x</tool_call> y</arg_value>", {"a": "x</tool_call> y"}),
    ("<arg_key>a</arg_key>x</tool_call> y</arg_value>", {"a": "x</tool_call> y"}),
])
def test_glm_value_without_its_open_tag_runs_to_its_close_tag(args: str, value: Any) -> None:
    msg = both("glm47_moe", f"<tool_call>search{args}</tool_call>", thinking=False)
    assert calls(msg) == [("search", value)]
    assert not msg.content


SHELL = [tool("send_command_to_shell", {"command": {"type": "string"}}),
         tool("send_command", {"x": {"type": "string"}}),
         tool("browser_action", {"task": {"type": "string"}, "n": {"type": "integer"}})]


@pytest.mark.parametrize("text, meant", [
    ("<tool_call>send_command_to_shellcommand</arg_key><arg_value>echo test</arg_value>"
     "</tool_call>", [("send_command_to_shell", {"command": "echo test"})]),
    ("<tool_call>browser_action task</arg_key><arg_value>open</arg_value>\n"
     "<arg_key>n</arg_key><arg_value>2</arg_value></tool_call>",
     [("browser_action", {"task": "open", "n": 2})]),
    ("<tool_call>browser_actiontask</arg_key>open</arg_value></tool_call>",
     [("browser_action", {"task": "open"})]),  # both open tags left out
])
def test_glm_key_run_into_the_name_is_split_at_a_requested_tool(text: str, meant: Any) -> None:
    msg = both("glm47_moe", text, tools=SHELL, thinking=False)
    assert calls(msg) == meant
    assert not msg.content


def test_glm_name_split_only_at_a_requested_tool() -> None:
    # No requested tool's name starts the name: no call (validate_tool_names), content.
    text = "<tool_call>run_shellcommand</arg_key><arg_value>ls</arg_value></tool_call>"
    msg = both("glm47_moe", text, tools=SHELL, thinking=False)
    assert (calls(msg), msg.content) == ([], text)
    # The name is a requested tool's, whole: there is no key to read.
    text = "<tool_call>browser_action</arg_key><arg_value>ls</arg_value></tool_call>"
    assert calls(both("glm47_moe", text, tools=SHELL, thinking=False)) == [
        ("browser_action", {})]


def test_glm_well_formed_call_is_not_split() -> None:
    text = ("<tool_call>send_command<arg_key>x</arg_key><arg_value>1</arg_value></tool_call>")
    assert calls(both("glm47_moe", text, tools=SHELL, thinking=False)) == [
        ("send_command", {"x": "1"})]


def test_a_syntax_without_keys_in_names_never_splits() -> None:
    tools = [tool("get", {})]
    text = ('<tool_call>\n{"name": "getcity", "arguments": {}}\n</tool_call>')
    assert calls(both("hermes", text, tools=tools)) == [("getcity", {})]


# -- Kimi K2.5: a call id that lost its '.' and ':' ---------------------------------------

def _kimi_glued(*names: str) -> str:
    calls_text = "".join(f"<|tool_call_begin|>{n}<|tool_call_argument_begin|>{{}}<|tool_call_end|>"
                         for n in names)
    return f"<|tool_calls_section_begin|>{calls_text}<|tool_calls_section_end|>"


@pytest.mark.parametrize("written, tools, name", [
    ("functionsexec5", ["exec"], "exec"),
    ("functionsexec", ["exec"], "exec"),
    ("functionsexec_long12", ["exec", "exec_long"], "exec_long"),
    ("functionsexec25", ["exec", "exec2"], "functionsexec25"),  # two fit: as written
    ("functionsexec5", [], "functionsexec5"),  # no tools: as written
    ("functionsrun5", ["exec"], "functionsrun5"),
    ("functions.exec:5", ["exec"], "exec"),
])
def test_kimi_name_without_separators_names_the_one_requested_tool(
        written: str, tools: list[str], name: str) -> None:
    msg = both("kimi_k2", _kimi_glued(written), tools=[tool(t, {}) for t in tools] or None,
               thinking=False)
    assert calls(msg) == [(name, {})]


def test_kimi_glued_names_get_their_own_ids() -> None:
    module = parsergen.load("kimi_k2")
    msg = module.ChatParser(tools=[tool("exec", {})], thinking=False).complete(
        _kimi_glued("functionsexec5", "functionsexec6", "functions.exec:7"))
    assert [c.name for c in msg.tool_calls] == ["exec"] * 3
    assert msg.tool_calls[2].id == "functions.exec:7"
    assert len({c.id for c in msg.tool_calls}) == 3
