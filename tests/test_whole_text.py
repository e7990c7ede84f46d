"""A whole text read in one pass (``ChatParser.WHOLE_TEXT``, runtime/whole_text.py):
where a format's completion starts in content that runs of whole calls begin and end
in, ``parse()`` reads content, calls, content without a streaming parser; any other
shape goes through the streaming assembly.  Either way the message is the one the
streaming assembly gives the same text in one delta (``ChatParser.complete``), with its
warnings: checked here on the format's own renders, texts that break each of the
shape's rules, every cut of them, and random joins of their pieces."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parsergen
from parsergen.runtime import ChatParserBase

ONE_PASS = sorted(f for f in parsergen.formats() if parsergen.load(f).ChatParser.WHOLE_TEXT)
TOOLS = [{"type": "function", "function": {"name": name, "parameters": {
    "type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}}}}
    for name in ("f", "get")]


def _modes(fmt: str) -> list[bool]:
    return sorted(parsergen.load(fmt).ChatParser.WHOLE_TEXT.programs)


def _rendered(module: Any, thinking: bool, content: str | None, calls: list[Any]) -> str:
    message = {"content": content, "tool_calls": calls}
    return "".join(t for t, _ in module.RENDERER.pieces(message, thinking=thinking))


def _streamed(module: Any, text: str, **kwargs: Any) -> tuple[Any, tuple[str, ...]]:
    """The streaming assembly's message for ``text`` in one delta, and its warnings."""
    parser = module.ChatParser(ids="sequential", stream_calls="complete", **kwargs)
    message = parser.complete(text)
    return message, message.warnings


def _parsed(module: Any, text: str, **kwargs: Any) -> tuple[Any, tuple[str, ...]]:
    message = module.parse(text, ids="sequential", **kwargs)
    return message, message.warnings


def _pieces(module: Any, thinking: bool) -> list[str]:
    """Texts a completion of this format is made of: content, each call as rendered
    (typed, retyped, unknown names), the markers the content state searches for, and
    whitespace."""
    call = {"name": "f", "arguments": {"n": 1, "s": "x"}}
    calls = [_rendered(module, thinking, None, [c]) for c in (
        call, {"name": "get", "arguments": {"n": "5"}}, {"name": "g", "arguments": {}},
        {"name": "f", "arguments": {"s": 5, "extra": [1, {"a": None}]}})]
    lexicon = module.StreamingParser.LEXICONS[thinking]
    return [*calls, *lexicon.literals, "Sure. ", "\n", " \n\t", "{", "}", '"', "x"]


def _texts(module: Any, thinking: bool) -> dict[str, str]:
    """Completions of each shape, and texts that break one of its rules."""
    call = {"name": "f", "arguments": {"n": 1, "s": "x"}}
    two = _rendered(module, thinking, None, [call, {"name": "get", "arguments": {}}])
    one = _rendered(module, thinking, None, [call])
    literals = sorted(module.StreamingParser.LEXICONS[thinking].literals)
    texts = {
        "content": "Just words.",
        "empty": "",
        "whitespace": " \n ",
        "content and calls": _rendered(module, thinking, "Let me check.", [call, call]),
        "calls only": two,
        "content after": two + "\nDone.",
        "whitespace after": two + "\n\n",
        "words between": one + " and then " + one,
        "unknown tool": _rendered(module, thinking, "x", [{"name": "nope", "arguments": {}}]),
        "retyped": _rendered(module, thinking, None, [{"name": "f", "arguments": {"n": "7"}}]),
    }
    for literal in literals:
        texts[f"{literal!r} before"] = literal + " " + two
        texts[f"{literal!r} after"] = two + literal
        texts[f"{literal!r} as content"] = f"a {literal} b"
    return texts


def _check(module: Any, text: str, thinking: bool, **kwargs: Any) -> None:
    kwargs = {"tools": TOOLS, "thinking": thinking, **kwargs}
    assert _parsed(module, text, **kwargs) == _streamed(module, text, **kwargs), text


@pytest.mark.parametrize("fmt", ONE_PASS)
def test_one_pass_equals_the_streaming_assembly(fmt: str) -> None:
    module = parsergen.load(fmt)
    for thinking in _modes(fmt):
        for name, text in _texts(module, thinking).items():
            _check(module, text, thinking)
            _check(module, text, thinking, tools=None)
            # (every cut: a completion max_tokens stopped anywhere)
            for end in range(len(text)):
                _check(module, text[:end], thinking)


@pytest.mark.parametrize("fmt", ONE_PASS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_one_pass_equals_the_streaming_assembly_on_any_join(fmt: str, data: Any) -> None:
    module = parsergen.load(fmt)
    thinking = data.draw(st.sampled_from(_modes(fmt)))
    pieces = _pieces(module, thinking)
    text = "".join(data.draw(st.lists(st.sampled_from(pieces), max_size=8)))
    _check(module, text, thinking)


@pytest.mark.parametrize("fmt", ONE_PASS)
def test_calls_and_content_are_read_in_one_pass(fmt: str) -> None:
    """The shape the pass is for is read by it (not left to the stream), and a text
    with a call's start marker after the run is left to the stream."""
    module = parsergen.load(fmt)
    whole = module.ChatParser.WHOLE_TEXT
    call = {"name": "f", "arguments": {"n": 1, "s": "x"}}
    for thinking in _modes(fmt):
        text = _rendered(module, thinking, "Let me check.", [call, call])
        read = whole.parse(module.ChatParser, text, TOOLS, None, thinking, "sequential")
        assert read is not None and [c.name for c in read.tool_calls] == ["f", "f"], text
        assert read.content == "Let me check."
        # (a call's start marker after the run: a cut call, which the stream reads)
        starts = whole.programs[thinking].starts
        literals = module.StreamingParser.LEXICONS[thinking].literals
        marker = next(lit for lit, name in literals.items() if name in starts)
        assert whole.parse(module.ChatParser, text + marker, TOOLS, None, thinking,
                           "sequential") is None


def test_the_pass_chooses_formats_that_start_in_content_with_calls_there() -> None:
    """Formats whose completion starts in reasoning, or whose calls open a section
    they end in, are parsed as a stream in that mode (the pass gives no program)."""
    qwen3 = parsergen.load("qwen3").ChatParser.WHOLE_TEXT
    assert qwen3 is not None and set(qwen3.programs) == {False}
    assert parsergen.load("kimi_k2").ChatParser.WHOLE_TEXT is None  # (a calls section)
    assert "hermes" in ONE_PASS and ChatParserBase.WHOLE_TEXT is None
