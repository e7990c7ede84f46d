"""The lexing core: a parser's state, the loop that lexes text state by state, and the
moves that change the state (text to the state, a marker to its transition, whole calls).

``ParserCore`` is the base of every streaming parser.  The generated subclass supplies
``on_marker``/``on_text`` (the spec's transitions and text actions) and the tables the
compiler chose: per state, how its text is lexed (``LEXING``; ``PARSE_LEXING`` for a
whole text, where runs of calls are read at once), a ``StateLexer`` each.  The driver
(``driver``) hands it text and marker tokens; ``lex`` asks the current state's lexer for
one step at a time, and the lexer moves the parser with ``give``, ``take`` and ``ran``.

Generated code reads and assigns ``state_id`` (an int of ``events``), ``tool_index``
(``+= 1`` at a call's start) and ``header`` (MESSAGE_HEADER text); it calls the tool
body ``body`` (``feed``/``enter``/``leave``), the value scanner ``values`` where its
lexer has one (``entered``), and in a framing state ``framing_text`` and
``end_framing``.  A body reads ``tool_index`` and may set ``state_id``.  Nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import ClassVar

from mypy_extensions import mypyc_attr

from .arguments.values import ValueScan
from .bodies import TextBody, ToolBody
from .events import TOOL_ARGS, CallRun, EventType, RawText, SemanticEvent
from .lexicon import Matcher
from .opening import Opening
from .tokens import Item, Marker
from .value_gate import ValueGate

_TEXT_CHUNK = EventType.TEXT_CHUNK
_FRAMING_RUNS: dict[str, re.Pattern[str]] = {}
# The value gate of a parser whose TOOL_ARGS lexer reads no values: never used, shared.
_NO_VALUES = ValueGate(ValueScan(), {}, {})

# A plain delta's answer (``StateLexer.plain``): its event type when it is one chunk as
# it is, its events when they are ready otherwise, None when it must be lexed.
Plain = EventType | list[SemanticEvent] | None
# Reads a call at once from its name's text (None: the arguments name it) and its
# TOOL_ARGS text: (name, arguments, call id) or None (see ChatParser).
WholeCall = Callable[[str | None, str], "tuple[str, str, str] | None"]
# ... and a call that is one JSON object at a position: (name, arguments, id, just past it).
WholeObject = Callable[[str, int], "tuple[str, str, str, int] | None"]


def framing_run(punctuation: str) -> re.Pattern[str]:
    """The pattern of a leading run of whitespace and ``punctuation``, made once."""
    found = _FRAMING_RUNS.get(punctuation)
    if found is None:
        found = _FRAMING_RUNS[punctuation] = re.compile(r"[\s%s]*" % re.escape(punctuation))
    return found


@mypyc_attr(allow_interpreted_subclasses=True)
class StateLexer:
    """How one state's text is lexed: the plain text before the next marker its
    matcher finds goes to the state as it is, then the marker to its transition.
    Subclasses (``lexing``) add what only some states need; the compiler chooses."""

    __slots__ = ("event",)

    def __init__(self, event: EventType | None = None) -> None:
        # The chunk event the state's plain text is as it is (None: no fast path).
        self.event = event

    def plain(self, p: ParserCore, text: str) -> Plain:
        """A delta with no marker token and nothing held: its event type when no marker
        can start in it (the common delta); None: lex it."""
        kind = self.event
        if kind is not None:
            matcher = p.matchers[p.state_id]
            char = matcher.start_char
            if char:
                if char in text:
                    return None
            elif matcher.stop is not None and matcher.stop(text) is not None:
                return None
        return kind

    def lex(self, p: ParserCore, buf: str, pos: int, final: bool,
            out: list[SemanticEvent]) -> int:
        """One step from ``pos``: the text before the next marker, then the marker.
        Returns where lexing goes on, or ``~at`` to hold ``buf[at:]`` for more text."""
        start, end, name = p.matchers[p.state_id].scan(buf, pos, final)
        if start > pos or name is None and end >= 0:
            stop = start if start > pos else end
            used = p.give(buf, pos, stop, final, out)
            if used is not None:
                # (The state held the end, or changed inside the text: lex the rest anew.)
                return ~(pos + ~used) if used < 0 else pos + used
            if stop == end:
                return end  # (a literal that is only text here)
        if end < 0:
            return ~start
        return self.take(p, buf, start, end, name, final, out)

    def take(self, p: ParserCore, buf: str, start: int, end: int, name: str | None,
             final: bool, out: list[SemanticEvent]) -> int:
        """The marker ``buf[start:end]`` (terminal ``name``) found here: where lexing
        goes on after it."""
        p.take(name, buf[start:end], out)
        return end

    def token(self, p: ParserCore, marker: Marker, out: list[SemanticEvent]) -> None:
        """A marker that came as its token here."""
        p.take(marker.name, marker.text, out)

    def item(self, p: ParserCore, item: Item | None, out: list[SemanticEvent]) -> None:
        """What the token scanner gives next: text, or a marker token (None: nothing)."""
        if type(item) is str:
            p.pending = p.lex(p.pending + item, False, out)
        elif item is not None:
            p.marker(item, out)  # type: ignore[arg-type]

    def flush(self, p: ParserCore, out: list[SemanticEvent]) -> None:
        """The stream ends: decide what this state's lexer holds (nothing here)."""


