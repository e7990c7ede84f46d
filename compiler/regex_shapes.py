"""A response_template's regular expressions, read as shapes parsergen can say.

A Hugging Face ``response_template`` writes a region's anchors as literals or as regular
expressions (``open_pattern``, ``close_pattern``, ``tag_pattern``).  parsergen's markers
are literals, so a pattern compiles only where it is a few literals with parts that need
no regex engine while streaming: whitespace around them, a text gap that is dropped, a
named capture (a call's name, an argument's key or value), the start or the end of the
text, a lookahead for a literal anywhere after (``(?=[\\s\\S]*?</think>)``).
``shapes`` reads a pattern into its alternatives, each a list of ``Piece``s, or raises
``Unsupported`` saying which part is beyond that.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from itertools import product
from typing import Any

# The standard library's own parser of its regex syntax, and its opcodes.
sre: Any = importlib.import_module("re._parser")
(ANY, ASSERT, ASSERT_NOT, AT, AT_BEGINNING, AT_BEGINNING_STRING, AT_END, AT_END_STRING, BRANCH,
 CATEGORY, CATEGORY_NOT_SPACE, CATEGORY_SPACE, IN, LITERAL, MAX_REPEAT, MAXREPEAT, MIN_REPEAT,
 NEGATE, NOT_LITERAL, SUBPATTERN) = (getattr(sre, name) for name in (
    "ANY", "ASSERT", "ASSERT_NOT", "AT", "AT_BEGINNING", "AT_BEGINNING_STRING", "AT_END",
    "AT_END_STRING", "BRANCH", "CATEGORY", "CATEGORY_NOT_SPACE", "CATEGORY_SPACE", "IN",
    "LITERAL", "MAX_REPEAT", "MAXREPEAT", "MIN_REPEAT", "NEGATE", "NOT_LITERAL", "SUBPATTERN"))

MAX_ALTERNATIVES = 16


class Unsupported(Exception):
    """A pattern, or a part of one, that parsergen's markers cannot say (the reason)."""


@dataclass(frozen=True)
class Piece:
    """One part of an alternative.

    ``kind``: ``lit`` (``text``), ``ws`` (whitespace, ``text`` '*' or '+'), ``opt`` (an
    optional literal ``text``), ``gap`` (any text, not read), ``group`` (a named capture:
    ``text`` its name, ``source`` its regex), ``start``, ``end``, ``ahead`` (a lookahead
    for the literal ``text`` after any text: the region holds until it comes).
    """

    kind: str
    text: str = ""
    source: str = ""


_GROUP_SOURCE = re.compile(r"\(\?P<(\w+)>((?:\\.|\[(?:\\.|[^\]\\])*\]|[^()\\\[])*)\)")


def _is_space_class(items: Any) -> bool:
    return list(items) == [(CATEGORY, CATEGORY_SPACE)]


def _is_any_class(items: Any) -> bool:
    """``[\\s\\S]`` and friends: a class every character is in."""
    kinds = {a for a in items}
    return kinds == {(CATEGORY, CATEGORY_SPACE), (CATEGORY, CATEGORY_NOT_SPACE)}


def _any_text_then(seq: Any) -> str | None:
    """The literal of ``[\\s\\S]*?LITERAL`` (any text, then it), or None."""
    seq = list(seq)
    if not seq or seq[0][0] not in (MAX_REPEAT, MIN_REPEAT):
        return None
    low, high, sub = seq[0][1]
    sub = list(sub)
    anything = len(sub) == 1 and (sub[0][0] == ANY
                                  or (sub[0][0] == IN and _is_any_class(sub[0][1])))
    if low != 0 or high != MAXREPEAT or not anything:
        return None
    return _literal_of(seq[1:]) or None


def _literal_of(seq: Any) -> str | None:
    out = []
    for op, av in seq:
        if op != LITERAL:
            return None
        out.append(chr(av))
    return "".join(out)


