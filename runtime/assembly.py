"""From semantic events to OpenAI-style deltas and messages.

``ChatParser`` (the base of every generated ``ChatParser``) wraps a format's
``StreamingParser`` and turns its events into ``DeltaMessage``s: reasoning and content
text, and tool calls whose name is sent once complete and whose arguments stream as a
typed JSON object (see ``arguments``).  ``parse()`` is the same assembly over one
delta, so streaming and non-streaming agree by construction.
"""

from __future__ import annotations

import re
import secrets
import string
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from .arguments import ArgumentSyntax, ArgumentsWriter, syntax
from .events import REASONING, TOOL_ARGS, TOOL_STATES, EventType, RawText
from .messages import (
    DeltaMessage,
    DeltaToolCall,
    ParsedMessage,
    accumulate,
    without_cut_calls,
)
from .schema_types import read_tools, tool_names, tool_properties
from .streaming import StreamingParserBase

_ALNUM = string.ascii_letters + string.digits
_TEXT = EventType.TEXT_CHUNK
_REASONING = EventType.REASONING_CHUNK
_REASONING_END = EventType.REASONING_END
_CALL_START = EventType.TOOL_CALL_START
_NAME = EventType.TOOL_NAME
_ARGS = EventType.ARG_VALUE_CHUNK
_CALL_END = EventType.TOOL_CALL_END
_ENDS_REASONING = frozenset((_TEXT, _REASONING_END, _CALL_START))


class _Call:
    """One tool call being assembled."""

    __slots__ = ("index", "name_parts", "name", "id", "sent", "invalid", "raw", "reader",
                 "writer", "ended", "text", "ws_before")

    def __init__(self, index: int) -> None:
        self.index = index
        self.name_parts: list[str] = []
        self.name = ""
        self.id = ""
        self.sent = False  # the name delta went out
        self.invalid = False  # not a call after all: its text is content
        self.raw: list[str] | None = []  # raw text, kept until the name is judged
        self.reader: Any = None
        self.writer: ArgumentsWriter | None = None
        self.ended = False
        self.text: list[str] = []  # everything the model wrote for it, markers included
        self.ws_before = ""  # content whitespace the call made drop


