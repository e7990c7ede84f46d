"""Pattern terminals: what a ``pattern:`` regex is to the matcher, or why it cannot be one.

A pattern terminal is matched while streaming by ``runtime/patterns.py``: it finds
the pattern's literal prefix with ``str.find``-like searches and holds at most the
pattern's longest match.  That needs, decided here once per spec: a literal first
character (the prefix), a bounded match length (from the regex or ``max_length``), no
assertion whose answer depends on text outside the match (lookarounds, anchors:
a stream and a whole text would disagree).  Its named captures are what transitions
on it may read and hand on (``name``, unless a transition names another, is the call's
name; validation checks each use).
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import Any

# The standard library's own parser of its regex syntax; its opcodes are its names too.
_parser: Any = importlib.import_module("re._parser")
_c: Any = _parser

# The capture TOOL_NAME gives out when a transition names none.
NAME_CAPTURE = "name"
# Longest bound accepted: the matcher holds back up to this much text.
MAX_BOUND = 4096

_ASSERTS = {_c.ASSERT, _c.ASSERT_NOT}


@dataclass(frozen=True)
class PatternShape:
    """What the matcher needs of one pattern: its text, literal prefix and bound."""

    source: str
    prefix: str
    bound: int
    captures: tuple[str, ...]


def pattern_shape(source: str, max_length: int | None) -> PatternShape:
    """The shape of ``source``, or ValueError saying why it cannot be a terminal."""
    try:
        compiled = re.compile(source)
        parsed = _parser.parse(source)
    except re.error as exc:
        raise ValueError(f"not a regular expression: {exc}") from None
    if compiled.flags & re.IGNORECASE:
        raise ValueError("case-insensitive matching ((?i)) has no literal prefix to find")
    _refuse_assertions(parsed)
    prefix = _literal_prefix(parsed)
    if not prefix:
        raise ValueError("it must start with a literal character (the matcher finds "
                         "that first; a class, group or repeat cannot be found that way)")
    low, high = parsed.getwidth()
    if low == 0:
        raise ValueError("it can match the empty text")
    if max_length is not None:
        if max_length < len(prefix):
            raise ValueError(f"max_length {max_length} is shorter than its literal "
                             f"prefix {prefix!r}")
        bound = min(max_length, high)
    elif high >= MAX_BOUND:
        raise ValueError("its longest match is unbounded (a *, + or {n,}): bound the "
                         "repeats ({1,64}) or declare max_length")
    else:
        bound = high
    return PatternShape(source, prefix, bound, tuple(sorted(compiled.groupindex)))


def _literal_prefix(parsed: Any) -> str:
    """The literal characters every match starts with."""
    out = []
    for op, av in parsed:
        if op is _c.LITERAL:
            out.append(chr(av))
        else:
            break
    return "".join(out)


def _refuse_assertions(parsed: Any) -> None:
    """ValueError for an assertion that reads text outside what the match consumed."""
    for op, av in parsed:
        if op in _ASSERTS:
            raise ValueError("lookarounds read text outside the match; a stream cannot "
                             "decide them as the whole text does")
        if op is _c.AT:
            raise ValueError("anchors (^, $, \\A, \\Z, \\b, \\B) depend on text outside "
                             "the match; a stream cannot decide them as the whole text does")
        for sub in _subpatterns(op, av):
            _refuse_assertions(sub)


def _subpatterns(op: Any, av: Any) -> list[Any]:
    """The nested sub-patterns of one regex node."""
    if op is _c.SUBPATTERN:
        return [av[-1]]
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
        return [av[2]]
    if op is _c.BRANCH:
        return list(av[1])
    if op is getattr(_c, "ATOMIC_GROUP", None):
        return [av]
    if op is _c.GROUPREF_EXISTS:
        return [b for b in av[1:] if b is not None]
    return []


__all__ = ["NAME_CAPTURE", "MAX_BOUND", "PatternShape", "pattern_shape"]
