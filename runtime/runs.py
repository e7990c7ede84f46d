"""Runs of whole calls: in a parse, consecutive calls read at once, one ``CallRun``
instead of their pieces and events (the lexer's ``lexing.CallRuns``).

The compiler writes a ``CallProgram`` per state a call may start in at a marker: the
terminals that start one there, then the call's steps (state, what its text before the
terminal is, terminal, the framing the render writes before it, the terminals that stay
in the state), the text being "name" ("name, arguments" where the terminal's text opens
the arguments: GLM's ``<arg_key>``), "arguments", "" (none, or the framing whitespace
the render writes there) or, last, "object" (one JSON object, right after the start
marker or opened by its text, whose closing brace ends the call: Llama's JSON calls);
and the state each call ends in, whose own program reads the calls after it.

``CallPath`` follows a program with the parser's own per-state matchers, so a run finds
exactly the markers the lexer would: a marker with no text before it but its framing is
the one literal its state's matcher takes right there (consecutive ones checked at
once), the name and the arguments are the text up to the first literal their state's
matcher finds that does not stay in the state (the tags of an element syntax, argument
text either way: one search for the others).  The syntax reads each call
(``ArgumentSyntax.whole_call``/``whole_arguments``/``whole_object``, through the
assembly's ``ToolCalls``) and takes it only where reading it piece by piece gives the
same; anything else ends the run, and the lexer goes on from there as usual.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from mypy_extensions import mypyc_attr

from .arguments.scanning import NOT_SPACE
from .events import TOOL_ARGS, CallRun, EventType, SemanticEvent
from .lexicon import Matcher
from .bodies.base import Markup
from .machine import ParserCore, StateLexer, WholeCall, WholeObject
from .searching import Search, framing_then, no_search, only_literal, search_for, search_past

# Per call: the text before it, its text up to the arguments (markers and name), the
# arguments' text, its text after them (markers) and what was read (name, arguments,
# call id or "").
RunCall = tuple[str, str, str, str, tuple[str, str, str]]
# Per step (state, role, terminal, framing before it, terminals passed over).
RunStep = tuple[int, str, str, str, tuple[str, ...]]
RunSteps = tuple[RunStep, ...]
# Per step (literal, search, names, terminal, role); typed, so that compiled code looks
# names up natively (a literal step's search and names are never used).
Step = tuple[str, Search, dict[str, str | None], str, str]


@mypyc_attr(allow_interpreted_subclasses=True)
class CallProgram:
    """What a call read whole is, from state ``state``: one of ``starts`` begins it (the
    start terminals in ``opens`` with text that opens its object; none: the tool body's
    own markup leads to it, ``ToolBody.whole_markup``), then ``steps``; it ends in state
    ``after``; ``framing``: text between calls here is framing (a framing state's own,
    or the body's markup), else content."""

    __slots__ = ("state", "starts", "opens", "steps", "after", "framing", "end")

    def __init__(self, state: int, starts: tuple[str, ...], steps: RunSteps, after: int,
                 framing: bool, opens: tuple[str, ...] = ()) -> None:
        self.state, self.starts, self.opens = state, frozenset(starts), frozenset(opens)
        self.steps, self.after, self.framing = steps, after, framing
        # The terminal that ends each call ("": its object's close).
        self.end = steps[-1][2] if steps[-1][1] != "object" else ""


@mypyc_attr(allow_interpreted_subclasses=True)
class CallRuns(StateLexer):
    """A whole text's state where calls start at a marker: a start marker begins a run
    its program may read at once; the lexer goes on as usual where the run ends, or at
    the marker where none was read."""

    __slots__ = ("program",)

    def __init__(self, event: EventType | None, program: CallProgram) -> None:
        super().__init__(event)
        self.program = program

    def take(self, p: ParserCore, buf: str, start: int, end: int, name: str | None,
             final: bool, out: list[SemanticEvent]) -> int:
        if name is not None and name in self.program.starts:
            moved = read_run(p, self.program, buf, start, out)
            if moved > start:
                return moved
        p.take(name, buf[start:end], out)
        return end


def read_run(p: ParserCore, program: CallProgram, buf: str, pos: int,
             out: list[SemanticEvent], markup: tuple[Markup, Markup] | None = None) -> int:
    """Read the calls that follow one another from ``pos`` (a start marker of
    ``program``'s state, or, without start terminals, the body's ``markup`` before
    them) whole: they go out as one CallRun, the parser as after the last
    (``ParserCore.ran``); returns where they end (``pos``: none was read)."""
    calls: list[RunCall] = []
    at = pos
    home = program.state
    while True:
        path = call_path(program, p.matchers)
        if path.steps is None:
            break
        found, at = path.read(buf, at, p.whole_call, p.whole_object,
                              p.framing_match if program.framing else None, markup)
        calls += found
        after = program.after
        if not found or after == program.state:
            break  # (a program that ends in its own state read all it could)
        lexer = p.lexers[after]
        if not isinstance(lexer, CallRuns) or lexer.program.after != after:
            break
        program = lexer.program  # the calls after one go on in the state it ends in
    if not calls:
        return pos
    run = CallRun(calls, home, p.tool_index + 1, program.end, program.framing)
    p.ran(run, program.after, out)
    if markup is not None:
        p.body.ran_calls()
    return at


@mypyc_attr(allow_interpreted_subclasses=True)
class CallPath:
    """One program over one set of per-state matchers (``steps`` None: it cannot be
    followed without the lexer, so no run is read)."""

    __slots__ = ("program", "matchers", "search", "names", "start", "steps", "last",
                 "reach", "bounds", "inside")

    def __init__(self, program: CallProgram, matchers: tuple[Matcher, ...]) -> None:
        self.program, self.matchers = program, matchers
        home = matchers[program.state]
        self.search, self.names = home.search, home.names
        # The start marker's one spelling, where the home state's matcher takes it
        # wherever the text starts with it ("": searched for): calls right after one
        # another need no search for it.
        starts = [only_literal(home, name) for name in program.starts]
        self.start = (starts[0] or "") if len(starts) == 1 else ""
        # Per step (literal, search, names, terminal, role): a literal for markers that
        # follow right there, else the search that finds the marker after the text.
        steps: list[Step] = []
        run = program.steps
        searched = [step[0] for step in run if step[1] != "object"]
        if program.starts:
            searched.append(program.state)
        usable = all(matchers[s].search is not None and not matchers[s].sizes for s in searched)
        last = 0  # the length of the last marker, if a literal
        for source, role, terminal, framing, passes in run:
            matcher = matchers[source]
            if role == "object":
                steps.append(("", no_search, {}, terminal, role))
                continue
            if role:
                # (Past the terminals that stay in the state: one search for the others.)
                # (The arguments are long: str.find jumps over them; a name is a few
                # characters, which sre tests faster than a call into FirstCharSearch.)
                search = (search_past(matcher, passes) if passes
                          else search_for(matcher) if role == "arguments"
                          else matcher.search)
                if search is None:
                    usable = False
                    break
                steps.append(("", search, matcher.names, terminal, role))
                last = 0
                continue
            literal = only_literal(matcher, terminal)
            if literal is None or not framing_then(matcher, framing, literal):
                usable = False
                break
            last = len(literal)
            literal = framing + literal
            if steps and steps[-1][0]:
                literal = steps.pop()[0] + literal
            steps.append((literal, no_search, {}, terminal, role))
        self.steps: list[Step] | None = steps if usable else None
        self.last = last
        # The lexer waits for more text when a marker starts at or past its state's
        # matcher's hold point (never before its reach of the buffer's end).  Every marker
        # but the last ends before the last one starts: the last one's start tells for
        # all, with each state's slack, its marker's shortest spelling (see read).
        marked = [(s, t) for s, role, t, *_ in run if role != "object"]
        final, _ = marked[-1] if marked else (program.state, "")
        others = [(program.state, name) for name in program.starts] + marked[:-1]
        self.bounds = [(matchers[final], 0)] + [
            (matchers[s], min((len(lit) for lit, n in matchers[s].names.items() if n == t),
                              default=0)) for s, t in others]
        self.reach = max(matcher.reach - slack for matcher, slack in self.bounds)
        # A call that is one object: no TOOL_ARGS literal may lie inside it (see read).
        objects = any(role == "object" for _, role, *_ in run)
        self.inside: Callable[..., re.Match[str] | None] | None = (
            matchers[TOOL_ARGS].search if objects else None)

    def read(self, buf: str, pos: int, accept: WholeCall | None,
             accept_object: WholeObject | None,
             framing: Callable[[str, int, int], Any] | None,
             markup: tuple[Markup, Markup] | None = None,
             final: bool = False) -> tuple[list[RunCall], int]:
        """The calls that follow one another from ``pos`` (a start marker, or, where the
        program has none, the body's ``markup`` before the first call and between two),
        each taken by ``accept`` (its name's text or None, its arguments' text) or, an
        object, ``accept_object``, and where they end (one call where it ends in another
        state, which reads those after it); ``framing`` matches the framing run of the
        text between calls (None: that text is content; else a text between calls that
        is not all framing ends the run).  A call whose last marker the lexer might wait
        on, cut by the buffer's end, ends it too, unless ``buf`` is ``final`` (the whole
        completion: nothing is waited on)."""
        steps = self.steps
        assert steps is not None  # (the driver reads no run without them)
        program = self.program
        lead, between = markup if markup is not None else (None, None)
        search, names, starts, last = self.search, self.names, program.starts, self.last
        # (Looked for right there while calls follow one another with nothing between:
        # the first is at ``pos``.)
        start = self.start
        # A call whose last marker starts before it is sure (every marker, at a final end).
        limit = len(buf) if final else len(buf) - self.reach
        calls: list[RunCall] = []
        at = pos
        once = program.after != program.state
        # Where the first TOOL_ARGS literal at or after the last object read starts (an
        # object holding one is no whole call): searched again only once an object's
        # start passes it, not once per object.
        inside, inside_at = self.inside, -1
        while True:
            if lead is not None:
                m = lead(buf, at)  # (the body's markup: no marker)
                if m is None:
                    break
                begin = end = m.end()
                started = ""
                lead = between
            elif start and buf[at : at + len(start)] == start:
                begin, end = at, at + len(start)  # (the marker a search finds)
                started = buf[begin:end]
            else:
                start = ""
                # (Compiled, each method of a match is a generic call: one span() per
                # marker, its text sliced natively.)
                m = search(buf, at)
                if m is None:
                    break
                begin, end = m.span()
                started = buf[begin:end]
                if names[started] not in starts:
                    break
                if framing is not None and begin > at and framing(buf, at, begin).end() < begin:
                    break  # words between calls: the lexer gives them out as content
            name: str | None = None
            opens = closes = at_marker = end
            marker = begin  # where the last marker starts
            taken: tuple[str, str, str] | None = None
            for literal, find, found, terminal, role in steps:
                if literal:
                    # (Compared as a slice: compiled, startswith with a position is a
                    # generic call that parses its arguments; a find converts the literal
                    # to a wider text's width.)
                    if buf[end : end + len(literal)] != literal:
                        break  # text where the call has none, or another marker
                    end += len(literal)
                    marker = end - last
                    continue
                if role == "object":
                    # (After the body's markup, the object is right there.)
                    opened = not started or names[started] in program.opens
                    whole = self.object(buf, begin, end, opened, accept_object)
                    if whole is None:
                        break
                    if inside is not None:
                        if inside_at < end:
                            found_at = inside(buf, end)
                            inside_at = len(buf) if found_at is None else found_at.start()
                        if inside_at < whole[3]:
                            break
                    taken, opens, end = whole[:3], end, whole[3]
                    closes = end
                    continue
                m = find(buf, end)
                if m is None:
                    break
                at_marker, past = m.span()
                if found[buf[at_marker:past]] != terminal:
                    break
                marker = at_marker
                if role == "arguments":
                    opens, closes = end, at_marker
                    end = past
                else:
                    name = buf[end:at_marker]
                    # ("name, arguments": the marker's text is the arguments' first.)
                    end = past if role == "name" else at_marker
            else:
                if marker >= limit and not self.sure(buf, marker):
                    break
                body = buf[opens:closes]  # (sliced once: a call's longest text)
                if taken is None:
                    assert accept is not None  # (set for a whole text)
                    taken = accept(name, body)
                if taken is not None:
                    calls.append((buf[at:begin], buf[begin:opens], body, buf[closes:end],
                                  taken))
                    at = end
                    if not once:
                        continue
            break
        return calls, at

    def object(self, buf: str, begin: int, end: int, opened: bool,
               accept: WholeObject | None) -> tuple[str, str, str, int] | None:
        """The call that is one JSON object after the start marker ``buf[begin:end]``
        (or opened by its text), complete, read whole: (name, arguments, id, just past
        it); whether a TOOL_ARGS terminal lies inside it (a special token the tokenizer
        drops) ``read`` decides."""
        if opened:
            obj = begin  # the marker's text is the object's opening (or there is none)
        else:
            m = NOT_SPACE(buf, end)
            obj = m.start() if m is not None else len(buf)
        # (Compared: compiled, startswith with a position is a generic call.)
        if buf[obj : obj + 1] != "{" or accept is None:
            return None
        # (Not complete, or not as the syntax takes it whole: read piece by piece.)
        return accept(buf, obj)  # (read decides whether a marker lies inside it)

    def sure(self, buf: str, marker: int) -> bool:
        """Whether the lexer takes every marker of a call near the end of ``buf``, whose
        last marker starts at ``marker``, without waiting for more text."""
        n = len(buf)
        return all(marker < n - matcher.reach + slack
                   or marker < matcher.hold_point(buf, 0) + slack
                   for matcher, slack in self.bounds)


_PATHS: dict[tuple[int, int], CallPath] = {}


def call_path(program: CallProgram, matchers: tuple[Matcher, ...]) -> CallPath:
    """The CallPath of ``program`` over ``matchers``, made once (matchers are shared by
    the parsers of one lexicon and tokenizer)."""
    key = (id(program), id(matchers))
    path = _PATHS.get(key)
    if path is None or path.program is not program or path.matchers is not matchers:
        if len(_PATHS) >= 256:
            _PATHS.clear()  # (what the cache holds alive stays bounded)
        path = _PATHS[key] = CallPath(program, matchers)
    return path



__all__ = ["CallPath", "CallProgram", "CallRuns", "RunCall", "RunSteps", "call_path",
           "read_run"]
