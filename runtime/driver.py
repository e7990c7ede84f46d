"""The shared driver of generated streaming parsers: deltas in, semantic events out.

A generated module subclasses ``StreamingParserBase`` and supplies the state machine
itself; this module only feeds it: token ids through the scanner (``tokens``), text
through the per-state matchers (``lexicon``), and ``finish()``.  Where a completion
starts and the reasoning-id queries are ``prompt``'s (a ``PromptReader`` per parser).

The protocol between generated code and this driver, all public names:

The generated subclass defines
  - class attributes: ``FORMAT`` (its name); ``LEXICONS`` (thinking -> ``Lexicon``);
    ``INITIAL_STATES`` (thinking -> state id); ``THINKING_DEFAULT``; ``REASONING_RULES``
    (a ``Reasoning``, or None); ``PLAIN_TEXT`` (state id -> the chunk event its
    plain text is, for the fast path of ``advance``); ``BODY`` (the ``ToolBody``
    class that turns TOOL_ARGS text into calls, from ``bodies``); ``SYNTAX`` (the
    arguments syntax: its ``values()`` scanner says where markers are argument text)
    and ``CALL_CLOSERS`` (terminals that end a call from TOOL_ARGS: inside an
    ambiguous value, what follows one decides; see ``arguments/values.py``).
  - ``on_marker(name, value, out)``: terminal ``name`` (its text ``value``) was read in the
    current state; it appends events to ``out`` and may change the state.
  - ``FRAMING_PUNCTUATION``: besides whitespace, the characters a framing state's text
    may hold and still be framing (the format's own separators, ``;``).
  - ``FRAMING_STATES``: the framing states (no event of their own); a proper prefix of a
    marker one knows at the very end of the completion is that marker cut: framing.
  - ``SPEC_DROPPED``: state ids whose plain text the spec gives no event on purpose
    (a header the rules read, a built-in tool's call); ``accounting`` reads it.
  - ``on_text(text, out, may_hold) -> int | None``: plain text of the current state.
    None: all of it was used.  ``n >= 0``: the first ``n`` characters were used and
    the state changed (a body ended); the driver lexes the rest anew.  ``~keep``
    (negative): ``text[:keep]`` was used and the rest is held back for the next delta.

Generated code may read and assign ``self.state_id`` (the current state id, an int of
``events``), ``self.tool_index`` (the open call's index; ``+= 1`` at a call's start)
and ``self.header`` (MESSAGE_HEADER text, read and cleared by its transitions); it
calls ``self.on_text`` from ``on_marker`` and the tool body ``self.body`` (``feed`` from
``on_text`` in TOOL_ARGS, ``enter``/``leave`` on transitions into and out of it).
In a framing state (no event of its own) ``on_text`` calls ``self.framing_text`` and
every transition out of it ``self.end_framing()``: whitespace and punctuation there
are framing, any other text is content, with the framing before it.
A body reads ``tool_index`` and may set ``state_id`` (its text ended the body).  Nothing else.

Other modules use the public side only: ``feed``/``feed_many``/``advance``/``plain_events``/
``finish``, ``initialize``, ``state``/``state_id``, ``tool_index``, ``cut_off``,
``reasoning``, the reasoning-id queries, and the ``raw`` tap (``RawText`` items).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from .arguments import ArgumentSyntax
from .arguments.scanning import NOT_SPACE as _NOT_SPACE
from .arguments.values import ValueGate, ValueScan
from .bodies import TextBody, ToolBody
from .events import (
    CONTENT,
    DROP,
    MESSAGE_HEADER,
    REASONING,
    STATE_NAMES,
    TOOL_ARGS,
    TOOL_STATES,
    EventType,
    CallRun,
    RawText,
    SemanticEvent,
)
from .lexicon import Lexicon
from .prompt import PromptReader, Reasoning, ReasoningEndAt, count_reasoning_tokens
from .runs import RunSteps, call_path
from .sequences import Chained, PieceSequencer
from .tokens import Item, Marker, TokenIdScanner, TokenizerInfo, coalesce

_ARGS: Final = EventType.ARG_VALUE_CHUNK
# A parser class's PLAIN_TEXT per state, by index (plain_kinds).
_PLAIN_KINDS: dict[type, tuple[EventType | None, ...]] = {}
_REASONING_END: Final = EventType.REASONING_END
# Longest stretch of TOOL_ARGS text a body that can end its call by itself gets at once.
_WINDOW: Final = 4096
_TEXT_CHUNK: Final = EventType.TEXT_CHUNK


_FRAMING_RUNS: dict[str, re.Pattern[str]] = {}


def framing_run(punctuation: str) -> re.Pattern[str]:
    """The pattern of a leading run of whitespace and ``punctuation``, made once."""
    found = _FRAMING_RUNS.get(punctuation)
    if found is None:
        found = _FRAMING_RUNS[punctuation] = re.compile(r"[\s%s]*" % re.escape(punctuation))
    return found


def plain_kinds(cls: type[StreamingParserBase]) -> tuple[EventType | None, ...]:
    """``cls.PLAIN_TEXT`` by state index, made once per class (compiled, reading the
    class's mapping is a lookup by name and a method call on every plain delta)."""
    kinds = _PLAIN_KINDS.get(cls)
    if kinds is None:
        kinds = _PLAIN_KINDS[cls] = tuple(cls.PLAIN_TEXT.get(state)
                                          for state in range(len(STATE_NAMES)))
    return kinds


@mypyc_attr(allow_interpreted_subclasses=True)
class StreamingParserBase:
    """Feeds deltas through the token-id scanner and the per-state matchers."""

    FORMAT: ClassVar[str] = ""
    LEXICONS: ClassVar[Mapping[bool, Lexicon]]
    INITIAL_STATES: ClassVar[Mapping[bool, int]]
    THINKING_DEFAULT: ClassVar[bool] = False
    REASONING_RULES: ClassVar[Reasoning | None] = None
    BODY: ClassVar[type[ToolBody]] = TextBody  # how TOOL_ARGS text becomes calls
    # A MESSAGE_HEADER the completion ends in whose whole text matches this is framing
    # (cut_header); otherwise, or without it, the text is content.
    CUT_HEADER: ClassVar[re.Pattern[str] | None] = None
    # The arguments syntax: where its strings and values hide markers (``values()``).
    SYNTAX: ClassVar[ArgumentSyntax | None] = None
    # Terminals that end a call from TOOL_ARGS: inside an ambiguous value, what
    # follows one decides whether it ended the call (see arguments/values.py).
    CALL_CLOSERS: ClassVar[frozenset[str]] = frozenset()
    # state -> the steps of a call a parse may read whole (see _run): per step, the state,
    # what its text is ("between" calls, "name", "arguments", "": none) and the terminal.
    CALL_RUNS: ClassVar[Mapping[int, RunSteps]] = {}
    CALL_RUNS_END: ClassVar[Mapping[int, int]] = {}
    # state -> (the state after each call, {start terminal: its text opens the object})
    # of calls that are one JSON object each, which a parse may read whole (_objects).
    OBJECT_RUNS: ClassVar[Mapping[int, tuple[int, Mapping[str, bool]]]] = {}
    PLAIN_TEXT: ClassVar[Mapping[int, EventType]] = {}  # state -> its plain-text event
    FRAMING_PUNCTUATION: ClassVar[str] = ""  # framing besides whitespace (see framing_text)
    FRAMING_STATES: ClassVar[frozenset[int]] = frozenset()  # states with no event (_end)
    SPEC_DROPPED: ClassVar[frozenset[int]] = frozenset()  # states whose text is dropped

    def __init__(self, tokenizer: Any = None, *, thinking: bool | None = None,
                 raw: bool = False) -> None:
        self.thinking = self.THINKING_DEFAULT if thinking is None else bool(thinking)
        # The leading run of framing characters of a text (made once per punctuation;
        # not at class creation: a compiled subclass never runs __init_subclass__).
        self._framing_run = framing_run(self.FRAMING_PUNCTUATION)
        # The raw tap: every consumed piece of text also goes to the output as RawText,
        # just before the events it causes (ChatParser needs a call's exact text, the
        # accounting every byte).  Public: set it before the first feed.
        self.raw = raw
        lexicon = self.LEXICONS[self.thinking]
        self._lexicon = lexicon
        self._info: TokenizerInfo | None = None
        self._tokenizer = tokenizer
        if tokenizer is not None:
            info = self._info = lexicon.info(tokenizer)
            drops, resolved = info.drop_texts, info.resolved
            pieces = PieceSequencer(info.patterns) if info.patterns else None
            framing = lexicon.framing_hold(resolved)
            # (Text ending in one of these goes through the scanner: FramingHold holds it.)
            self._frame_befores = framing.befores if framing is not None else frozenset()
            stages = [stage for stage in (pieces, lexicon.follow_hold(resolved), framing)
                      if stage is not None]
            stage = Chained(*stages) if len(stages) > 1 else stages[0] if stages else None
            self._scanner: TokenIdScanner | None = (
                TokenIdScanner(info.id_to_name, info.decode, info.decode_run, stage)
                if info.id_to_name else None
            )
        else:
            drops, resolved = frozenset(), frozenset()
            self._scanner = None
            self._frame_befores = frozenset()
        self._text_matchers = lexicon.matchers(drops, resolved, False)
        self._strict_matchers = lexicon.matchers(drops, resolved, True)
        self._matchers = self._text_matchers
        self._had_ids = False
        self.state_id = self.INITIAL_STATES[self.thinking]
        self._start_state = self.state_id  # where the completion starts (see initialize)
        self._reasoning_closed = False  # the prompt (or initialize's caller) closed it
        self._prompt = PromptReader(self.REASONING_RULES, lexicon, self._info, self.thinking)
        self.tool_index = -1
        self._pending = ""  # text that may still become a marker
        self._fresh = bool(lexicon.at_start)  # nothing consumed yet: at_start markers live
        self._starters = lexicon.at_start  # markers live only as the completion's first text
        # Start markers that open reasoning as the completion's first text (initialize).
        self._opening: frozenset[str] = frozenset()
        self._found: str | None = None  # what initialize's prompt walk found
        # End markers CONTENT has no transition for: right after reasoning closed (by the
        # prompt, the thinking-off template or the completion), one that comes again
        # before any content text, whitespace aside, is that marker, not content.
        rules = self.REASONING_RULES
        ends = rules.end - lexicon.live.get(CONTENT, frozenset()) if rules else frozenset()
        self._reclosing: frozenset[str] = ends
        self._reclosers = {lit: name for lit, name in lexicon.literals.items() if name in ends}
        self._after_close = False  # _fresh is that window (see _closed)
        if self._closed_by_default():
            self._closed()
        self.header = ""  # MESSAGE_HEADER text
        # A framing state's text since its last marker: framing held until a word makes
        # it content (then None: the rest up to the next marker is content as it comes).
        self._framing: list[str] | None = []  # (a list: a long run stays linear)
        self.body = self.BODY(self)  # the generated on_marker and on_text call it in TOOL_ARGS
        self._exits = bool(self.BODY.exits_to)  # its text can end its call (see _windowed)
        self._body_runs = self.BODY.whole_runs  # its text's calls may be read whole (_body_run)
        self._plain_kinds = plain_kinds(type(self))
        # Every piece of TOOL_ARGS text goes to the syntax's value scanner too; markers
        # are only taken where it says a value can end (None: its values hide none).
        scan = self.SYNTAX.values() if self.SYNTAX is not None else None
        # (Nor is it needed where no terminal does anything in TOOL_ARGS.)
        self._gate = (ValueGate(scan, self.CALL_CLOSERS, tuple(lexicon.literals))
                      if scan is not None and type(scan) is not ValueScan
                      and lexicon.live.get(TOOL_ARGS) else None)
        self._used = -1  # _text's answer: how much text the state used before it changed
        # Set by finish(): the stream ended inside a call (None: its arguments decide).
        self.cut_off: bool | None = False
        # Set by ChatParser for a whole text: reads a call at once from its name text
        # (None where the arguments name the call) and its TOOL_ARGS text, (name,
        # arguments, call id) or None; with the raw tap, runs of such calls become one
        # CallRun (see _run).
        self.whole_call: Callable[[str | None, str], tuple[str, str, str] | None] | None = None
        # ... and a call that is one JSON object at a position of a text, (name,
        # arguments, call id, just past it) or None (see _objects and _body_run).
        self.whole_object: Callable[[str, int], tuple[str, str, str, int] | None] | None = None

    # -- prompts and structured output ---------------------------------------

    def initialize(self, prompt_token_ids: Sequence[int] = (), *,
                   prompt_text: str | None = None, start: str | None = None) -> None:
        """Start where the prompt leaves the model (call before the first feed).

        Walking back from the prompt's end to the last reasoning marker, stopping at a
        turn boundary or any other special token: a start marker means the completion
        begins inside reasoning, an end marker means in content.  A prompt with
        neither leaves the model in content, where a start marker that begins the
        completion opens reasoning (unless the format's models may reason without
        writing it: ``reasoning.start_optional`` keeps the format's initial state).
        Without a prompt the format's default stays (which ``thinking`` may choose).
        ``start`` ("reasoning" or "content") says it explicitly instead, for a caller
        that knows (a server that already parsed the reasoning hands the rest over as
        content).
        """
        self._begin(self._prompt.start_marker(prompt_token_ids, prompt_text, start))

    def _begin(self, found: str | None) -> None:
        """Start after ``found`` (``PromptReader.start_marker``'s answer)."""
        self._found = found
        self._after_close = False
        self._starters = self._lexicon.at_start
        state = self.INITIAL_STATES[self.thinking]
        opening: frozenset[str] = frozenset()
        rules = self.REASONING_RULES
        if found == "start":
            state = REASONING
        elif found == "end":
            state = CONTENT
        elif (found == "none" and rules is not None and not rules.start_optional
              and state in (REASONING, CONTENT)):
            state = CONTENT
            # Start markers that the grammar's CONTENT ignores open reasoning here, as
            # the completion's first text; where CONTENT has its own, it decides.
            lexicon = self._lexicon
            opening = rules.start - lexicon.live.get(CONTENT, frozenset())
            openers = {lit: name for lit, name in lexicon.literals.items() if name in opening}
            self._starters = {**lexicon.at_start, **openers}
            self._fresh = self._fresh or bool(openers)
        self._opening = opening
        self.state_id = self._start_state = state
        self._reasoning_closed = found == "end"
        if found == "end" or (found is None and self._closed_by_default()):
            self._closed()

    def _closed_by_default(self) -> bool:
        """Whether the completion starts past reasoning the template closed: thinking
        off, where thinking on starts in reasoning."""
        initial = self.INITIAL_STATES
        return not self.thinking and initial[False] == CONTENT and initial[True] == REASONING

    def _closed(self) -> None:
        """Reasoning has just closed: an end marker before content text is a marker."""
        if self._reclosing and self.state_id == CONTENT:
            if not self._fresh:  # (mid-completion: no other marker is a starter now)
                self._starters, self._opening = {}, frozenset()
            self._starters = {**self._starters, **self._reclosers}
            self._fresh = self._after_close = True

    @property
    def reasoning_end_token_ids(self) -> tuple[tuple[int, ...], ...]:
        """Token id sequences of the markers that end reasoning explicitly (``</think>``);
        empty without a tokenizer or when the tokenizer has no token for them."""
        return self._prompt.end_token_ids

    @property
    def implicit_reasoning_end_token_ids(self) -> tuple[tuple[int, ...], ...]:
        """Token id sequences of markers that end reasoning and are content themselves
        (a tool call's start marker met inside reasoning)."""
        return self._prompt.implicit_end_token_ids

    def count_reasoning_tokens(self, token_ids: Sequence[int]) -> int:
        """How many of a completion's ``token_ids`` are reasoning text (markers are not).

        The ids are parsed from where ``initialize`` starts the completion, each token
        as its own text, and a token counts when its text starts inside reasoning text
        (so a call marker written as plain text ends the count too).  Without a
        tokenizer ids cannot be read: every id counts if the completion starts in
        reasoning, none otherwise.
        """
        if self.REASONING_RULES is None or not token_ids:
            return 0
        if self._info is None:
            return len(token_ids) if self._start_state == REASONING else 0
        decode = self._info.decode
        parser = type(self)(self._tokenizer, thinking=self.thinking, raw=True)
        parser._begin(self._found)  # where this completion starts, as initialize found
        return count_reasoning_tokens(parser, [decode(t) for t in token_ids], token_ids)

    @property
    def starts_past_reasoning(self) -> bool:
        """Whether the completion starts past its reasoning: in content, because the
        prompt or ``initialize(start=)`` closed reasoning or the format does not wait
        for it."""
        return self._start_state == CONTENT and (self._reasoning_closed
                                                 or not self._prompt.waits)

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        """Whether reasoning is over after ``token_ids`` (prompt and output so far)."""
        return self._prompt.is_reasoning_end(token_ids)

    def is_reasoning_open(self, token_ids: Sequence[int]) -> bool:
        """Whether a start marker left reasoning open at the end of ``token_ids``."""
        return self._prompt.is_reasoning_open(token_ids)

    def find_reasoning_end(self, token_ids: Sequence[int], inside: bool = False) -> ReasoningEndAt:
        """Where reasoning ends in ``token_ids`` read forward, after ids that left a
        start marker open (``inside``, see ``is_reasoning_open``) or not: a server that
        sees a completion's ids batch by batch carries ``inside`` from one to the next."""
        return self._prompt.find_reasoning_end(token_ids, inside)

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        """The output's content token ids: what follows the end of reasoning."""
        return self._prompt.extract_content_ids(token_ids, self._start_state == REASONING)

    @property
    def reasoning(self) -> Reasoning | None:
        """The format's reasoning markers, or None when it has no reasoning."""
        return self.REASONING_RULES

    @property
    def state(self) -> str:
        """Name of the current state."""
        return STATE_NAMES[self.state_id]

    def _marked(self, delta_text: str, delta_token_ids: Sequence[int]) -> bool:
        """Whether the delta has marker ids, or markers wait for their text, or (with
        ids) its text ends in what may be the framing of a marker token to come."""
        if delta_token_ids and not self._had_ids:
            self._had_ids = True
            self._matchers = self._strict_matchers
            if (self._opening or self._reclosers) and self._info is not None:
                # Once ids come, a start or end marker typed as text is text.
                resolved, special = self._info.resolved, self._opening | self._reclosing
                self._starters = {lit: name for lit, name in self._starters.items()
                                  if name not in special or name not in resolved}
                self._reclosers = {lit: name for lit, name in self._reclosers.items()
                                   if name not in resolved}  # (the token is the marker)
        scanner = self._scanner
        if scanner is None:
            return False
        if scanner.waiting():
            return True
        markers = scanner.id_to_name
        for token_id in delta_token_ids:  # (usually one: a loop beats a set operation)
            if token_id in markers:
                return True
        return self._had_ids and delta_text[-1:] in self._frame_befores

    def _plain(self, delta_text: str) -> EventType | None:
        if not delta_text or self._pending or self._fresh:
            return None
        state = self.state_id
        kind = self._plain_kinds[state]
        if kind is not None:
            matcher = self._matchers[state]
            char = matcher.start_char
            if char:
                if char in delta_text:
                    return None
            elif matcher.stop is not None and matcher.stop(delta_text) is not None:
                return None
        return kind

    def feed(self, delta_text: str, delta_token_ids: Sequence[int] = ()) -> list[SemanticEvent]:
        """Parse one streamed delta; return the events it completes."""
        got = self.advance(delta_text, delta_token_ids)
        if isinstance(got, list):
            return got
        event = SemanticEvent(got, delta_text, self.tool_index)  # as plain_events, inline
        # (The raw tap puts the consumed text before its events: ChatParser reads both.)
        return [RawText(delta_text, self.state_id), event] if self.raw else [event]  # type: ignore[list-item]

    def feed_many(self, deltas: Iterable[tuple[str, Sequence[int]]]) -> list[SemanticEvent]:
        """Parse consecutive deltas at once: the events of feeding each in turn, with
        chunk events split differently (``merge_chunks`` of the two is the same).

        Cheaper than a feed per delta: their texts and ids are joined (``coalesce``).
        """
        runs = coalesce(deltas)
        if len(runs) == 1:
            return self.feed(*runs[0])
        out: list[SemanticEvent] = []
        for text, ids in runs:
            out += self.feed(text, ids)
        return out

    def advance(self, delta_text: str,
                delta_token_ids: Sequence[int] = ()) -> list[SemanticEvent] | EventType:
        """Parse one delta: its events, or only the event type of a plain delta.

        The common delta: in a state whose plain text is one chunk event, text with no
        marker token and no character that may start a marker there is that event as
        it is, with nothing held before it; its event is left to the caller to make
        (``plain_events``), or to skip.
        """
        gate = self._gate
        marked = self._marked(delta_text, delta_token_ids)
        kind: EventType | None = None
        if not marked and gate is None:
            kind = self._plain(delta_text)
            if kind is not None:
                return kind  # (no list made: most deltas end here)
        out: list[SemanticEvent] = []
        if marked:
            assert self._scanner is not None
            for scanned in self._scanner.scan(delta_text, delta_token_ids):
                item = (self._settle(scanned, out) if gate is not None and gate.held is not None
                        else scanned)
                if isinstance(item, str):
                    self._pending = self._lex(self._pending + item, False, out)
                elif item is not None:
                    self._marker(item, out)
            return out
        if gate is not None:
            if gate.held is not None and delta_text:
                settled = self._settle(delta_text, out)
                delta_text = settled if isinstance(settled, str) else ""
            kind = None if out else self._plain(delta_text)  # (out: the settled closer)
            if kind is not None:
                if self.state_id == TOOL_ARGS:
                    gate.args().feed(delta_text)
                return kind
        # A plain delta of TOOL_ARGS text may go to the body at once, where that text is
        # not plain already (PLAIN_TEXT).
        if not out and self.state_id == TOOL_ARGS and self._plain_kinds[TOOL_ARGS] is None:
            taken = self._plain_args(delta_text, out)
            if taken is not None:
                return taken
        if delta_text:
            self._pending = self._lex(self._pending + delta_text, False, out)
        return out

    def _plain_args(self, delta_text: str,
                    out: list[SemanticEvent]) -> list[SemanticEvent] | EventType | None:
        """A TOOL_ARGS delta no marker can start in, taken by the body at once
        (``ToolBody.take_plain``): ARG_VALUE_CHUNK when it all goes out as it is, else
        its events in ``out``; None (nothing done) where it must be lexed."""
        if not delta_text or self._pending or self._fresh:
            return None
        # (_plain's check, written out: a shared helper is a Python call per delta.)
        matcher = self._matchers[TOOL_ARGS]
        char = matcher.start_char
        if char:
            if char in delta_text:
                return None
        elif matcher.stop is not None and matcher.stop(delta_text) is not None:
            return None
        chunk = self.body.take_plain(delta_text)
        if chunk is None:
            return None
        if self._gate is not None:
            self._gate.args().feed(delta_text)
        if chunk == delta_text:
            return _ARGS
        if self.raw:  # (the raw tap: the text before the events it caused)
            out.append(RawText(delta_text, TOOL_ARGS))  # type: ignore[arg-type]
        if chunk:
            out.append(SemanticEvent(_ARGS, chunk, self.tool_index))
        return out

    def plain_events(self, kind: EventType, delta_text: str) -> list[SemanticEvent]:
        """The events of a plain delta that ``advance`` gave as its event type."""
        event = SemanticEvent(kind, delta_text, self.tool_index)
        # (The raw tap puts the consumed text before its events: ChatParser reads both.)
        return [RawText(delta_text, self.state_id), event] if self.raw else [event]  # type: ignore[list-item]

    def release(self) -> None:
        """A finished parser that will not be read again: its body lets go of it, so the
        pair (each refers to the other) is freed when the last reference goes, not left
        to the cycle collector (a batch of short parses made it run every few)."""
        self.body.release()
        self.whole_call = self.whole_object = None

    def finish(self) -> list[SemanticEvent]:
        """End of stream: flush what is held and close what is open."""
        out: list[SemanticEvent] = []
        if self._scanner is not None:
            for scanned in self._scanner.flush():
                item = (self._settle(scanned, out)
                        if self._gate is not None and self._gate.held is not None else scanned)
                if isinstance(item, str):
                    self._pending = self._lex(self._pending + item, False, out)
                elif item is not None:
                    self._marker(item, out)
        if self._gate is not None and self._gate.held is not None:
            self._settle(None, out)  # the stream ends: the held closer ends the call
        if self._pending:
            pending, self._pending = self._pending, ""
            self._end(pending, out)
        state = self.state_id
        if state in TOOL_STATES:
            self.cut_off = self.body.finish(out, state)  # flushes and closes the open call
        elif state == REASONING:
            out.append(SemanticEvent(_REASONING_END, "", self.tool_index))
        elif state == MESSAGE_HEADER and self.header:
            # A header cut by the end of the completion: framing where the spec's
            # cut_header says it is one (no text for the user, no call); else content.
            cut = self.CUT_HEADER
            if cut is None or cut.fullmatch(self.header) is None:
                out.append(SemanticEvent(_TEXT_CHUNK, self.header, self.tool_index))
            self.header = ""
        self.state_id = CONTENT
        return out

    def _end(self, tail: str, out: list[SemanticEvent]) -> None:
        """Lex the held tail of the completion; in a framing state, a proper prefix of a
        marker it knows at the very end is that marker cut off (max_tokens): framing."""
        state = self.state_id
        cut, name = (self._matchers[state].cut(tail) if state in self.FRAMING_STATES
                     else (0, None))
        self._lex(tail[: len(tail) - cut], True, out)
        if not cut:
            return
        if self.state_id != state:  # (the text before it changed the state)
            self._lex(tail[-cut:], True, out)
        elif self.raw:
            out.append(RawText(tail[-cut:], state, name))  # type: ignore[arg-type]  # (the raw tap)

    def _at_start(self, buf: str, final: bool, out: list[SemanticEvent]) -> int | None:
        """At the start of the completion (or of content right after reasoning closed):
        consume a start-only marker, or hold for one; whitespace may come before an
        end marker that closes reasoning again."""
        for lit, name in self._starters.items():
            if buf.startswith(lit):
                self._fresh = False
                if self.raw:
                    out.append(RawText(lit, self.state_id, name))  # type: ignore[arg-type]  # (the raw tap)
                if name in self._opening:
                    self.state_id = REASONING
                elif name not in self._reclosing:  # (a repeated end marker: no event)
                    self.on_marker(name, lit, out)
                return len(lit)
            if lit.startswith(buf) and not final:
                return None
        space = len(buf) - len(buf.lstrip()) if self._after_close else 0
        if space:
            # Content so far: whitespace, as it comes; only an end marker may follow.
            if self.raw:
                out.append(RawText(buf[:space], self.state_id))  # type: ignore[arg-type]  # (the raw tap)
            self.on_text(buf[:space], out)
            self._starters = self._reclosers
            return space
        self._fresh = False
        return 0

    def _starting(self, buf: str, pos: int, final: bool, out: list[SemanticEvent]) -> int:
        """Where lexing goes on in ``buf`` after what ``_at_start`` consumes from ``pos``
        (``~at``: hold ``buf[at:]``, which may still be such a marker)."""
        while self._fresh and pos < len(buf):
            found = self._at_start(buf[pos:] if pos else buf, final, out)
            if found is None:
                return ~pos
            pos += found
        return pos

    def _marker(self, marker: Marker, out: list[SemanticEvent]) -> None:
        first = self._fresh and not self._pending  # the marker begins the completion
        # Text before a marker token is complete: nothing can extend it any more.
        if self._pending:
            pending, self._pending = self._pending, ""
            self._lex(pending, True, out)
        self._fresh = False
        gate = self._gate
        values = gate.at(self.state_id == TOOL_ARGS) if gate is not None else None
        if values is not None:
            if values.quoted and marker.name != DROP:
                # Inside a string the tokenizer spells this text as the marker's token
                # too, so the id says nothing the text does not: string content.
                self._as_text(marker.text, values, out)
                return
            if gate.waits(marker.name):  # type: ignore[union-attr]
                gate.held = marker  # type: ignore[union-attr]  # what follows decides
                return
        self._take(marker, values, out, first)

    def _take(self, marker: Marker, values: ValueScan | None, out: list[SemanticEvent],
              first: bool = False) -> None:
        """Marker token ``marker`` is a marker here (``values``: the scanner in TOOL_ARGS;
        ``first``: it begins the completion)."""
        if values is not None:
            values.feed(marker.text)
        if self.raw:
            out.append(RawText(marker.text, self.state_id, marker.name))  # type: ignore[arg-type]  # (the raw tap)
        if first and marker.name in self._opening:
            self.state_id = REASONING  # a start marker token that begins the completion
            return
        if (first and self._after_close and marker.name in self._reclosing
                and self.state_id == CONTENT):
            return  # an end marker token again, right after reasoning closed: no event
        before = self.state_id
        self.on_marker(marker.name, marker.text, out)
        if before == REASONING and self.state_id == CONTENT:
            self._closed()
        if values is None and self._gate is not None and self.state_id == TOOL_ARGS:
            self._gate.entered(marker.text)

    def _settle(self, item: Item | None, out: list[SemanticEvent]) -> Item | None:
        """Decide a closer token held inside an ambiguous value by ``item``, what follows
        it (None: the stream ends); return what is left of ``item`` to read."""
        gate = self._gate
        assert gate is not None
        after = gate.held_after
        if type(item) is str:
            after += item
            closes = gate.closes(after, 0, False)
            if closes is None:
                gate.held_after = after  # only whitespace yet
                return None
        else:
            closes = True  # another marker, or the end: the close tag was missing
        marker, gate.held, gate.held_after = gate.held, None, ""
        if closes:
            self._take(marker, gate.scan, out)
        else:
            self._as_text(marker.text, gate.scan, out)
        if type(item) is str:
            return after
        if after:
            self._pending = self._lex(self._pending + after, item is None, out)
        return item

    def _as_text(self, text: str, values: ValueScan, out: list[SemanticEvent]) -> None:
        """A marker's text inside an argument value: plain argument text."""
        values.feed(text)
        if self.raw:
            out.append(RawText(text, TOOL_ARGS))  # type: ignore[arg-type]  # (the raw tap)
        self.on_text(text, out)

    def _windowed(self, buf: str, pos: int, values: ValueScan | None,
                  out: list[SemanticEvent]) -> int:
        """Give a body that can end its call inside its text (Llama's JSON objects) the
        next ``_WINDOW`` characters of a long stretch, not the whole rest: slicing the
        rest of a call-dense text once per call would cost quadratic time.  More text
        follows for sure, so a hold only means "see it again"; returns how much was
        used (0: nothing, the caller gives the whole stretch)."""
        piece = buf[pos : pos + _WINDOW]
        at = len(out)
        used = self.on_text(piece, out, True)
        used = len(piece) if used is None else ~used if used < 0 else used
        if self.raw and used:  # (the raw tap: the text before the events it caused)
            out.insert(at, RawText(piece[:used], TOOL_ARGS))  # type: ignore[arg-type]
        if values is not None and used:
            values.feed(piece[:used])
        return used

    def _lex(self, buf: str, final: bool, out: list[SemanticEvent]) -> str:
        """Lex ``buf`` from the current state on; return the tail held back."""
        pos = 0
        if self._fresh and buf:
            pos = self._starting(buf, 0, final, out)
            if pos < 0:
                return buf[~pos:]  # may still be a marker that only starts a completion
        n = len(buf)
        emit = self.on_text
        step = self.on_marker
        tap = self.raw
        gate = self._gate
        values: ValueScan | None = None
        # Runs of calls the body reads whole (_body_run): only in a parse, with calls
        # (whole_object), where no value scanner has to follow TOOL_ARGS text.
        runs = self.whole_object is not None and self._body_runs and tap and gate is None
        tried = clear = -1  # where a run last stopped; TOOL_ARGS text up to clear has no terminal
        while pos < n:
            if runs and pos > tried and self.state_id == TOOL_ARGS:
                if clear < pos:
                    clear = self._clear_to(buf, pos, final)
                moved, tried = self._body_run(buf, pos, clear, out)
                if moved > pos:
                    pos = moved
                    continue
            if gate is not None:
                if self.state_id != TOOL_ARGS:
                    values = gate.at(False) if gate.inside else None
                else:
                    values = gate.args()
                    if values.quoted:  # type: ignore[union-attr]
                        # Inside a string: no marker can start before it ends.
                        stop = values.skip(buf, pos)  # type: ignore[union-attr]
                        if stop > pos:
                            held = self._text(buf, pos, stop, final, out)
                            if held is not None:
                                return held
                            pos = stop if self._used < 0 else pos + self._used
                            continue
            if (self._exits and self.state_id == TOOL_ARGS and n - pos > _WINDOW
                    and self._matchers[TOOL_ARGS].clear(buf, pos, pos + _WINDOW)):
                # No marker in the next window: the body reads it without a search of
                # the whole rest, once per call (which made call-dense text quadratic).
                moved = self._windowed(buf, pos, values, out)
                if moved:
                    pos += moved
                    continue
            start, end, name = self._matchers[self.state_id].scan(buf, pos, final)
            # A complete value before the next marker goes to the state in one piece.
            whole = values.whole(buf, pos, start) if values is not None and start > pos else pos
            if start > pos or name is None and end >= 0:
                stop = whole if whole > pos else start if start > pos else end
                if stop - pos > _WINDOW and self._exits and self.state_id == TOOL_ARGS:
                    moved = self._windowed(buf, pos, values, out)
                    if moved:
                        pos += moved
                        continue
                piece = buf[pos:stop]
                raw = RawText(piece, self.state_id) if tap else None
                if raw is not None:
                    out.append(raw)  # type: ignore[arg-type]  # (the raw tap)
                # A body may hold back the end of the buffer (a name not yet known to
                # be a call's): it comes back with the next delta.
                used = emit(piece, out, stop == n and not final)
                if used is not None and used < 0:
                    keep = ~used
                    if raw is not None:
                        raw.text = piece[:keep]
                    if values is not None:
                        values.feed(piece[:keep])
                    return buf[pos + keep :]
                if used is not None:
                    # The state changed inside the text (a JSON array body closed):
                    # lex the rest anew in the new state.
                    if raw is not None:
                        raw.text = piece[:used]
                    if values is not None:
                        values.feed(piece[:used])
                    pos += used
                    continue
                if whole > pos:  # the scanner is where the value leaves it: as it was
                    pos = stop
                    continue
                if values is not None:
                    values.feed(piece)
                    if values.quoted:
                        pos = stop  # the text opened a string: look again from there
                        continue
                if stop == end:
                    pos = end
                    continue
            if end < 0:
                return buf[start:]
            run = self.CALL_RUNS.get(self.state_id) if self.whole_call is not None else None
            if run is not None and name == run[0][2] and tap:
                moved = self._run(buf, start, run, out)
                if moved > start:
                    pos = moved
                    continue
            if (tap and self.whole_object is not None and name is not None
                    and self.state_id in self.OBJECT_RUNS):
                moved = self._objects(buf, start, end, name, out)
                if moved > start:
                    pos = moved
                    continue
            if values is not None:
                if values.quoted:
                    self._as_text(buf[start:end], values, out)
                    pos = end
                    continue
                if gate.waits(name):  # type: ignore[union-attr]
                    closes = gate.closes(buf, end, final)  # type: ignore[union-attr]
                    if closes is None:
                        return buf[start:]  # what follows will tell
                    if not closes:
                        self._as_text(buf[start:end], values, out)
                        pos = end
                        continue
                values.feed(buf[start:end])
            if tap:
                out.append(RawText(buf[start:end], self.state_id, name))  # type: ignore[arg-type]  # (the raw tap)
            before = self.state_id
            step(name, buf[start:end], out)
            if gate is not None and values is None and self.state_id == TOOL_ARGS:
                gate.entered(buf[start:end])
            pos = end
            if before == REASONING and self.state_id == CONTENT and self._reclosing:
                self._closed()
                pos = self._starting(buf, pos, final, out)
                if pos < 0:
                    return buf[~pos:]
        return ""

    def _run(self, buf: str, pos: int, run: RunSteps,
             out: list[SemanticEvent]) -> int:
        """Read the calls that follow one another from ``pos`` (a start marker) whole
        (``CallPath.read``: ``run``'s markers, found as this parser's matchers find them,
        the name and arguments read by ``whole_call``; the text between calls content,
        or framing where the state is a framing state; from a state whose call ends in
        another, ``CALL_RUNS_END``, one call and then that state's run).  They go out as
        one CallRun, the state as after the last; returns where they end (``pos``: none).
        Anything else ends the run: the lexer goes on as usual from there."""
        state = self.state_id
        path = call_path(run, self._matchers)
        if path.steps is None or self.whole_call is None:
            return pos
        framing = self._framing_run.match if state in self.FRAMING_STATES else None
        ends = self.CALL_RUNS_END.get(state, state)
        calls, at = path.read(buf, pos, self.whole_call, framing, ends != state)
        if not calls:
            return pos
        if ends != state:  # one call, then the calls of the (framing) state it ends in
            self.state_id = ends
            more = call_path(self.CALL_RUNS[ends], self._matchers)
            if more.steps is not None:
                rest, at = more.read(buf, at, self.whole_call, framing)
                calls += rest
        found = CallRun(calls, state, self.tool_index + 1, run[-1][2], framing is not None)
        out.append(found)  # type: ignore[arg-type]  # (the raw tap)
        self.tool_index += len(calls)
        if self._gate is not None:
            self._gate.inside = False  # as after a call's end marker
        if framing is not None:
            self._framing = []  # as the calls' markers left it
        return at

    def _objects(self, buf: str, pos: int, end: int, name: str,
                 out: list[SemanticEvent]) -> int:
        """Read the calls that are one JSON object each (OBJECT_RUNS) and follow one
        another from ``pos``, a start marker ending at ``end``, whole: each its marker,
        the object (from the marker's text, when that opens it, or after whitespace),
        complete and read by ``whole_object`` with no TOOL_ARGS terminal inside it, and
        between two calls only what the state after a call drops as framing.  They go
        out as one CallRun, the state as after the last; returns where it ends (``pos``:
        none).  Anything else ends the run: the lexer goes on as usual from there."""
        runs = self.OBJECT_RUNS
        state = first = self.state_id
        inside = self._matchers[TOOL_ARGS]
        framing = self._framing_run.match
        accept = self.whole_object
        assert accept is not None  # (only called when set)
        calls: list[tuple[str, str, str, str, tuple[str, str, str]]] = []
        at = start = pos
        while True:
            after, starts = runs[state]
            opens = starts.get(name)
            if opens is None:
                break
            if opens:
                obj = start  # the marker's text is the object's opening
            else:
                m = _NOT_SPACE(buf, end)
                obj = m.start() if m is not None else len(buf)
            # (Compared: compiled, startswith with a position is a generic call.)
            if buf[obj : obj + 1] != "{":
                break
            # (Not complete, or not as the syntax takes it whole: read piece by piece.)
            taken = accept(buf, obj)
            if taken is None:
                break
            close = taken[3]
            if inside.search is not None and not inside.clear(buf, end, close):
                break  # a terminal inside the object (a special token the tokenizer drops)
            calls.append((buf[at:start], buf[start:end], buf[end:close], "", taken[:3]))
            at, state = close, after
            if state not in runs:
                break
            start, end, next_name = self._matchers[state].scan(buf, at, False)
            if next_name is None or end < 0 or framing(buf, at, start).end() != start:  # type: ignore[union-attr]
                break
            name = next_name
        if not calls:
            return pos
        out.append(CallRun(calls, first, self.tool_index + 1, "", True))  # type: ignore[arg-type]  # (the raw tap)
        self.tool_index += len(calls)
        self.state_id = state
        self._framing = []  # as the way into the last call left it
        return at

    def _clear_to(self, buf: str, pos: int, final: bool) -> int:
        """Where the first TOOL_ARGS terminal (or, ``final`` aside, a possible start of
        one at the end) from ``pos`` on starts in ``buf``: text before it has none."""
        inside = self._matchers[TOOL_ARGS]
        m = inside.search(buf, pos) if inside.search is not None else None
        at = m.start() if m is not None else len(buf)
        return at if final else min(at, inside.hold_point(buf, pos))

    def _body_run(self, buf: str, pos: int, clear: int,
                  out: list[SemanticEvent]) -> tuple[int, int]:
        """Read the calls of TOOL_ARGS text from ``pos`` whole, as the body would read
        them fed (``ToolBody.whole_run``: each taken by ``whole_object``, ending by
        ``clear``, so no terminal is inside).  They go out as one CallRun, the state
        TOOL_ARGS still, the body as after the last; returns (where they end, ``pos``
        if none; where reading stopped).  The rest is read piece by piece as usual."""
        accept = self.whole_object
        assert accept is not None  # (only called when set)
        calls, end, stopped = self.body.whole_run(buf, pos, clear, accept)
        if calls:
            # The text before each call is the body's own (the array's "[", commas):
            # markup, as fed, not content.
            out.append(CallRun(calls, TOOL_ARGS, self.tool_index + 1, "", True))  # type: ignore[arg-type]  # (the raw tap)
            self.tool_index += len(calls)
        return end, stopped

    def framing_text(self, text: str, out: list[SemanticEvent]) -> None:
        """Plain text of a framing state: whitespace and ``FRAMING_PUNCTUATION`` are
        framing; from the first other character up to the next marker it is content,
        the framing just before it included (nothing a model writes vanishes)."""
        held = self._framing
        if held is None:
            out.append(SemanticEvent(_TEXT_CHUNK, text, self.tool_index))
        elif self._framing_run.match(text).end() == len(text):  # type: ignore[union-attr]
            held.append(text)
        else:
            self._framing = None
            out.append(SemanticEvent(_TEXT_CHUNK, "".join(held) + text, self.tool_index))

    def end_framing(self) -> None:
        """A marker ends a framing state's text: what was held was framing."""
        self._framing = []

    def _text(self, buf: str, pos: int, stop: int, final: bool,
              out: list[SemanticEvent]) -> str | None:
        """Give ``buf[pos:stop]``, string text the value scanner has read, to the state.

        Returns the tail of ``buf`` to hold back when the state kept part of it;
        otherwise None, with ``_used`` set to how much was used when the state changed
        inside the text (-1: all of it, in the same state).
        """
        piece = buf[pos:stop]
        raw = RawText(piece, self.state_id) if self.raw else None
        if raw is not None:
            out.append(raw)  # type: ignore[arg-type]  # (the raw tap)
        used = self.on_text(piece, out, stop == len(buf) and not final)
        if used is not None and used < 0:
            if raw is not None:
                raw.text = piece[: ~used]
            return buf[pos + ~used :]
        if used is not None and raw is not None:
            raw.text = piece[:used]
        self._used = -1 if used is None else used
        return None

    # Supplied by the generated module.
    def on_marker(self, name: str | None, value: str, out: list[SemanticEvent]) -> None:
        raise NotImplementedError

    def on_text(self, text: str, out: list[SemanticEvent], may_hold: bool = False) -> int | None:
        """Plain text in the current state; returns how much it used, if not all
        (``ToolBody.feed``'s contract; ``may_hold``: more text may follow it)."""
        raise NotImplementedError
