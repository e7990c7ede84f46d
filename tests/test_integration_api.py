"""The public API that server integrations (vLLM, batch jobs) build on, without vLLM."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

import parsergen
from parsergen.runtime import DeltaMessage, ParsedMessage, ToolCall, accumulate

QWEN = parsergen.load("qwen3")
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}}]
CALL = ("<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
        "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>")


def ids(tokenizer: Any, text: str) -> list[int]:
    return tokenizer.encode(text, add_special_tokens=False)


def test_reasoning_ended_follows_the_end_marker(get_tokenizer) -> None:
    tokenizer = get_tokenizer("qwen3.6")
    parser = QWEN.ChatParser(tokenizer, thinking=True)
    assert not parser.reasoning_ended
    parser.feed("Let me think.", ids(tokenizer, "Let me think."))
    assert not parser.reasoning_ended
    parser.feed("</think>", ids(tokenizer, "</think>"))
    assert parser.reasoning_ended


def test_reasoning_ended_by_an_implicit_end(get_tokenizer) -> None:
    # qwen3.yaml: TOOL_START in REASONING emits REASONING_END, TOOL_CALL_START.
    tokenizer = get_tokenizer("qwen3.6")
    parser = QWEN.ChatParser(tokenizer, thinking=True)
    parser.feed("hm ", ids(tokenizer, "hm "))
    assert not parser.reasoning_ended
    parser.feed("<tool_call>", ids(tokenizer, "<tool_call>"))
    assert parser.reasoning_ended


def test_reasoning_ended_from_the_start_without_thinking() -> None:
    assert QWEN.ChatParser(thinking=False).reasoning_ended
    assert not QWEN.ChatParser(thinking=True).reasoning_ended


@pytest.mark.parametrize("start, state", [("content", "CONTENT"), ("reasoning", "REASONING")])
@pytest.mark.parametrize("thinking", [True, False])
def test_initialize_starts_where_told(start: str, state: str, thinking: bool) -> None:
    parser = QWEN.ChatParser(thinking=thinking)
    # The explicit start wins over what the prompt says.
    parser.initialize(prompt_text="<|im_start|>assistant\n<think>\n", start=start)
    assert parser.events.state == state
    assert parser.reasoning_ended is (start == "content")


def test_parse_can_start_in_content() -> None:
    message = QWEN.parse("Hello</think> there", thinking=True, start="content")
    assert message == ParsedMessage(content="Hello there")  # a stray </think> is dropped


def test_initialize_rejects_an_unknown_start() -> None:
    with pytest.raises(ValueError):
        QWEN.ChatParser().initialize(start="middle")


def test_reasoning_end_token_ids(get_tokenizer) -> None:
    tokenizer = get_tokenizer("qwen3.6")
    parser = QWEN.ChatParser(tokenizer)
    # qwen3.yaml: reasoning.end is THINK_END; the implicit end is TOOL_START.
    assert parser.reasoning_end_token_ids == (tuple(ids(tokenizer, "</think>")),)
    assert parser.implicit_reasoning_end_token_ids == (tuple(ids(tokenizer, "<tool_call>")),)
    assert QWEN.ChatParser().reasoning_end_token_ids == ()  # no tokenizer: no ids


@pytest.mark.parametrize("completion, reasoning", [
    ("I should check.</think>\n\nIt is sunny.", "I should check."),
    ("<think>I should check.</think>It is sunny.", "I should check."),  # repeated start
    ("I should check.\n" + CALL, "I should check.\n"),  # implicit end
    ("I should check and check", "I should check and check"),  # never ended
])
def test_count_reasoning_tokens(get_tokenizer, completion: str, reasoning: str) -> None:
    tokenizer = get_tokenizer("qwen3.6")
    parser = QWEN.ChatParser(tokenizer, thinking=True)
    # The markers are single tokens that split the text, so the reasoning's own
    # encoding is exactly its tokens in the completion.
    assert parser.count_reasoning_tokens(ids(tokenizer, completion)) == len(ids(tokenizer, reasoning))


def test_count_reasoning_tokens_starting_in_content(get_tokenizer) -> None:
    tokenizer = get_tokenizer("qwen3.6")
    parser = QWEN.ChatParser(tokenizer, thinking=False)
    assert parser.count_reasoning_tokens(ids(tokenizer, "<think>a</think>b")) == 0
    parser = QWEN.ChatParser(tokenizer, thinking=True)
    parser.initialize(start="content")
    assert parser.count_reasoning_tokens(ids(tokenizer, "a</think>b")) == 0


class Tool:
    """A pydantic-like tool definition, as vLLM passes them."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def model_dump(self) -> dict[str, Any]:
        return self.data


