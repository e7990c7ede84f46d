"""How each terminal of a spec is matched with one tokenizer (``check --tokenizer``).

With token ids a terminal is matched by its token id (a ``token_id: true`` terminal
the vocabulary has as one token), as an id sequence (a spelling over special tokens,
with text before, between or after them: ``runtime/sequences.py``) or by text.  A spec
that passes every text test can still surprise with ids: a ``token_id`` spelling that is
not one token, extra spellings of a terminal matched by id, special tokens inside a
spelling matched as text (another spelling of its terminal is plain text).  Each gets a
warning naming the terminal's line.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any

from parsergen.runtime.vocabulary import special_tokens

from .diagnostics import Diagnostic, Position
from .ir import FormatIR

BY_ID = "token id"
BY_SEQUENCE = "id sequence"
BY_TEXT = "text"


@dataclass(frozen=True)
class TerminalMatch:
    """One spelling of a terminal and how it is matched with the tokenizer."""

    name: str
    spelling: str
    how: str  # BY_ID, BY_SEQUENCE or BY_TEXT
    line: int
    warning: str | None = None


def load_tokenizer(name_or_path: str) -> Any:
    """A transformers tokenizer by hub name or local path (ValueError if it cannot)."""
    try:
        from transformers import AutoTokenizer
    except ImportError as exc:
        raise ValueError(f"--tokenizer needs the transformers package ({exc})") from None
    try:
        return AutoTokenizer.from_pretrained(name_or_path)
    except Exception as exc:  # noqa: BLE001 - any loader failure is the user's input
        raise ValueError(f"cannot load tokenizer {name_or_path!r}: {exc}") from None


def match_report(fmt: FormatIR, module: ModuleType, tokenizer: Any) -> list[TerminalMatch]:
    """Every spelling of every terminal, as the parser matches it with ``tokenizer``."""
    lexicons = module.StreamingParser.LEXICONS
    infos = [(lexicon, lexicon.info(tokenizer)) for lexicon in lexicons.values()]
    specials = special_tokens(tokenizer)
    out = []
    terminals = {t.name: t for variant in fmt.variants for t in variant.terminals}
    for term in sorted(terminals.values(), key=lambda t: (t.line, t.name)):
        for spelling in term.spellings:
            how = BY_TEXT
            for lexicon, info in infos:
                if lexicon.token_terminals.get(term.name) == spelling and (
                        term.name in info.resolved):
                    how = BY_ID
                elif term.name in info.patterns.values():
                    how = BY_SEQUENCE  # (every spelling of it is a sequence, or none)
            out.append(TerminalMatch(term.name, spelling, how, term.line,
                                     _warning(term, spelling, how, infos, tokenizer, specials)))
    return out


def report_lines(fmt: FormatIR, report: list[TerminalMatch]) -> tuple[list[str], list[str]]:
    """Lines for ``parsergen check``: one per spelling, and the warnings."""
    lines = [f"{fmt.source}:{m.line}: {m.name} {m.spelling!r} by {m.how}" for m in report]
    warnings = [Diagnostic(Position(fmt.source, m.line, 1), f"$.terminals.{m.name}",
                           m.warning).warning() for m in report if m.warning]
    return lines, warnings


def _warning(term: Any, spelling: str, how: str, infos: list, tokenizer: Any,
             specials: dict[int, str]) -> str | None:
    resolved = any(term.name in info.resolved for _, info in infos)
    if term.token_id and spelling == term.spellings[0] and how == BY_TEXT:
        return (f"{spelling!r} is not one token of this tokenizer, so {term.name} is "
                "matched as text and a quote of it acts as the marker; spell it as the "
                "tokenizer's token, or drop token_id")
    if how == BY_TEXT and resolved:
        return (f"spelling {spelling!r} is never matched once token ids come: "
                f"{term.name} is matched by its token; give it its own terminal")
    if how == BY_TEXT:
        try:
            ids = tokenizer.encode(spelling, add_special_tokens=False)
        except (AttributeError, TypeError, ValueError):
            return None
        inner = [specials[i] for i in ids if i in specials]
        if inner:
            return (f"{spelling!r} holds the special token(s) {', '.join(inner)} but "
                    f"{term.name} has a spelling without one, so it is matched as text (a "
                    "quote of it acts as the marker); give each its own terminal")
    return None
