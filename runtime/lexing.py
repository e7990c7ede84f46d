"""State lexers beyond plain text, one class per thing only some states need; the
compiler chooses one per state (the generated module's ``LEXING``/``PARSE_LEXING``).

- ``GatedReasoning``, ``ClosingReasoning``, ``ConfirmedReasoning``: REASONING's own
  lexers (``reasoning_lexing.py``).
- ``BodyArgs``: TOOL_ARGS text through a tool body that is not plain text: a delta no
  marker can start in goes to the body at once (``ToolBody.take_plain``).
- ``WindowedArgs``: ... a body that ends its own calls gets long stretches in windows.
- ``ValueArgs`` / ``PlainValueArgs``: TOOL_ARGS text through the syntax's value scanner,
  which says where a marker is argument text (inside a string) and holds a call closer
  inside an ambiguous value until what follows decides (``arguments/values.py``).
- ``WindowedValueArgs``: both.
- ``BodyRuns``: a whole text's TOOL_ARGS whose body holds calls in a row, read at once
  by its call program (``runs``; ``runs.CallRuns`` reads those that start at a marker).

``LEXERS`` names them all for the compiler.
"""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from .events import DROP, TOOL_ARGS, EventType, RawText, SemanticEvent
from .machine import ParserCore, Plain, StateLexer
from .reasoning_lexing import ClosingReasoning, ConfirmedReasoning, GatedReasoning
from .runs import CallProgram, CallRuns, read_run
from .tokens import Item, Marker

_ARGS: Final = EventType.ARG_VALUE_CHUNK
# Longest stretch of TOOL_ARGS text a body that can end its call by itself gets at once:
# slicing the rest of a call-dense text once per call would cost quadratic time.
WINDOW: Final = 4096


def _clear_of_markers(p: ParserCore, text: str) -> bool:
    """Whether no marker of TOOL_ARGS can start in ``text`` (a plain delta's check)."""
    matcher = p.matchers[TOOL_ARGS]
    char = matcher.start_char
    if char:
        return char not in text
    return matcher.stop is None or matcher.stop(text) is None


@mypyc_attr(allow_interpreted_subclasses=True)
class BodyArgs(StateLexer):
    """TOOL_ARGS text through a tool body that is not plain text."""

    __slots__ = ()

    def plain(self, p: ParserCore, text: str) -> Plain:
        """ARG_VALUE_CHUNK when the body gives the delta out as it is, else its events;
        None where a marker may start in it, or the body must read it lexed."""
        if not _clear_of_markers(p, text):
            return None
        chunk = p.body.take_plain(text)
        if chunk is None:
            return None
        return self.took(p, text, chunk)

    def took(self, p: ParserCore, text: str, chunk: str) -> Plain:
        """The events of a plain delta ``text`` the body gave ``chunk`` of."""
        if chunk == text:
            return _ARGS
        out: list[SemanticEvent] = []
        if p.raw:  # (the raw tap: the text before the events it caused)
            out.append(RawText(text, TOOL_ARGS))  # type: ignore[arg-type]
        if chunk:
            out.append(SemanticEvent(_ARGS, chunk, p.tool_index))
        return out


def window(p: ParserCore, buf: str, pos: int, out: list[SemanticEvent]) -> int:
    """Give the body the next ``WINDOW`` characters of a long stretch from ``pos``, not
    the whole rest: more text follows for sure, so a hold only means "see it again";
    returns how much it used (0: none, lex the stretch as usual)."""
    if len(buf) - pos <= WINDOW or not p.matchers[TOOL_ARGS].clear(buf, pos, pos + WINDOW):
        return 0  # (no long stretch, or a marker in it)
    piece = buf[pos : pos + WINDOW]
    at = len(out)
    used = p.on_text(piece, out, True)
    used = len(piece) if used is None else ~used if used < 0 else used
    if p.raw and used:  # (the raw tap: the text before the events it caused)
        out.insert(at, RawText(piece[:used], TOOL_ARGS))  # type: ignore[arg-type]
    return used


@mypyc_attr(allow_interpreted_subclasses=True)
class WindowedArgs(BodyArgs):
    """TOOL_ARGS text of a body that can end its call inside its text (Llama's JSON
    objects): long stretches go to it a window at a time."""

    __slots__ = ()

    def lex(self, p: ParserCore, buf: str, pos: int, final: bool,
            out: list[SemanticEvent]) -> int:
        used = window(p, buf, pos, out)
        return pos + used if used else StateLexer.lex(self, p, buf, pos, final, out)


