"""Any model output, however broken: no exception, no lost or invented byte, and the
same result whatever the split.

Inputs are marker soup (the format's own markers, their prefixes and random text),
random bytes decoded with replacement characters, and rendered messages cut,
spliced and repeated.  For each input and format: the accounting of every byte
(runtime/accounting.py) reconstructs the input with nothing lost in content or
reasoning; the events are the same for random splits; streamed deltas equal
parse(); with token ids as well as without.

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
from test_properties import TOKENIZER, _deltas, _encode

EXAMPLES = int(os.environ.get("PARSERGEN_EXAMPLES", "0"))
SETTINGS = settings(max_examples=EXAMPLES or 15, derandomize=not EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
FORMATS = sorted(parsergen.formats())


def _literals(module: Any) -> list[str]:
    """Every marker text the format knows: terminals, argument syntax, render templates."""
    lexicon = module.StreamingParser._LEXICONS[True]
    out = {*lexicon.literals, *lexicon.token_terminals.values(), *lexicon.at_start,
           *lexicon.turn_boundary_tokens}
    args = module.ChatParser.ARGUMENTS
    out |= {v for k, v in args.items() if isinstance(v, str) and k != "syntax"}
    renderer = module.RENDERER
    for parts in (renderer.call, renderer.calls_open, renderer.calls_close, renderer.content):
        out |= {v for kind, v in parts or () if kind != "field"}
    return sorted(t for t in out if t)


def soup(module: Any) -> st.SearchStrategy[list[tuple[str, bool]]]:
    """Pieces (text, is_marker): markers, their prefixes, JSON-ish and random text."""
    lits = _literals(module)
    marker = st.sampled_from(lits).map(lambda t: (t, True))
    prefix = st.sampled_from(lits).flatmap(
        lambda t: st.integers(1, max(1, len(t) - 1)).map(lambda n: (t[:n], False)))
    text = st.one_of(
        st.text(max_size=12),
        st.sampled_from(['{"name": "f", "arguments": {"a": 1}}', '{"a": [1, "}"]}', "\n", " ",
                         '{"a": tru}', '{"a": 1 "b": 2}', '{"a": NaN, "b": [1,,2]}',
                         '"', "\\", "]", "[", "(f(a=1))", "😀", "\ufffd", "call:f{", "=", ">"]),
    ).map(lambda t: (t, False))
    return st.lists(st.one_of(marker, marker, prefix, text), max_size=30)


def mutated_render(module: Any) -> st.SearchStrategy[list[tuple[str, bool]]]:
    """A rendered message, cut short, with a span repeated or removed."""
    renderer = module.RENDERER
    args = st.dictionaries(st.sampled_from(["a", "city", "n"]),
                           st.one_of(st.text(max_size=8), st.integers(), st.booleans()),
                           max_size=2)
    calls = st.lists(st.tuples(st.sampled_from(["f", "get_weather"]), args), max_size=2)

    def build(draw_calls, content, reasoning, cut, dup):
        message = {"content": content, "reasoning": reasoning if renderer.can_render_reasoning()
                   else None,
                   "tool_calls": [{"name": n, "arguments": a} for n, a in draw_calls]
                   if renderer.call is not None else []}
        pieces = renderer.pieces(message)
        if pieces:
            i = dup % len(pieces)
            pieces = pieces[: i + 1] + pieces[i:]  # one piece twice
            pieces = pieces[: max(1, cut % (len(pieces) + 1))]
        return pieces

    return st.builds(build, calls, st.text(max_size=10) | st.none(),
                     st.text(max_size=10) | st.none(), st.integers(0, 99), st.integers(0, 99))


def random_bytes() -> st.SearchStrategy[list[tuple[str, bool]]]:
    return st.binary(max_size=60).map(lambda b: [(b.decode("utf-8", "replace"), False)])


def _split(text: str, rng: random.Random) -> list[tuple[str, list[int]]]:
    out, i = [], 0
    while i < len(text):
        n = rng.randint(1, 6)
        out.append((text[i : i + n], []))
        i += n
    return out


def _message(parsed: Any) -> tuple:
    return (parsed.reasoning, parsed.content,
            [(c.name, c.arguments) for c in parsed.tool_calls])


def check(module: Any, pieces: list[tuple[str, bool]], tokenizer: Any, seed: int,
          thinking: bool) -> None:
    text = "".join(t for t, _ in pieces)
    rng = random.Random(seed)
    runs = {"per character": (None, [(ch, []) for ch in text]),
            "random split": (None, _split(text, rng)),
            "whole": (None, [(text, [])])}
    if tokenizer is not None:
        ids = _encode(tokenizer, pieces)
        per_token = _deltas(tokenizer, ids)
        runs["per token, ids"] = (tokenizer, per_token)
        runs["whole, ids"] = (tokenizer, [("".join(t for t, _ in per_token), ids)])
    events = {}
    for name, (tok, deltas) in runs.items():
        consumed = "".join(t for t, _ in deltas)
        accounting = account(module.StreamingParser(tok, thinking=thinking), deltas)
        assert accounting.text == consumed, f"{name}: bytes lost or added"
        assert not accounting.problems, f"{name}: {accounting.problems}"
        events[name] = merge_chunks(module.StreamingParser(tok, thinking=thinking).feed(
            consumed, [i for _, ids in deltas for i in ids]))
        # Streamed deltas add up to parse() of the same text.
        chat = module.ChatParser(tok, thinking=thinking, ids="sequential")
        streamed = without_cut_calls(
            accumulate([chat.feed(t, i) for t, i in deltas] + [chat.finish()]), chat.cut_calls)
        whole = module.parse(consumed, tokenizer=tok, thinking=thinking, ids="sequential",
                             token_ids=[i for _, ids in deltas for i in ids] or None)
        assert _message(streamed) == _message(whole), f"{name}: stream differs from parse()"
        for call in whole.tool_calls:
            assert isinstance(json.loads(call.arguments), dict)
    splits = {k: merge_chunks(_events(module, runs[k], thinking))
              for k in ("per character", "random split")}
    assert splits["per character"] == splits["random split"], "events depend on the split"


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
    pieces = data.draw(st.one_of(soup(module), mutated_render(module), random_bytes()),
                       label="pieces")
    thinking = data.draw(st.booleans(), label="thinking")
    check(module, pieces, get_tokenizer(TOKENIZER[fmt]), data.draw(st.integers(0, 9999)),
          thinking)


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
