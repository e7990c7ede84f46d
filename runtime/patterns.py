"""Pattern terminals: a marker spelled by a regex, found while streaming.

A format with a ``pattern:`` terminal gets a ``PatternLexicon`` (the compiler chooses
it), whose per-state matchers are ``PatternMatcher``s; every other format keeps the
plain ``Lexicon`` and ``Matcher`` and pays nothing for this.

Each pattern has a literal prefix (found like a literal) and a bound: the longest text
it can match (``compiler/patterns.py`` proves both).  It is matched on the text from
its prefix up to the bound, never further, so a stream decides it once that much text
(or the end) has come, holding back no more than the bound, and decides it as a whole
text does.  Patterns take part in the global longest match: in a state where one has
no transition, its match is plain text of the state, as a literal's would be.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mypy_extensions import mypyc_attr

from .lexicon import Lexicon, Matcher, PatternSpec, relevant_closure


@mypyc_attr(allow_interpreted_subclasses=True)
class PatternMatcher(Matcher):
    """A state's matcher over literals and pattern terminals."""

    __slots__ = ("patterns", "at")

    def __init__(self, names: Mapping[str, str | None], sizes: Mapping[str, int] | None,
                 patterns: Sequence[tuple[str, str, int, str | None]]) -> None:
        # patterns: (regex, prefix, bound, terminal name when live here, else None).
        super().__init__(names, sizes)
        self.patterns = tuple((re.compile(src).match, prefix, bound, name)
                              for src, prefix, bound, name in patterns)
        # The longest literal at a position (literals are longest first).
        self.at = (re.compile("|".join(map(re.escape, self.literals))).match
                   if self.literals else None)
        # Where something may start: a literal or a pattern's prefix.
        starts = sorted({*self.literals, *(p[1] for p in patterns)}, key=lambda s: (-len(s), s))
        self.search = re.compile("|".join(map(re.escape, starts))).search
        self.reach = max(self.reach, *(p[2] - 1 for p in patterns))
        firsts = sorted({s[0] for s in starts})
        self.stop = re.compile(f"[{''.join(map(re.escape, firsts))}]").search
        self.start_char = firsts[0] if len(firsts) == 1 else ""

    def _open(self, buf: str, k: int) -> bool:
        """Whether what starts at ``k`` may still become another match with more text."""
        n = len(buf)
        if buf[k:] in self.prefixes:
            return True
        for _, prefix, bound, _ in self.patterns:
            if n - k < bound and (buf.startswith(prefix, k) or prefix.startswith(buf[k:])):
                return True
        return False

    def hold_point(self, buf: str, pos: int) -> int:
        """First index >= pos whose suffix may still grow into a relevant match."""
        n = len(buf)
        k = max(pos, n - self.reach)
        stop = self.stop
        if stop is None:
            return n  # (never: a pattern has a first character)
        while k < n:
            m = stop(buf, k)
            if m is None:
                return n
            k = m.start()
            if self._open(buf, k):
                return k
            k += 1
        return n

    def _best(self, buf: str, s: int) -> tuple[int, str | None] | None:
        """(end, name) of the longest match at ``s`` (a literal on a tie), or None."""
        best: tuple[int, str | None] | None = None
        at = self.at
        lm = at(buf, s) if at is not None else None
        if lm is not None:
            lit = lm.group()
            best = (s + self.sizes.get(lit, len(lit)), self.names[lit])
        n = len(buf)
        for match, prefix, bound, name in self.patterns:
            if buf.startswith(prefix, s):
                pm = match(buf, s, min(n, s + bound))
                if pm is not None and (best is None or pm.end() > best[0]):
                    best = (pm.end(), name)
        return best

    def scan(self, buf: str, pos: int, final: bool) -> tuple[int, int, str | None]:
        """Return (start, end, name) of the next match, or (hold, -1, None) if none is sure."""
        n = len(buf)
        k = pos
        while True:
            m = self.search(buf, k)
            if m is None:
                return (n if final else self.hold_point(buf, k)), -1, None
            s = m.start()
            if not final:
                if s >= n - self.reach:
                    hold = self.hold_point(buf, k)
                    if hold < s:
                        return hold, -1, None
                if self._open(buf, s):
                    return s, -1, None
            best = self._best(buf, s)
            if best is not None:
                return s, best[0], best[1]
            k = s + 1  # (a prefix the pattern did not follow: text)


@mypyc_attr(allow_interpreted_subclasses=True)
class PatternLexicon(Lexicon):
    """A variant's terminals when some are patterns (``Lexicon``'s ``patterns``): its
    matchers see them too."""

    def build(self, live_by_state: Mapping[int, Mapping[str, str]], universe: Iterable[str],
              sizes: Mapping[int, Mapping[str, int]]) -> dict[int, Matcher]:
        """One PatternMatcher per state: every pattern, named where it is live."""
        universe = frozenset(universe)
        prefixes = [p[1] for p in self.patterns.values()]
        out: dict[int, Matcher] = {}
        for state in sorted(live_by_state):
            live = live_by_state[state]
            names = self.live.get(state, frozenset())
            # (Literals that could swallow a pattern's start are seen too.)
            relevant = relevant_closure([*live, *prefixes], universe) - (
                set(prefixes) - universe - set(live))
            out[state] = PatternMatcher(
                {lit: live.get(lit) for lit in relevant}, sizes.get(state),
                [(src, prefix, bound, name if name in names else None)
                 for name, (src, prefix, bound) in sorted(self.patterns.items())])
        return out


def pattern_group(match: Any, value: str, group: str) -> str:
    """Capture ``group`` of a pattern terminal's text ``value`` (its whole text if the
    pattern does not match it: a marker reached some other way keeps its text)."""
    found = match(value)
    if found is None:
        return value
    return found.group(group) or ""  # (an optional group that took no part: no name)


__all__ = ["PatternLexicon", "PatternMatcher", "PatternSpec", "pattern_group"]
