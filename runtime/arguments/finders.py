"""Finding any of some literals in argument text with one regex, and a literal's start
cut by a delta's end (what the value scanners look for: tags, delimiters)."""

from __future__ import annotations

import re

from mypy_extensions import mypyc_attr


@mypyc_attr(allow_interpreted_subclasses=True)
class Finder:
    """Finds any of some literals with one regex, and a literal's start cut by the end."""

    __slots__ = ("search", "_tail", "_reach")

    def __init__(self, literals: tuple[str, ...]) -> None:
        lits = sorted(set(literals), key=len, reverse=True)
        self.search = re.compile("|".join(map(re.escape, lits))).search
        prefixes = sorted({lit[:i] for lit in lits for i in range(1, len(lit))},
                          key=len, reverse=True)
        self._tail = (re.compile("(?:%s)\\Z" % "|".join(map(re.escape, prefixes))).search
                      if prefixes else None)
        self._reach = max(map(len, lits)) - 1

    def tail(self, buf: str, pos: int) -> int:
        """Where the end of ``buf`` (from ``pos``) may begin a literal; ``len(buf)`` if
        nowhere."""
        n = len(buf)
        m = self._tail(buf, max(pos, n - self._reach)) if self._tail is not None else None
        return m.start() if m is not None else n


# Finders by their literals: a finder holds no state, and a parser per request would
# otherwise compile the same two regexes again (most of a tagged format's constructor).
_FINDERS: dict[tuple[str, ...], Finder] = {}


def finder(literals: tuple[str, ...]) -> Finder:
    """The one ``Finder`` of these literals."""
    found = _FINDERS.get(literals)
    if found is None:
        found = _FINDERS[literals] = Finder(literals)
    return found


__all__ = ["Finder", "finder"]