@pytest.mark.parametrize("tools", [TOOLS, [Tool(TOOLS[0])]], ids=["dicts", "objects"])
def test_tools_as_dicts_or_objects_type_arguments(tools: list[Any]) -> None:
    message = QWEN.parse(CALL, tools=tools, thinking=False)
    assert message.tool_calls[0].arguments == json.dumps({"city": "Paris", "days": 3})


class Attributes:
    """A tool read from its attributes, as vLLM's ``ChatCompletionToolsParam``: its
    model_dump (15 us per tool per request there) must not be needed."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.type = data["type"]
        self.function = SimpleNamespace(**data["function"], strict=None)

    def model_dump(self) -> dict[str, Any]:
        raise AssertionError("read from its attributes, not dumped")


def test_tools_as_pydantic_objects_are_read_without_model_dump() -> None:
    parser = QWEN.ChatParser(tools=[Attributes(TOOLS[0])], thinking=False)
    message = accumulate([parser.feed(CALL), parser.finish()])
    assert parser.warnings == []
    assert message.tool_calls[0].arguments == json.dumps({"city": "Paris", "days": 3})


def test_an_unreadable_tool_is_reported_not_silent() -> None:
    parser = QWEN.ChatParser(tools=[object(), TOOLS[0]], thinking=False)
    assert any("tool definition 0 cannot be read" in w for w in parser.warnings)
    message = accumulate([parser.feed(CALL), parser.finish()])
    assert message.tool_calls[0].arguments == json.dumps({"city": "Paris", "days": 3})


def test_to_openai_names_the_reasoning_field() -> None:
    delta = DeltaMessage(reasoning="r", content="c")
    assert delta.to_openai() == {"content": "c", "reasoning_content": "r"}
    assert delta.to_openai(reasoning_key="reasoning") == {"content": "c", "reasoning": "r"}
    message = ParsedMessage(reasoning="r", tool_calls=(ToolCall("id", "f", "{}"),))
    assert message.to_openai(reasoning_key="reasoning")["reasoning"] == "r"
    assert "reasoning_content" not in message.to_openai(reasoning_key="reasoning")


@pytest.mark.parametrize("name, kwargs, expected", [
    ("qwen3", {"enable_thinking": False}, False),
    ("qwen3", {}, None),
    ("mimo", {"enable_thinking": True}, True),  # extends qwen3
    ("glm47_moe", {"thinking": True, "enable_thinking": False}, True),  # first key wins
    ("glm47_moe", {"enable_thinking": False}, False),
    ("minimax_m3", {"thinking_mode": "enabled"}, True),
    ("minimax_m3", {"thinking_mode": "disabled"}, False),
    ("step3p5", {"enable_thinking": False}, None),  # no switch: always thinking
    ("hermes", {"enable_thinking": True}, None),
])
def test_thinking_switch_from_chat_template_kwargs(name: str, kwargs: dict, expected) -> None:
    assert parsergen.thinking(name, kwargs) is expected


MY_FORMAT = """\
name: my_format
description: "<r>reasoning</r> then [[name|{json arguments}]]"
initial_state: {thinking: REASONING, otherwise: CONTENT}
thinking_switch: [enable_thinking]
reasoning: {start: [], end: [THINK_END]}
terminals:
  THINK_END: {text: "</r>", token_id: true}
  CALL: "[["
  ARGS: "|"
  CALL_END: "]]"
transitions:
  REASONING: {THINK_END: {to: CONTENT, emit: [REASONING_END]}}
  CONTENT: {CALL: {to: TOOL_NAME, emit: [TOOL_CALL_START]}}
  TOOL_NAME: {ARGS: TOOL_ARGS}
  TOOL_ARGS: {CALL_END: {to: CONTENT, emit: [TOOL_CALL_END]}}
