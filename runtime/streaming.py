"""The shared driver of generated streaming parsers: deltas in, semantic events out.

A generated module subclasses ``StreamingParserBase`` and supplies the state machine
itself (``_step``: a terminal in the current state; ``_emit``: plain text in the current
state) plus one ``Lexicon`` per thinking variant.  This module only feeds them: token
ids through the scanner, text through the per-state matchers, and ``finish()``.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, ClassVar

from .bodies import TextBody, ToolBody
from .events import (
    CONTENT,
    DROP,
    MESSAGE_HEADER,
    REASONING,
    TOOL_STATES,
    EventType,
    SemanticEvent,
)
from .lexing import Matcher, build_matchers
from .tokens import Marker, TokenIdScanner, TokenizerInfo, tokenizer_info

_REASONING_END = EventType.REASONING_END
_TEXT_CHUNK = EventType.TEXT_CHUNK
# Marker id sequences by their last id (most markers are one token).
_Seqs = dict[int, list[tuple[int, ...]]]


def _ends_at(ids: Sequence[int], i: int, seqs: _Seqs) -> bool:
    """Whether one of ``seqs`` ends at ``ids[i]``."""
    for seq in seqs.get(ids[i], ()):
        n = len(seq)
        if n == 1 or (i + 1 >= n and tuple(ids[i + 1 - n : i + 1]) == seq):
            return True
    return False


def _sequences(seqs: _Seqs) -> tuple[tuple[int, ...], ...]:
    """Every id sequence of a map from last id to sequences."""
    return tuple(seq for group in seqs.values() for seq in group)


_STARTS = ("reasoning", "content")


class RawText:
    """Model text a parser consumed (in ``state``), interleaved with its events;
    ``marker`` names the terminal it was, if it was one."""

    __slots__ = ("text", "state", "marker")

    def __init__(self, text: str, state: int, marker: str | None = None) -> None:
        self.text = text
        self.state = state
        self.marker = marker


class Lexicon:
    """The terminals of one format variant and, per state, those with a transition."""

    def __init__(
        self,
        *,
        literals: Mapping[str, str],
        token_terminals: Mapping[str, str],
        live: Mapping[int, Sequence[str]],
        preserve_tokens: Sequence[str] = (),
        turn_boundary_tokens: Sequence[str] = (),
        at_start: Mapping[str, str] | None = None,
    ) -> None:
        self.literals = dict(literals)  # spelling -> terminal name
        self.token_terminals = dict(token_terminals)  # terminal name -> token text
        self.live = {state: frozenset(names) for state, names in live.items()}
        self.configured_texts = frozenset(
            [*self.literals, *self.token_terminals.values(), *preserve_tokens]
        )
        self.turn_boundary_tokens = tuple(turn_boundary_tokens)
        # Markers only as the very first text of a completion: spelling -> name.
        self.at_start = dict(at_start or {})
        self._infos: weakref.WeakKeyDictionary[Any, TokenizerInfo] = weakref.WeakKeyDictionary()

    def info(self, tokenizer: Any) -> TokenizerInfo:
        """Token ids and auto-dropped tokens of ``tokenizer``, cached per tokenizer."""
        try:
            return self._infos[tokenizer]
        except KeyError:
            pass
        except TypeError:  # not weak-referenceable: compute every time
            return self._info(tokenizer)
        info = self._info(tokenizer)
        self._infos[tokenizer] = info
        return info

    def _info(self, tokenizer: Any) -> TokenizerInfo:
        return tokenizer_info(tokenizer, self.token_terminals, self.configured_texts,
                              self.turn_boundary_tokens, self.literals)

    def texts(self, names: Sequence[str]) -> list[str]:
        """Every spelling of the named terminals (those this variant has)."""
        return [lit for lit, name in self.literals.items() if name in names]

    @lru_cache(maxsize=64)
    def matchers(
        self, drop_texts: frozenset[str], resolved: frozenset[str], strict: bool
    ) -> tuple[Matcher, ...]:
        """Per-state matchers, before (text mode) or after (strict) the first token ids.

        In text mode every terminal with a transition is live, and so is every
        auto-dropped special token.  Once ids have been seen, a marker that the
        tokenizer has as a token only counts when it arrives as that token: typed as
        text it is content (it still consumes its characters), like dropped tokens.
        """
        by_name: dict[str, list[str]] = {}
        for lit, name in self.literals.items():
            by_name.setdefault(name, []).append(lit)
        live_by_state: dict[int, dict[str, str]] = {}
        for state in range(7):
            names = self.live.get(state, frozenset())
            if strict:
                names = names - resolved
            live = {lit: name for name in names for lit in by_name.get(name, ())}
            if not strict:
                live.update((text, DROP) for text in drop_texts)
            live_by_state[state] = live
        built = build_matchers(live_by_state, [*self.literals, *drop_texts])
        return tuple(built[state] for state in range(7))


class Reasoning:
    """A format's reasoning markers (terminal names) and what depends on thinking."""

    __slots__ = ("start", "end", "implicit_end", "wait", "start_opens", "newline_framing")

    def __init__(self, *, start: Sequence[str], end: Sequence[str],
                 implicit_end: Sequence[str] = (), wait: tuple[bool, bool],
                 start_opens: tuple[bool, bool], newline_framing: bool = False) -> None:
        self.start = frozenset(start)
        self.end = frozenset(end)
        self.implicit_end = frozenset(implicit_end)
        self.wait = {True: wait[0], False: wait[1]}
        self.start_opens = {True: start_opens[0], False: start_opens[1]}
        self.newline_framing = newline_framing


