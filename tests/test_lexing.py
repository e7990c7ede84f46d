"""The per-state scanning analysis, on its own and against a global longest-match lexer."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parsergen
from parsergen.runtime.events import DROP, STATE_NAMES, merge_chunks
from parsergen.runtime.lexicon import Lexicon, Matcher, can_hide, relevant_closure

TOOL_NAME = STATE_NAMES.index("TOOL_NAME")
TOOL_ARGS = STATE_NAMES.index("TOOL_ARGS")


def test_can_hide() -> None:
    assert can_hide("<think>", ">")  # '>' sits inside '<think>'
    assert can_hide("<invoke name=\"", "<invoke name=")  # same start, longer wins
    assert can_hide("ab", "bcd")  # a suffix of 'ab' starts 'bcd'
    assert not can_hide("<invoke name=", "<invoke name=\"")
    assert not can_hide("<think>", "</function>")  # no '<' after the first character
    assert not can_hide(">", ">")


def test_closure_grows_through_chains() -> None:
    # 'xab' hides 'ab' (live), and 'yx' hides 'xab': all three are needed.
    assert relevant_closure(["ab"], ["ab", "xab", "yx", "zz"]) == {"ab", "xab", "yx"}


def test_qwen3_states_scan_what_the_design_predicts() -> None:
    lexicon = parsergen.load("qwen3").StreamingParser.LEXICONS[True]
    matchers = lexicon.matchers(frozenset(), frozenset(), False)
    # In TOOL_NAME '>' ends the name, so every literal ending in '>' must be seen there:
    # '<function=fo<think>x>' names 'fo<think>x' (checked against vLLM in the goldens).
    assert "<think>" in matchers[TOOL_NAME].names
    assert matchers[TOOL_NAME].names["<think>"] is None  # seen, but only as text
    assert set(matchers[TOOL_ARGS].names) == {
        "</function>", "<function=", "<parameter=", "</parameter>"}


def test_hold_point_and_scan() -> None:
    m = Matcher({"<tool_call>": "TOOL", "</think>": "END", "<a": None})
    assert m.hold_point("text <tool", 0) == 5
    assert m.hold_point("text <tool_callX", 0) == 16
    assert m.scan("ab</think>cd", 0, False) == (2, 10, "END")
    assert m.scan("ab</thi", 0, False) == (2, -1, None)  # hold '</thi'
    assert m.scan("ab</thi", 0, True) == (7, -1, None)  # at the end nothing is held
    assert m.scan("x<a", 0, False) == (1, 3, None)  # complete, and no longer literal
    assert m.scan("x<", 0, False) == (1, -1, None)  # '<' may start either literal


class _GlobalLexicon(Lexicon):
    """A variant's lexicon whose every state looks for every literal: vLLM's global lexer.

    A subclass, not a stand-in: the compiled runtime (tools/build_compiled.py) checks types."""

    def __init__(self, lexicon: Lexicon) -> None:
        super().__init__(literals=lexicon.literals, token_terminals=lexicon.token_terminals,
                         live=lexicon.live, preserve_tokens=tuple(lexicon.configured_texts),
                         turn_boundary_tokens=lexicon.turn_boundary_tokens,
                         at_start=lexicon.at_start, followed_by=lexicon.followed_by)

    def matchers(self, drop_texts, resolved, strict) -> tuple[Matcher, ...]:
        literals = self.literals
        out = []
        for state in range(len(STATE_NAMES)):
            live = self.live.get(state, frozenset())
            out.append(Matcher({lit: (name if name in live else None)
                                for lit, name in literals.items()}))
        return tuple(out)


def _global_parser(module, thinking: bool):
    """A parser of ``module`` that scans as vLLM's global lexer does (no tokenizer)."""
    lexicon = module.StreamingParser.LEXICONS[thinking]
    cls = type("GlobalLexing", (module.StreamingParser,),
               {"LEXICONS": {thinking: _GlobalLexicon(lexicon)}})
    return cls(thinking=thinking)


def _pieces_for(fmt: str):
    """Whole markers half of the time, else fragments of them and plain characters."""
    literals = sorted(parsergen.load(fmt).StreamingParser.LEXICONS[True].literals)
    fragments = {"a", " ", "\n", "{", "}", '"', "x>"}
    for lit in literals:
        fragments.update((lit[: len(lit) // 2], lit[len(lit) // 2 :], lit[1:]))
    return st.one_of(st.sampled_from(literals), st.sampled_from(sorted(fragments)))


def _run(parser, text: str, cuts: list[int]) -> list:
    events = []
    bounds = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    for a, b in zip(bounds, bounds[1:]):
        events += parser.feed(text[a:b])
    return merge_chunks(events + parser.finish())


@pytest.mark.parametrize("fmt", ["qwen3", "seed_oss", "kimi_k2"])
@settings(max_examples=300, deadline=None)
@given(data=st.data(), thinking=st.booleans())
def test_specialized_scanning_equals_global_lexer_for_any_split(fmt, data, thinking) -> None:
    text = "".join(data.draw(st.lists(_pieces_for(fmt), max_size=40), label="pieces"))
    cuts = data.draw(st.lists(st.integers(0, 10_000), max_size=12), label="cuts")
    module = parsergen.load(fmt)
    specialized = _run(module.StreamingParser(thinking=thinking), text, cuts)
    reference = _run(_global_parser(module, thinking), text, [])
    assert specialized == reference


def test_drop_terminal_is_a_name() -> None:
    assert DROP == "__DROP__"
