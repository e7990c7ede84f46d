"""Each format's markers against the markers its model really writes.

The round trips render with the spec's own templates and parse with the spec's own
terminals, so a wrong marker round-trips cleanly.  Here every spec is checked against
an independent table (tests/support/real_markers.py, written from chat templates,
tokenizer files and vendor docs): each real marker must be a terminal or argument
delimiter the parser reads, or occur in the completion the spec renders; and where the
table knows a marker's real token id, the format's test tokenizer must have that id
and the spec must match that marker by id.
"""

from __future__ import annotations

from typing import Any

import pytest

import parsergen
from support.real_markers import NO_SOURCE, REAL_MARKERS, REAL_TOKEN_IDS
from test_properties import TOKENIZER

FORMATS = sorted(parsergen.formats())


def _read_texts(module: Any) -> set[str]:
    """Every literal the parser reads (both thinking modes) and every argument delimiter."""
    out: set[str] = set()
    for lexicon in module.StreamingParser.LEXICONS.values():
        out |= {*lexicon.literals, *lexicon.token_terminals.values(), *lexicon.at_start}
    args = module.ChatParser.ARGUMENTS
    out |= {v for k, v in args.items() if isinstance(v, str) and k != "syntax"}
    return out


def _rendered(module: Any) -> str:
    """The completions the spec writes for a message with every field, thinking on and off."""
    renderer = module.RENDERER
    out = []
    for thinking in (True, False):
        message = {"reasoning": "Think." if renderer.can_render_reasoning(thinking) else None,
                   "content": "Sure.",
                   "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris", "n": 3}},
                                  {"name": "f", "arguments": {}}] if renderer.call else []}
        out.append(module.render(message, thinking=thinking))
    return "\n".join(out)


def test_every_format_has_real_markers_or_a_reason() -> None:
    assert sorted(set(REAL_MARKERS) | NO_SOURCE) == FORMATS
    assert not set(REAL_MARKERS) & NO_SOURCE


@pytest.mark.parametrize("fmt", sorted(REAL_MARKERS))
def test_spec_writes_and_reads_the_real_markers(fmt: str) -> None:
    module = parsergen.load(fmt)
    read, rendered = _read_texts(module), _rendered(module)
    missing = [m for m in REAL_MARKERS[fmt].markers if m not in read and m not in rendered]
    assert not missing, f"{fmt}: markers of {REAL_MARKERS[fmt].source} not in the spec: {missing}"


def _id_cases() -> list[tuple[str, str, int]]:
    """(format, marker, real id) for every table marker whose real id the table knows."""
    out = []
    for fmt in sorted(REAL_MARKERS):
        table = REAL_TOKEN_IDS.get(TOKENIZER[fmt])
        if table is not None:
            out += [(fmt, m, table.ids[m]) for m in REAL_MARKERS[fmt].markers if m in table.ids]
    return out


ID_CASES = _id_cases()

def test_the_id_table_is_used() -> None:
    used = {(TOKENIZER[fmt], marker) for fmt, marker, _ in ID_CASES}
    table = {(name, marker) for name, entry in REAL_TOKEN_IDS.items() for marker in entry.ids}
    assert table == used


@pytest.mark.parametrize(("fmt", "marker", "token_id"), ID_CASES)
def test_real_token_ids(fmt: str, marker: str, token_id: int, get_tokenizer) -> None:
    tokenizer = get_tokenizer(TOKENIZER[fmt])
    assert tokenizer.convert_tokens_to_ids(marker) == token_id
    assert tokenizer.encode(marker, add_special_tokens=False) == [token_id]
    module = parsergen.load(fmt)
    literals = set().union(*(lex.literals for lex in module.StreamingParser.LEXICONS.values()))
    by_id = set().union(*(lex.token_terminals.values()
                          for lex in module.StreamingParser.LEXICONS.values()))
    if marker in literals | by_id:  # a terminal: one token in the real tokenizer, read by id
        assert marker in by_id, f"{fmt} reads {marker!r} as text, the model writes token {token_id}"