class StreamingParserBase:
    """Feeds deltas through the token-id scanner and the per-state matchers."""

    FORMAT: ClassVar[str] = ""
    _LEXICONS: ClassVar[Mapping[bool, Lexicon]]
    _INITIAL_STATES: ClassVar[Mapping[bool, int]]
    _THINKING_DEFAULT: ClassVar[bool] = False
    _REASONING: ClassVar[Reasoning | None] = None
    BODY: ClassVar[type[ToolBody]] = TextBody  # how TOOL_ARGS text becomes calls
    _PLAIN_TEXT: ClassVar[Mapping[int, EventType]] = {}  # state -> its plain-text event

    def __init__(self, tokenizer: Any = None, *, thinking: bool | None = None) -> None:
        self.thinking = self._THINKING_DEFAULT if thinking is None else bool(thinking)
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
        self.tool_index = -1
        self._pending = ""  # text that may still become a marker
        self._fresh = bool(lexicon.at_start)  # nothing consumed yet: at_start markers live
        self._header = ""  # MESSAGE_HEADER text
        self.body = self.BODY(self)  # the generated _step and _emit call it in TOOL_ARGS
        # Set by finish(): the stream ended inside a call (None: its arguments decide).
        self.cut_off: bool | None = False
        # With a tap, every consumed piece of text also goes to the output as RawText,
        # just before the events it causes (ChatParser needs a call's exact text).
        self._tap = False

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
        if start is not None:
            if start not in _STARTS:
                raise ValueError(f"start must be 'reasoning' or 'content', not {start!r}")
            found: str | None = "start" if start == "reasoning" else "end"
        else:
            found = self._prompt_marker(prompt_token_ids, prompt_text)
        if found == "start":
            self._state = REASONING
        elif found == "end":
            self._state = CONTENT
        self._start_state = self._state
        self._reasoning_closed = found == "end"

    def _prompt_marker(self, ids: Sequence[int], text: str | None) -> str | None:
        reasoning = self._REASONING
        if reasoning is None:
            return None
        info = self._info
        starts, ends, _ = self._reasoning_ids()
        if ids and (starts or ends):  # the markers are tokens: walk the ids
            for i in range(len(ids) - 1, -1, -1):
                if _ends_at(ids, i, starts):
                    return "start"
                if _ends_at(ids, i, ends):
                    return "end"
                if ids[i] in info.stop_ids:
                    return None
            return None
        if not text:
            return None
        lexicon = self._lexicon
        found, at = None, -1
        stops = [*lexicon.turn_boundary_tokens, *(info.drop_texts if info else ())]
        for kind, texts in (("start", lexicon.texts(reasoning.start)),
                            ("end", lexicon.texts(reasoning.end)), (None, stops)):
            for marker in texts:
                pos = text.rfind(marker)
                if pos > at:
                    found, at = kind, pos
        return found

    def _reasoning_ids(self) -> tuple[_Seqs, _Seqs, _Seqs]:
        """Token ids of the start markers, the end markers and the implicit ends,
        each as a map from a marker's last id to the markers' id sequences."""
        reasoning, info = self._REASONING, self._info
        if reasoning is None or info is None:
            return {}, {}, {}
        ids = info.name_to_ids

        def seqs(names: Sequence[str]) -> _Seqs:
            out: dict[int, list[tuple[int, ...]]] = {}
            for name in names:
                if name in ids:
                    out.setdefault(ids[name][-1], []).append(ids[name])
            return out

        return seqs(reasoning.start), seqs(reasoning.end), seqs(reasoning.implicit_end)

    @property
    def reasoning_end_token_ids(self) -> tuple[tuple[int, ...], ...]:
        """Token id sequences of the markers that end reasoning explicitly (``</think>``);
        empty without a tokenizer or when the tokenizer has no token for them."""
        return _sequences(self._reasoning_ids()[1])

    @property
    def implicit_reasoning_end_token_ids(self) -> tuple[tuple[int, ...], ...]:
        """Token id sequences of markers that end reasoning and are content themselves
        (a tool call's start marker met inside reasoning)."""
        return _sequences(self._reasoning_ids()[2])

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
        inside = self._start_state == REASONING
        if self._info is None:
            return len(token_ids) if inside else 0
        decode = self._info.decode
        texts = [decode(t) for t in token_ids]
        text = "".join(texts)
        parser = type(self)(self._tokenizer, thinking=self.thinking)
        parser._state = parser._start_state = self._start_state
        parser._tap = True
        reasoning = bytearray(len(text) + 1)  # 1 where a character is reasoning text
        pos = 0
        for item in [*parser.feed(text, token_ids), *parser.finish()]:
            if type(item) is RawText:
                end = pos + len(item.text)
                if item.state == REASONING and item.marker is None:
                    reasoning[pos:end] = b"\1" * len(item.text)
                pos = end
        count = 0
        pos = 0
        for piece in texts:
            if piece and reasoning[pos]:
                count += 1
            pos += len(piece)
        return count

    def _waits(self) -> bool:
        reasoning = self._REASONING
        return reasoning is not None and reasoning.wait[self.thinking]

    @property
    def starts_past_reasoning(self) -> bool:
        """Whether the completion starts past its reasoning: in content, because the
        prompt or ``initialize(start=)`` closed reasoning or the format does not wait
        for it."""
        return self._start_state == CONTENT and (self._reasoning_closed or not self._waits())

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        """Whether reasoning is over after ``token_ids`` (prompt and output so far)."""
        starts, end_seqs, implicit = self._reasoning_ids()
        boundary = self._info.boundary_ids if self._info is not None else frozenset()
        opens = self._REASONING is not None and self._REASONING.start_opens[self.thinking]
        for i in range(len(token_ids) - 1, -1, -1):
            if _ends_at(token_ids, i, end_seqs) or _ends_at(token_ids, i, implicit):
                return True
            if _ends_at(token_ids, i, starts):
                if opens:
                    return False
                break
            if token_ids[i] in boundary:
                break
        return not self._waits()

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        """The output's content token ids: what follows the end of reasoning."""
        ids = list(token_ids)
        if not self._waits():
            return ids
        _, end_seqs, implicit = self._reasoning_ids()
        for i in range(len(ids) - 1, -1, -1):
            if _ends_at(ids, i, end_seqs):
                return ids[i + 1 :]
        if implicit:
            boundary = self._info.boundary_ids if self._info is not None else frozenset()
            start = 0
            for i in range(len(ids) - 1, -1, -1):
                if ids[i] in boundary:
                    start = i + 1
                    break
            for i in range(start, len(ids)):
                for seq in implicit.get(ids[i], ()):
                    if len(seq) <= i + 1 - start and _ends_at(ids, i, {ids[i]: [seq]}):
                        return ids[i + 1 - len(seq):]
        return ids

    @property
    def state(self) -> str:
        """Name of the current state."""
        from .events import STATE_NAMES

        return STATE_NAMES[self._state]

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
        return [RawText(delta_text, self._state), event] if self._tap else [event]

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
        return [RawText(delta_text, self._state), event] if self._tap else [event]

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
        state = self._state
        if state in TOOL_STATES:
            self.cut_off = self.body.finish(out, state)  # flushes and closes the open call
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
                if self._tap:
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
        if self._tap:
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
        tap = self._tap
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
                used = emit(piece, out, stop == n and not final)
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

    def set_state(self, state: int) -> None:
        """Go on in ``state`` (a state id): a tool body ended inside its own text."""
        self._state = state

    # Supplied by the generated module.
    def _step(self, name: str, value: str, out: list[SemanticEvent]) -> None:
        raise NotImplementedError

    def _emit(self, text: str, out: list[SemanticEvent], may_hold: bool = False) -> int | None:
        """Plain text in the current state; returns how much it used, if not all
        (``ToolBody.feed``'s contract; ``may_hold``: more text may follow it)."""
        raise NotImplementedError
