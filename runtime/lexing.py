"""Per-state literal matching with exactly the semantics of a global longest-match lexer.

vLLM's lexer matches every terminal in every state (longest first, left to right) and
only then asks the state machine what a terminal means.  A state therefore needs to
look for its *live* terminals (those that do something there) plus every terminal that
could swallow the start of one of them; all other literals can be ignored.  That set
is ``relevant_closure``; a ``Matcher`` scans for it with one compiled regex.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping


def can_hide(outer: str, inner: str) -> bool:
    """True if a match of ``outer`` can consume the first character of a match of ``inner``."""
    if len(outer) > len(inner) and outer.startswith(inner):
        return True  # same start, longest match wins
    for d in range(1, len(outer)):
        tail = outer[d:]
        if tail.startswith(inner) or inner.startswith(tail):
            return True
    return False


def relevant_closure(live: Iterable[str], universe: Iterable[str]) -> frozenset[str]:
    """Literals of ``universe`` a scanner must see to find ``live`` literals exactly."""
    relevant = set(live)
    pending = list(relevant)
    rest = set(universe) - relevant
    while pending:
        inner = pending.pop()
        hiding = [outer for outer in rest if can_hide(outer, inner)]
        for outer in sorted(hiding):
            rest.discard(outer)
            relevant.add(outer)
            pending.append(outer)
    return frozenset(relevant)


class Matcher:
    """Finds the next relevant literal of one state, holding back a possible prefix."""

    __slots__ = ("search", "names", "prefixes", "first_chars", "reach", "literals", "stop")

    def __init__(self, names: Mapping[str, str | None]) -> None:
        # names: literal -> terminal name when live here, None when only relevant
        # (a relevant literal that is not live is plain content of the state).
        self.names = dict(names)
        self.literals = tuple(sorted(self.names, key=lambda s: (-len(s), s)))
        if self.literals:
            # Longest first: at one position the regex takes the first alternative.
            self.search = re.compile("|".join(map(re.escape, self.literals))).search
        else:
            self.search = None
        self.prefixes = frozenset(lit[:i] for lit in self.literals for i in range(1, len(lit)))
        self.first_chars = frozenset(p[0] for p in self.prefixes)
        self.reach = max((len(lit) for lit in self.literals), default=1) - 1
        # Text without any of these characters holds no literal, nor the start of one.
        starts = sorted({lit[0] for lit in self.literals})
        self.stop = re.compile(f"[{''.join(map(re.escape, starts))}]").search if starts else None

    def hold_point(self, buf: str, pos: int) -> int:
        """First index >= pos whose suffix may still grow into a relevant literal."""
        n = len(buf)
        k = n - self.reach
        if k < pos:
            k = pos
        first = self.first_chars
        prefixes = self.prefixes
        while k < n:
            if buf[k] in first and buf[k:] in prefixes:
                return k
            k += 1
        return n

    def scan(self, buf: str, pos: int, final: bool) -> tuple[int, int, str | None]:
        """Return (start, end, name) of the next match, or (hold, -1, None) if none is sure.

        Text before ``start`` (or ``hold``) is plain content.  ``name`` is None for a
        relevant literal that is only content in this state.
        """
        search = self.search
        m = search(buf, pos) if search is not None else None
        if final:
            if m is None:
                return len(buf), -1, None
        else:
            start = m.start() if m is not None else len(buf)
            if start >= len(buf) - self.reach:
                hold = self.hold_point(buf, pos)
                if m is None or start >= hold:
                    return hold, -1, None
        lit = m.group()
        return m.start(), m.end(), self.names[lit]


def build_matchers(
    live_by_state: Mapping[int, Mapping[str, str]],
    universe: Iterable[str],
) -> dict[int, Matcher]:
    """One matcher per state from its live literals (literal -> terminal name)."""
    universe = frozenset(universe)
    out: dict[int, Matcher] = {}
    for state in sorted(live_by_state):
        live = live_by_state[state]
        relevant = relevant_closure(live, universe)
        out[state] = Matcher({lit: live.get(lit) for lit in relevant})
    return out