class ChatParser:
    """Streams OpenAI-style ``DeltaMessage``s for one completion of one format."""

    # Supplied by the generated module.
    StreamingParser: ClassVar[type[StreamingParserBase]]
    ARGUMENTS: ClassVar[Mapping[str, Any]] = {"syntax": "json"}
    # ARGUMENTS' syntax, made once per class (from the registry: never by name here).
    SYNTAX: ClassVar[ArgumentSyntax] = syntax(ARGUMENTS)
    ASSEMBLY: ClassVar[Mapping[str, bool]] = {}
    TOOL_NAME_PATTERN: ClassVar[re.Pattern[str] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "ARGUMENTS" in cls.__dict__:
            cls.SYNTAX = syntax(cls.ARGUMENTS)

    def __init__(self, tokenizer: Any = None, *, tools: Sequence[Any] | None = None,
                 thinking: bool | None = None, tool_choice: Any = None,
                 ids: str = "random") -> None:
        self.events = self.StreamingParser(tokenizer, thinking=thinking, raw=True)
        self.warnings: list[str] = []
        self.tools = read_tools(tools, self.warnings) if tools else None
        # tool_choice "none": tool markup is not parsed into calls; it stays content.
        self._no_tools = tool_choice == "none"
        self.ids = ids
        flags = self.ASSEMBLY
        self._strip_reasoning = flags.get("strip_trailing_reasoning_whitespace", True)
        self._drop_ws_before_tools = flags.get("drop_whitespace_only_content_before_tools", True)
        self._strip_content = flags.get("strip_content_whitespace_with_tools", True)
        self._stream_args = flags.get("stream_arg_deltas", True)
        self._lstrip_newlines = flags.get("strip_leading_content_newlines", False)
        # '\n' + end marker + '\n' framing (Step-3.5): both newlines are dropped.
        reasoning = self.events.reasoning
        self._framing = reasoning is not None and reasoning.newline_framing
        self._framing_nl = False  # a newline held at the end of reasoning
        self._after_end = False  # the next content may start with the framing newline
        # A channel-name line opening the reasoning (Gemma's "thought"), dropped.
        self._header = flags.get("reasoning_header")
        self._header_held: str | None = "" if self._header else None
        names = tool_names(self.tools)
        self._valid_names = names if flags.get("validate_tool_names", False) and names else None
        self._calls: dict[int, _Call] = {}
        self._open: _Call | None = None
        self._pending_raw: RawText | None = None
        self._reasoning_ws = ""  # trailing reasoning whitespace, held
        self._content_ws = ""  # content whitespace held back (see _content)
        self._content_seen = False  # content with non-whitespace went out
        self._tools_seen = False
        self._id_count = 0
        # Set by a REASONING_END event, content or a call; see reasoning_ended.
        self._reasoning_over = False
        self._consumed = 0  # characters of model text consumed so far
        self._reasoned = 0  # ... up to the end of the last piece read in reasoning
        self._content_at: int | None = None  # see content_offset
        # Calls the completion cut off before their end (max_tokens): (index, text).
        # Their arguments are never completed; parse() returns their text as content.
        self.cut_calls: list[tuple[int, str]] = []
        self._done = False

    # -- public ---------------------------------------------------------------

    @classmethod
    def parse(cls, text: str, *, tools: Sequence[Any] | None = None,
              tokenizer: Any = None, token_ids: Sequence[int] | None = None,
              thinking: bool | None = None, tool_choice: Any = None,
              prompt_token_ids: Sequence[int] = (), prompt_text: str | None = None,
              start: str | None = None, ids: str = "random") -> ParsedMessage:
        """A whole completion as one message: the streaming assembly over one delta."""
        parser = cls(tokenizer, tools=tools, thinking=thinking, tool_choice=tool_choice, ids=ids)
        parser.initialize(prompt_token_ids, prompt_text=prompt_text, start=start)
        return parser.complete(text, token_ids or ())

    def complete(self, text: str, token_ids: Sequence[int] = ()) -> ParsedMessage:
        """The rest of the completion, all at once: the whole message (a fresh parser
        gives ``parse()``'s result, its ``warnings`` left to read)."""
        return without_cut_calls(accumulate([self.feed(text, token_ids), self.finish()]),
                                 self.cut_calls)

    def initialize(self, prompt_token_ids: Sequence[int] = (), *,
                   prompt_text: str | None = None, start: str | None = None) -> None:
        """Start where the prompt leaves the model, or explicitly in ``start``
        ("reasoning" or "content": right after reasoning's end, so a framing newline
        is dropped); see StreamingParserBase.initialize."""
        self.events.initialize(prompt_token_ids, prompt_text=prompt_text, start=start)
        if start == "content":
            self._after_end = self._framing

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

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        """The content token ids of an output."""
        return self.events.extract_content_ids(token_ids)

    def feed(self, delta_text: str, delta_token_ids: Sequence[int] = ()) -> DeltaMessage | None:
        """Parse one streamed delta; return what it adds, or None."""
        events = self.events
        got = events.advance(delta_text, delta_token_ids)
        if type(got) is list:
            return self._push(got, finished=False)
        if self._open is None:
            # Plain reasoning or content (most deltas): no events to go through.
            out: list[str] = []
            if got is _REASONING:
                self._consumed += len(delta_text)
                self._reasoned = self._consumed
                self._reasoning(delta_text, out)
                return DeltaMessage(reasoning="".join(out)) if out else None
            if got is _TEXT:
                if not self._reasoning_over:
                    self._reasoning_over = True
                    self._content_at = self._consumed
                self._consumed += len(delta_text)
                self._content(delta_text, out)
                return DeltaMessage(content="".join(out)) if out else None
        return self._push(events.plain_events(got, delta_text), finished=False)

    def finish(self) -> DeltaMessage | None:
        """End of the completion: flush everything held and close open calls."""
        if self._done:
            return None
        self._done = True
        return self._push(self.events.finish(), finished=True)

    # -- assembly -------------------------------------------------------------

    def _push(self, items: list, finished: bool) -> DeltaMessage | None:
        reasoning: list[str] = []
        content: list[str] = []
        calls: dict[int, DeltaToolCall] = {}
        no_tools = self._no_tools
        raw: RawText | None = None
        for item in items:
            if type(item) is RawText:
                self._settle_raw(item.state, content)
                self._pending_raw = raw = item
                self._consumed += len(item.text)
                if item.state == REASONING:
                    self._reasoned = self._consumed
                continue
            kind = item.type
            if not self._reasoning_over and kind in _ENDS_REASONING:
                self._over(kind, raw)
            if kind is _TEXT:
                self._content(item.value, content)
            elif kind is _REASONING:
                self._reasoning(item.value, reasoning)
            elif kind is _REASONING_END:
                self._end_reasoning(reasoning, closed=bool(item.value))
            elif kind is _CALL_START:
                if not no_tools:
                    self._start_call(item.tool_index, content)
            elif no_tools:
                continue  # tool events: their text is content (see _settle_raw)
            elif kind is _NAME:
                call = self._calls.get(item.tool_index)
                if call is not None and not call.sent and not call.invalid:
                    call.name_parts.append(item.value)
            elif kind is _ARGS:
                call = self._calls.get(item.tool_index)
                if call is not None and not call.ended:
                    self._args(call, item.value, calls, content)
            elif kind is _CALL_END:
                call = self._calls.get(item.tool_index)
                if call is not None and not call.ended:
                    self._end_call(call, calls, content, at_end=finished)
        state = self.events.state_id
        self._settle_raw(state, content)
        call = self._open
        if call is not None and not call.sent and not call.invalid and call.reader is None:
            if state == TOOL_ARGS:  # the name is complete
                self._judge(call, calls, content)
        if finished and self._open is not None and not no_tools:
            # A call the grammar left without its end (an end-of-turn token inside it).
            self._end_call(self._open, calls, content, at_end=True)
        return self._delta(reasoning, content, calls, finished)

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

    def _settle_raw(self, next_state: int, content: list[str]) -> None:
        """Place the last consumed piece, now that the state after it is known.

        Normally it joins the open call's text (kept until the call's name is judged).
        Under tool_choice "none", a piece read in, or leading into, a tool state is
        content.
        """
        raw = self._pending_raw
        if raw is None:
            return
        self._pending_raw = None
        if self._no_tools:
            if raw.state in TOOL_STATES or next_state in TOOL_STATES:
                self._content(raw.text, content)
            return
        call = self._open
        if call is None:
            return
        call.text.append(raw.text)
        if call.invalid:
            self._content(raw.text, content)  # the rest of a call that is no call
        elif call.raw is not None:
            call.raw.append(raw.text)

    def _delta(self, reasoning: list[str], content: list[str], calls: dict[int, DeltaToolCall],
               finished: bool) -> DeltaMessage | None:
        if finished:
            if self._header_held:
                self._end_reasoning(reasoning)
            if not self._tools_seen or not self._strip_content:
                if self._content_ws and (self._content_seen or not self._tools_seen
                                         or not self._drop_ws_before_tools):
                    content.append(self._content_ws)
            self._content_ws = ""
            if not self._strip_reasoning and self._reasoning_ws:
                reasoning.append(self._reasoning_ws)
            self._reasoning_ws = ""
        if not (reasoning or content or calls):
            return None
        return DeltaMessage(reasoning="".join(reasoning) or None,
                            content="".join(content) or None,
                            tool_calls=[calls[i] for i in sorted(calls)])

    def _reasoning(self, text: str, out: list[str]) -> None:
        if self._header_held is not None:
            text = self._drop_header(text)
            if not text:
                return
        if self._framing:
            if self._framing_nl:
                text = "\n" + text
            self._framing_nl = text.endswith("\n")
            if self._framing_nl:
                text = text[:-1]
            if not text:
                return
        if not self._strip_reasoning:
            out.append(text)
            return
        text = self._reasoning_ws + text
        body = text.rstrip()
        self._reasoning_ws = text[len(body):]
        if body:
            out.append(body)

    def _drop_header(self, text: str) -> str:
        """Hold reasoning while it may still be the header line; drop that line."""
        held = self._header_held + text
        line = self._header + "\n"
        if line.startswith(held):
            self._header_held = held
            return ""
        self._header_held = None
        return held[len(line):] if held.startswith(line) else held

    def _end_reasoning(self, out: list[str], closed: bool = True) -> None:
        """Reasoning is over (``closed``: by a marker, not by the end of the stream)."""
        held = self._header_held
        if held is not None:
            self._header_held = None
            if held and held != self._header:
                self._reasoning(held, out)
        if self._framing_nl and not closed:
            # Only a newline before an end marker is framing; this one is text.
            self._framing, self._framing_nl = False, False
            self._reasoning("\n", out)
            self._framing = True
        self._reasoning_ws = ""
        self._framing_nl = False
        self._after_end = self._framing and closed

    def _content(self, text: str, out: list[str]) -> None:
        """Content, holding back whitespace that tool calls may yet drop.

        Whitespace-only content before the first non-whitespace waits: tool calls
        drop it (drop_whitespace_only_content_before_tools).  With
        strip_content_whitespace_with_tools trailing whitespace also waits, so that
        content ends stripped when calls follow; more content releases it.
        """
        if self._after_end:
            self._after_end = False
            if text.startswith("\n"):
                text = text[1:]
                if not text:
                    return
        if self._lstrip_newlines and not self._content_seen and not self._content_ws:
            text = text.lstrip("\n")
            if not text:
                return
        text = self._content_ws + text
        self._content_ws = ""
        if not self._content_seen:
            if not text.strip():
                self._content_ws = text
                return
            self._content_seen = True
        if self._strip_content:
            body = text.rstrip()
            self._content_ws = text[len(body):]
            text = body
        if text:
            out.append(text)

    def _start_call(self, index: int, content: list[str]) -> None:
        self._tools_seen = True
        self._after_end = False
        call = _Call(index)
        call.ws_before = self._content_ws  # content again if the call turns out no call
        if not self._content_seen and self._drop_ws_before_tools:
            self._content_ws = ""
        if self._pending_raw is not None:
            call.raw.append(self._pending_raw.text)
            call.text.append(self._pending_raw.text)
            self._pending_raw = None
        if self.SYNTAX.names_call:  # the reader reads the name from the arguments' text
            call.reader = self.SYNTAX.reader(self._new_writer, None)
        self._calls[index] = call
        self._open = call

    def _judge(self, call: _Call, calls: dict[int, DeltaToolCall], content: list[str]) -> None:
        """The name is complete: send it, or turn the call into content."""
        header = "".join(call.name_parts)
        name, call_id = header.strip(), ""
        pattern = self.TOOL_NAME_PATTERN
        if pattern is not None:
            m = pattern.match(name)
            if m is not None:
                groups = m.groupdict()
                name = groups.get("name") or name
                call_id = groups.get("id") or ""
        if not name or (self._valid_names is not None and name not in self._valid_names):
            call.invalid = True
            why = "an empty name" if not name else f"unknown tool {name!r}"
            self.warnings.append(f"tool call {call.index} has {why}; kept as content")
            if call.raw:  # whitespace still held joins it in _content; dropped, it is ws_before
                ws = "" if self._content_ws else call.ws_before
                self._content(ws + "".join(call.raw), content)
            call.raw = None
            return
        call.name = name
        call.id = call_id or self._new_id()
        call.sent = True
        call.raw = None
        call.name_parts = []
        calls[call.index] = DeltaToolCall(call.index, id=call.id, type="function", name=name)
        if call.reader is not None:  # a call-naming reader already reads the arguments
            return
        call.reader = reader = self.SYNTAX.reader(self._new_writer, name)
        call.writer = reader.writer

    def _new_writer(self, name: str) -> ArgumentsWriter:
        """The writer of a call to tool ``name`` (typed by the tool's schema)."""
        return ArgumentsWriter(tool_properties(self.tools, name))

    def _args(self, call: _Call, text: str, calls: dict[int, DeltaToolCall],
              content: list[str]) -> None:
        if call.invalid:
            return  # its raw text already went to content
        if call.reader is not None and not call.sent:  # an envelope: the name is inside
            out = call.reader.feed(text)
            # Judged once the arguments begin: a JSON object with a name but no
            # arguments is an answer, not a call.
            if call.reader.name is not None and call.reader.args_seen:
                call.name_parts = [call.reader.name]
                self._judge(call, calls, content)
                if not call.invalid:
                    self._emit_args(call, out, calls)
            return
        if not call.sent:
            self._judge(call, calls, content)
            if call.invalid:
                return
        self._emit_args(call, call.reader.feed(text), calls)

    def _end_call(self, call: _Call, calls: dict[int, DeltaToolCall], content: list[str],
                  at_end: bool = False) -> None:
        if at_end and not call.invalid and self._cut(call):
            self._cut_off(call, content)
            return
        tail = ""
        if call.reader is not None and not call.sent and not call.invalid:
            tail = call.reader.finish()  # an envelope not judged yet
            # No arguments member: not a call (the name is erased so it is judged so).
            call.name_parts = [call.reader.name or "" if call.reader.args_seen else ""]
        if not call.sent and not call.invalid:
            self._judge(call, calls, content)
        if self._pending_raw is not None and call is self._open:
            self._settle_raw(self.events.state_id, content)  # the call's closing text
        call.ended = True
        self._calls.pop(call.index, None)  # nothing more comes for it: memory stays flat
        if self._open is call:
            self._open = None
        if call.invalid:
            return
        self._emit_args(call, tail or call.reader.finish(), calls)
        writer = call.writer or call.reader.writer
        self.warnings.extend(f"tool call {call.index}: {w}" for w in writer.warnings)

    def _cut(self, call: _Call) -> bool:
        """Whether the completion ended inside ``call`` (not merely before its end marker)."""
        cut = self.events.cut_off
        if cut is not None:
            return cut
        if not call.sent and call.reader is None and self.events.state_id != TOOL_ARGS:
            return True  # still inside the name
        reader = call.reader
        return reader is not None and not reader.complete()

    def _cut_off(self, call: _Call, content: list[str]) -> None:
        """A call cut by the end of the completion: nothing is completed or invented.

        Unsent, its text is content; sent, its deltas stand as they are, and it is
        reported (``cut_calls``, ``warnings``) so that parse() can return its text."""
        if self._pending_raw is not None and call is self._open:
            self._settle_raw(self.events.state_id, content)
        call.ended = True
        self._calls.pop(call.index, None)  # nothing more comes for it: memory stays flat
        if self._open is call:
            self._open = None
        text = "".join(call.text)
        if not call.sent:
            self.warnings.append(f"tool call {call.index} was cut off before its name was "
                                 "complete; its text is content")
            self._content(call.ws_before + text, content)
            return
        self.cut_calls.append((call.index, call.ws_before + text))
        self.warnings.append(f"tool call {call.index} ({call.name}) was cut off before its end: "
                             "its arguments are incomplete and not completed")

    def _emit_args(self, call: _Call, text: str, calls: dict[int, DeltaToolCall]) -> None:
        if not self._stream_args and not call.ended:
            call.name_parts.append(text)  # the name is settled: keep the arguments here
            return
        if not self._stream_args:
            text = "".join(call.name_parts) + text
        if not text:
            return
        delta = calls.get(call.index)
        if delta is None:
            calls[call.index] = DeltaToolCall(call.index, arguments=text)
        else:
            delta.arguments = (delta.arguments or "") + text

    def _new_id(self) -> str:
        short = self.ASSEMBLY.get("call_ids") == "alnum9"
        if self.ids == "sequential":
            out = f"call{self._id_count:05d}" if short else f"chatcmpl-tool-{self._id_count}"
        elif short:
            out = "".join(secrets.choice(_ALNUM) for _ in range(9))
        else:
            out = f"chatcmpl-tool-{uuid.uuid4().hex}"
        self._id_count += 1
        return out


__all__ = ["ChatParser"]
