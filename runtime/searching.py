"""How a run finds a call's markers past the text between them, as the lexer would.

A run (``runs``) searches its state's matcher for the marker that ends a call's name or
arguments.  Two refinements keep that one regex call: the arguments' own tags, which
stay in the state, are passed over by a search for the other literals only
(``search_past``); and an arguments step whose markers begin with different characters
searches by ``str.find`` per first character (``FirstCharSearch``) instead of sre
testing every character of the arguments against their set.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from mypy_extensions import mypyc_attr

from .lexicon import Matcher

Search = Callable[[str, int], "re.Match[str] | None"]


def no_search(buf: str, pos: int) -> re.Match[str] | None:
    """A step's search where it searches nothing (a literal, an object): never called."""
    return None


def search_past(matcher: Matcher, passes: Sequence[str]) -> Search | None:
    """A search for ``matcher``'s literals but those of terminals in ``passes`` (their
    text the step's), which finds what the lexer finds passing over those; None where a
    passed literal could hide another (one starts inside it, or one begins the other),
    or there is no other."""
    passed = [lit for lit in matcher.literals if matcher.names[lit] in passes]
    others = [lit for lit in matcher.literals if matcher.names[lit] not in passes]
    for lit in passed:
        for other in others:
            if any(other.startswith(lit[k:]) or lit[k:].startswith(other)
                   for k in range(len(lit))):
                return None
    # (Not a FirstCharSearch: the tags passed over begin like the others, and each one
    # would be a step in Python.)
    return re.compile("|".join(map(re.escape, others))).search if others else None


def search_for(matcher: Matcher) -> Search:
    """``matcher``'s search; where its literals begin with more than one character, a
    ``FirstCharSearch`` of the same alternation (sre would test each character against
    the set of them)."""
    firsts = "".join(sorted({lit[0] for lit in matcher.literals}))
    if len(firsts) < 2:
        return matcher.search
    # (Its literals are in the matcher's order, longest first; re's cache gives back the
    # matcher's own pattern.)
    return FirstCharSearch(re.compile("|".join(map(re.escape, matcher.literals))), firsts).search


@mypyc_attr(allow_interpreted_subclasses=True)
class FirstCharSearch:
    """``pattern.search`` for an alternation of literals that begin with ``firsts``:
    the nearest of those characters found by ``str.find`` (wmemchr on a wide text), the
    pattern matched there. sre finds no common prefix in such a pattern and tests every
    character of a call's arguments against the set instead (a run's arguments step:
    about 3k instructions a call on DeepSeek's fenced JSON)."""

    __slots__ = ("match", "rest", "firsts")

    def __init__(self, pattern: re.Pattern[str], firsts: str) -> None:
        self.match = pattern.match
        self.rest = pattern.search
        self.firsts = firsts

    def search(self, buf: str, pos: int) -> re.Match[str] | None:
        """The leftmost match at or after ``pos``."""
        n = len(buf)
        firsts = self.firsts
        # (Looked for in windows that double: a character that is not in the rest of the
        # text must not cost a scan of all of it per call.)
        window = 256
        while pos < n:
            stop = pos + window
            if stop > n:
                stop = n
            at = stop
            for c in firsts:
                k = buf.find(c, pos, at)
                if k >= 0:
                    at = k
            if at < stop:
                # (No literal there: sre goes on from it, so text full of such
                # characters, pretty-printed JSON's newlines, costs one step here.)
                m = self.match(buf, at)
                return m if m is not None else self.rest(buf, at + 1)
            pos = stop
            window *= 2
        return None


def framing_then(matcher: Matcher, framing: str, literal: str) -> bool:
    """Whether ``matcher`` reads ``framing`` as text and then ``literal`` (no marker
    starts inside the framing)."""
    if not framing:
        return True
    m = matcher.search(framing + literal, 0)
    return m is not None and m.span() == (len(framing), len(framing) + len(literal))


def only_literal(matcher: Matcher, terminal: str) -> str | None:
    """The literal ``matcher`` takes for ``terminal`` wherever the text starts with it:
    the terminal's one spelling there, which no longer literal of the state begins
    with; None when there is no such literal."""
    spelled = [lit for lit, name in matcher.names.items() if name == terminal]
    if len(spelled) != 1:
        return None
    literal = spelled[0]
    if any(lit != literal and lit.startswith(literal) for lit in matcher.names):
        return None
    return literal


__all__ = ["FirstCharSearch", "Search", "framing_then", "no_search", "only_literal", "search_for", "search_past"]
