"""Round trips generated from the specs: random message -> render -> tokens -> parse.

For every format, hypothesis draws a non-empty message as a model writes it
(tests/support/strategies.py: long, multi-line, unicode, whitespace-edged prose with
near-markers; up to eight calls with nested and escaped arguments), the format's
renderer writes it as a completion, the format's test tokenizer turns it into ids
(markers as their tokens, text as text), and the generated parser reads it back in
every cadence: whole, one token per delta, random groups of tokens, and one character
per delta without ids.  Both ChatParser (streamed) and parse() must give back
``expected_message()``: the message after the documented whitespace rules, nothing
else.  The events must not depend on the split, and the accounting of every byte
(runtime/accounting.py) finds no problem: nothing lost, no words left in framing.  Messages that type the format's
token-id markers as plain text are read back only with token ids (README: such a
marker typed as text stays text; without ids it is the marker).

CI runs a few examples per format (fixed seed); a long run is one command:

    PARSERGEN_EXAMPLES=2000 python -m pytest tests/test_properties.py
"""

from __future__ import annotations

import json
import os
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import parsergen
from parsergen.runtime import accumulate, merge_chunks
from parsergen.runtime.accounting import account
from support.strategies import expected_message, messages, tools_for
from support.streams import encode_pieces, schema_of, token_deltas, token_groups
from support.tokenizers import FORMAT_TOKENIZERS

EXAMPLES = int(os.environ.get("PARSERGEN_EXAMPLES", "0"))
SETTINGS = settings(max_examples=EXAMPLES or 12, derandomize=not EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

# The test tokenizer of each format (tests/support/tokenizers.py).
TOKENIZER = FORMAT_TOKENIZERS

# -- tokens and cadences --------------------------------------------------------------------

def _message_of(parsed: Any) -> tuple:
    return (parsed.reasoning, parsed.content,
            [(c.name, json.loads(c.arguments)) for c in parsed.tool_calls])


def _stream(module: Any, tokenizer: Any, deltas: list, tools: list, thinking: bool):
    chat = module.ChatParser(tokenizer, tools=tools, thinking=thinking)
    events_parser = module.StreamingParser(tokenizer, thinking=thinking)
    out, events = [], []
    for text, ids in deltas:
        out.append(chat.feed(text, ids))
        events += events_parser.feed(text, ids)
    out.append(chat.finish())
    events += events_parser.finish()
    # Every byte has a destination, and no words are left in framing (issue 16).
    accounting = account(module.StreamingParser(tokenizer, thinking=thinking), deltas)
    assert accounting.problems == [], accounting.problems
    return _message_of(accumulate(out)), merge_chunks(events)


FORMATS = sorted(f for f in parsergen.formats())


def test_every_format_has_a_test_tokenizer() -> None:
    assert sorted(TOKENIZER) == FORMATS


@pytest.mark.parametrize("fmt", FORMATS)
@SETTINGS
@given(data=st.data())
def test_render_then_parse_in_every_cadence(fmt: str, data: st.DataObject, get_tokenizer) -> None:
    module = parsergen.load(fmt)
    tokenizer = get_tokenizer(TOKENIZER[fmt])
    thinking = data.draw(st.booleans(), label="thinking")
    typed = data.draw(st.booleans(), label="typed markers")
    drawn = data.draw(messages(module, thinking, tokenizer, typed), label="message")
    expected = expected_message(module, drawn)
    tools = tools_for(drawn.calls, schema_of)

    pieces = module.RENDERER.pieces(drawn.as_dict(), thinking=thinking)
    text = "".join(t for t, _ in pieces)
    ids = encode_pieces(tokenizer, pieces)
    per_token = token_deltas(tokenizer, ids)
    assert "".join(t for t, _ in per_token) == text, "the tokenizer changed the text"

    assert _message_of(module.parse(text, tools=tools, tokenizer=tokenizer, token_ids=ids,
                                    thinking=thinking)) == expected
    rng = random.Random(data.draw(st.integers(0, 2**32), label="seed"))
    cadences = {
        "whole": (tokenizer, [(text, ids)]),
        "per token": (tokenizer, per_token),
        "token groups": (tokenizer, token_groups(per_token, rng)),
    }
    if not drawn.typed_markers:  # without ids a typed marker is the marker (README)
        assert _message_of(module.parse(text, tools=tools, thinking=thinking)) == expected
        cadences["per character, no ids"] = (None, [(ch, []) for ch in text])
    events = {}
    for name, (tok, deltas) in cadences.items():
        got, events[name] = _stream(module, tok, deltas, tools, thinking)
        assert got == expected, f"{name}: streamed message differs"
    first = events["whole"]
    for name, evs in events.items():
        assert evs == first, f"events differ between 'whole' and {name!r}"
