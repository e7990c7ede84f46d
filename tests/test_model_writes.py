"""The rest of what models write (#16 item 5), format by format.

Each case is parsed whole and streamed one character per delta; both must give the
message the model meant.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import parsergen
from parsergen.runtime import accumulate
from parsergen.runtime.arguments.notation_reader import NotationArguments
from parsergen.runtime.arguments.notation_values import bare_value
from parsergen.runtime.arguments.scanning import unescape_xml
from parsergen.runtime.arguments.writer import ArgumentsWriter


def both(fmt: str, text: str, tools: Any = None, **kwargs: Any) -> Any:
    """parse() of ``text``, asserted equal to the same text streamed per character."""
    module = parsergen.load(fmt)
    whole = module.ChatParser(tools=tools, ids="sequential", **kwargs).complete(text)
    streamed = module.ChatParser(tools=tools, ids="sequential", **kwargs)
    per_char = accumulate([streamed.feed(ch) for ch in text] + [streamed.finish()])
    assert (per_char.reasoning, per_char.content) == (whole.reasoning, whole.content)
    assert [(c.name, json.loads(c.arguments)) for c in per_char.tool_calls] == [
        (c.name, json.loads(c.arguments)) for c in whole.tool_calls]
    return whole


def calls(message: Any) -> list[tuple[str, Any]]:
    return [(c.name, json.loads(c.arguments)) for c in message.tool_calls]


def tool(name: str, properties: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": name, "parameters": {
        "type": "object", "properties": properties}}}]


# -- Gemma 4: bare values typed by their notation ------------------------------------

Q = '<|"|>'


@pytest.mark.parametrize("word, value", [
    ("25", 25), ("-3", -3), ("1.5", 1.5), ("2e3", 2000.0), ("true", True),
    ("false", False), ("null", None), ("Paris", "Paris"), ("1e400", "1e400"),
    ("inf", "inf"), ("NaN", "NaN"), ("True", "True"), ("0x10", "0x10"), ("", ""),
    ("12 apples", "12 apples"),
])
def test_gemma4_bare_word(word: str, value: Any) -> None:
    assert bare_value(word) == value
    if value is not None and not isinstance(value, bool):
        assert type(bare_value(word)) is type(value)


def test_gemma4_bare_values_typed_at_every_depth_without_a_schema() -> None:
    text = (f"<|tool_call>call:set{{temp:25,on:true,off:false,none:null,ratio:0.5,"
            f"city:{Q}Paris{Q},quoted:{Q}25{Q},word:warm ,"
            f"nested:{{level:{{deep:[1,{Q}2{Q},true,null,x,{{n:-7}}]}},z:3}}}}<tool_call|>")
    message = both("gemma4", text)
    assert calls(message) == [("set", {
        "temp": 25, "on": True, "off": False, "none": None, "ratio": 0.5, "city": "Paris",
        "quoted": "25", "word": "warm",
        "nested": {"level": {"deep": [1, "2", True, None, "x", {"n": -7}]}, "z": 3}})]
    # Key order as written, at every depth.
    args = message.tool_calls[0].arguments
    assert list(json.loads(args)) == ["temp", "on", "off", "none", "ratio", "city", "quoted",
                                      "word", "nested"]
    assert list(json.loads(args)["nested"]) == ["level", "z"]


def test_gemma4_schema_still_types_bare_values() -> None:
    tools = tool("set", {"temp": {"type": "string"}, "n": {"type": "number"},
                         "o": {"type": "object", "properties": {"k": {"type": "string"}}}})
    text = f"<|tool_call>call:set{{temp:25,n:{Q}7{Q},o:{{k:true,j:true}},other:4}}<tool_call|>"
    assert calls(both("gemma4", text, tools)) == [
        ("set", {"temp": "25", "n": 7, "o": {"k": "true", "j": True}, "other": 4})]


def test_gemma4_bare_value_cut_by_the_end_of_the_call_is_whole() -> None:
    # The closing brace ends the value; a word left open at the end is still typed.
    writer = ArgumentsWriter(None)
    reader = NotationArguments(writer, delimiter=Q)
    out = reader.feed("a:1") + reader.feed("2,b:tr") + reader.feed("ue") + reader.finish()
    assert out == json.dumps({"a": 12, "b": True})


# -- Kimi K3: XML character references in attribute values ---------------------------

def test_unescape_xml() -> None:
    assert unescape_xml("a&amp;b &lt;c&gt; &quot;d&quot; &apos;e&apos;") == "a&b <c> \"d\" 'e'"
    assert unescape_xml("&#65;&#x42;&#X43;") == "ABC"
    # Not a reference XML defines, or not a character: kept as written.
    for kept in ("&copy;", "&amp", "AT&T", "&#0;", "&#xD800;", "&#x110000;", "&#;"):
        assert unescape_xml(kept) == kept
    assert unescape_xml("&amp;lt;") == "&lt;"  # decoded once


K3 = "<|open|>tools<|sep|>{}<|close|>tools<|sep|>"


def k3_call(attrs: str, arguments: str) -> str:
    return f"<|open|>call {attrs}<|sep|>{arguments}<|close|>call<|sep|>"


def k3_arg(attrs: str, value: str) -> str:
    return f"<|open|>argument {attrs}<|sep|>{value}<|close|>argument<|sep|>"


def test_kimi_k3_attribute_values_unescaped() -> None:
    text = K3.format(k3_call(
        'tool="search&amp;replace&#95;v2" index="1"',
        k3_arg('key="a&quot;b&lt;c&gt;&apos;" type="string"', "x &amp; y &lt;z&gt;")
        + k3_arg('key="n&#x41;" type="integer"', "3")))
    message = both("kimi_k3", text, thinking=False)
    # Attribute values are escaped by the template; a string value is raw text.
    assert calls(message) == [("search&replace_v2", {"a\"b<c>'": "x &amp; y &lt;z&gt;",
                                                     "nA": 3})]


def test_kimi_k3_escaped_key_is_typed_by_its_schema() -> None:
    tools = tool("f", {"a&b": {"type": "integer"}})
    text = K3.format(k3_call('tool="f" index="1"', k3_arg('key="a&amp;b" type="string"', "4")))
    assert calls(both("kimi_k3", text, tools, thinking=False)) == [("f", {"a&b": 4})]


def test_kimi_k3_render_escapes_what_parsing_unescapes() -> None:
    module = parsergen.load("kimi_k3")
    message = parsergen.runtime.ParsedMessage(
        reasoning=None, content=None, tool_calls=(parsergen.runtime.ToolCall(
            id="x", name="f", arguments=json.dumps({'q"<&>': "a&amp;"})),))
    text = module.render(message, thinking=False)
    assert 'key="q&quot;&lt;&amp;&gt;"' in text
    assert calls(both("kimi_k3", text, thinking=False)) == [("f", {'q"<&>': "a&amp;"})]


# -- DeepSeek V4: a self-closing invoke is a call with {} ----------------------------

@pytest.mark.parametrize("fmt, dsml, wrapper", [
    ("deepseek_v32", "｜DSML｜", "function_calls"),
    ("deepseek_v4", "｜DSML｜", "tool_calls"),
    ("deepseek_v4", "｜｜DSML｜｜", "tool_calls"),   # as the DeepSeek API returns it
    ("deepseek_v41", "｜DSML｜ ", "calls"),
    ("deepseek_v41", "｜｜DSML｜｜ ", "calls"),
])
def test_deepseek_v4_self_closing_invoke(fmt: str, dsml: str, wrapper: str) -> None:
    text = (f"Checking.\n\n<{dsml}{wrapper}>\n<{dsml}invoke name=\"get_time\"/>\n"
            f"<{dsml}invoke name=\"f\">\n<{dsml}parameter name=\"a\" string=\"true\">x"
            f"</{dsml}parameter>\n<{dsml}parameter name=\"e\" string=\"true\"/>\n"
            f"</{dsml}invoke>\n<{dsml}invoke name=\"now\"/>\n</{dsml}{wrapper}>")
    message = both(fmt, text, thinking=False)
    assert calls(message) == [("get_time", {}), ("f", {"a": "x", "e": ""}), ("now", {})]
    assert message.content == "Checking.\n\n"


# -- DSML: an invoke whose arguments are one JSON object ----------------------------
# SGLang's DeepSeekV32Detector reads "Direct JSON" invokes
# (<｜DSML｜invoke name="f">{"city": "San Francisco"}</｜DSML｜invoke>); the JSON members
# are the arguments, typed by the tool's schema, streamed or not.

@pytest.mark.parametrize("fmt, dsml, wrapper", [
    ("deepseek_v32", "｜DSML｜", "function_calls"),
    ("deepseek_v4", "｜DSML｜", "tool_calls"),
    ("deepseek_v41", "｜DSML｜ ", "calls"),
])
def test_dsml_invoke_with_json_arguments(fmt: str, dsml: str, wrapper: str) -> None:
    text = (f"<{dsml}{wrapper}>\n<{dsml}invoke name=\"get_weather\">\n"
            '{"city": "San Francisco", "days": "3", "units": {"t": "C"}}\n'
            f"</{dsml}invoke>\n</{dsml}{wrapper}>")
    tools = tool("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}})
    assert calls(both(fmt, text, tools, thinking=False)) == [
        ("get_weather", {"city": "San Francisco", "days": 3, "units": {"t": "C"}})]


@pytest.mark.parametrize("body", [
    "{not json}", '{"a": NaN}', "[1, 2]", '"text"', 'hello {"a": 1}'])
def test_dsml_invoke_with_other_loose_text_has_no_arguments(body: str) -> None:
    text = (f"<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n{body}\n"
            "</｜DSML｜invoke>\n</｜DSML｜function_calls>")
    assert calls(both("deepseek_v32", text, thinking=False)) == [("f", {})]


def test_dsml_json_text_before_a_parameter_is_not_the_arguments() -> None:
    text = ('<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n{"a": 1}\n'
            '<｜DSML｜parameter name="b" string="true">x</｜DSML｜parameter>\n'
            "</｜DSML｜invoke>\n</｜DSML｜function_calls>")
    assert calls(both("deepseek_v32", text, thinking=False)) == [("f", {"b": "x"})]


def test_qwen3_function_with_json_arguments() -> None:
    text = '<tool_call>\n<function=get_weather>\n{"city": "Paris"}\n</function>\n</tool_call>'
    assert calls(both("qwen3", text, thinking=False)) == [("get_weather", {"city": "Paris"})]


# -- Kimi K2-Thinking: calls inside <think>, with or without the section marker -----
# huggingface.co/moonshotai/Kimi-K2-Thinking: "interleave chain-of-thought reasoning with
# function calls"; vllm-project/vllm#32216 (a <|tool_call_begin|> with the section
# wrapper omitted ends the reasoning).

KIMI_CALL = ('<|tool_call_begin|>functions.list_directory:0<|tool_call_argument_begin|>'
             '{"path": "/src"}<|tool_call_end|>')


@pytest.mark.parametrize("text", [
    "<think>Let me look at the files." + KIMI_CALL + "<|tool_calls_section_end|></think>",
    "<think>Let me look at the files." + KIMI_CALL + "</think>",
    "<think>Let me look at the files.<|tool_calls_section_begin|>" + KIMI_CALL
    + "<|tool_calls_section_end|></think>",
    "Let me look at the files." + KIMI_CALL,
])
@pytest.mark.parametrize("with_ids", [False, True])
def test_kimi_k2_thinking_call_inside_reasoning(text: str, with_ids: bool,
                                                get_tokenizer: Any) -> None:
    tokenizer = get_tokenizer("kimi_k2") if with_ids else None
    module = parsergen.load("kimi_k2")
    ids = tokenizer.encode(text, add_special_tokens=False) if tokenizer else None
    message = module.parse(text, tokenizer=tokenizer, token_ids=ids, thinking=True)
    assert (message.reasoning, message.content) == ("Let me look at the files.", None)
    assert calls(message) == [("list_directory", {"path": "/src"})]
    assert calls(both("kimi_k2", text, thinking=True)) == calls(message)


def test_kimi_k2_call_without_its_section_in_content() -> None:
    message = both("kimi_k2", "Checking." + KIMI_CALL + " Done.", thinking=False)
    assert (message.reasoning, message.content) == (None, "Checking. Done.")
    assert calls(message) == [("list_directory", {"path": "/src"})]


# -- Ling 3: <|role_end|> ends the turn ----------------------------------------------
# Ling's chat template closes every turn with <|role_end|> (<role>ASSISTANT</role> ...
# <|role_end|>); written out, it is the end of the turn, not content.

@pytest.mark.parametrize("text, reasoning, content", [
    ("<think>Short.</think>Seoul.<|role_end|>", "Short.", "Seoul."),
    ("Still thinking<|role_end|>", "Still thinking", None),
])
def test_ling3_role_end_is_no_content(text: str, reasoning: str, content: str | None) -> None:
    route = parsergen.route("inclusionAI/Ling-3.0-flash")
    assert route is not None and route.format == "glm47_moe"
    message = both("ling3", text, thinking=route.thinking())
    assert (message.reasoning, message.content) == (reasoning, content)


def test_ling3_role_end_after_a_call() -> None:
    text = ("<think>Look it up.</think><tool_call>get_weather<arg_key>city</arg_key>"
            "<arg_value>Seoul</arg_value></tool_call><|role_end|>")
    message = both("ling3", text, tool("get_weather", {"city": {"type": "string"}}),
                   thinking=True)
    assert (message.reasoning, message.content) == ("Look it up.", None)
    assert calls(message) == [("get_weather", {"city": "Seoul"})]


# -- Llama 3.x: Meta's documented {"type": "function", ...} call, bare ---------------
# github.com/meta-llama/llama-models models/llama3_3/prompt_format.md: the model answers
# {"type": "function", "name": ..., "parameters": {...}}; written without <|python_tag|>
# it is a call too, and "type" is no argument.

@pytest.mark.parametrize("prefix, content", [
    ("", None), ("<|python_tag|>", None), ("Let me look it up. ", "Let me look it up.")])
def test_llama3_type_function_call(prefix: str, content: str | None) -> None:
    text = (prefix + '{"type": "function", "name": "get_weather", '
            '"parameters": {"city": "San Francisco", "days": "3"}}')
    tools = tool("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}})
    message = both("llama3_json", text, tools)
    assert calls(message) == [("get_weather", {"city": "San Francisco", "days": 3})]
    assert message.content == content


def test_llama3_type_function_object_without_a_name_stays_content() -> None:
    text = '{"type": "function", "description": "not a call"}'
    message = both("llama3_json", text)
    assert (message.content, calls(message)) == (text, [])


# -- Kimi K3: the think channel closed without its <|sep|> --------------------------
# sgl-project/sglang#32757: the model emitted <|close|>think<|open|>response<|sep|>; the
# close marker without <|sep|> still ends the reasoning, and is no text.

@pytest.mark.parametrize("after", [
    "<|open|>response<|sep|>The answer is 4.<|close|>response<|sep|>",
    "The answer is 4.",
    "\nThe answer is 4.",
])
@pytest.mark.parametrize("with_ids", [False, True])
def test_kimi_k3_think_closed_without_sep(after: str, with_ids: bool,
                                          get_tokenizer: Any) -> None:
    text = "2 + 2 is 4.<|close|>think" + after
    tokenizer = get_tokenizer("kimi_k3") if with_ids else None
    ids = tokenizer.encode(text, add_special_tokens=False) if tokenizer else None
    message = parsergen.load("kimi_k3").parse(text, tokenizer=tokenizer, token_ids=ids)
    assert (message.reasoning, (message.content or "").strip()) == ("2 + 2 is 4.",
                                                                   "The answer is 4.")
    assert both("kimi_k3", text).content == message.content


def test_kimi_k3_reasoning_ids_end_at_either_close_spelling(get_tokenizer: Any) -> None:
    tokenizer = get_tokenizer("kimi_k3")
    parser = parsergen.load("kimi_k3").StreamingParser(tokenizer)

    def ids(text: str) -> list[int]:
        return tokenizer.encode(text, add_special_tokens=False)

    for close in ("<|close|>think<|sep|>", "<|close|>think"):
        done = ids(f"hmm{close}<|open|>response<|sep|>Hi")
        assert parser.is_reasoning_end(done)
        assert parser.extract_content_ids(done) == ids("<|open|>response<|sep|>Hi")


# -- A reasoning end marker written after content text -----------------------------

def test_end_marker_after_content_text_is_the_formats_business() -> None:
    message = both("minimax_m3", "Short.</mm:think>The answer.</mm:think>", thinking=True)
    assert (message.reasoning, message.content) == ("Short.", "The answer.</mm:think>")


# -- Pythonic: a list of calls after prose ------------------------------------------

@pytest.mark.parametrize("fmt", ["pythonic", "llama4_pythonic"])
@pytest.mark.parametrize("before, after", [
    ("I'll check. ", ""), ("I'll check.\n", ""), ("I'll check: ", " Done."), ("", "")])
def test_pythonic_list_after_prose(fmt: str, before: str, after: str) -> None:
    text = f"{before}[get_weather(city='Paris'), get_time(zone=\"CET\")]{after}"
    message = both(fmt, text)
    assert calls(message) == [("get_weather", {"city": "Paris"}), ("get_time", {"zone": "CET"})]
    assert message.content == ((before + after).strip() or None)  # the text around, verbatim


@pytest.mark.parametrize("text", [
    "The list [1, 2] has two items.", "See [docs] and [the guide](https://x.y).",
    "Use x[0] or [x for x in y].", "[alpha, beta]"])
def test_pythonic_brackets_that_open_no_call_stay_prose(text: str) -> None:
    message = both("pythonic", text)
    assert (message.content, calls(message)) == (text, [])


# -- Inkling: the author header before a block's kind is no content ----------------
# <|message_model|>AUTHOR<|content_...|>: a word there names the message's author (the
# role, or a tool's name), so it is neither content nor reasoning.

@pytest.mark.parametrize("text, reasoning, content, names", [
    ("model<|content_text|>Hello.<|end_message|>", None, "Hello.", []),
    ("<|message_model|>assistant<|content_thinking|>Hm.<|end_message|><|message_model|>"
     "assistant<|content_text|>Hi.<|end_message|>", "Hm.", "Hi.", []),
    ('<|message_model|>model<|content_invoke_tool_json|>{"name": "f", "args": {}}'
     "<|end_message|>", None, None, ["f"]),
    ("Greg is a client.<|end_message|>", None, "Greg is a client.", []),
    ("Some prose first.<|content_text|>Then text.", None, "Some prose first.Then text.", []),
])
def test_inkling_author_header_is_no_content(text: str, reasoning: str | None,
                                             content: str | None, names: list[str]) -> None:
    message = both("inkling", text)
    assert (message.reasoning, message.content) == (reasoning, content)
    assert [name for name, _ in calls(message)] == names


# -- Gemma 4: text between calls, a call closed by <turn|> or by the next call --------

@pytest.mark.parametrize("between", ["Now the second one.", "\nAnd: {also} <|\"|>x<|\"|>\n"])
@pytest.mark.parametrize("with_ids", [False, True])
def test_gemma4_text_between_two_calls(between: str, with_ids: bool,
                                       get_tokenizer: Any) -> None:
    text = (f"<|tool_call>call:f{{a:1}}<tool_call|>{between}"
            "<|tool_call>call:g{b:<|\"|>x<|\"|>}<tool_call|>")
    tokenizer = get_tokenizer("gemma4") if with_ids else None
    ids = tokenizer.encode(text, add_special_tokens=False) if tokenizer else None
    message = parsergen.load("gemma4").parse(text, tokenizer=tokenizer, token_ids=ids)
    assert calls(message) == [("f", {"a": 1}), ("g", {"b": "x"})]
    assert message.content == between.rstrip()  # (whitespace right before a call is dropped)
    assert both("gemma4", text).content == message.content


@pytest.mark.parametrize("text, expected", [
    ('<|tool_call>call:gdb{args:<|"|>-batch -ex run /tmp/poc<|"|>}<turn|>',
     [("gdb", {"args": "-batch -ex run /tmp/poc"})]),
    ("<|tool_call>call:f{a:1}<|tool_call>call:g{b:2}<tool_call|>",
     [("f", {"a": 1}), ("g", {"b": 2})]),
])
def test_gemma4_call_closed_by_turn_end_or_the_next_call(text: str,
                                                        expected: list[Any]) -> None:
    message = both("gemma4", text)
    assert (message.content, calls(message)) == (None, expected)


# -- GLM: JSON values written escaped or with raw backslashes -----------------------
# GLM writes each value as text between <arg_value> tags; an array or object the tool's
# schema asks for may come escaped ([\"a\"]) or with Windows paths' backslashes as
# they are ({"path": "C:\Users\a"}): typed as the JSON the model meant, not a string.

GLM_TOOLS = tool("f", {"xs": {"type": "array", "items": {"type": "string"}},
                       "o": {"type": "object"}, "p": {"type": "string"}})


@pytest.mark.parametrize("value, key, expected", [
    ('[\\"a\\", \\"b\\"]', "xs", ["a", "b"]),
    ('{\\"k\\": \\"v\\", \\"n\\": 2}', "o", {"k": "v", "n": 2}),
    ('{"path": "C:\\Users\\a\\new.txt"}', "o", {"path": "C:\\Users\\a\\new.txt"}),
    ('["C:\\Users\\a", "D:\\\\ok"]', "xs", ["C:\\Users\\a", "D:\\ok"]),
    ('[\\"C:\\\\\\\\temp\\"]', "xs", ["C:\\temp"]),
    ("C:\\Users\\a\\b.txt", "p", "C:\\Users\\a\\b.txt"),
    ("[not json", "xs", "[not json"),
])
def test_glm_json_values_as_the_model_meant(value: str, key: str, expected: Any) -> None:
    text = f"<tool_call>f<arg_key>{key}</arg_key><arg_value>{value}</arg_value></tool_call>"
    assert calls(both("glm47_moe", text, GLM_TOOLS, thinking=False)) == [("f", {key: expected})]


# -- Muse: <atem:parameter name="K"> values JSON where they parse ------------------
# vLLM's muse tool parser (vllm/tool_parsers/muse_tool_parser.py, _decode_value and
# _string_parameters): a value is json.loads'd, kept as text where that fails, and a
# field the tool's schema types as a string keeps its text. The syntax's header is
# attributes, so json_values must hold there as it does for a bare name.

def _muse_call(params: str) -> str:
    return ("<|start|>assistant to=f<|message|><atem:function_calls>\n<atem:invoke name=\"f\">\n"
            f"{params}</atem:invoke>\n</atem:function_calls><|eom|>")


@pytest.mark.parametrize("tools, params, expected", [
    (None, '<atem:parameter name="days">3</atem:parameter>\n'
           '<atem:parameter name="flags">[1, true]</atem:parameter>\n'
           '<atem:parameter name="note">hi there</atem:parameter>\n',
     {"days": 3, "flags": [1, True], "note": "hi there"}),
    (tool("f", {"code": {"type": "string"}, "n": {"type": "integer"}}),
     '<atem:parameter name="code">42</atem:parameter>\n<atem:parameter name="n">7</atem:parameter>\n'
     '<atem:parameter name="extra">null</atem:parameter>\n',
     {"code": "42", "n": 7, "extra": None}),
])
def test_muse_values_json_where_they_parse(tools: Any, params: str, expected: Any) -> None:
    assert calls(both("muse", _muse_call(params), tools)) == [("f", expected)]


# -- An open tag inside a value: decided by what follows it ------------------------

@pytest.mark.parametrize("fmt, text, expected", [
    # GLM: <arg_key> with no key and </arg_key> after it is value text.
    ("glm47_moe", "<tool_call>write_file<arg_key>path</arg_key><arg_value>a.md</arg_value>"
     "<arg_key>content</arg_key><arg_value>Keys go in <arg_key>.</arg_value></tool_call>",
     {"path": "a.md", "content": "Keys go in <arg_key>."}),
    # ... but one that opens a new key means the value's close tag was missing.
    ("glm47_moe", "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Berlin"
     "<arg_key>unit</arg_key><arg_value>celsius</arg_value></tool_call>",
     {"city": "Berlin", "unit": "celsius"}),
    # qwen3: a <parameter=K> naming a field the call already has is value text.
    ("qwen3", "<tool_call>\n<function=write_file>\n<parameter=path>\nnotes.md\n</parameter>\n"
     "<parameter=content>\nUse <parameter=path> here.\n</parameter>\n</function>\n</tool_call>",
     {"path": "notes.md", "content": "Use <parameter=path> here."}),
    ("qwen3", "<tool_call>\n<function=get_current_weather>\n<parameter=city>\nDallas\n"
     "<parameter=state>\nTX\n</parameter>\n</function>\n</tool_call>",
     {"city": "Dallas", "state": "TX"}),
    # Kimi K3: an argument opener whose header has a line break in it is text.
    ("kimi_k3", '<|open|>tools<|sep|><|open|>call tool="f" index="0"<|sep|><|open|>argument '
     'key="s" type="string"<|sep|>see <|open|>argument\nfor the syntax<|close|>argument<|sep|>'
     "<|close|>call<|sep|><|close|>tools<|sep|>", {"s": "see <|open|>argument\nfor the syntax"}),
])
def test_open_tag_in_a_value_decided_by_what_follows(fmt: str, text: str,
                                                     expected: dict[str, Any]) -> None:
    [(_, arguments)] = calls(both(fmt, text, thinking=False))
    assert arguments == expected


# -- DeepSeek V3.2: reasoning as its template writes it ------------------------------
# encoding_dsv32.py (huggingface.co/deepseek-ai/DeepSeek-V3.2, encoding/): thinking is a
# chat_template_kwargs choice, off by default; the prompt ends "<｜Assistant｜><think>"
# when it is on and "<｜Assistant｜></think>" when it is off.

V32_ON = "<｜begin▁of▁sentence｜><｜User｜>1+1=?<｜Assistant｜><think>"
V32_OFF = "<｜begin▁of▁sentence｜><｜User｜>1+1=?<｜Assistant｜></think>"
V32_CALL = ("<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_time\">\n<｜DSML｜parameter "
            "name=\"zone\" string=\"true\">UTC</｜DSML｜parameter>\n</｜DSML｜invoke>\n"
            "</｜DSML｜function_calls>")


def v32(text: str, prompt: str | None, tokenizer: Any = None) -> Any:
    module = parsergen.load("deepseek_v32")
    kwargs: dict[str, Any] = {"prompt_text": prompt}
    if tokenizer is not None and prompt is not None:
        kwargs = {"prompt_token_ids": tokenizer.encode(prompt, add_special_tokens=False)}
    whole = module.parse(text, tokenizer=tokenizer, ids="sequential", **kwargs)
    streamed = module.ChatParser(tokenizer, ids="sequential")
    streamed.initialize(**kwargs)
    per_char = accumulate([streamed.feed(ch) for ch in text] + [streamed.finish()])
    assert (per_char.reasoning, per_char.content, calls(per_char)) == (
        whole.reasoning, whole.content, calls(whole))
    return whole


@pytest.mark.parametrize("with_ids", [False, True])
def test_deepseek_v32_prompt_opens_reasoning(with_ids: bool, get_tokenizer: Any) -> None:
    tokenizer = get_tokenizer("deepseek") if with_ids else None
    message = v32("1+1 is 2.</think>It is 2.", V32_ON, tokenizer)
    assert (message.reasoning, message.content) == ("1+1 is 2.", "It is 2.")
    message = v32("Let me look.</think>\n\n" + V32_CALL, V32_ON, tokenizer)
    assert message.reasoning == "Let me look."
    assert calls(message) == [("get_time", {"zone": "UTC"})]


@pytest.mark.parametrize("prompt", [V32_OFF, None])
def test_deepseek_v32_thinking_off_is_content(prompt: str | None) -> None:
    message = v32("It is 2. " + V32_CALL, prompt)
    assert (message.reasoning, message.content) == (None, "It is 2. ")
    assert calls(message) == [("get_time", {"zone": "UTC"})]


@pytest.mark.parametrize("kwargs", [{"thinking": True}, {"enable_thinking": True}])
def test_deepseek_v32_thinking_on_starts_in_reasoning(kwargs: dict[str, bool]) -> None:
    # The template ends the prompt in <think> when thinking is on: without the prompt,
    # the request's switch says so.
    route = parsergen.route("deepseek-ai/DeepSeek-V3.2")
    assert route is not None and route.thinking() is False
    thinking = route.thinking(kwargs)
    assert thinking is True
    message = route.parse("1+1 is 2.</think>It is 2.", thinking=thinking)
    assert (message.reasoning, message.content) == ("1+1 is 2.", "It is 2.")
    speciale = parsergen.route("deepseek-ai/DeepSeek-V3.2-Speciale")
    assert speciale is not None
    message = speciale.parse("1+1 is 2.</think>It is 2.")
    assert (message.reasoning, message.content) == ("1+1 is 2.", "It is 2.")


def test_deepseek_v32_stray_think_end_in_content_is_no_text() -> None:
    message = v32("It is 2.</think> Done.", None)
    assert (message.reasoning, message.content) == (None, "It is 2. Done.")


def test_deepseek_v32_think_written_in_the_output_opens_reasoning() -> None:
    message = v32("<think>Hmm.</think>It is 2.", None)
    assert (message.reasoning, message.content) == ("Hmm.", "It is 2.")


def test_deepseek_v32_call_in_reasoning_ends_it() -> None:
    message = v32("Need the time." + V32_CALL, V32_ON)
    assert message.reasoning == "Need the time."
    assert calls(message) == [("get_time", {"zone": "UTC"})]


def test_deepseek_v32_reasoning_ids_follow_the_prompt(get_tokenizer: Any) -> None:
    tokenizer = get_tokenizer("deepseek")
    parser = parsergen.load("deepseek_v32").StreamingParser(tokenizer)
    on = tokenizer.encode(V32_ON, add_special_tokens=False)
    off = tokenizer.encode(V32_OFF, add_special_tokens=False)
    answer = tokenizer.encode("r</think>a", add_special_tokens=False)
    assert not parser.is_reasoning_end(on)
    assert parser.is_reasoning_end(on + answer)
    assert parser.is_reasoning_end(off)


# -- Harmony: a recipient without the functions. namespace --------------------------
# gpt-oss sometimes addresses a function by its bare name (to=get_weather); vLLM's chat
# path reads any recipient that is no built-in tool or role as a function
# (vllm/entrypoints/openai/parser/harmony_utils.py, is_function_recipient).

@pytest.mark.parametrize("header", [
    "<|channel|>commentary to=get_weather <|constrain|>json",
    "<|channel|>commentary to=get_weather",
    " to=get_weather<|channel|>commentary json",
])
def test_harmony_bare_recipient_is_a_function(header: str) -> None:
    text = f"{header}<|message|>{{\"city\": \"Tokyo\"}}<|call|>"
    message = both("openai", text, tool("get_weather", {"city": {"type": "string"}}))
    assert (message.content, calls(message)) == (None, [("get_weather", {"city": "Tokyo"})])


@pytest.mark.parametrize("recipient", ["python", "browser.search", "container.exec",
                                       "functions"])
def test_harmony_built_in_recipients_are_no_function(recipient: str) -> None:
    text = (f"<|channel|>commentary to={recipient} <|constrain|>json<|message|>{{}}<|call|>"
            "<|start|>assistant<|channel|>final<|message|>Done.<|return|>")
    message = both("openai", text)
    assert (message.content, calls(message)) == ("Done.", [])


# -- Harmony: a completion cut inside a message header -------------------------------

HARMONY_FINAL = "<|channel|>final<|message|>Checking.<|end|>"


@pytest.mark.parametrize("header", [
    "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>js",
    "<|start|>assistant<|channel|>commentary to=functions.get",
    "<|start|>assistant to=functions.get_weather",
    "<|start|>assistant<|channel|>fin",
    "<|start|>assis",
    "<|start|><|ch",
])
def test_harmony_cut_inside_a_header_is_neither_content_nor_a_call(header: str) -> None:
    from parsergen.runtime.accounting import account

    module = parsergen.load("openai")
    text = HARMONY_FINAL + header
    message = both("openai", text)
    assert (message.content, message.tool_calls) == ("Checking.", ())
    accounting = account(module.StreamingParser(), [(text, [])])
    assert accounting.text == text and not accounting.problems
    assert ("dropped MESSAGE_HEADER", header[len("<|start|>"):]) in accounting.segments
    # The first header of a completion (the prompt wrote <|start|>assistant) too.
    assert both("openai", "<|channel|>analysis<|message|>Hmm.<|end|>" + header).content is None


def test_harmony_text_that_is_no_header_stays_content() -> None:
    # Special tokens stripped by the server: what is left is not a header.
    text = "analysisThe user asks.assistantfinalHello"
    assert both("openai", text).content == text


# -- Mistral: [CALL_ID], a trailing [TOOL_CALLS], the pre-v11 JSON array --------------

@pytest.mark.parametrize("with_ids", [False, True])
def test_mistral_call_id_before_args(with_ids: bool, get_tokenizer: Any) -> None:
    # mistral-common v13: [TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{...}; the id is the model's.
    text = ('Checking.[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{"city": "Paris"}'
            '[TOOL_CALLS]get_time[CALL_ID]Zz9Yy8Xx7[ARGS]{}')
    tokenizer = get_tokenizer("mistral") if with_ids else None
    module = parsergen.load("mistral")
    ids = tokenizer.encode(text, add_special_tokens=False) if tokenizer is not None else None
    message = module.parse(text, tokenizer=tokenizer, token_ids=ids)
    assert message.content == "Checking."
    assert [(c.id, c.name, json.loads(c.arguments)) for c in message.tool_calls] == [
        ("a1B2c3D4e", "get_weather", {"city": "Paris"}), ("Zz9Yy8Xx7", "get_time", {})]
    streamed = module.ChatParser(tokenizer)
    per_char = accumulate([streamed.feed(ch) for ch in text] + [streamed.finish()])
    assert [(c.id, c.name) for c in per_char.tool_calls] == [
        ("a1B2c3D4e", "get_weather"), ("Zz9Yy8Xx7", "get_time")]


def test_mistral_without_call_id_makes_its_own_ids() -> None:
    message = both("mistral", '[TOOL_CALLS]get_time[ARGS]{"zone": "UTC"}')
    assert calls(message) == [("get_time", {"zone": "UTC"})]
    assert len(message.tool_calls[0].id) == 9 and message.tool_calls[0].id.isalnum()


@pytest.mark.parametrize("fmt", ["mistral", "mistral_pre_v11"])
@pytest.mark.parametrize("text, content", [
    ("Sure.[TOOL_CALLS]", "Sure."),
    ("[TOOL_CALLS]", None),
    ("Let me look.[TOOL_CALLS] ", "Let me look."),
])
def test_mistral_trailing_tool_calls_marker_is_not_content(fmt: str, text: str,
                                                           content: str | None) -> None:
    module = parsergen.load(fmt)
    parser = module.ChatParser()
    message = parser.complete(text)
    assert (message.content, message.tool_calls) == (content, ())
    assert both(fmt, text).content == content


MISTRAL_V3_CALLS = ('[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris", '
                    '"days": 3}, "id": "a1b2C3d4E"}, {"name": "get_time", "arguments": '
                    '{"zone": "UTC"}, "id": "Zz9Yy8Xx7"}]')


@pytest.mark.parametrize("model", ["mistralai/Mistral-7B-Instruct-v0.3",
                                   "mistralai/Mixtral-8x22B-Instruct-v0.1",
                                   "mistralai/Mistral-Nemo-Instruct-2407"])
def test_mistral_pre_v11_models_route_to_the_array_syntax(model: str) -> None:
    assert parsergen.detect(model) == "mistral_pre_v11"


@pytest.mark.parametrize("with_ids", [False, True])
def test_mistral_pre_v11_array(with_ids: bool, get_tokenizer: Any) -> None:
    tokenizer = get_tokenizer("mistral") if with_ids else None
    module = parsergen.load("mistral_pre_v11")
    ids = tokenizer.encode(MISTRAL_V3_CALLS, add_special_tokens=False) if with_ids else None
    message = module.parse(MISTRAL_V3_CALLS, tokenizer=tokenizer, token_ids=ids)
    assert calls(message) == [("get_weather", {"city": "Paris", "days": 3}),
                              ("get_time", {"zone": "UTC"})]
    assert message.content is None
    assert calls(both("mistral_pre_v11", "Let me check." + MISTRAL_V3_CALLS)) == calls(message)
    # The v11 format reads the same text as a call named "[": the syntaxes differ.
    assert [c.name for c in parsergen.load("mistral").parse(MISTRAL_V3_CALLS).tool_calls] != [
        "get_weather", "get_time"]


def test_mistral_pre_v11_text_that_is_no_array_stays_content() -> None:
    assert both("mistral_pre_v11", "The answer is [1, 2].").content == "The answer is [1, 2]."
