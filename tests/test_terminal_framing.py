"""A terminal's framing newlines (``framing: {before: newline, after: newline}``): one
newline right before and one right after a marker are part of it where the state takes
it, plain text where it does not; the stream gives what ``parse()`` gives, with and
without token ids, in every cadence."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from parsergen.compiler import SpecError, compile_spec
from parsergen.runtime import accumulate
from parsergen.runtime.sequences import FramingHold
from parsergen.runtime.tokens import Marker
from support.specs import build
from support.streams import cadences, token_deltas
from support.tokenizers import ernie, internlm

RESPONSE = """
    name: framed_response
    description: an answer wrapped in <response>...</response>, the newlines around </response> framing
    initial_state: REASONING
    reasoning: {start: [THINK_START], end: [THINK_END]}
    terminals:
      THINK_START: {text: "<think>", token_id: true}
      THINK_END: {text: "</think>", token_id: true}
      RESPONSE_START: {text: "<response>", token_id: true, framing: {after: newline}}
      RESPONSE_END: {text: "</response>", token_id: true, framing: {before: newline, after: newline}}
    transitions:
      REASONING:
        THINK_START: REASONING
        THINK_END: {to: CONTENT, emit: [REASONING_END]}
      CONTENT:
        RESPONSE_START: CONTENT
        RESPONSE_END: CONTENT
    assembly: {strip_trailing_reasoning_whitespace: false}
    render:
      call: "${RESPONSE_START}${name}${RESPONSE_END}"
    """


def _message(parsed: Any) -> tuple:
    return parsed.reasoning, parsed.content


def _stream(module: Any, deltas: list[tuple[str, list[int]]], tokenizer: Any = None) -> tuple:
    chat = module.ChatParser(tokenizer, thinking=True)
    out = [chat.feed(text, ids) for text, ids in deltas]
    out.append(chat.finish())
    return _message(accumulate(out))


def _check(module: Any, text: str, tokenizer: Any = None) -> tuple:
    """The message ``text`` gives, the same whole and in every cadence (with the ids
    ``tokenizer`` spells it with, where given)."""
    ids = tokenizer.encode(text, add_special_tokens=False) if tokenizer is not None else None
    whole = _message(module.parse(text, tokenizer=tokenizer, token_ids=ids, thinking=True))
    for name, deltas in cadences(text, tokenizer, seeds=4 if tokenizer is None else 6,
                                 cuts=True).items():
        assert _stream(module, deltas, tokenizer) == whole, name
    return whole


@pytest.fixture(scope="module")
def response(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return build(tmp_path_factory.mktemp("response"), RESPONSE, "framed_response")


@pytest.mark.parametrize("ids", [False, True])
@pytest.mark.parametrize("text, content", [
    ("r</think><response>\nanswer\n</response>\n", "answer"),
    ("r</think><response>answer</response>", "answer"),
    # One newline each side is framing; the others are content.
    ("r</think><response>\n\nanswer\n\n</response>\n\nmore", "\nanswer\n\nmore"),
    ("r</think>a\n</response>\nb\n</response>\nc", "abc"),
    ("r</think>a\n", "a\n"),
    ("r</think>a\n</respons", "a\n</respons"),
    ("r</think>a\n<response>", "a\n"),
    ("r</think></response>\n", None),
])
def test_one_newline_each_side_is_the_markers(response: Any, ids: bool, text: str,
                                              content: str | None) -> None:
    assert _check(response, text, ernie() if ids else None) == ("r", content)


@pytest.mark.parametrize("ids", [False, True])
def test_where_the_state_has_no_transition_the_framing_is_text(response: Any, ids: bool) -> None:
    # REASONING has no transition for </response>: it is reasoning text, newlines too.
    text = "a\n</response>\nb</think>c"
    assert _check(response, text, ernie() if ids else None) == ("a\n</response>\nb", "c")


ACTION = """
    name: framed_action
    description: InternLM-style calls whose start takes the newline before it along
    terminals:
      ACTION_START: {text: "<|action_start|>", token_id: true, followed_by: [PLUGIN],
                     framing: {before: newline}}
      PLUGIN: {text: "<|plugin|>", token_id: true}
      ACTION_END: {text: "<|action_end|>", token_id: true}
    transitions:
      CONTENT:
        ACTION_START: TOOL_PREAMBLE
      TOOL_PREAMBLE:
        PLUGIN: {to: TOOL_ARGS, emit: [TOOL_CALL_START]}
      TOOL_ARGS:
        ACTION_END: {to: CONTENT, emit: [TOOL_CALL_END]}
    arguments: {syntax: json_envelope, name_key: name, argument_keys: [parameters]}
    assembly: {strip_content_whitespace_with_tools: false}
    render:
      call: '${ACTION_START}${PLUGIN}{"name": ${name_json}, "parameters": ${arguments}}${ACTION_END}'
    """


@pytest.mark.parametrize("ids", [False, True])
def test_framing_before_a_marker_that_needs_a_follower(tmp_path: Path, ids: bool) -> None:
    module = build(tmp_path, ACTION, "framed_action")
    tokenizer = internlm() if ids else None
    call = '<|action_start|><|plugin|>{"name": "f", "parameters": {}}<|action_end|>'

    def check(text: str) -> tuple:
        if tokenizer is None:
            whole = module.parse(text)
            streams = [[(ch, []) for ch in text]]
        else:
            token_ids = tokenizer.encode(text, add_special_tokens=False)
            whole = module.parse(text, tokenizer=tokenizer, token_ids=token_ids)
            streams = [token_deltas(tokenizer, token_ids)]
        for deltas in streams:
            chat = module.ChatParser(tokenizer)
            streamed = accumulate([*(chat.feed(t, i) for t, i in deltas), chat.finish()])
            assert (streamed.content, len(streamed.tool_calls)) == (
                whole.content, len(whole.tool_calls))
        return whole.content, [c.name for c in whole.tool_calls]

    assert check("a\n\n" + call) == ("a\n", ["f"])
    # Not followed by <|plugin|>: no marker, so its newline is text too.
    assert check("a\n<|action_start|>x") == ("a\n<|action_start|>x", [])


def test_hold_joins_framing_to_a_marker_token() -> None:
    end, other = Marker("END", "</r>"), Marker("X", "<x>")
    hold = FramingHold({"END": ("\n", "\n")})
    assert hold.feed(["a\n"]) == ["a"] and hold.held
    assert hold.feed([end]) == [] and hold.held
    assert hold.feed(["\nb\n"]) == [Marker("END", "\n</r>\n"), "b"]
    assert hold.feed([other]) == ["\n", other] and not hold.held
    assert hold.feed([end, other]) == [end, other]
    assert hold.feed(["\n", "\n", end, "x"]) == ["\n", Marker("END", "\n</r>"), "x"]
    assert hold.feed(["c\n", end]) == ["c"] and hold.flush() == [Marker("END", "\n</r>")]
    assert hold.feed(["c\n"]) == ["c"] and hold.flush() == ["\n"] and not hold.held


def _compile(tmp_path: Path, spec: str) -> list[str]:
    path = tmp_path / "bad.yaml"
    path.write_text(textwrap.dedent(spec).lstrip("\n"), encoding="utf-8")
    with pytest.raises(SpecError) as info:
        compile_spec(path, path.name)
    return [str(d) for d in info.value.diagnostics]


@pytest.mark.parametrize("old, new, message", [
    ("framing: {before: newline, after: newline}", "framing: {before: tab}", "tab"),
    ("framing: {before: newline, after: newline}", "framing: {}", "framing"),
    ("framing: {after: newline}}", "framing: {after: newline}, at_start: true}",
     "never for an at_start marker"),
    ("framing: {after: newline}}", "framing: {after: newline}, followed_by: [RESPONSE_END]}",
     "follower right after it"),
])
def test_bad_framing_is_an_error(tmp_path: Path, old: str, new: str, message: str) -> None:
    assert old in RESPONSE
    diagnostics = _compile(tmp_path, RESPONSE.replace(old, new))
    assert any(message in d for d in diagnostics), diagnostics
