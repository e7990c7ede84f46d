"""Broken model output has one defined outcome per format (README, "Broken output").

Each case is built from the format's own renderer, so it runs for every format.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import parsergen
from parsergen.runtime import EventType, accumulate
from parsergen.runtime.accounting import account
from parsergen.runtime.events import RawText
from parsergen.runtime.messages import without_cut_calls
from support import with_types
from support.streams import encode_pieces, token_deltas
from test_properties import TOKENIZER

ALL = sorted(parsergen.formats())
WITH_TOOLS = [f for f in ALL if parsergen.load(f).RENDERER.call is not None]
ARGS = {"path": "/tmp/a", "content": "abcdef"}
TOOLS = [{"type": "function", "function": {"name": "write_file", "parameters": {
    "type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}}}]


def _piece_at(module: Any, text: str, event: EventType) -> int | None:
    """Where the piece of ``text`` that made the first ``event`` starts, by the events."""
    parser = module.StreamingParser(raw=True)
    at, last = 0, 0
    for item in parser.feed(text) + parser.finish():
        if type(item) is RawText:
            last, at = at, at + len(item.text)
        elif item.type == event:
            return last
    return None


def _call_start(module: Any, text: str) -> int | None:
    """Where the marker that opened the first call starts in ``text``."""
    return _piece_at(module, text, EventType.TOOL_CALL_START)


def _stream(module: Any, deltas: list[tuple[str, list[int]]], tokenizer: Any = None,
            tools: Any = TOOLS, stream_calls: str = "incremental") -> tuple[Any, Any]:
    chat = module.ChatParser(tokenizer, tools=tools, ids="sequential", stream_calls=stream_calls)
    message = accumulate([chat.feed(t, i) for t, i in deltas] + [chat.finish()])
    return message, chat


@pytest.mark.parametrize("fmt", WITH_TOOLS)
def test_a_call_cut_by_max_tokens_is_never_completed(fmt: str) -> None:
    module = parsergen.load(fmt)
    message = {"content": "Sure.", "tool_calls": [{"name": "write_file", "arguments": ARGS}]}
    pieces = module.RENDERER.pieces(message)
    text = "".join(t for t, _ in pieces)
    start = text.index("Sure.") + len("Sure.") if "Sure." in text else 0
    if module.RENDERER.calls_first:
        start = 0
    call_end = text.rindex("abcdef") + len("abcdef")
    for cut in sorted({start + 1, (start + call_end) // 2, call_end - 3, call_end - 1}):
        head = text[:cut]
        whole = module.parse(head, tools=TOOLS, ids="sequential")
        streamed, chat = _stream(module, [(ch, []) for ch in head])
        # parse(): no call with invented arguments, none of its text in content: the
        # call's whole text, from the markup that leads into it, is its cut call.
        assert whole.tool_calls == ()
        before = "" if module.RENDERER.calls_first else "Sure."
        opened = _call_start(module, head)
        if opened is not None:
            (cut_text,) = whole.cut_calls
            assert head.endswith(cut_text) and cut_text.endswith(head[opened:])
            assert (whole.content or "").strip() == before
        elif module.StreamingParser.CUT_HEADER is not None and "<|end|>" in head:
            # Cut in the message header that would open the call (Harmony): framing.
            assert whole.cut_calls == ()
            assert whole.content == before
        else:  # cut before the call opened: the pending text after the content is kept
            assert whole.cut_calls == ()
            assert whole.content.startswith(before) and len(whole.content) > len(before)
            assert head.endswith(whole.content[len(before):])
        # The stream sent what it had and reports the cut; nothing completes it.
        for call in streamed.tool_calls:
            with pytest.raises(ValueError):
                json.loads(call.arguments)
        assert len(chat.cut_calls) == len(whole.cut_calls)
        assert sum(c.sent for c in chat.cut_calls) == len(streamed.tool_calls)
        if chat.cut_calls:  # (a call of markers only, the last one cut, has no text)
            assert any("cut off" in w or "right after its marker" in w for w in chat.warnings)
        assert without_cut_calls(streamed, chat.cut_calls) == whole
        # Sent whole once complete, a cut call is never sent: the deltas are parse()'s.
        streamed, chat = _stream(module, [(ch, []) for ch in head], stream_calls="complete")
        assert streamed.tool_calls == ()
        assert without_cut_calls(streamed, chat.cut_calls) == whole
        accounting = account(module.StreamingParser(), [(head, [])], whole.cut_calls)
        assert accounting.text == head and not accounting.problems
        assert accounting.by_category().get("cut call", "") == "".join(whole.cut_calls)


def _end_marker_at(module: Any, text: str) -> int | None:
    """Where the piece that ended the first call starts in ``text``."""
    return _piece_at(module, text, EventType.TOOL_CALL_END)


@pytest.mark.parametrize("fmt", WITH_TOOLS)
def test_a_call_without_its_end_marker(fmt: str) -> None:
    """Arguments without a bracket of their own (element syntaxes) end only at the call's
    end marker: a completion that ends before it cut the call, even between two
    parameters.  Arguments that close themselves (a JSON object) make a call."""
    module = parsergen.load(fmt)
    text = module.render({"tool_calls": [{"name": "write_file", "arguments": ARGS}]})
    end = _end_marker_at(module, text)
    if end is None or not text[:end].rstrip().endswith(("abcdef", ">", "}")):
        return  # the call ends with the completion, or its end marker is not its own
    head = text[:end]
    whole = module.parse(head, tools=TOOLS, ids="sequential")
    if module.StreamingParser.SYNTAX.closes_itself:
        if whole.tool_calls:
            assert with_types(json.loads(whole.tool_calls[0].arguments)) == with_types(ARGS)
        return
    assert whole.tool_calls == () and not (whole.content or "").strip()
    (cut,) = whole.cut_calls
    assert head.endswith(cut)
    streamed, chat = _stream(module, [(ch, []) for ch in head], stream_calls="complete")
    assert streamed.tool_calls == () and any("cut off" in w for w in chat.warnings)
    assert without_cut_calls(streamed, chat.cut_calls) == whole


def test_a_json_call_without_its_end_marker_is_a_call() -> None:
    module = parsergen.load("hermes")
    whole = module.parse('<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n',
                         ids="sequential")
    assert [(c.name, c.arguments) for c in whole.tool_calls] == [("f", '{"a": 1}')]
    assert whole.cut_calls == ()


@pytest.mark.parametrize("fmt", WITH_TOOLS)
def test_an_unknown_tool(fmt: str) -> None:
    module = parsergen.load(fmt)
    text = module.render({"tool_calls": [{"name": "nope", "arguments": {"a": "x"}}]})
    parsed = module.parse(text, tools=TOOLS)
    if module.ChatParser.ASSEMBLY["validate_tool_names"]:
        # Not a call: its text, markers and all, is content.
        assert parsed.tool_calls == ()
        assert "nope" in parsed.content
    else:
        assert [(c.name, json.loads(c.arguments)) for c in parsed.tool_calls] == [
            ("nope", {"a": "x"})]


JSON_SYNTAX = [f for f in WITH_TOOLS
               if parsergen.load(f).ChatParser.ARGUMENTS["syntax"] in ("json", "json_envelope")]


PYTHON_SYNTAX = [f for f in WITH_TOOLS if parsergen.load(f).RENDERER.calls_first]
# Values that are not values of the format's argument syntax (JSON, or Python literals).
BAD_VALUES = [(f, bad) for f in JSON_SYNTAX for bad in ("tru", "1 2", "NaN")] + [
    (f, bad) for f in PYTHON_SYNTAX for bad in ("{[1]: 2}", "{**a}", "f(x)", "-'a'")]


@pytest.mark.parametrize("fmt, bad", BAD_VALUES)
def test_an_invalid_argument_value_is_kept_as_text(fmt: str, bad: str) -> None:
    module = parsergen.load(fmt)
    text = module.render({"tool_calls": [{"name": "f", "arguments": {"a": 12345, "b": "y"}}]})
    text = text.replace("12345", bad)
    parsed = module.parse(text)
    # The call stands; the value that is not one is kept as its text, never raised.
    assert [(c.name, json.loads(c.arguments)) for c in parsed.tool_calls] == [
        ("f", {"a": bad, "b": "y"})]
    if fmt in JSON_SYNTAX:  # README: "a warning", streamed one character at a time too
        streamed, chat = _stream(module, [(ch, []) for ch in text], tools=None)
        assert [json.loads(c.arguments) for c in streamed.tool_calls] == [{"a": bad, "b": "y"}]
        assert chat.warnings == ["tool call 0: the value of 'a' is not JSON: kept as text"]


@pytest.mark.parametrize("fmt", JSON_SYNTAX)
def test_a_missing_comma_keeps_the_rest_as_the_value_text(fmt: str) -> None:
    module = parsergen.load(fmt)
    text = module.render({"tool_calls": [{"name": "f", "arguments": {"a": 12345, "b": "y"}}]})
    chat = module.ChatParser()
    message = accumulate([chat.feed(text.replace("12345,", "12345")), chat.finish()])
    # The arguments stay one JSON object: the unparsable rest is the value's text.
    assert [json.loads(c.arguments) for c in message.tool_calls] == [{"a": '12345 "b": "y"'}]
    assert chat.warnings == ["tool call 0: the value of 'a' is not JSON: kept as text"]


@pytest.mark.parametrize("fmt", WITH_TOOLS)
def test_a_marker_inside_a_string_argument_with_token_ids(fmt: str, get_tokenizer) -> None:
    module = parsergen.load(fmt)
    lexicon = module.StreamingParser.LEXICONS[True]
    tokenizer = get_tokenizer(TOKENIZER[fmt])
    vocab = tokenizer.get_vocab()
    tokens = sorted(t for t in lexicon.token_terminals.values() if t in vocab)
    if not lexicon.token_terminals:
        # inkling's markers are all special tokens of its tokenizer, but its spec reads
        # every marker as text on purpose (kimi_k3, minimax_m3, pythonic: text markers).
        pytest.skip("the spec matches no marker by token id: a marker's text is the marker")
    if not tokens:
        pytest.skip("no marker the spec reads by id is one token of this tokenizer")
    value = " then ".join(tokens)  # every marker the format reads by id, typed as text
    message = {"content": "Use " + tokens[0] + ".",
               "tool_calls": [{"name": "write_file", "arguments": {"content": value}}]}
    pieces = module.RENDERER.pieces(message)
    ids = encode_pieces(tokenizer, pieces)
    text = "".join(t for t, _ in pieces)
    parsed = module.parse(text, tools=TOOLS, tokenizer=tokenizer, token_ids=ids)
    assert parsed.content == message["content"]
    assert [json.loads(c.arguments) for c in parsed.tool_calls] == [{"content": value}]
    streamed, _ = _stream(module, token_deltas(tokenizer, ids), tokenizer)
    assert streamed.content == parsed.content
    assert [json.loads(c.arguments) for c in streamed.tool_calls] == [{"content": value}]


@pytest.mark.parametrize("fmt", ALL)
def test_empty_deltas_replacement_characters_and_ids_before_text(fmt: str, get_tokenizer) -> None:
    module = parsergen.load(fmt)
    renderer = module.RENDERER
    message = {"content": "broken \ufffd byte",
               "reasoning": "why \ufffd" if renderer.can_render_reasoning() else None,
               "tool_calls": [{"name": "write_file", "arguments": ARGS}] if renderer.call else []}
    pieces = renderer.pieces(message)
    tokenizer = get_tokenizer(TOKENIZER[fmt])
    ids = encode_pieces(tokenizer, pieces)
    per_token = token_deltas(tokenizer, ids)
    expected = module.parse("".join(t for t, _ in pieces), tools=TOOLS, tokenizer=tokenizer,
                            token_ids=ids, ids="sequential")
    assert expected.content == "broken \ufffd byte"
    # Empty deltas between all others change nothing.
    padded = [d for delta in per_token for d in (("", []), delta)]
    assert _stream(module, padded, tokenizer)[0] == expected
    # Ids whose text the detokenizer releases one delta later.
    lagged = [("", [per_token[0][1][0]])] + [
        (per_token[i][0], per_token[i + 1][1]) for i in range(len(per_token) - 1)
    ] + [(per_token[-1][0], [])]
    assert _stream(module, lagged, tokenizer)[0] == expected


@pytest.mark.parametrize("fmt", ALL)
def test_one_ten_megabyte_delta(fmt: str) -> None:
    module = parsergen.load(fmt)
    big = ("All work and no play. 😀\n" * 400_000)[:10_000_000].strip()
    message = {"content": big, "tool_calls": [{"name": "write_file", "arguments": ARGS}]
               if module.RENDERER.call else []}
    text = module.render(message)
    parsed = module.parse(text, tools=TOOLS)
    assert parsed.content == big
    assert len(parsed.tool_calls) == len(message["tool_calls"])


def test_a_million_one_character_deltas() -> None:
    module = parsergen.load("qwen3")
    text = module.render({"reasoning": "r" * 300_000, "content": "c" * 600_000,
                          "tool_calls": [{"name": "write_file", "arguments": ARGS}]})
    parser = module.StreamingParser()
    events = [event for ch in text for event in parser.feed(ch)] + parser.finish()
    assert len(text) > 900_000 and len(events) > 900_000  # one chunk per character, at least
    joined: dict[EventType, str] = {}
    for event in events:
        joined[event.type] = joined.get(event.type, "") + event.value
    assert joined[EventType.REASONING_CHUNK] == "r" * 300_000
    assert joined[EventType.TEXT_CHUNK] == "c" * 600_000
    assert joined[EventType.TOOL_NAME] == "write_file"
    # qwen3's parameter elements are the arguments' text, as in one delta.
    assert joined[EventType.ARG_VALUE_CHUNK] == (
        "\n<parameter=path>\n/tmp/a\n</parameter><parameter=content>\nabcdef\n</parameter>")
    # The markers' events, as qwen3's spec names them (<tool_call> also ends reasoning).
    chunks = (EventType.REASONING_CHUNK, EventType.TEXT_CHUNK, EventType.ARG_VALUE_CHUNK,
              EventType.TOOL_NAME)
    assert [(e.type, e.value) for e in events if e.type not in chunks] == [
        (EventType.REASONING_END, "</think>"), (EventType.REASONING_END, "<tool_call>"),
        (EventType.TOOL_CALL_START, "<tool_call>"), (EventType.TOOL_CALL_END, "</function>")]


@pytest.mark.parametrize("spaces, is_call", [(4000, True), (5000, False)])
def test_held_python_list_syntax_is_bounded(spaces: int, is_call: bool) -> None:
    module = parsergen.load("pythonic")
    head = "[" + "," * spaces
    text = head + "f(a=1)]"
    parsed = module.parse(text)
    # Up to 4096 characters of list syntax wait for a call's name; past that, prose.
    assert [(c.name, c.arguments) for c in parsed.tool_calls] == ([("f", '{"a": 1}')] if is_call
                                                                   else [])
    assert parsed.content == (None if is_call else text)
    chat = module.ChatParser()
    sent = accumulate([chat.feed(ch) for ch in head])
    # Streamed: held while it may be a call, sent once it cannot be (memory stays bounded).
    assert sent.content == (None if is_call else head)
