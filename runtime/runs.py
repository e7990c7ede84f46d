"""Runs of whole calls: a parse reads consecutive calls at once (the driver's CALL_RUNS).

The compiler writes, per state a run may start in, one call's steps: (state, what its
text before the terminal is, terminal, the framing the render writes before it, the
terminals that stay in the state), the text being "between" (the run state's own,
before the call's start marker), "name" ("name, arguments" where the terminal's text
opens the arguments: GLM's ``<arg_key>``), "arguments" or "" (none, or the framing
whitespace the render writes there).  ``CallPath`` follows them with the parser's own
per-state matchers, so a run finds exactly the markers the lexer would: a marker with
no text before it but its framing is the one literal its state's matcher takes right
there (consecutive ones checked at once), the name and the arguments are the text up to
the first literal their state's matcher finds that does not stay in the state (the
tags of an element syntax, argument text either way: one search for the others).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from mypy_extensions import mypyc_attr

from .lexicon import Matcher

# Per call: the text before it, its text up to the arguments (markers and name), the
# arguments' text, its text after them (markers) and what was read (name, arguments,
# call id or "").
RunCall = tuple[str, str, str, str, tuple[str, str, str]]
Accept = Callable[[str | None, str], tuple[str, str, str] | None]
# Per step (state, role, terminal, framing before it, terminals passed over).
RunStep = tuple[int, str, str, str, tuple[str, ...]]
RunSteps = tuple[RunStep, ...]
Search = Callable[[str, int], "re.Match[str] | None"]
# Per step (literal, search, names, terminal, role); typed, so that compiled code looks
# names up natively (a literal step's search and names are never used).
Step = tuple[str, Search, dict[str, str | None], str, str]


def _no_search(buf: str, pos: int) -> re.Match[str] | None:
    """A literal step's search: never called."""
    return None