@mypyc_attr(allow_interpreted_subclasses=True)
class ParserCore:
    """A parser's state, the per-state lexing loop, and the moves lexers make."""

    BODY: ClassVar[type[ToolBody]] = TextBody  # how TOOL_ARGS text becomes calls
    FRAMING_PUNCTUATION: ClassVar[str] = ""  # framing besides whitespace (see framing_text)
    # How each state's text is lexed, by state id, while streaming and in a parse.
    LEXING: ClassVar[tuple[StateLexer, ...]] = ()
    PARSE_LEXING: ClassVar[tuple[StateLexer, ...]] = ()

    def __init__(self, matchers: tuple[Matcher, ...], opening: Opening, raw: bool) -> None:
        # The raw tap: every consumed piece of text also goes to the output as RawText,
        # just before the events it causes (ChatParser needs a call's exact text, the
        # accounting every byte).  Public: set it before the first feed.
        self.raw = raw
        self.matchers: tuple[Matcher, ...] = matchers  # per state; strict ones once token ids come
        # (Tuples, not Sequences: compiled, indexing them by state id is native.)
        self.lexers: tuple[StateLexer, ...] = self.LEXING
        self.opening = opening  # markers live only as the first text
        self.fresh = bool(opening.starters)  # nothing consumed yet: opening markers live
        self.pending = ""  # text that may still become a marker
        # Text and marker tokens a confirmed REASONING holds until an end marker decides
        # them (``lexing.ConfirmedReasoning``; a list: a long run stays linear).
        self.held: list[Item] = []
        self.state_id = 0
        self.tool_index = -1
        self.header = ""  # MESSAGE_HEADER text
        # The leading run of framing characters of a text (made once per punctuation;
        # not at class creation: a compiled subclass never runs __init_subclass__).
        self.framing_match = framing_run(self.FRAMING_PUNCTUATION).match
        # A framing state's text since its last marker: framing held until a word makes
        # it content (then None: the rest up to the next marker is content as it comes).
        self.framing: list[str] | None = []  # (a list: a long run stays linear)
        self.body = self.BODY(self)  # the generated on_marker and on_text call it in TOOL_ARGS
        # The TOOL_ARGS value scanner (markers inside its strings are argument text),
        # where the compiler chose a lexer that reads one (``lexing.ValueArgs``).
        self.values = _NO_VALUES
        # Set for a whole text (``read_whole``): how a run reads a call at once.
        self.whole_call: WholeCall | None = None
        self.whole_object: WholeObject | None = None

    def read_whole(self, whole_call: WholeCall | None, whole_object: WholeObject | None) -> None:
        """A whole text follows (a parse): runs of calls may be read at once by these."""
        self.whole_call, self.whole_object = whole_call, whole_object
        # (A run goes out as a CallRun, an item of the raw tap.)
        whole = whole_call is not None and self.raw and bool(self.PARSE_LEXING)
        self.lexers = self.PARSE_LEXING if whole else self.LEXING

    def lex(self, buf: str, final: bool, out: list[SemanticEvent]) -> str:
        """Lex ``buf`` from the current state on, a state's lexer a step at a time;
        return the tail held back (``final``: nothing follows, hold nothing)."""
        pos = 0
        if self.fresh and buf:
            pos = self.opening.starting(self, buf, 0, final, out)
            if pos < 0:
                return buf[~pos:]  # may still be a marker that only starts a completion
        n = len(buf)
        lexers = self.lexers
        while pos < n:
            pos = lexers[self.state_id].lex(self, buf, pos, final, out)
            if pos < 0:
                return buf[~pos:]
        return ""

    def marker(self, marker: Marker, out: list[SemanticEvent]) -> None:
        """A marker token: text before it is complete (nothing can extend it any more);
        then the current state's lexer reads it."""
        first = self.fresh and not self.pending  # it begins the completion
        if self.pending:
            pending, self.pending = self.pending, ""
            self.lex(pending, True, out)
        self.fresh = False
        if first and self.opening.first_token(self, marker.name, marker.text, out):
            return
        self.lexers[self.state_id].token(self, marker, out)

    def give(self, buf: str, pos: int, stop: int, final: bool,
             out: list[SemanticEvent]) -> int | None:
        """Plain text ``buf[pos:stop]`` to the current state (``on_text``, behind its
        RawText): None when it used all of it; ``n >= 0``: the state changed after
        ``n`` characters; ``~n``: it used ``n`` and holds the rest for the next delta."""
        piece = buf[pos:stop]
        if not self.raw:
            return self.on_text(piece, out, stop == len(buf) and not final)
        raw = RawText(piece, self.state_id)
        out.append(raw)  # type: ignore[arg-type]  # (the raw tap)
        used = self.on_text(piece, out, stop == len(buf) and not final)
        if used is not None:
            raw.text = piece[: ~used if used < 0 else used]
        return used

    def take(self, name: str | None, text: str, out: list[SemanticEvent]) -> None:
        """Marker ``text`` (terminal ``name``) is a marker here: its transition."""
        if self.raw:
            out.append(RawText(text, self.state_id, name))  # type: ignore[arg-type]  # (the raw tap)
        self.on_marker(name, text, out)

    def as_text(self, text: str, out: list[SemanticEvent]) -> None:
        """A marker's text inside an argument value: plain argument text."""
        if self.raw:
            out.append(RawText(text, TOOL_ARGS))  # type: ignore[arg-type]  # (the raw tap)
        self.on_text(text, out)

    def ran(self, run: CallRun, after: int, out: list[SemanticEvent]) -> None:
        """Whole calls were read at once (``runs``): they go out as one CallRun, and the
        parser is as the last one's end left it, in state ``after``."""
        out.append(run)  # type: ignore[arg-type]  # (the raw tap)
        self.tool_index += len(run.calls)
        self.state_id = after
        self.framing = []  # (as the calls' markers left a framing state)

    def framing_text(self, text: str, out: list[SemanticEvent]) -> None:
        """Plain text of a framing state: whitespace and ``FRAMING_PUNCTUATION`` are
        framing; from the first other character up to the next marker it is content,
        the framing just before it included (nothing a model writes vanishes)."""
        held = self.framing
        if held is None:
            out.append(SemanticEvent(_TEXT_CHUNK, text, self.tool_index))
        elif self.framing_match(text).end() == len(text):  # type: ignore[union-attr]
            held.append(text)
        else:
            self.framing = None
            out.append(SemanticEvent(_TEXT_CHUNK, "".join(held) + text, self.tool_index))

    def end_framing(self) -> None:
        """A marker ends a framing state's text: what was held was framing."""
        self.framing = []

    # Supplied by the generated module.
    def on_marker(self, name: str | None, value: str, out: list[SemanticEvent]) -> None:
        """Terminal ``name`` (its text ``value``) in the current state: its transition,
        or, where it has none, the text as plain text of the state."""
        raise NotImplementedError

    def on_text(self, text: str, out: list[SemanticEvent], may_hold: bool = False) -> int | None:
        """Plain text in the current state; returns how much it used, if not all
        (``ToolBody.feed``'s contract; ``may_hold``: more text may follow it)."""
        raise NotImplementedError


__all__ = ["ParserCore", "Plain", "StateLexer", "WholeCall", "WholeObject", "framing_run"]
