"""The shared driver of generated streaming parsers: deltas in, semantic events out.

A generated module subclasses ``StreamingParserBase`` and supplies the state machine
itself; this module only feeds it: token ids through the scanner (``tokens``), text
through the per-state matchers (``lexicon``), and ``finish()``.  Where a completion
starts and the reasoning-id queries are ``prompt``'s (a ``PromptReader`` per parser).

The protocol between generated code and this driver (the names are underscored for
now; a rename to public names comes with the generator's next change):

The generated subclass defines
  - class attributes: ``FORMAT`` (its name); ``_LEXICONS`` (thinking -> ``Lexicon``);
    ``_INITIAL_STATES`` (thinking -> state id); ``_THINKING_DEFAULT``; ``_REASONING``
    (a ``Reasoning``, or None); ``_PLAIN_TEXT`` (state id -> the chunk event its
    plain text is, for the fast path of ``advance``); a body flag when TOOL_ARGS text
    is a body of calls: ``_ARRAY_BODY``, ``_OBJECT_BODY`` or ``_PYTHON_BODY``.
  - ``_step(name, value, out)``: terminal ``name`` (its text ``value``) was read in the
    current state; it appends events to ``out`` and may change the state.
  - ``_emit(text, out) -> int | None``: plain text of the current state.  None: all of
    it was used.  ``n >= 0``: the first ``n`` characters were used and the state
    changed (a body ended); the driver lexes the rest anew.  ``~keep`` (negative):
    ``text[:keep]`` was used and the rest is held back for the next delta.

Generated code may read and assign ``self._state`` (the current state id, an int of
``events``), ``self.tool_index`` (the open call's index; ``+= 1`` at a call's start)
and ``self._header`` (MESSAGE_HEADER text, read and cleared by its transitions); it
calls ``self._emit`` from ``_step``, the JSON argument tracker ``self._args``
(``feed``, ``take``, ``reset``), and the tool bodies' hooks: ``self._feed_array``,
``self._feed_object``, ``self._feed_pycalls`` (from ``_emit`` in TOOL_ARGS) and
``self._array_reset()``, ``self._object_reset(opening)``, ``self._py_reset(value)``,
``self._py_leave(out)`` (entering or leaving TOOL_ARGS).  Nothing else.

Other modules use the public side only: ``feed``/``advance``/``plain_events``/
``finish``, ``initialize``, ``state``/``state_id``, ``tool_index``, ``cut_off``,
``reasoning``, the reasoning-id queries, and the ``raw`` tap (``RawText`` items).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from .args import JsonArgs
from .jsonscan import JsonScan
from .events import (
    CONTENT,
    TOOL_ARGS,
    TOOL_BETWEEN,
    DROP,
    MESSAGE_HEADER,
    REASONING,
    STATE_NAMES,
    TOOL_STATES,
    EventType,
    RawText,
    SemanticEvent,
)
from .lexicon import Lexicon
from .prompt import PromptReader, Reasoning, count_reasoning_tokens
from .tokens import Marker, TokenIdScanner, TokenizerInfo

_TOOL_CALL_END = EventType.TOOL_CALL_END
_TOOL_CALL_START = EventType.TOOL_CALL_START
_TOOL_NAME = EventType.TOOL_NAME
_REASONING_END = EventType.REASONING_END
_TEXT_CHUNK = EventType.TEXT_CHUNK
_ARG_VALUE_CHUNK = EventType.ARG_VALUE_CHUNK

# Where a Python call's argument text can change quoting or nesting depth.
_PY_HELD_LIMIT = 4096  # list syntax held before a call's name( : bounded memory
_PY_SEPARATORS = re.compile(r"[\s,]*")
_PY_NAME_START = re.compile(r"[^\W\d]")
_PY_NAME = re.compile(r"[\w.]*")
_PY_ARGS_SPECIAL = re.compile(r"[\\'\"()\[\]{}]")


class StreamingParserBase:
    """Feeds deltas through the token-id scanner and the per-state matchers."""

    FORMAT: ClassVar[str] = ""
    _LEXICONS: ClassVar[Mapping[bool, Lexicon]]
    _INITIAL_STATES: ClassVar[Mapping[bool, int]]
    _THINKING_DEFAULT: ClassVar[bool] = False
    _REASONING: ClassVar[Reasoning | None] = None
    _ARRAY_BODY: ClassVar[bool] = False  # TOOL_ARGS text is a JSON array of calls
    _OBJECT_BODY: ClassVar[bool] = False  # TOOL_ARGS text is one JSON object per call
    _PYTHON_BODY: ClassVar[bool] = False  # TOOL_ARGS text is a Python list of calls
    _PLAIN_TEXT: ClassVar[Mapping[int, EventType]] = {}  # state -> its plain-text event

    def __init__(self, tokenizer: Any = None, *, thinking: bool | None = None,
                 raw: bool = False) -> None:
        self.thinking = self._THINKING_DEFAULT if thinking is None else bool(thinking)
        # The raw tap: every consumed piece of text also goes to the output as RawText,
        # just before the events it causes (ChatParser needs a call's exact text, the
        # accounting every byte).  Public: set it before the first feed.
        self.raw = raw
        lexicon = self._LEXICONS[self.thinking]
        self._lexicon = lexicon
        self._info: TokenizerInfo | None = None
        self._tokenizer = tokenizer
        if tokenizer is not None:
            info = self._info = lexicon.info(tokenizer)
            drops, resolved = info.drop_texts, info.resolved
            self._scanner: TokenIdScanner | None = (
                TokenIdScanner(info.id_to_name, info.decode, info.decode_run)
                if info.id_to_name else None
            )
        else:
            drops, resolved = frozenset(), frozenset()
            self._scanner = None
        self._text_matchers = lexicon.matchers(drops, resolved, False)
        self._strict_matchers = lexicon.matchers(drops, resolved, True)
        self._matchers = self._text_matchers
        self._had_ids = False
        self._state = self._INITIAL_STATES[self.thinking]
        self._start_state = self._state  # where the completion starts (see initialize)
        self._reasoning_closed = False  # the prompt (or initialize's caller) closed it
        self._prompt = PromptReader(self._REASONING, lexicon, self._info, self.thinking)
        self.tool_index = -1
        self._pending = ""  # text that may still become a marker
        self._fresh = bool(lexicon.at_start)  # nothing consumed yet: at_start markers live
        self._header = ""  # MESSAGE_HEADER text
        self._args = JsonArgs()
        self._array_reset()
        self._py_reset()
        self._may_hold = False  # set by _lex for a body's emitter (see _lex)
        # Set by finish(): the stream ended inside a call (None: its arguments decide).
        self.cut_off: bool | None = False

    # -- prompts and structured output ---------------------------------------

    def initialize(self, prompt_token_ids: Sequence[int] = (), *,
                   prompt_text: str | None = None, start: str | None = None) -> None:
        """Start where the prompt leaves the model (call before the first feed).

        Walking back from the prompt's end to the last reasoning marker, stopping at a
        turn boundary or any other special token: a start marker means the completion
        begins inside reasoning, an end marker means in content; neither keeps the
        format's default (which ``thinking`` may choose).  ``start`` ("reasoning" or
        "content") says it explicitly instead, for a caller that knows (a server
        that already parsed the reasoning hands the rest over as content).
        """
        found = self._prompt.start_marker(prompt_token_ids, prompt_text, start)
        if found == "start":
            self._state = REASONING
        elif found == "end":
            self._state = CONTENT
        self._start_state = self._state
        self._reasoning_closed = found == "end"

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
        if self._REASONING is None or not token_ids:
            return 0
        if self._info is None:
            return len(token_ids) if self._start_state == REASONING else 0
        decode = self._info.decode
        parser = type(self)(self._tokenizer, thinking=self.thinking, raw=True)
        # initialize() only ever starts in reasoning or content; any other start
        # state is the format's default, which the fresh parser has too.
        if self._start_state == REASONING:
            parser.initialize(start="reasoning")
        elif self._start_state == CONTENT:
            parser.initialize(start="content")
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

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        """The output's content token ids: what follows the end of reasoning."""
        return self._prompt.extract_content_ids(token_ids)

    @property
    def reasoning(self) -> Reasoning | None:
        """The format's reasoning markers, or None when it has no reasoning."""
        return self._REASONING

    @property
    def state(self) -> str:
        """Name of the current state."""
        return STATE_NAMES[self._state]

    @property
    def state_id(self) -> int:
        """The current state as its small int (``events.CONTENT`` ...), read-only."""
        return self._state

    def _marked(self, delta_token_ids: Sequence[int]) -> bool:
        """Whether the delta has marker ids, or markers wait for their text."""
        if delta_token_ids and not self._had_ids:
            self._had_ids = True
            self._matchers = self._strict_matchers
        scanner = self._scanner
        return scanner is not None and (
            bool(scanner.deferred) or not scanner.id_to_name.keys().isdisjoint(delta_token_ids))

    def _plain(self, delta_text: str) -> EventType | None:
        if not delta_text or self._pending or self._fresh:
            return None
        state = self._state
        kind = self._PLAIN_TEXT.get(state)
        if kind is not None:
            stop = self._matchers[state].stop
            if stop is not None and stop(delta_text) is not None:
                return None
        return kind

    def feed(self, delta_text: str, delta_token_ids: Sequence[int] = ()) -> list[SemanticEvent]:
        """Parse one streamed delta; return the events it completes."""
        got = self.advance(delta_text, delta_token_ids)
        if type(got) is list:
            return got
        event = SemanticEvent(got, delta_text, self.tool_index)  # as plain_events, inline
        return [RawText(delta_text, self._state), event] if self.raw else [event]

    def advance(self, delta_text: str,
                delta_token_ids: Sequence[int] = ()) -> list[SemanticEvent] | EventType:
        """Parse one delta: its events, or only the event type of a plain delta.

        The common delta: in a state whose plain text is one chunk event, text with no
        marker token and no character that may start a marker there is that event as
        it is, with nothing held before it; its event is left to the caller to make
        (``plain_events``), or to skip.
        """
        out: list[SemanticEvent] = []
        if self._marked(delta_token_ids):
            assert self._scanner is not None
            for item in self._scanner.scan(delta_text, delta_token_ids):
                if type(item) is str:
                    self._pending = self._lex(self._pending + item, False, out)
                else:
                    self._marker(item, out)
            return out
        kind = self._plain(delta_text)
        if kind is not None:
            return kind
        if delta_text:
            self._pending = self._lex(self._pending + delta_text, False, out)
        return out

    def plain_events(self, kind: EventType, delta_text: str) -> list[SemanticEvent]:
        """The events of a plain delta that ``advance`` gave as its event type."""
        event = SemanticEvent(kind, delta_text, self.tool_index)
        return [RawText(delta_text, self._state), event] if self.raw else [event]

    def finish(self) -> list[SemanticEvent]:
        """End of stream: flush what is held and close what is open."""
        out: list[SemanticEvent] = []
        if self._scanner is not None:
            for item in self._scanner.flush():
                if type(item) is str:
                    self._pending = self._lex(self._pending + item, False, out)
                else:
                    self._marker(item, out)
        if self._pending:
            pending, self._pending = self._pending, ""
            self._lex(pending, True, out)
        held = self._args.take()
        if held:
            out.append(SemanticEvent(_ARG_VALUE_CHUNK, held, self.tool_index))
        state = self._state
        if state in TOOL_STATES:
            if self._PYTHON_BODY:
                self.cut_off = self._py_where == "args"
                self._py_leave(out)  # closes the open call, or gives held text back
            else:
                # A JSON array or object body has closed its finished calls already.
                if self._ARRAY_BODY:
                    open_call = self._array_element
                elif self._OBJECT_BODY:
                    open_call = state == TOOL_ARGS
                else:
                    open_call = True
                if self.tool_index >= 0 and open_call:
                    out.append(SemanticEvent(_TOOL_CALL_END, "", self.tool_index))
                    # A body's element is cut; a grammar's call may only lack its end
                    # marker, which its arguments decide (None: not known here).
                    self.cut_off = True if self._ARRAY_BODY or self._OBJECT_BODY else None
        elif state == REASONING:
            out.append(SemanticEvent(_REASONING_END, "", self.tool_index))
        elif state == MESSAGE_HEADER and self._header:
            out.append(SemanticEvent(_TEXT_CHUNK, self._header, self.tool_index))
            self._header = ""
        self._state = CONTENT
        return out

    def _at_start(self, buf: str, final: bool, out: list[SemanticEvent]) -> int | None:
        """At the start of the completion: consume a start-only marker, or hold for one."""
        for lit, name in self._lexicon.at_start.items():
            if buf.startswith(lit):
                self._fresh = False
                if self.raw:
                    out.append(RawText(lit, self._state, name))
                self._step(name, lit, out)
                return len(lit)
            if lit.startswith(buf) and not final:
                return None
        self._fresh = False
        return 0

    def _marker(self, marker: Marker, out: list[SemanticEvent]) -> None:
        # Text before a marker token is complete: nothing can extend it any more.
        if self._pending:
            pending, self._pending = self._pending, ""
            self._lex(pending, True, out)
        self._fresh = False
        if self.raw:
            out.append(RawText(marker.text, self._state, marker.name))
        self._step(marker.name, marker.text, out)

    def _lex(self, buf: str, final: bool, out: list[SemanticEvent]) -> str:
        """Lex ``buf`` from the current state on; return the tail held back."""
        if self._fresh and buf:
            found = self._at_start(buf, final, out)
            if found is None:
                return buf  # may still be a marker that only starts a completion
            buf = buf[found:]
        pos = 0
        n = len(buf)
        emit = self._emit
        step = self._step
        tap = self.raw
        while pos < n:
            start, end, name = self._matchers[self._state].scan(buf, pos, final)
            if start > pos or name is None and end >= 0:
                stop = start if start > pos else end
                piece = buf[pos:stop]
                raw = RawText(piece, self._state) if tap else None
                if raw is not None:
                    out.append(raw)
                # A body may hold back the end of the buffer (a name not yet known to
                # be a call's): it comes back with the next delta.
                self._may_hold = stop == n and not final
                used = emit(piece, out)
                if used is not None and used < 0:
                    keep = ~used
                    if raw is not None:
                        raw.text = piece[:keep]
                    return buf[pos + keep :]
                if used is not None:
                    # The state changed inside the text (a JSON array body closed):
                    # lex the rest anew in the new state.
                    if raw is not None:
                        raw.text = piece[:used]
                    pos += used
                    continue
                if stop == end:
                    pos = end
                    continue
            if end < 0:
                return buf[start:]
            if tap:
                out.append(RawText(buf[start:end], self._state, name))
            step(name, buf[start:end], out)
            pos = end
        return ""

    # Supplied by the generated module.
    def _step(self, name: str, value: str, out: list[SemanticEvent]) -> None:
        raise NotImplementedError

    def _emit(self, text: str, out: list[SemanticEvent]) -> int | None:
        """Plain text in the current state; returns how much it used, if not all."""
        raise NotImplementedError

    # -- a tool body that is one JSON array of calls (vLLM's tool_call_body_array) ---

    def _py_reset(self, opening: str = "") -> None:
        """A Python list of calls begins; a marker that is its ``[`` has opened it."""
        self._py_where = "between" if opening.lstrip().startswith("[") else "start"
        # List syntax not yet known to be a call's: it is content if no call follows.
        self._py_held = opening if self._py_where == "between" else ""
        self._py_calls = 0
        self._py_depth = 0
        self._py_quote = ""
        self._py_escape = False

    def _array_reset(self) -> None:
        self._array_started = False
        self._array_element = False
        self._array_depth = 0
        self._array_scan = JsonScan()

    def _feed_array(self, text: str, out: list[SemanticEvent]) -> int | None:
        """``[{...}, {...}]``: each element is one call, the closing ``]`` ends the body.

        Returns where the body ended inside ``text`` (the rest is for the new state),
        or None if all of it belongs to the body.
        """
        pos, n = 0, len(text)
        while pos < n:
            if self._array_element:
                end = self._json_end(text, pos)
                self._call_arguments(text[pos : n if end < 0 else end], end >= 0, out)
                if end < 0:
                    return None
                self._array_element = False
                return end  # what follows the call is a piece of its own
            ch = text[pos]
            if ch in " \t\r\n" or (ch == "," and self._array_started):
                pos += 1
            elif not self._array_started and ch == "[":
                self._array_started = True
                pos += 1
            elif self._array_started and ch == "{":
                if pos > 0:
                    return pos  # each call's text begins a piece of its own
                self.tool_index += 1
                self._args.reset()
                self._array_element = True
                self._array_depth = 0
                self._array_scan.reset()
                out.append(SemanticEvent(_TOOL_CALL_START, "", self.tool_index))
            else:
                # "]" ends the body; anything else was no array of calls after all.
                self._state = CONTENT
                self._array_reset()
                return pos + 1 if ch == "]" else pos
        return None

    # -- a body that is a Python list of calls, [f(a=1), g()] (tool_call_body_python) --

    def _feed_pycalls(self, text: str, out: list[SemanticEvent]) -> int | None:
        """``[name(kwargs), ...]``: each call streams its name and its argument text."""
        pos, n = 0, len(text)
        while pos < n:
            where = self._py_where
            if where == "args":
                end = self._py_args_end(text, pos)
                piece = text[pos : n if end < 0 else end]
                if piece:
                    out.append(SemanticEvent(_ARG_VALUE_CHUNK, piece, self.tool_index))
                if end < 0:
                    return None
                out.append(SemanticEvent(_TOOL_CALL_END, "", self.tool_index))
                self._py_where = "between"
                return end + 1  # past the parenthesis: what follows is a piece of its own
            if len(self._py_held) > _PY_HELD_LIMIT:
                return self._py_bail(pos, out)  # no call starts this long after: prose
            m = _PY_SEPARATORS.match(text, pos)
            if m.end() > pos:
                if where == "name":  # a name cut by a space: not a call
                    return self._py_bail(pos, out)
                self._py_held += m.group()
                pos = m.end()
                continue
            ch = text[pos]
            if where == "start":
                if ch != "[":
                    return self._py_bail(pos, out)
                self._py_where, self._py_held = "between", self._py_held + ch
                pos += 1
            elif ch == "]" and where == "between" and self._py_calls:
                self._state = CONTENT
                self._py_reset()
                return pos + 1
            elif where == "between" and not _PY_NAME_START.match(ch):
                return self._py_bail(pos, out)
            elif where == "between" and pos > 0:
                return pos  # a call may start here: its text begins a piece of its own
            else:
                m = _PY_NAME.match(text, pos)
                if m.end() == n and self._may_hold and where == "between" and n - pos < 256:
                    return ~pos  # a name that may be a call's: wait for what follows it
                self._py_held += m.group()
                self._py_where = "name"
                pos = m.end()
                if pos < n:
                    if text[pos] != "(":
                        return self._py_bail(pos, out)
                    # name( - a call after all: the held list syntax was its frame.
                    name = self._py_held.lstrip("[, \t\r\n")
                    self.tool_index += 1
                    self._py_calls += 1
                    out.append(SemanticEvent(_TOOL_CALL_START, "", self.tool_index))
                    out.append(SemanticEvent(_TOOL_NAME, name, self.tool_index))
                    self._py_where, self._py_held = "args", ""
                    self._py_depth, self._py_quote, self._py_escape = 0, "", False
                    pos += 1
        return None

    def _py_leave(self, out: list[SemanticEvent]) -> None:
        """The body ends early (a marker or the stream): close the call or give back text."""
        if self._py_where == "args":
            out.append(SemanticEvent(_TOOL_CALL_END, "", self.tool_index))
        elif self._py_held:
            out.append(SemanticEvent(_TEXT_CHUNK, self._py_held))
        self._py_reset()

    def _py_bail(self, pos: int, out: list[SemanticEvent]) -> int:
        """Not a call after all: held list syntax and the rest are content."""
        if self._py_held:
            out.append(SemanticEvent(_TEXT_CHUNK, self._py_held))
        self._state = CONTENT
        self._py_reset()
        return pos

    def _py_args_end(self, text: str, pos: int) -> int:
        """Index of the parenthesis that closes the call, or -1."""
        if self._py_escape and pos < len(text):
            self._py_escape = False
            pos += 1  # the character a backslash at the end of the last delta escaped
        find = _PY_ARGS_SPECIAL.search
        while True:
            m = find(text, pos)
            if m is None:
                return -1
            i = m.start()
            ch = text[i]
            pos = i + 1
            if self._py_quote:
                if ch == "\\":
                    if pos == len(text):
                        self._py_escape = True
                        return -1
                    pos += 1
                elif ch == self._py_quote:
                    self._py_quote = ""
            elif ch in "'\"":
                self._py_quote = ch
            elif ch in "([{":
                self._py_depth += 1
            elif ch in ")]}":
                if ch == ")" and self._py_depth == 0:
                    return i
                self._py_depth -= 1

    # -- a call body that is one JSON object (tool_call_body_object) -----------

    def _object_reset(self, opening: str) -> None:
        """A call's JSON object begins; ``opening`` is its start if a marker held it."""
        self._array_depth = 0
        self._array_scan.reset()
        self._args.reset()
        if opening:
            self._json_end(opening, 0)  # count its braces; its text is already out

    def _feed_object(self, text: str, out: list[SemanticEvent]) -> int | None:
        """Argument text until the call's JSON object closes; then the call ends."""
        end = self._json_end(text, 0)
        self._call_arguments(text if end < 0 else text[:end], end >= 0, out)
        if end < 0:
            return None
        self._state = TOOL_BETWEEN
        return end

    def _call_arguments(self, piece: str, ended: bool, out: list[SemanticEvent]) -> None:
        """Argument text of a body's open call; at its end, what was held and the end."""
        chunk = self._args.feed(piece)
        if chunk:
            out.append(SemanticEvent(_ARG_VALUE_CHUNK, chunk, self.tool_index))
        if ended:
            held = self._args.take()
            if held:
                out.append(SemanticEvent(_ARG_VALUE_CHUNK, held, self.tool_index))
            out.append(SemanticEvent(_TOOL_CALL_END, "", self.tool_index))

    def _json_end(self, text: str, pos: int) -> int:
        """Just past the bracket that closes the call's JSON value (an array element or
        an object body), or -1 if it is not in ``text``."""
        scan = self._array_scan
        while True:
            i = scan.next(text, pos)
            if i < 0:
                return -1
            ch = text[i]
            if ch in "{[":
                self._array_depth += 1
            elif ch in "}]":
                self._array_depth -= 1
                if self._array_depth <= 0:
                    return i + 1
            pos = i + 1