@mypyc_attr(allow_interpreted_subclasses=True)
class CallPath:
    """One call's steps over one set of per-state matchers (``steps`` None: they cannot
    be followed without the lexer, so no run is read)."""

    __slots__ = ("run", "matchers", "search", "names", "start_name", "start", "steps", "last",
                 "reach", "bounds")

    def __init__(self, run: RunSteps, matchers: Sequence[Matcher]) -> None:
        self.run, self.matchers = run, matchers
        home = matchers[run[0][0]]
        self.search, self.names, self.start_name = home.search, home.names, run[0][2]
        # The start marker's one spelling, where the home state's matcher takes it
        # wherever the text starts with it ("": searched for): calls right after one
        # another need no search for it.
        self.start = _only_literal(home, self.start_name) or ""
        # Per step (literal, search, names, terminal, role): a literal for markers that
        # follow right there, else the search that finds the marker after the text.
        steps: list[Step] = []
        usable = all(matchers[s].search is not None and not matchers[s].sizes
                     for s, *_ in run)  # (markers with lookahead are the lexer's)
        last = 0  # the length of the last marker, if a literal
        for source, role, terminal, framing, passes in run[1:]:
            matcher = matchers[source]
            if role:
                # (Past the terminals that stay in the state: one search for the others.)
                # (The arguments are long: str.find jumps over them; a name is a few
                # characters, which sre tests faster than a call into FirstCharSearch.)
                search = (_search_past(matcher, passes) if passes
                          else _search_for(matcher) if role == "arguments"
                          else matcher.search)
                if search is None:
                    usable = False
                    break
                steps.append(("", search, matcher.names, terminal, role))
                last = 0
                continue
            literal = _only_literal(matcher, terminal)
            if literal is None or not _framing_then(matcher, framing, literal):
                usable = False
                break
            last = len(literal)
            literal = framing + literal
            if steps and steps[-1][0]:
                literal = steps.pop()[0] + literal
            steps.append((literal, _no_search, {}, terminal, role))
        self.steps: list[Step] | None = steps if usable else None
        self.last = last
        # The lexer waits for more text when a marker starts at or past its state's
        # matcher's hold point (never before its reach of the buffer's end).  Every marker
        # but the last ends before the last one starts: the last one's start tells for
        # all, with each state's slack, its marker's shortest spelling (see read).
        *others, (final, *_) = run
        self.bounds = [(matchers[final], 0)] + [
            (matchers[s], min((len(lit) for lit, n in matchers[s].names.items() if n == t),
                              default=0)) for s, _, t, *_ in others]
        self.reach = max(matcher.reach - slack for matcher, slack in self.bounds)

    def read(self, buf: str, pos: int, accept: Accept,
             framing: Callable[[str, int, int], Any] | None,
             once: bool = False) -> tuple[list[RunCall], int]:
        """The calls that follow one another from ``pos`` (a start marker), each taken
        by ``accept`` (its name's text or None, its arguments' text), and where they
        end; ``framing`` matches the framing run of the text between calls (None: that
        text is content; else a text between calls that is not all framing ends the
        run; ``once``: one call at most).  A call whose last marker the lexer might wait
        on, cut by the buffer's end, ends the run too."""
        steps = self.steps
        assert steps is not None  # (the driver reads no run without them)
        search, names, start_name, last = self.search, self.names, self.start_name, self.last
        # (Looked for right there while calls follow one another with nothing between:
        # the first is at ``pos``.)
        start = self.start
        limit = len(buf) - self.reach  # a call whose last marker starts before it is sure
        calls: list[RunCall] = []
        at = pos
        while True:
            if start and buf[at : at + len(start)] == start:
                begin, end = at, at + len(start)  # (the marker a search finds)
            else:
                start = ""
                # (Compiled, each method of a match is a generic call: one span() per
                # marker, its text sliced natively.)
                m = search(buf, at)
                if m is None:
                    break
                begin, end = m.span()
                if names[buf[begin:end]] != start_name:
                    break
                if framing is not None and begin > at and framing(buf, at, begin).end() < begin:
                    break  # words between calls: the lexer gives them out as content
            name: str | None = None
            opens = closes = at_marker = end
            for literal, find, found, terminal, role in steps:
                if literal:
                    # (Compared as a slice: compiled, startswith with a position is a
                    # generic call that parses its arguments; a find converts the literal
                    # to a wider text's width.)
                    if buf[end : end + len(literal)] != literal:
                        break  # text where the call has none, or another marker
                    end += len(literal)
                    continue
                m = find(buf, end)
                if m is None:
                    break
                at_marker, past = m.span()
                if found[buf[at_marker:past]] != terminal:
                    break
                if role == "arguments":
                    opens, closes = end, at_marker
                    end = past
                else:
                    name = buf[end:at_marker]
                    # ("name, arguments": the marker's text is the arguments' first.)
                    end = past if role == "name" else at_marker
            else:
                # (The last marker starts after every other one.)
                marker = end - last if last else at_marker
                if marker >= limit and not self.sure(buf, marker):
                    break
                body = buf[opens:closes]
                taken = accept(name, body)
                if taken is not None:
                    calls.append((buf[at:begin], buf[begin:opens], body, buf[closes:end], taken))
                    at = end
                    if not once:
                        continue
            break
        return calls, at

    def sure(self, buf: str, marker: int) -> bool:
        """Whether the lexer takes every marker of a call near the end of ``buf``, whose
        last marker starts at ``marker``, without waiting for more text."""
        n = len(buf)
        return all(marker < n - matcher.reach + slack
                   or marker < matcher.hold_point(buf, 0) + slack
                   for matcher, slack in self.bounds)


_PATHS: dict[tuple[int, int], CallPath] = {}


def call_path(run: RunSteps, matchers: Sequence[Matcher]) -> CallPath:
    """The CallPath of ``run`` over ``matchers``, made once (matchers are shared by the
    parsers of one lexicon and tokenizer)."""
    key = (id(run), id(matchers))
    path = _PATHS.get(key)
    if path is None or path.run is not run or path.matchers is not matchers:
        if len(_PATHS) >= 256:
            _PATHS.clear()  # (what the cache holds alive stays bounded)
        path = _PATHS[key] = CallPath(run, matchers)
    return path


def _search_past(matcher: Matcher, passes: Sequence[str]) -> Search | None:
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


def _search_for(matcher: Matcher) -> Search:
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


def _framing_then(matcher: Matcher, framing: str, literal: str) -> bool:
    """Whether ``matcher`` reads ``framing`` as text and then ``literal`` (no marker
    starts inside the framing)."""
    if not framing:
        return True
    m = matcher.search(framing + literal, 0)
    return m is not None and m.span() == (len(framing), len(framing) + len(literal))


def _only_literal(matcher: Matcher, terminal: str) -> str | None:
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


__all__ = ["CallPath", "RunCall", "RunSteps", "call_path"]
