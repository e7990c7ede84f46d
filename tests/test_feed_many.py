"""feed_many: several deltas at once give what feeding each in turn gives.

For every bundled format, a drawn message with calls is rendered, tokenized and fed
per token (with ids, and with ids left off some deltas) and per character (without),
once delta by delta and once in random groups of 1-8 deltas through ``feed_many``, at
both levels: the events (chunks merged) and the message a client sums up must be
identical.  No timing here: the
benchmark row is benchmarks/run.py's "feed_many x4".
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import parsergen
from parsergen.runtime import DeltaMessage, DeltaToolCall, accumulate, merge_chunks, merge_deltas
from parsergen.runtime.deltas import coalesce
from support.strategies import messages, tools_for
from support.streams import encode_pieces, schema_of, token_deltas
from support.tokenizers import FORMAT_TOKENIZERS

FORMATS = sorted(parsergen.formats())
SETTINGS = settings(max_examples=4, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _groups(deltas: list, rng: random.Random) -> list[list]:
    """``deltas`` in random runs of 1-8."""
    out, i = [], 0
    while i < len(deltas):
        n = rng.randint(1, 8)
        out.append(deltas[i : i + n])
        i += n
    return out


def _one_by_one(module: Any, tokenizer: Any, deltas: list, tools: list,
                thinking: bool) -> tuple[list, Any]:
    events_parser = module.StreamingParser(tokenizer, thinking=thinking)
    chat = module.ChatParser(tokenizer, tools=tools, thinking=thinking, ids="sequential")
    events: list = []
    out = []
    for text, ids in deltas:
        events += events_parser.feed(text, ids)
        out.append(chat.feed(text, ids))
    return merge_chunks(events + events_parser.finish()), accumulate(out + [chat.finish()])


def _many(module: Any, tokenizer: Any, groups: list, tools: list, thinking: bool) -> tuple[list, Any]:
    events_parser = module.StreamingParser(tokenizer, thinking=thinking)
    chat = module.ChatParser(tokenizer, tools=tools, thinking=thinking, ids="sequential")
    events: list = []
    out = []
    for group in groups:
        events += events_parser.feed_many(group)
        out.append(chat.feed_many(iter(group)))  # any iterable
    return merge_chunks(events + events_parser.finish()), accumulate(out + [chat.finish()])


@pytest.mark.parametrize("fmt", FORMATS)
@SETTINGS
@given(data=st.data())
def test_feed_many_equals_feeding_each_delta(fmt: str, data: st.DataObject, get_tokenizer) -> None:
    module = parsergen.load(fmt)
    tokenizer = get_tokenizer(FORMAT_TOKENIZERS[fmt])
    thinking = data.draw(st.booleans(), label="thinking")
    typed = data.draw(st.booleans(), label="typed markers")
    drawn = data.draw(messages(module, thinking, tokenizer, typed, max_words=30), label="message")
    assume(drawn.calls or module.RENDERER.call is None)
    tools = tools_for(drawn.calls, schema_of)
    pieces = module.RENDERER.pieces(drawn.as_dict(), thinking=thinking)
    text = "".join(t for t, _ in pieces)
    rng = random.Random(data.draw(st.integers(0, 2**32), label="seed"))
    per_token = token_deltas(tokenizer, encode_pieces(tokenizer, pieces))
    cadences = {
        "per token": (tokenizer, per_token),
        "per character, no ids": (None, [(ch, []) for ch in text]),
        # Deltas with ids and of text alone mixed: feed_many must not join the two kinds.
        "per token, some without ids": (
            tokenizer, [(t, [] if rng.random() < 0.3 else ids) for t, ids in per_token]),
    }
    for name, (tok, deltas) in cadences.items():
        events, message = _one_by_one(module, tok, deltas, tools, thinking)
        got_events, got_message = _many(module, tok, _groups(deltas, rng), tools, thinking)
        assert got_events == events, f"{name}: feed_many's events differ"
        assert got_message == message, f"{name}: feed_many's message differs"


def test_coalesce_keeps_text_and_ids_apart() -> None:
    # A run breaks where deltas with ids meet text alone; empty deltas join any run.
    deltas = [("a", []), ("b", []), ("", []), ("<t>", [7]), ("", [8]), ("c", [9]), ("", []),
              ("d", []), ("e", [])]
    assert coalesce(deltas) == [("ab", []), ("<t>c", [7, 8, 9]), ("de", [])]
    assert coalesce([]) == []
    assert coalesce([("", [])]) == [("", [])]


def test_merge_deltas() -> None:
    deltas = [
        DeltaMessage(reasoning="r1"), None, DeltaMessage(content="c1"),
        DeltaMessage(content="c2", tool_calls=[
            DeltaToolCall(1, id="b", type="function", name="g", arguments="{")]),
        DeltaMessage(tool_calls=[DeltaToolCall(0, id="a", type="function", name="f"),
                                 DeltaToolCall(1, arguments="}")]),
        DeltaMessage(reasoning="r2", tool_calls=[DeltaToolCall(0, arguments="{}")]),
    ]
    before = copy.deepcopy(deltas)
    merged = merge_deltas(deltas)
    assert deltas == before  # the pieces are added to copies, never to the deltas
    assert merged == DeltaMessage(reasoning="r1r2", content="c1c2", tool_calls=[
        DeltaToolCall(0, id="a", type="function", name="f", arguments="{}"),
        DeltaToolCall(1, id="b", type="function", name="g", arguments="{}")])
    assert merge_deltas([None, None]) is None
    assert merge_deltas([]) is None


def test_feed_many_of_nothing() -> None:
    module = parsergen.load("hermes")
    assert module.StreamingParser().feed_many([]) == []
    assert module.ChatParser().feed_many([]) is None
