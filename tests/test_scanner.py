"""The token-id scanner: markers in order, nothing lost, whatever the detokenizer holds back."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers.decoders import DecodeStream

from parsergen.runtime.tokens import Marker, TokenIdScanner
from support import tokenizers as toks

MARKERS = ["<|tool_calls_section_begin|>", "<|tool_call_begin|>", "<|tool_call_end|>",
           "</think>", "[EOS]"]
NAMES = {"<|tool_calls_section_begin|>": "SECTION", "<|tool_call_begin|>": "CALL",
         "<|tool_call_end|>": "END", "</think>": "THINK_END", "[EOS]": "__DROP__"}
PIECES = st.one_of(st.sampled_from(MARKERS), st.sampled_from(["a", "é", "😀", "{}", " x "]))


def _scanner(tokenizer) -> TokenIdScanner:
    vocab = tokenizer.get_vocab()
    return TokenIdScanner({vocab[m]: NAMES[m] for m in MARKERS},
                          lambda tid: tokenizer.decode([tid]))


@settings(max_examples=200, deadline=None)
@given(pieces=st.lists(PIECES, max_size=25), sizes=st.lists(st.integers(1, 6), max_size=40),
       lags=st.lists(st.integers(0, 2), max_size=40))
def test_text_and_markers_come_out_in_order(pieces, sizes, lags) -> None:
    tokenizer = toks.kimi_k2()
    ids = tokenizer.encode("".join(pieces), add_special_tokens=False)
    stream = DecodeStream(skip_special_tokens=False)
    texts = [stream.step(tokenizer.backend_tokenizer, tid) or "" for tid in ids]
    # Group tokens into deltas, and let each delta's text arrive 0-2 deltas late.
    groups, i, k = [], 0, 0
    while i < len(ids):
        n = sizes[k % len(sizes)] if sizes else 1
        groups.append((ids[i : i + n], "".join(texts[i : i + n])))
        i, k = i + n, k + 1
    pending: list[str] = []
    deltas = []
    for k, (d_ids, d_text) in enumerate(groups):
        pending.append(d_text)
        lag = lags[k % len(lags)] if lags else 0
        release = len(pending) - lag if len(pending) > lag else 0
        deltas.append((d_ids, "".join(pending[:release])))
        del pending[:release]
    deltas.append(([], "".join(pending)))

    scanner = _scanner(tokenizer)
    items = []
    for d_ids, d_text in deltas:
        items += scanner.scan(d_text, d_ids)
    items += scanner.flush()
    flat = "".join(item if isinstance(item, str) else item.text for item in items)
    assert flat == "".join(texts)
    expected = [NAMES[p] for p in pieces if p in NAMES]
    assert [item.name for item in items if isinstance(item, Marker)] == expected


def test_marker_whose_text_is_late_waits_for_it() -> None:
    tokenizer = toks.kimi_k2()
    scanner = _scanner(tokenizer)
    end = tokenizer.get_vocab()["</think>"]
    x = tokenizer.get_vocab()[toks.BYTE_CHARS[ord("x")]]
    assert scanner.scan("", [x, end]) == []  # no text yet: the marker waits
    assert scanner.scan("x</think>y", [x]) == ["x", Marker("THINK_END", "</think>"), "y"]


def _typed(tokenizer, text: str) -> list[int]:
    """Ids that spell ``text`` byte by byte, never as a special token (a lookalike)."""
    vocab = tokenizer.get_vocab()
    return [vocab[toks.BYTE_CHARS[b]] for b in text.encode()]


def test_long_delta_splits_at_its_markers() -> None:
    tokenizer = toks.kimi_k2()
    vocab = tokenizer.get_vocab()
    prose = "a long stretch of reasoning, long enough to be split by counting " * 2
    ids = [*_typed(tokenizer, prose), vocab["</think>"], *_typed(tokenizer, "ok"),
           vocab["<|tool_calls_section_begin|>"]]
    text = tokenizer.decode(ids, skip_special_tokens=False)
    assert _scanner(tokenizer).scan(text, ids) == [
        prose, Marker("THINK_END", "</think>"), "ok",
        Marker("SECTION", "<|tool_calls_section_begin|>")]


def test_long_delta_with_a_typed_lookalike_takes_the_real_marker() -> None:
    # "</think>" typed as text before the real token: counting finds two occurrences
    # for one marker, so the tokens are decoded to tell which one is the marker.
    tokenizer = toks.kimi_k2()
    vocab = tokenizer.get_vocab()
    before = "quoting </think> in prose, which is only text and must stay text here"
    ids = [*_typed(tokenizer, before), vocab["</think>"], *_typed(tokenizer, "after")]
    text = tokenizer.decode(ids, skip_special_tokens=False)
    assert len(ids) > 32
    assert _scanner(tokenizer).scan(text, ids) == [
        before, Marker("THINK_END", "</think>"), "after"]
