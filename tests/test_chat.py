"""ChatParser and parse(): OpenAI shapes, ids, flags, tool_choice, unknown tools."""

from __future__ import annotations

import json
import os
import random
import uuid
from pathlib import Path

import pytest

import parsergen
from parsergen.runtime import DeltaMessage, DeltaToolCall, accumulate
from support.specs import build

WEATHER = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}}]
QWEN_CALL = ("<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
             "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>")


def stream(module, text: str, step: int, **kwargs):
    parser = module.ChatParser(ids="sequential", **kwargs)
    deltas = [parser.feed(text[i : i + step]) for i in range(0, len(text), step)]
    return deltas + [parser.finish()], parser


def test_to_openai_shapes() -> None:
    delta = DeltaMessage(reasoning="r", tool_calls=[DeltaToolCall(0, id="x", type="function",
                                                                  name="f", arguments="{")])
    assert delta.to_openai() == {"reasoning_content": "r", "tool_calls": [
        {"index": 0, "id": "x", "type": "function", "function": {"name": "f", "arguments": "{"}}]}
    message = parsergen.load("qwen3").parse("hi</think>ok", ids="sequential")
    assert message.to_openai() == {"role": "assistant", "content": "ok", "reasoning_content": "hi"}


def test_first_call_delta_has_id_type_and_complete_name() -> None:
    deltas, _ = stream(parsergen.load("qwen3"), "r</think>" + QWEN_CALL, 3, tools=WEATHER)
    call_deltas = [tc for d in deltas if d for tc in d.tool_calls]
    first = call_deltas[0]
    assert (first.id, first.type, first.name) == ("chatcmpl-tool-0", "function", "get_weather")
    assert all(tc.id is None and tc.name is None for tc in call_deltas[1:])
    arguments = "".join(tc.arguments or "" for tc in call_deltas)
    assert arguments == json.dumps({"city": "Paris", "days": 3})


def test_random_ids_are_openai_style_and_distinct() -> None:
    message = parsergen.load("qwen3").parse("r</think>" + QWEN_CALL + QWEN_CALL)
    ids = [c.id for c in message.tool_calls]
    assert len(set(ids)) == 2 and all(i.startswith("chatcmpl-tool-") for i in ids)


def test_random_ids_are_uuid4_and_survive_seeding_and_fork() -> None:
    # A program that seeds ``random`` (an RL rollout) must not repeat ids, nor may a
    # forked worker repeat its parent's.
    module = parsergen.load("qwen3")
    random.seed(0)
    first = module.parse("r</think>" + QWEN_CALL).tool_calls[0].id
    random.seed(0)
    second = module.parse("r</think>" + QWEN_CALL).tool_calls[0].id
    assert first != second
    assert uuid.UUID(first.removeprefix("chatcmpl-tool-")).version == 4
    if not hasattr(os, "fork"):
        return
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next id, to the parent
        os.write(write, module.parse("r</think>" + QWEN_CALL).tool_calls[0].id.encode())
        os._exit(0)
    os.close(write)
    theirs = os.read(read, 100).decode()
    os.waitpid(pid, 0)
    ours = module.parse("r</think>" + QWEN_CALL).tool_calls[0].id
    assert theirs.startswith("chatcmpl-tool-") and theirs != ours


def test_random_ids_of_one_completion_are_distinct_uuid4s() -> None:
    # One draw per completion, counted on per call (CallIds): each is still a uuid4.
    ids = [c.id for c in parsergen.load("qwen3").parse("r</think>" + QWEN_CALL * 300).tool_calls]
    assert len(ids) == 300 and len(set(ids)) == 300
    for tool_id in ids:
        parsed = uuid.UUID(tool_id.removeprefix("chatcmpl-tool-"))
        assert (parsed.version, parsed.variant) == (4, uuid.RFC_4122)


def test_kimi_ids_come_from_the_call_header() -> None:
    text = ("<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:7"
            '<|tool_call_argument_begin|>{"city": "Oslo", "days": "2"}<|tool_call_end|>'
            "<|tool_calls_section_end|>")
    message = parsergen.load("kimi_k2").parse(text, tools=WEATHER, thinking=False)
    (call,) = message.tool_calls
    assert (call.id, call.name) == ("functions.get_weather:7", "get_weather")
    assert call.arguments == json.dumps({"city": "Oslo", "days": 2})


def test_tool_choice_none_keeps_tool_markup_as_content() -> None:
    text = "r</think>Checking.\n" + QWEN_CALL + "\nDone."
    for step in (1, 4, len(text)):
        deltas, _ = stream(parsergen.load("qwen3"), text, step, tool_choice="none")
        message = accumulate(deltas)
        assert message.tool_calls == ()
        assert message.content == "Checking.\n" + QWEN_CALL + "\nDone."


@pytest.mark.parametrize("fmt", ["llama3_json", "granite_20b_fc", "phi4_mini_json"])
def test_tool_choice_none_keeps_text_after_calls_once(fmt: str) -> None:
    """Text in a framing state (after a call's object) is content once, not also as the
    piece read in a tool state."""
    module = parsergen.load(fmt)
    call = {"name": "get_weather", "arguments": {"city": "Oslo"}}
    text = module.render({"content": None, "tool_calls": [call, call]}) + " Done; ok."
    for step in (1, 4, len(text)):
        deltas, _ = stream(module, text, step, tool_choice="none")
        assert accumulate(deltas).content == text


def test_unknown_tool_becomes_content_with_nothing_lost(tmp_path: Path) -> None:
    module = build(tmp_path, """
        extends: qwen3
        name: strict_qwen
        description: qwen3 that rejects calls to tools the request does not offer
        assembly: {validate_tool_names: true}
        """)
    bad = "<tool_call>\n<function=rm_rf>\n<parameter=path>\n/\n</parameter>\n</function>"
    text = "r</think>" + bad + "\n</tool_call>" + QWEN_CALL
    for step in (1, 5, len(text)):
        deltas, parser = stream(module, text, step, tools=WEATHER)
        message = accumulate(deltas)
        assert message.content == bad
        assert [c.name for c in message.tool_calls] == ["get_weather"]
        assert parser.warnings == ["tool call 0 has unknown tool 'rm_rf'; kept as content"]


def test_arguments_wait_for_the_end_without_stream_arg_deltas(tmp_path: Path) -> None:
    module = build(tmp_path, """
        extends: qwen3
        name: batch_qwen
        description: qwen3 sending each call's arguments in one piece
        assembly: {stream_arg_deltas: false}
        """)
    deltas, _ = stream(module, "r</think>" + QWEN_CALL, 2, tools=WEATHER)
    pieces = [tc.arguments for d in deltas if d for tc in d.tool_calls if tc.arguments]
    assert pieces == ['{"city": "Paris", "days": 3}']


def test_whitespace_rules() -> None:
    qwen = parsergen.load("qwen3")
    # Trailing whitespace before a call goes; whitespace-only content before it too.
    assert qwen.parse("r</think>\n\nHi.\n\n" + QWEN_CALL).content == "\n\nHi."
    assert qwen.parse("r</think>\n\n" + QWEN_CALL).content is None
    # Without calls, content is kept as written.
    assert qwen.parse("r</think>\n\nHi.\n\n").content == "\n\nHi.\n\n"
    # Kimi strips trailing reasoning whitespace, qwen3 does not.
    assert parsergen.load("kimi_k2").parse("think  \n</think>x").reasoning == "think"
    assert qwen.parse("think  \n</think>x").reasoning == "think  \n"
