"""Round trips generated from the specs: random message -> render -> tokens -> parse.

For every format, hypothesis draws a message (unicode text, empty and nested
arguments, several calls), the format's renderer writes it as a completion, the
format's test tokenizer turns it into ids (markers as their tokens, text as text),
and the generated parser reads it back in every cadence: whole, one token per
delta, random groups of tokens, and one character per delta without ids.  Both
ChatParser (streamed) and parse() must give the message back, and the events must
not depend on the split.

CI runs a few examples per format (fixed seed); a long run is one command:

    PARSERGEN_EXAMPLES=2000 python -m pytest tests/test_properties.py
"""

from __future__ import annotations

import json
import keyword
import os
import random
import unicodedata
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tokenizers.decoders import DecodeStream

import parsergen
from parsergen.runtime import accumulate, merge_chunks
from parsergen.runtime.events import STATE_NAMES
from support.streams import schema_of, token_groups, typed_ids

EXAMPLES = int(os.environ.get("PARSERGEN_EXAMPLES", "0"))
SETTINGS = settings(max_examples=EXAMPLES or 12, derandomize=not EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

# The test tokenizer of each format (tests/support/tokenizers.py).
TOKENIZER = {
    "qwen3": "qwen3.6", "qwen3_json": "qwen3.6", "qwen3_reasoning": "qwen3.6",
    "nemotron_v3": "qwen3.6", "step3p5": "qwen3.6", "step3p5_reasoning": "qwen3.6",
    "mimo": "qwen3.6", "granite_thinking": "qwen3.6", "hermes": "qwen3.6",
    "think_reasoning": "qwen3.6", "step3_reasoning": "qwen3.6", "glm45_reasoning": "glm",
    "seed_oss": "seed_oss", "seed_oss_reasoning": "seed_oss",
    "kimi_k2": "kimi_k2", "kimi_k2_reasoning": "kimi_k2", "kimi_k3": "kimi_k3",
    "deepseek_v3": "deepseek", "deepseek_r1": "deepseek", "deepseek_r1_reasoning": "deepseek",
    "deepseek_v31": "deepseek", "deepseek_v32": "deepseek", "deepseek_v4": "deepseek",
    "deepseek_v41": "deepseek", "glm47_moe": "glm", "minimax_m2": "minimax",
    "minimax_m2_reasoning": "minimax", "minimax_m3": "minimax_m3", "gemma4": "gemma4",
    "mistral": "mistral", "mistral_reasoning": "mistral", "granite": "granite",
    "inkling": "inkling", "plamo3": "plamo", "openai": "harmony", "llama3_json": "llama3",
    "llama4_pythonic": "llama4", "pythonic": "llama4",
}

# Characters a tokenizer's normalizer keeps as they are (NFC-stable).
CHARS = st.characters(blacklist_categories=["Cs", "Cc"]).filter(
    lambda c: unicodedata.normalize("NFC", c) == c)
TEXT = st.lists(
    st.one_of(
        CHARS,
        st.sampled_from(["\n", "\t", "😀", "👍🏽", "中", '"', "\\", "{", "}", "[", "]", "<", ">",
                         "|", ":", ",", "=", "'", "(", ")"]),
    ),
    max_size=24,
).map("".join)
KEYS = st.from_regex(r"[a-z_][a-z0-9_]{0,7}", fullmatch=True).filter(
    lambda k: not keyword.iskeyword(k))  # every syntax can write them, Python's too
SCALARS = st.one_of(TEXT, st.integers(-10**6, 10**6), st.booleans(), st.none(),
                    st.floats(allow_nan=False, allow_infinity=False, width=32))


def _values(depth: int) -> st.SearchStrategy:
    if depth == 0:
        return SCALARS
    inner = _values(depth - 1)
    # Lists hold one kind of value, so one items schema types them all.
    homogeneous = st.one_of(*(st.lists(s, max_size=3) for s in
                              (TEXT, st.integers(-99, 99), st.booleans())),
                            st.sampled_from([TEXT, st.integers(-99, 99), st.none()]).flatmap(
                                lambda s: st.lists(st.dictionaries(KEYS, s, max_size=2),
                                                   max_size=2)))
    return st.one_of(SCALARS, homogeneous, st.dictionaries(KEYS, inner, max_size=3))


ARGS = st.dictionaries(KEYS, _values(2), max_size=4)


# -- what a format's text may hold -------------------------------------------------------

def _live_literals(module: Any, thinking: bool, state: str) -> set[str]:
    lexicon = module.StreamingParser._LEXICONS[thinking]
    names = lexicon.live.get(STATE_NAMES.index(state), frozenset())
    out = {text for text, name in lexicon.literals.items() if name in names}
    out |= {lexicon.token_terminals[n] for n in names if n in lexicon.token_terminals}
    return out | set(lexicon.at_start)


def _syntax_literals(arguments: dict) -> set[str]:
    keys = ("open", "close", "value_open", "prefix", "string_delimiter")
    return {arguments[k] for k in keys if arguments.get(k)}


def _scrub(text: str, banned: set[str]) -> str:
    """``text`` without any banned literal (removal can form a new one: repeat)."""
    before = None
    while before != text:
        before = text
        for lit in sorted(banned, key=len, reverse=True):
            text = text.replace(lit, "")
    return text


def _scrub_value(value: Any, banned: set[str]) -> Any:
    if isinstance(value, str):
        return _scrub(value, banned)
    if isinstance(value, list):
        return [_scrub_value(v, banned) for v in value]
    if isinstance(value, dict):
        return {k: _scrub_value(v, banned) for k, v in value.items()}
    return value


def _clean(text: str | None, banned: set[str]) -> str | None:
    """Prose as the formats keep it: no banned literal, no outer whitespace, not empty."""
    if text is None:
        return None
    text = _scrub(text, banned).strip()
    return text or None


# -- tokens and cadences --------------------------------------------------------------------

def _encode(tokenizer: Any, pieces: list[tuple[str, bool]]) -> list[int]:
    ids: list[int] = []
    for text, is_marker in pieces:
        if not text:
            continue
        if is_marker:
            ids += tokenizer.encode(text, add_special_tokens=False)
        else:
            ids += typed_ids(tokenizer, text)
    return ids


def _deltas(tokenizer: Any, ids: list[int]) -> list[tuple[str, list[int]]]:
    """One delta per token, as a server's incremental detokenizer makes them."""
    stream = DecodeStream(skip_special_tokens=False)
    backend = tokenizer.backend_tokenizer
    return [(stream.step(backend, tid) or "", [tid]) for tid in ids]


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
    return _message_of(accumulate(out)), merge_chunks(events)


FORMATS = sorted(f for f in parsergen.formats())


def test_every_format_has_a_test_tokenizer() -> None:
    assert sorted(TOKENIZER) == FORMATS


@pytest.mark.parametrize("fmt", FORMATS)
@SETTINGS
@given(data=st.data())
def test_render_then_parse_in_every_cadence(fmt: str, data: st.DataObject, get_tokenizer) -> None:
    module = parsergen.load(fmt)
    renderer = module.RENDERER
    thinking = data.draw(st.booleans(), label="thinking")
    arguments = dict(module.ChatParser.ARGUMENTS)
    # Text in a state must not spell a marker that state reads (in text mode there is
    # no token id to tell them apart): such literals are removed from drawn text.
    ban_content = _live_literals(module, thinking, "CONTENT") | _live_literals(
        module, thinking, "MESSAGE_HEADER")
    ban_reasoning = _live_literals(module, thinking, "REASONING")
    ban_args = (_live_literals(module, thinking, "TOOL_ARGS") | _syntax_literals(arguments)
                | _live_literals(module, thinking, "TOOL_BETWEEN"))

    reasoning = None
    if renderer.can_render_reasoning(thinking):
        reasoning = _clean(data.draw(st.none() | TEXT, label="reasoning"), ban_reasoning)
    content = _clean(data.draw(st.none() | TEXT, label="content"), ban_content)
    calls = []
    if renderer.call is not None:
        names = data.draw(st.lists(st.from_regex(r"[a-z_][a-z0-9_]{0,9}", fullmatch=True),
                                   max_size=3, unique=True), label="names")
        calls = [(name, _scrub_value(data.draw(ARGS, label="arguments"), ban_args))
                 for name in names]
    tools = [{"type": "function", "function": {"name": name, "parameters": schema_of(args)}}
             for name, args in calls]
    message = {"reasoning": reasoning, "content": content,
               "tool_calls": [{"name": n, "arguments": a} for n, a in calls]}
    expected = (reasoning, content, [(n, a) for n, a in calls])

    pieces = renderer.pieces(message, thinking=thinking)
    text = "".join(t for t, _ in pieces)
    tokenizer = get_tokenizer(TOKENIZER[fmt])
    ids = _encode(tokenizer, pieces)
    per_token = _deltas(tokenizer, ids)
    assert "".join(t for t, _ in per_token) == text, "the tokenizer changed the text"

    assert _message_of(module.parse(text, tools=tools, thinking=thinking)) == expected
    assert _message_of(module.parse(text, tools=tools, tokenizer=tokenizer, token_ids=ids,
                                    thinking=thinking)) == expected
    rng = random.Random(data.draw(st.integers(0, 2**32), label="seed"))
    cadences = {
        "whole": (tokenizer, [(text, ids)]),
        "per token": (tokenizer, per_token),
        "token groups": (tokenizer, token_groups(per_token, rng)),
        "per character, no ids": (None, [(ch, []) for ch in text]),
    }
    events = {}
    for name, (tok, deltas) in cadences.items():
        got, events[name] = _stream(module, tok, deltas, tools, thinking)
        assert got == expected, f"{name}: streamed message differs"
    first = events["whole"]
    for name, evs in events.items():
        assert evs == first, f"events differ between 'whole' and {name!r}"