@mypyc_attr(allow_interpreted_subclasses=True)
class ValueArgs(BodyArgs):
    """TOOL_ARGS text read by the syntax's value scanner too (``p.values``): a marker
    inside a string is argument text, and a call closer inside an ambiguous value waits
    for what follows it."""

    __slots__ = ()

    def plain(self, p: ParserCore, text: str) -> Plain:
        gate = p.values
        if gate.held is not None or not _clear_of_markers(p, text):
            return None
        taken = self.took_plain(p, text)
        if taken is not None:
            gate.scan.feed(text)
        return taken

    def took_plain(self, p: ParserCore, text: str) -> Plain:
        """A plain delta's answer, the value scanner aside."""
        chunk = p.body.take_plain(text)
        return None if chunk is None else self.took(p, text, chunk)

    def lex(self, p: ParserCore, buf: str, pos: int, final: bool,
            out: list[SemanticEvent]) -> int:
        gate = p.values
        values = gate.scan
        if values.quoted:
            # Inside a string no marker counts before it ends, but a call closer spelled
            # as a special token, which what follows it decides: skip to the nearer.
            limit = len(buf)
            special = gate.special_search
            if special is not None:
                m = special(buf, pos)
                if m is not None:
                    limit = m.start()
                elif not final:  # (nor where one may begin at the end: it comes whole)
                    limit = p.matchers[TOOL_ARGS].hold_point(buf, pos)
            stop = values.skip(buf, pos, limit)
            if stop > pos:
                used = p.give(buf, pos, stop, final, out)
                if used is None:
                    return stop
                return ~(pos + ~used) if used < 0 else pos + used
        start, end, name = p.matchers[TOOL_ARGS].scan(buf, pos, final)
        # A complete value before the next marker goes to the state in one piece.
        whole = values.whole(buf, pos, start) if start > pos else pos
        if start > pos or name is None and end >= 0:
            stop = whole if whole > pos else start if start > pos else end
            used = p.give(buf, pos, stop, final, out)
            if used is not None:
                # (Held, or the state changed inside the text: lex the rest anew.)
                keep = ~used if used < 0 else used
                values.feed(buf[pos : pos + keep])
                return ~(pos + keep) if used < 0 else pos + keep
            if whole > pos:
                return stop  # (the scanner is where the value leaves it: as it was)
            values.feed(buf[pos:stop])
            if values.quoted or stop == end:
                return stop  # (the text opened a string: look again from there)
        if end < 0:
            return ~start
        text = buf[start:end]
        if gate.waits(name, name in gate.special):
            closes = gate.closes(buf, end, final, name)
            if closes is None:
                return ~start  # what follows will tell
            if not closes:
                values.feed(text)
                p.as_text(text, out)
                return end
        elif values.quoted:  # (inside a string, a marker is string text)
            values.feed(text)
            p.as_text(text, out)
            return end
        values.feed(text)
        p.take(name, text, out)
        return end

    def token(self, p: ParserCore, marker: Marker, out: list[SemanticEvent]) -> None:
        gate = p.values
        if gate.waits(marker.name, True):
            gate.held = marker  # what follows decides
        elif gate.scan.quoted and marker.name != DROP:
            # Inside a string a marker token that ends no call is string content.
            gate.scan.feed(marker.text)
            p.as_text(marker.text, out)
        else:
            gate.scan.feed(marker.text)
            p.take(marker.name, marker.text, out)

    def item(self, p: ParserCore, item: Item | None, out: list[SemanticEvent]) -> None:
        gate = p.values
        held = gate.held
        if held is None:
            StateLexer.item(self, p, item, out)
            return
        # A closer (or a call opener) held inside a value: what follows decides.
        after = gate.held_after
        if type(item) is str:
            after += item
            closes = gate.closes(after, 0, False, held.name)
            if closes is None:
                gate.held_after = after  # only whitespace yet
                return
        elif held.name in gate.openers:  # (a call opener: the marker may end its name)
            closes = isinstance(item, Marker) and gate.opener_named(held.name, after, item.name)
        else:
            closes = True  # another marker, or the end: the close tag was missing
        gate.held, gate.held_after = None, ""
        gate.scan.feed(held.text)
        if closes:
            p.take(held.name, held.text, out)
        else:
            p.as_text(held.text, out)
        if type(item) is str:
            p.pending = p.lex(p.pending + after, False, out)
            return
        if after:
            p.pending = p.lex(p.pending + after, item is None, out)
        if item is not None:
            p.marker(item, out)  # type: ignore[arg-type]

    def flush(self, p: ParserCore, out: list[SemanticEvent]) -> None:
        if p.values.held is not None:
            self.item(p, None, out)  # the stream ends: the held closer ends the call


@mypyc_attr(allow_interpreted_subclasses=True)
class PlainValueArgs(ValueArgs):
    """``ValueArgs`` of a plain body (its text is argument text as it is)."""

    __slots__ = ()

    def took_plain(self, p: ParserCore, text: str) -> Plain:
        return self.event


@mypyc_attr(allow_interpreted_subclasses=True)
class WindowedValueArgs(ValueArgs):
    """``ValueArgs`` of a body that can end its call inside its text, in windows."""

    __slots__ = ()

    def lex(self, p: ParserCore, buf: str, pos: int, final: bool,
            out: list[SemanticEvent]) -> int:
        used = window(p, buf, pos, out)
        if not used:
            return ValueArgs.lex(self, p, buf, pos, final, out)
        p.values.scan.feed(buf[pos : pos + used])
        return pos + used


@mypyc_attr(allow_interpreted_subclasses=True)
class BodyRuns(WindowedArgs):
    """A whole text's TOOL_ARGS whose body holds calls in a row (a JSON array's
    elements): wherever its text may lead into such calls (``ToolBody.whole_markup``),
    they are read at once by the body's call program (``runs``); the rest is lexed as
    usual."""

    __slots__ = ("program",)

    def __init__(self, event: EventType | None, program: CallProgram) -> None:
        super().__init__(event)
        self.program = program

    def lex(self, p: ParserCore, buf: str, pos: int, final: bool,
            out: list[SemanticEvent]) -> int:
        markup = p.body.whole_markup()
        if markup is not None:
            moved = read_run(p, self.program, buf, pos, out, markup)
            if moved > pos:
                return moved
        return WindowedArgs.lex(self, p, buf, pos, final, out)


# Every state lexer by name, as the compiler chooses them (generated code names them).
LEXERS: dict[str, type[StateLexer]] = {
    cls.__name__: cls
    for cls in (StateLexer, GatedReasoning, ClosingReasoning, ConfirmedReasoning, BodyArgs,
                WindowedArgs, ValueArgs, PlainValueArgs, WindowedValueArgs, BodyRuns, CallRuns)
}


__all__ = ["LEXERS", "BodyArgs", "BodyRuns", "PlainValueArgs", "ValueArgs", "WINDOW",
           "WindowedArgs", "WindowedValueArgs", "window"]