class _Reader:
    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.groups = dict(_GROUP_SOURCE.findall(pattern))

    def sequence(self, seq: Any) -> list[list[Piece]]:
        """Every alternative of a parsed sequence (branches multiplied out)."""
        parts: list[list[list[Piece]]] = [self.item(op, av) for op, av in seq]
        alternatives = []
        for combo in product(*parts):
            alternatives.append([p for part in combo for p in part])
            if len(alternatives) > MAX_ALTERNATIVES:
                raise Unsupported(f"more than {MAX_ALTERNATIVES} alternatives")
        return alternatives

    def item(self, op: Any, av: Any) -> list[list[Piece]]:
        if op == LITERAL:
            return [[Piece("lit", chr(av))]]
        if op == AT:
            if av in (AT_BEGINNING, AT_BEGINNING_STRING):
                return [[Piece("start")]]
            if av in (AT_END, AT_END_STRING):
                return [[Piece("end")]]
            raise Unsupported(f"the assertion {av} (a word boundary)")
        if op == BRANCH:
            return [alt for branch in av[1] for alt in self.sequence(branch)]
        if op == SUBPATTERN:
            group, add_flags, del_flags, sub = av
            if add_flags or del_flags:
                raise Unsupported("inline flags inside a group")
            if group is not None:
                name = next((n for n, i in sre.parse(self.pattern).state.groupdict.items()
                             if i == group), None)
                if name is None:
                    raise Unsupported("an unnamed capture group: write (?:...) or name it")
                return [[Piece("group", name, self.groups.get(name, ""))]]
            return self.sequence(sub)
        if op in (MAX_REPEAT, MIN_REPEAT):
            low, high, sub = av
            if len(sub) == 1 and sub[0][0] == IN and _is_space_class(sub[0][1]) \
                    and high == MAXREPEAT and low in (0, 1):
                return [[Piece("ws", "*" if low == 0 else "+")]]
            if low == 0 and high == 1:
                text = _literal_of(sub)
                if text is not None:
                    return [[Piece("opt", text)]]
                alts = self.sequence(sub)  # (?:A|B)?: nothing, A or B
                if all(p.kind == "lit" for alt in alts for p in alt):
                    return [[], *alts]
            if low == 0 and high == MAXREPEAT and len(sub) == 1 and (
                    sub[0][0] in (ANY, NOT_LITERAL)
                    or (sub[0][0] == IN and (_is_any_class(sub[0][1])
                                             or sub[0][1][:1] == [(NEGATE, None)]))):
                return [[Piece("gap")]]
            raise Unsupported("a repetition other than whitespace (\\s*, \\s+), an optional "
                              "literal ((?:X)?) or a dropped gap (.*?, [^<]*)")
        if op == ASSERT and av[0] == 1 and _any_text_then(av[1]) is not None:
            return [[Piece("ahead", _any_text_then(av[1]) or "")]]
        if op in (ASSERT, ASSERT_NOT):
            raise Unsupported("a lookahead or lookbehind: it decides by text that has not "
                              "come yet, which a stream cannot wait for")
        raise Unsupported(f"a character class or wildcard outside a named capture ({op})")


def _merged(alternative: list[Piece]) -> list[Piece]:
    """Neighbouring literals joined into one."""
    out: list[Piece] = []
    for piece in alternative:
        if piece.kind == "lit" and out and out[-1].kind == "lit":
            out[-1] = Piece("lit", out[-1].text + piece.text)
        else:
            out.append(piece)
    return out


def shapes(pattern: str) -> list[list[Piece]]:
    """The alternatives of ``pattern``, each a list of pieces; Unsupported otherwise."""
    try:
        parsed = sre.parse(pattern)
    except re.error as exc:
        raise Unsupported(f"not a regular expression Python reads: {exc}") from None
    reader = _Reader(pattern)
    return [_merged(alt) for alt in reader.sequence(list(parsed))]


def literals(value: Any) -> list[list[Piece]]:
    """An ``open``/``close`` literal (or list of literals) as alternatives."""
    items = value if isinstance(value, list) else [value]
    return [[Piece("lit", s)] for s in items]


__all__ = ["Piece", "Unsupported", "literals", "shapes"]
