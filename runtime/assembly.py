"""From semantic events to OpenAI-style deltas and messages.

``ChatParser`` (the base of every generated ``ChatParser``) wraps a format's
``StreamingParser`` and turns its events into ``DeltaMessage``s: reasoning and content
text, and tool calls whose name is sent once complete and whose arguments stream as a
typed JSON object (see ``arguments``).  ``parse()`` is the same assembly over one
delta, so streaming and non-streaming agree by construction.

Here: routing events; reasoning's and content's text rules are ``text_rules``, each
call's lifecycle (names, arguments, ends, cuts, ids) ``calls.ToolCalls``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from .arguments import ArgumentSyntax, syntax
from .call_ids import CallIds
from .call_names import request_names
from .calls import STREAM_CALLS, ToolCalls
from .events import (REASONING, TOOL_ARGS, TOOL_STATES, CallRun, EventType, RawText,
                     SemanticEvent)
from .messages import (
    CutCall,
    DeltaMessage,
    DeltaToolCall,
    ParsedMessage,
    merge_deltas,
    message_of,
    without_cut_calls,
)
from .text_rules import ContentText, ReasoningText
from .driver import StreamingParserBase
from .prompt import ReasoningEndAt
from .deltas import coalesce
from .whole_text import WholeText

_TEXT: Final = EventType.TEXT_CHUNK
_REASONING: Final = EventType.REASONING_CHUNK
_REASONING_END: Final = EventType.REASONING_END
_CALL_START: Final = EventType.TOOL_CALL_START
_NAME: Final = EventType.TOOL_NAME
_ARGS: Final = EventType.ARG_VALUE_CHUNK
_CALL_END: Final = EventType.TOOL_CALL_END


# The default arguments; a module constant, as a compiled class body cannot read its own names.
_JSON_ARGUMENTS: Mapping[str, Any] = {"syntax": "json"}


@mypyc_attr(allow_interpreted_subclasses=True)
class ChatParser:
    """Streams OpenAI-style ``DeltaMessage``s for one completion of one format."""

    # Supplied by the generated module.
    StreamingParser: ClassVar[type[StreamingParserBase]]
    ARGUMENTS: ClassVar[Mapping[str, Any]] = _JSON_ARGUMENTS
    # ARGUMENTS' syntax, made once per class (from the registry: never by name here).
    SYNTAX: ClassVar[ArgumentSyntax] = syntax(_JSON_ARGUMENTS)
    # Every assembly option, filled in by the compiler (compiler/lower.py DEFAULTS).
    ASSEMBLY: ClassVar[Mapping[str, Any]]
    TOOL_NAME_PATTERN: ClassVar[re.Pattern[str] | None] = None
    TOOL_NAME_ENTITIES: ClassVar[str | None] = None  # references decoded in names ("xml")
    TOOL_NAME_GLUED_PREFIX: ClassVar[str | None] = None  # see CallNames.glued
    CALL_TRAILERS: ClassVar[frozenset[str]] = frozenset()  # see ToolCalls.trailers
    NAME_LEAD: ClassVar[str] = ""  # the render's text before a name: see CallNames.may_start
    NAME_TAIL: ClassVar[str] = ""  # ... and after it
    ARGUMENTS_END_CALL: ClassVar[bool] = False  # see ToolCalls.spill
    # How parse() reads a whole text in one pass, where the compiler found it can
    # (compiler/whole_text.py); None: always through the streaming assembly.
    WHOLE_TEXT: ClassVar[WholeText | None] = None

    def __init__(self, tokenizer: Any = None, *, tools: Sequence[Any] | None = None,
                 thinking: bool | None = None, tool_choice: Any = None,
                 ids: str = "random", stream_calls: str = "incremental") -> None:
        """``stream_calls``: "incremental" streams a call's arguments as they come (as
        OpenAI does: a call the completion cuts off may have been partly sent, and
        ``finish()`` reports it in ``cut_calls`` and ``warnings``); "complete" sends each
        call in one delta once it is complete, so a cut call is never sent."""
        if stream_calls not in STREAM_CALLS:
            raise ValueError(f"stream_calls must be one of {', '.join(map(repr, STREAM_CALLS))}, "
                             f"not {stream_calls!r}")
        self.events = self.StreamingParser(tokenizer, thinking=thinking, raw=True)
        self.warnings: list[str] = []
        self.tools, names_read = request_names(type(self), tools, self.warnings)
        typing = names_read.typing
        # tool_choice "none": tool markup is not parsed into calls; it stays content.
        self._no_tools = tool_choice == "none"
        self.ids = ids
        flags = self.ASSEMBLY
        reasoning = self.events.reasoning
        self._text = ContentText(flags)
        self._content = self._text.add  # bound once: _push calls it per event
        self._reasoning = ReasoningText(
            flags, reasoning is not None and reasoning.newline_framing, self._text)
        self._calls = ToolCalls(
            self.events, self._text, syntax=self.SYNTAX, typing=typing, names=names_read,
            trailers=self.CALL_TRAILERS, stream_args=flags["stream_arg_deltas"],
            ids=CallIds(flags["call_ids"], ids), no_tools=self._no_tools,
            warnings=self.warnings, whole_calls=stream_calls == "complete",
            spill=self.ARGUMENTS_END_CALL)
        # Set by a REASONING_END event, content or a call; see reasoning_ended.
        self._reasoning_over = False
        self._consumed = 0  # characters of model text consumed so far
        self._reasoned = 0  # ... up to the end of the last piece read in reasoning
        self._content_at: int | None = None  # see content_offset
        # Calls the completion cut off before their end (max_tokens), known at finish():
        # never completed, never content; parse() returns their text in its cut_calls.
        self.cut_calls: list[CutCall] = self._calls.cut_calls
        self._done = False
        self._late = False  # text came after finish() (see _after_finish)

    # -- public ---------------------------------------------------------------

    @classmethod
    def parse(cls, text: str, *, tools: Sequence[Any] | None = None,
              tokenizer: Any = None, token_ids: Sequence[int] | None = None,
              thinking: bool | None = None, tool_choice: Any = None,
              prompt_token_ids: Sequence[int] = (), prompt_text: str | None = None,
              start: str | None = None, ids: str = "random") -> ParsedMessage:
        """A whole completion as one message: the streaming assembly over one delta
        (read in one pass where ``WHOLE_TEXT`` allows: the same message)."""
        whole = cls.WHOLE_TEXT
        if (whole is not None and not token_ids and not prompt_token_ids
                and prompt_text is None and start is None and tool_choice != "none"):
            message = whole.parse(cls, text, tools, tokenizer, thinking, ids)
            if message is not None:
                return message
        parser = cls(tokenizer, tools=tools, thinking=thinking, tool_choice=tool_choice, ids=ids,
                     stream_calls="complete")
        parser.initialize(prompt_token_ids, prompt_text=prompt_text, start=start)
        return parser.complete(text, token_ids or ())

    def complete(self, text: str, token_ids: Sequence[int] = ()) -> ParsedMessage:
        """The rest of the completion, all at once: the whole message (a fresh parser
        gives ``parse()``'s result), with every warning the parser made so far; calls the
        completion cut off are in its ``cut_calls``, never in ``tool_calls``."""
        # A run of calls the arguments syntax can read whole is read so, not piece by
        # piece (the same message: tests/test_canonical.py).
        calls = self._calls
        if calls.reads_whole:
            self.events.read_whole(calls.names.whole_call, calls.names.whole_object)
        delta = self.feed(text, token_ids)
        last = self.finish()
        # (finish() mostly adds nothing: the one delta is then the message's, unmerged.)
        merged = delta if last is None else merge_deltas([delta, last])
        message = without_cut_calls(message_of(merged), self.cut_calls)
        if self.warnings:
            message = replace(message, warnings=tuple(self.warnings))
        return message

    def initialize(self, prompt_token_ids: Sequence[int] = (), *,
                   prompt_text: str | None = None, start: str | None = None) -> None:
        """Start where the prompt leaves the model, or explicitly in ``start``
        ("reasoning" or "content": right after reasoning's end, so a framing newline
        is dropped); see StreamingParserBase.initialize."""
        self.events.initialize(prompt_token_ids, prompt_text=prompt_text, start=start)
        if start == "content":
            self._text.after_end = self._reasoning.framing

    @property
    def reasoning_ended(self) -> bool:
        """Whether the completion is past its reasoning: an end marker (explicit or
        implicit) was read, or content or a call came; True from the start when the
        completion starts in content because the prompt or ``initialize(start=)`` said
        so, or because the format does not wait for reasoning there."""
        if self._reasoning_over:
            return True
        return self.events.starts_past_reasoning

    @property
    def content_offset(self) -> int | None:
        """Where the content begins in the model text fed so far (a character offset),
        once reasoning is over: just after an explicit end marker, at a call marker that
        ended reasoning implicitly, or at the first content.  A server that parses
        reasoning and content in two stages hands ``text[content_offset:]`` over."""
        return self._content_at

    @property
    def reasoning_end_token_ids(self) -> tuple[tuple[int, ...], ...]:
        """Token id sequences of the explicit reasoning end markers."""
        return self.events.reasoning_end_token_ids

    @property
    def implicit_reasoning_end_token_ids(self) -> tuple[tuple[int, ...], ...]:
        """Token id sequences of markers that end reasoning and are content themselves."""
        return self.events.implicit_reasoning_end_token_ids

    def count_reasoning_tokens(self, token_ids: Sequence[int]) -> int:
        """How many of a completion's token ids are reasoning (markers excluded)."""
        return self.events.count_reasoning_tokens(token_ids)

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        """Whether reasoning is over after ``token_ids``."""
        return self.events.is_reasoning_end(token_ids)

    def is_reasoning_open(self, token_ids: Sequence[int]) -> bool:
        """Whether a start marker left reasoning open at the end of ``token_ids``."""
        return self.events.is_reasoning_open(token_ids)

    def find_reasoning_end(self, token_ids: Sequence[int], inside: bool = False) -> ReasoningEndAt:
        """Where reasoning ends in ``token_ids`` read forward, after ids that left a
        start marker open (``inside``) or not."""
        return self.events.find_reasoning_end(token_ids, inside)

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        """The content token ids of an output."""
        return self.events.extract_content_ids(token_ids)

    def feed(self, delta_text: str, delta_token_ids: Sequence[int] = ()) -> DeltaMessage | None:
        """Parse one streamed delta; return what it adds, or None (after ``finish()``:
        nothing, with a warning)."""
        if self._done:
            self._after_finish(delta_text)
            return None
        events = self.events
        got = events.advance(delta_text, delta_token_ids)
        if isinstance(got, list):
            return self._push(got, finished=False)
        calls = self._calls
        if calls.open is None:
            # Plain reasoning or content (most deltas): no events to go through.
            if got is _REASONING:
                self._consumed += len(delta_text)
                self._reasoned = self._consumed
                piece = self._reasoning.take(delta_text)
                return DeltaMessage(reasoning=piece) if piece else None
            if got is _TEXT:
                if not self._reasoning_over:
                    self._over(_TEXT, None)  # (as the same text's event would in _push)
                self._consumed += len(delta_text)
                piece = self._text.take(delta_text)
                return DeltaMessage(content=piece) if piece else None
        elif got is _ARGS:
            # Plain arguments of a call whose name went out: straight to its reader.
            call = calls.streaming(events.tool_index)
            if call is not None:
                self._consumed += len(delta_text)
                args = calls.plain_args(call, delta_text)
                return DeltaMessage(tool_calls=[args]) if args is not None else None
        return self._push(events.plain_events(got, delta_text), finished=False)

    def feed_many(self, deltas: Iterable[tuple[str, Sequence[int]]]) -> DeltaMessage | None:
        """Parse consecutive deltas at once: what feeding each in turn adds, as one
        delta (``merge_deltas``: reasoning and content concatenated, each call's pieces
        merged in order), or None.  Cheaper: their texts and ids are joined (``coalesce``).
        """
        runs = coalesce(deltas)
        if len(runs) == 1:
            return self.feed(*runs[0])
        return merge_deltas([self.feed(text, ids) for text, ids in runs])

    def finish(self) -> DeltaMessage | None:
        """End of the completion: flush everything held and close open calls."""
        if self._done:
            return None
        self._done = True
        delta = self._push(self.events.finish(), finished=True)
        # Done with: the streaming parser and its body (each refers to the other) are
        # freed as soon as this parser goes, not left to the cycle collector (a server
        # makes one per request).
        self.events.release()
        return delta

    def _after_finish(self, text: str) -> None:
        """Text fed after the completion ended: not parsed, said once."""
        if text and not self._late:
            self._late = True
            self.warnings.append("text fed after finish() is not parsed")

    # -- assembly -------------------------------------------------------------

    def _push(self, items: list, finished: bool) -> DeltaMessage | None:
        reasoning: list[str] = []
        content: list[str] = []
        deltas: dict[int, DeltaToolCall] = {}
        no_tools = self._no_tools
        calls = self._calls
        raw: RawText | None = None
        # Only the last call end of the finishing push can be at the completion's end: an
        # earlier one ended its call with more text after it, as when it came sooner.
        last_end = -1
        if finished:
            last_end = max((i for i, it in enumerate(items)
                            if type(it) is SemanticEvent and it.type is _CALL_END), default=-1)
        for at, item in enumerate(items):
            if type(item) is CallRun:
                self._whole_calls(item, content, deltas)
                continue
            if type(item) is RawText:
                calls.settle(item.state, content)
                calls.pending = raw = item
                self._consumed += len(item.text)
                if item.state == REASONING:
                    self._reasoned = self._consumed
                continue
            kind = item.type
            # (Compared by identity: an Enum's hash is a Python-level call, per event.)
            if not self._reasoning_over and (kind is _TEXT or kind is _REASONING_END
                                             or kind is _CALL_START):
                self._over(kind, raw)
            if kind is _TEXT:
                if no_tools and raw is not None and raw.state in TOOL_STATES:
                    continue  # its piece is content already (ToolCalls.settle)
                if calls.open is None:
                    calls.not_markup()
                    self._content(item.value, content)
                elif raw is not None and raw.state in TOOL_STATES:
                    calls.inside(item.value)  # words between an open call's markers
                else:
                    self._content(item.value, content)
            elif kind is _REASONING:
                if calls.open is None:
                    calls.not_markup()
                self._reasoning.add(item.value, reasoning)
            elif kind is _REASONING_END:
                self._reasoning.end(reasoning, closed=bool(item.value))
            elif kind is _CALL_START:
                if not no_tools:
                    calls.start(item.tool_index, self._text.before_call())
            elif no_tools:
                continue  # tool events: their text is content (see ToolCalls.settle)
            elif kind is _NAME:
                calls.name(item.tool_index, item.value)
            elif kind is _ARGS:
                calls.args(item.tool_index, item.value, deltas, content)
            elif kind is _CALL_END:
                calls.end(item.tool_index, deltas, content, at == last_end)
        state = self.events.state_id
        calls.settle(state, content)
        if state == TOOL_ARGS:  # the name is complete
            calls.name_complete(deltas, content)
        if finished:
            # A call the grammar left without its end (an end-of-turn token inside it).
            calls.finish(deltas, content)
        return self._delta(reasoning, content, deltas, finished)

    def _whole_calls(self, run: CallRun, content: list[str],
                     deltas: dict[int, DeltaToolCall]) -> None:
        """Calls the lexer read whole (``runs``, ``lexing.BodyRuns``): what
        their pieces and events do, call by call (the text before one is content, or
        framing that is dropped)."""
        calls = self._calls
        calls.settle(run.state, content)  # the piece before the first call's marker
        index = run.first
        framing = run.framing
        for between, start, body, end, (name, arguments, call_id) in run.calls:
            if between and not framing:
                calls.not_markup()
                self._content(between, content)
            if not self._reasoning_over:
                self._over(_CALL_START, None)
            self._text.before_call()  # (the whitespace it drops is content only for no call)
            calls.whole(index, name, arguments, call_id, deltas)
            self._consumed += len(between) + len(start) + len(body) + len(end)
            index += 1
        # The last end marker may start the next call too (as ToolCalls.end leaves it);
        # without one, the piece that closed the last object.
        last = run.calls[-1]
        calls.closing = (RawText(last[3], TOOL_ARGS, run.end) if run.end
                         else RawText(last[2], TOOL_ARGS))

    def _over(self, kind: EventType, raw: RawText | None) -> None:
        """Reasoning is over: note where the content begins in the model's text.

        Right after the last piece read in reasoning (an explicit end marker is one),
        unless that piece is the marker that ended reasoning implicitly (a call's
        start): then at it.  Nothing read in reasoning: at the start, even if the
        content's event comes later (a message header's text)."""
        self._reasoning_over = True
        at = self._reasoned
        reasoning = self.events.reasoning
        if (raw is not None and raw.state == REASONING and raw.marker is not None
                and not (kind is _REASONING_END and reasoning is not None
                         and raw.marker in reasoning.end)):
            at -= len(raw.text)
        self._content_at = at

    def _delta(self, reasoning: list[str], content: list[str], calls: dict[int, DeltaToolCall],
               finished: bool) -> DeltaMessage | None:
        if finished:
            self._reasoning.finish(reasoning)
            self._text.finish(content)
        if not (reasoning or content or calls):
            return None
        return DeltaMessage(reasoning="".join(reasoning) or None,
                            content="".join(content) or None,
                            tool_calls=[calls[i] for i in sorted(calls)])


__all__ = ["ChatParser"]