render: {call: "${CALL}${name}${ARGS}${arguments}${CALL_END}"}
"""


def test_user_specs_are_compiled_for_integrations(tmp_path, monkeypatch) -> None:
    from parsergen import integrations

    spec = tmp_path / "my_format.yaml"
    spec.write_text(MY_FORMAT)
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: broken\nterminals: 3\n")
    monkeypatch.setenv(integrations.SPECS_VARIABLE, f"{spec}:{broken}")
    integrations.user_modules.cache_clear()
    try:
        with pytest.warns(UserWarning, match="broken.yaml was not registered"):
            found = integrations.formats()
    finally:
        integrations.user_modules.cache_clear()
    module = found["my_format"]
    assert "qwen3" in found and "qwen3_coder" in found  # bundled formats and aliases
    assert integrations.thinking(module, {"enable_thinking": False}) is False
    message = module.parse('hm</r>Hi [[get|{"a": 1}]]', thinking=True)
    assert (message.reasoning, message.content) == ("hm", "Hi")
    assert [(c.name, c.arguments) for c in message.tool_calls] == [("get", '{"a": 1}')]


@pytest.mark.parametrize("deltas, offset", [
    (["abc", "</think>", "\n\nHi"], len("abc</think>")),  # after an explicit end
    (["hm ", "<tool_call>\n<function=f>"], len("hm ")),  # at an implicit end
    (["still thinking"], None),  # not over yet
])
def test_content_offset(get_tokenizer, deltas: list[str], offset: int | None) -> None:
    tokenizer = get_tokenizer("qwen3.6")
    parser = QWEN.ChatParser(tokenizer, thinking=True)
    for delta in deltas:
        parser.feed(delta, ids(tokenizer, delta))
    assert parser.content_offset == offset


def test_content_offset_of_content_first() -> None:
    parser = QWEN.ChatParser(thinking=False)
    parser.feed("Hello")
    assert parser.content_offset == 0


def test_start_in_content_drops_a_framing_newline() -> None:
    # step3p5.yaml: reasoning closed by \n</think>\n; content handed over after the
    # marker still begins with the framing newline.
    step = parsergen.load("step3p5")
    assert step.parse("\nAnswer", start="content").content == "Answer"
    assert step.parse("a\n</think>\nAnswer").content == "Answer"


@pytest.mark.parametrize("fmt", parsergen.formats())
@pytest.mark.parametrize("how", ["parse", "stream"])
def test_a_finished_parser_leaves_no_cyclic_garbage(fmt: str, how: str) -> None:
    """parse(), and a ChatParser streamed to its finish(), free their parser by reference
    counting: a server's requests and a batch of short completions do not leave one
    cycle each for the collector (StreamingParserBase.release).  The completion is the
    format's own render of two calls, typed by their tools."""
    import gc

    module = parsergen.load(fmt)
    calls = [{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}},
             {"name": "get_weather", "arguments": {"city": "Oslo", "days": 1}}]
    message = {"reasoning": None, "content": "Let me look.",
               "tool_calls": calls if module.RENDERER.call is not None else []}
    thinking = module.StreamingParser.THINKING_DEFAULT
    text = "".join(t for t, _ in module.RENDERER.pieces(message, thinking=thinking))

    def run() -> Any:
        if how == "parse":
            return module.parse(text, tools=TOOLS, thinking=thinking, ids="sequential")
        chat = module.ChatParser(tools=TOOLS, thinking=thinking, ids="sequential")
        deltas = [chat.feed(ch) for ch in text] + [chat.finish()]
        return accumulate(deltas)

    expected = run()  # (caches filled outside the count)
    enabled = gc.isenabled()
    gc.disable()
    # (Everything before is set aside, not collected: a full collection of the suite's
    # heap took about a second a test.)
    gc.freeze()
    try:
        parsed = run()
        gc.set_debug(gc.DEBUG_SAVEALL)
        found = gc.collect()
        garbage = [type(o).__name__ for o in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.unfreeze()
        if enabled:
            gc.enable()
    assert found == 0, garbage
    assert parsed.tool_calls == expected.tool_calls and len(parsed.tool_calls) == len(
        message["tool_calls"])


def test_text_fed_after_finish_is_not_parsed_and_said() -> None:
    hermes = parsergen.load("hermes")
    chat = hermes.ChatParser()
    assert chat.feed("Hi") is not None and chat.finish() is None
    assert chat.feed('<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>') is None
    assert chat.feed(" more") is None and chat.finish() is None
    assert chat.warnings == ["text fed after finish() is not parsed"]
