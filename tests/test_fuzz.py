"""Any model output, however broken: no exception, no lost or invented byte, and the
same result whatever the split.

Inputs are marker soup (the format's own markers, near-markers, prose and random
text), random bytes decoded with replacement characters, and messages as models write
them (tests/support/strategies.py) rendered, cut and with a piece repeated; never
empty.  For each input and format: the accounting of every byte
(runtime/accounting.py) reconstructs the input with nothing lost in content or
reasoning; streamed deltas equal parse(); with token ids as well as without.  The
events of every run over the same text and ids are the same whatever the split, and
with ids they equal those without where the text spells none of the tokenizer's added
tokens (only such spellings may read differently: README, strict mode).

    PARSERGEN_EXAMPLES=5000 python -m pytest tests/test_fuzz.py   # a long run
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
from parsergen.runtime.messages import without_cut_calls
from parsergen.runtime.accounting import account
from support.strategies import marker_literals, messages, near_markers, prose
from support.streams import encode_pieces, text_pieces, token_deltas
from test_properties import TOKENIZER

EXAMPLES = int(os.environ.get("PARSERGEN_EXAMPLES", "0"))
SETTINGS = settings(max_examples=EXAMPLES or 15, derandomize=not EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
FORMATS = sorted(parsergen.formats())


def soup(module: Any) -> st.SearchStrategy[list[tuple[str, bool]]]:
    """Pieces (text, is_marker): markers, near-markers, prose, JSON-ish and random text."""
    lits = marker_literals(module)
    marker = st.sampled_from(lits).map(lambda t: (t, True))
    near = st.sampled_from(lits).flatmap(near_markers).map(lambda t: (t, False))
    text = st.one_of(
        prose(lits, [], max_words=10),
        st.text(min_size=1, max_size=12),
        st.sampled_from(['{"name": "f", "arguments": {"a": 1}}', '{"a": [1, "}"]}', "\n", " ",
                         '{"a": tru}', '{"a": 1 "b": 2}', '{"a": NaN, "b": [1,,2]}',
                         '"', "\\", "]", "[", "(f(a=1))", "😀", "\ufffd", "call:f{", "=", ">"]),
    ).map(lambda t: (t, False))
    return st.lists(st.one_of(marker, marker, near, text), min_size=1, max_size=30)


@st.composite
def mutated_render(draw: st.DrawFn, module: Any, thinking: bool,
                   tokenizer: Any) -> list[tuple[str, bool]]:
    """A rendered message as a model writes it, cut short, with a piece repeated."""
    drawn = draw(messages(module, thinking, tokenizer, draw(st.booleans()), max_words=20,
                          max_calls=4))
    pieces = module.RENDERER.pieces(drawn.as_dict(), thinking=thinking)
    i = draw(st.integers(0, len(pieces) - 1))
    pieces = pieces[: i + 1] + pieces[i:]  # one piece twice
    return pieces[: draw(st.integers(1, len(pieces)))]


def random_bytes() -> st.SearchStrategy[list[tuple[str, bool]]]:
    return st.binary(min_size=1, max_size=60).map(lambda b: [(b.decode("utf-8", "replace"), False)])


def _message(parsed: Any) -> tuple:
    return (parsed.reasoning, parsed.content,
            [(c.name, c.arguments) for c in parsed.tool_calls], parsed.cut_calls)


def check(module: Any, pieces: list[tuple[str, bool]], tokenizer: Any, seed: int,
          thinking: bool) -> None:
    text = "".join(t for t, _ in pieces)
    rng = random.Random(seed)
    runs = {"per character": (None, [(ch, []) for ch in text]),
            "random split": (None, text_pieces(text, rng, 6)),
            "whole": (None, [(text, [])])}
    if tokenizer is not None:
        ids = encode_pieces(tokenizer, pieces)
        per_token = token_deltas(tokenizer, ids)
        runs["per token, ids"] = (tokenizer, per_token)
        runs["whole, ids"] = (tokenizer, [("".join(t for t, _ in per_token), ids)])
    events = {}
    for name, (tok, deltas) in runs.items():
        consumed = "".join(t for t, _ in deltas)
        whole = module.parse(consumed, tokenizer=tok, thinking=thinking, ids="sequential",
                             token_ids=[i for _, ids in deltas for i in ids] or None)
        accounting = account(module.StreamingParser(tok, thinking=thinking), deltas,
                             whole.cut_calls)
        assert accounting.text == consumed, f"{name}: bytes lost or added"
        assert not accounting.problems, f"{name}: {accounting.problems}"
        events[name] = merge_chunks(_events(module, runs[name], thinking))
        # Streamed deltas add up to parse() of the same text (sent whole, a cut call is
        # never sent; sent as it comes, it is dropped from what was sent).
        for stream_calls in ("incremental", "complete"):
            chat = module.ChatParser(tok, thinking=thinking, ids="sequential",
                                     stream_calls=stream_calls)
            summed = accumulate([chat.feed(t, i) for t, i in deltas] + [chat.finish()])
            if stream_calls == "complete":
                assert summed.tool_calls == whole.tool_calls, f"{name}: a cut call was sent"
            streamed = without_cut_calls(summed, chat.cut_calls)
            assert _message(streamed) == _message(whole), (
                f"{name}, {stream_calls}: stream differs from parse()")
        for call in whole.tool_calls:
            assert isinstance(json.loads(call.arguments), dict)
    # The split never matters: runs over the same text with the same ids (or none) agree.
    for group in (("whole", "per character", "random split"), ("whole, ids", "per token, ids")):
        got = [(name, events[name]) for name in group if name in events]
        for name, evs in got[1:]:
            assert evs == got[0][1], f"events differ between {got[0][0]!r} and {name!r}"
    # Ids only decide what spells one of the tokenizer's added tokens (README: with token
    # ids, a marker typed as text stays text); text that spells none reads the same.
    if ("whole, ids" in runs and runs["whole, ids"][1][0][0] == text
            and not _spells_added_token(tokenizer, text)):
        assert events["whole, ids"] == events["whole"], "ids changed text that spells no token"


def _spells_added_token(tokenizer: Any, text: str) -> bool:
    return any(word in text for word in tokenizer.get_added_vocab())


def _events(module: Any, run: tuple, thinking: bool) -> list:
    tok, deltas = run
    parser = module.StreamingParser(tok, thinking=thinking)
    out = []
    for text, ids in deltas:
        out += parser.feed(text, ids)
    return out + parser.finish()


@pytest.mark.parametrize("fmt", FORMATS)
@SETTINGS
@given(data=st.data())
def test_marker_soup_and_broken_output(fmt: str, data: st.DataObject, get_tokenizer) -> None:
    module = parsergen.load(fmt)
    tokenizer = get_tokenizer(TOKENIZER[fmt])
    thinking = data.draw(st.booleans(), label="thinking")
    pieces = data.draw(st.one_of(soup(module), mutated_render(module, thinking, tokenizer),
                                 random_bytes()), label="pieces")
    check(module, pieces, tokenizer, data.draw(st.integers(0, 9999)), thinking)


def test_held_closer_before_a_dropped_token(get_tokenizer) -> None:
    """A JSON closer held back goes out with the text after a dropped special token."""
    # Found by a long run: <|im_end|> between the envelope's "}" and more text.
    pieces = [("<tool_call>", True), ('{"name": "f", "arguments": {"a": 1}}', False),
              ("<|im_end|>", True), ("<tool_call>", True)]
    check(parsergen.load("hermes"), pieces, get_tokenizer("qwen3.6"), 0, False)


def test_atheris_short_run(tmp_path) -> None:
    # libFuzzer, guided by coverage of the generated parsers and the runtime; a long
    # run: python tools/fuzz_atheris.py -max_total_time=600
    pytest.importorskip("atheris")
    import subprocess
    import sys
    from pathlib import Path

    tool = Path(__file__).resolve().parent.parent / "tools" / "fuzz_atheris.py"
    run = subprocess.run([sys.executable, str(tool), "-runs=3000", "-seed=1"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Done 3000 runs" in run.stderr
