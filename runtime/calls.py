"""One completion's tool calls, each from its start marker to its end.

``ToolCalls`` is the part of ``ChatParser``'s assembly that follows calls: it collects a
call's name and judges it (sent once complete, or turned into content; the name's text
read by ``call_names``), feeds the arguments to the syntax's reader, ends or cuts calls,
and gives them ids (``call_ids``).  Model text the driver consumed (``RawText``) is
placed here too: it belongs to the open call, whose text is content again if the call
turns out no call, or is markup read between calls (a tool section's opener, a message
header) that a cut call's text starts with.
"""

from __future__ import annotations

from typing import Any, Final

from mypy_extensions import mypyc_attr

from .arguments import ArgumentSyntax, ArgumentsWriter
from .call_ids import CallIds
from .call_names import CallNames, not_a_call
from .driver import StreamingParserBase
from .events import MESSAGE_HEADER, TOOL_ARGS, TOOL_STATES, RawText
from .messages import CutCall, DeltaToolCall, cut_warning
from .schema_types import ToolTyping
from .text_rules import ContentText

# States whose text may be the markup that leads into a call.
_MARKUP_STATES: Final = TOOL_STATES | {MESSAGE_HEADER}
STREAM_CALLS: Final = ("incremental", "complete")


@mypyc_attr(allow_interpreted_subclasses=True)
class Call:
    """One tool call being assembled."""

    __slots__ = ("index", "name_parts", "name", "id", "sent", "invalid", "raw", "reader",
                 "writer", "ended", "text", "ws_before", "written", "held", "inside")

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
        self.written = False  # the model wrote more than markers and whitespace for it
        # stream_calls="complete": the call's delta, sent once the call is complete.
        self.held: DeltaToolCall | None = None
        self.inside = False  # text between its markers was reported (ToolCalls.inside)


@mypyc_attr(allow_interpreted_subclasses=True)
class ToolCalls:
    """The calls of one completion: names judged, arguments read, ends and cuts."""

    def __init__(self, events: StreamingParserBase, content: ContentText, *,
                 syntax: ArgumentSyntax, typing: ToolTyping, names: CallNames,
                 stream_args: bool, ids: CallIds, no_tools: bool, warnings: list[str],
                 whole_calls: bool = False, trailers: frozenset[str] = frozenset(),
                 spill: bool = False) -> None:
        self.events = events
        self.content = content
        self.syntax = syntax
        # Compiled once per tool name for this parser's request, not once per call.
        self.typing = typing
        self.names = names  # how a call's name text is read
        self.stream_args = stream_args
        self.ids = ids
        # tool_choice "none": no call is started; text read in tool states is content.
        self.no_tools = no_tools
        self.warnings = warnings
        # stream_calls="complete": each call goes out in one delta once it is complete.
        self.whole_calls = whole_calls
        self.calls: dict[int, Call] = {}
        self.open: Call | None = None
        # The last piece of model text consumed, until the state after it is known.
        self.pending: RawText | None = None
        # Markup read since the last call ended, while no call is open (a tool section's
        # opener, a message header): the start of the next call's text.
        self.between: list[str] = []
        # Terminals written after a call's end (Step-3's <｜tool_call_end｜>): read with
        # no call open, they and the markup before them are the previous call's.
        self.trailers = trailers
        self.plain: RawText | None = None  # a piece that carried text or reasoning
        # The piece that just ended a call, until the next piece: it may start the next
        # call too (one marker between two calls, as Mistral's [TOOL_CALLS]).
        self.closing: RawText | None = None
        # Calls the completion cut off before their end (max_tokens).  Never completed and
        # never content: parse() returns their text in ParsedMessage.cut_calls.
        self.cut_calls: list[CutCall] = []
        self.body_closer = events.BODY.closer  # see ToolBody.closer
        self.spill = spill  # only its arguments end a call: text after them is content

    @property
    def reads_whole(self) -> bool:
        """Whether a call may be read whole (``CallNames.whole_call``): not tool_choice "none"."""
        return not self.no_tools

    def whole(self, index: int, name: str, arguments: str, call_id: str,
              deltas: dict[int, DeltaToolCall]) -> None:
        """Call ``index``, read whole (``CallNames.whole_call``), from its start to its end."""
        if self.between:  # (an empty one is no call's yet: kept, not made anew per call)
            self.between = []  # what start() takes as the call's text
        self.pending = None
        self.open = None  # (a call left open before it is orphaned, as start() leaves it)
        deltas[index] = DeltaToolCall(index, call_id or self.ids.next(), "function", name,
                                      arguments)

    def settle(self, next_state: int, content: list[str]) -> None:
        """Place the last consumed piece, now that the state after it is known: it joins
        the open call's text (kept until the call's name is judged); under tool_choice
        "none", a piece read in, or leading into, a tool state is content."""
        self.closing = None
        raw = self.pending
        if raw is None:
            return
        self.pending = None
        if self.no_tools:
            if raw.state in TOOL_STATES or next_state in TOOL_STATES:
                self.content.add(raw.text, content)
            return
        call = self.open
        if call is None:
            # Markup leading into a call or a header; the way out of them drops it.
            if next_state in _MARKUP_STATES and raw is not self.plain:
                if raw.marker in self.trailers:
                    self.between = []  # (a cut call's text starts after it)
                else:
                    self.between.append(raw.text)
            elif self.between:
                self.between = []
            return
        call.text.append(raw.text)
        call.written = call.written or (raw.marker is None and not raw.text.isspace())
        if call.invalid:
            self.content.add(raw.text, content)  # the rest of a call that is no call
        elif call.raw is not None:
            call.raw.append(raw.text)

    def start(self, index: int, ws_before: str) -> None:
        """A call begins; ``ws_before`` is content whitespace it made drop."""
        call = Call(index)
        call.ws_before = ws_before  # content again if the call turns out no call
        call.text, self.between = self.between, []
        if self.closing is not None:  # the marker that ended the previous call opens this one
            call.text.append(self.closing.text)
        if self.pending is not None:
            call.raw = [self.pending.text]  # (a new call has no raw text yet)
            call.text.append(self.pending.text)
            call.written = self.pending.marker is None and not self.pending.text.isspace()
            self.pending = None
        if self.syntax.names_call:  # the reader reads the name from the arguments' text
            call.reader = self.syntax.reader(self._new_writer, None)
        self.calls[index] = call
        self.open = call

    def name(self, index: int, text: str) -> None:
        """A piece of call ``index``'s name."""
        call = self.calls.get(index)
        if call is not None and not call.sent and not call.invalid:
            call.name_parts.append(text)

    def args(self, index: int, text: str, deltas: dict[int, DeltaToolCall],
             content: list[str]) -> None:
        """A piece of call ``index``'s arguments text."""
        call = self.calls.get(index)
        if call is None or call.ended or call.invalid:
            return  # an invalid call's raw text already went to content
        if call.reader is None and not call.name_parts and self.syntax.fallback is not None:
            call.reader = self.syntax.fallback.reader(self._new_writer, None)  # (nameless)
        if call.reader is not None and not call.sent:  # an envelope: the name is inside
            out = call.reader.feed(text)
            # Judged once the arguments begin: a JSON object with a name but no
            # arguments is an answer, not a call.
            if call.reader.name is not None and call.reader.args_seen:
                call.name_parts = [call.reader.name]
                self._judge(call, deltas, content)
                if not call.invalid:
                    self._emit_args(call, out, deltas)
            return
        lead = ""
        if not call.sent:
            lead = self._judge(call, deltas, content, text)
            if call.invalid:
                return
        self._emit_args(call, lead + call.reader.feed(text), deltas)
        self._spilled(call, content)

    def streaming(self, index: int) -> Call | None:
        """The open call, if it is call ``index`` and a plain piece of its arguments
        goes to its reader as it comes (its name sent, neither ended nor content; calls
        not held whole, tool markup parsed): see ``plain_args``."""
        call = self.open
        if (call is None or call.index != index or not call.sent or call.ended
                or call.invalid or self.whole_calls or self.no_tools
                or self.spill and call.reader.complete()):  # (what follows: args())
            return None
        return call

    def plain_args(self, call: Call, text: str) -> DeltaToolCall | None:
        """A delta of ``call``'s arguments with no marker in it (``streaming``): what
        ``settle`` and ``args`` do with its piece and its event, without making them."""
        self.closing = None
        call.text.append(text)
        if not call.written and not text.isspace():
            call.written = True
        out = call.reader.feed(text)  # (a sent call keeps no raw text: _judge)
        if not self.stream_args:
            call.name_parts.append(out)  # kept until the call ends (_emit_args)
            return None
        return DeltaToolCall(call.index, arguments=out) if out else None

    def inside(self, text: str) -> None:
        """Text the grammar gives out as content between the open call's markers: it
        is the call's text already (content if the call is none, cut or prose), so it
        is not content twice; a call that stands loses it, and says so at its end."""
        call = self.open
        if call is not None and text.strip():
            call.inside = True

    def end(self, index: int, deltas: dict[int, DeltaToolCall], content: list[str],
            at_end: bool) -> None:
        """Call ``index``'s end marker (``at_end``: the completion ends too)."""
        call = self.calls.get(index)
        if call is not None and not call.ended:
            self._end(call, deltas, content, at_end)

    def name_complete(self, deltas: dict[int, DeltaToolCall], content: list[str]) -> None:
        """The driver is in the arguments: the open call's name, if unjudged, is complete."""
        call = self.open
        if (call is not None and not call.sent and not call.invalid and call.reader is None
                and (call.name_parts or self.syntax.fallback is None)):  # (else: args())
            self._judge(call, deltas, content)

    def finish(self, deltas: dict[int, DeltaToolCall], content: list[str]) -> None:
        """The completion's end: end a call left open (an end-of-turn token inside it)."""
        if self.open is not None and not self.no_tools:
            self._end(self.open, deltas, content, True)

    def not_markup(self) -> None:
        """Text or reasoning came while no call is open: what was read is no call's."""
        self.between = []
        self.plain = self.pending

    def _judge(self, call: Call, deltas: dict[int, DeltaToolCall], content: list[str],
               args: str = "", problem: str | None = None) -> str:
        """The name is complete: send it, or turn the call into content.  ``args`` is the
        arguments' first text, when it is what completed the name; ``problem``, what
        makes a call that names itself no call (``not_a_call``).  Returns arguments JSON
        text the name's first key gave."""
        name, call_id = self.names.called("".join(call.name_parts))
        split = self.names.key_in_name(name, args)
        key_lead = ""
        if split is not None:
            name, key_lead = split
        if problem is not None or not self.names.is_call_name(name):
            call.invalid = True
            why = problem or ("has an empty name" if not name else f"has unknown tool {name!r}")
            self.warnings.append(f"tool call {call.index} {why}; kept as content")
            if call.raw:  # whitespace still held joins it in add(); dropped, it is ws_before
                ws = "" if self.content.held else call.ws_before
                self.content.add(ws + "".join(call.raw), content)
            call.raw = None
            return ""
        call.name = name
        call.id = call_id or getattr(call.reader, "call_id", "") or self.ids.next()  # (id_key)
        call.sent = True
        call.raw = None
        call.name_parts = []
        delta = DeltaToolCall(call.index, id=call.id, type="function", name=name)
        if self.whole_calls:
            call.held = delta
        else:
            deltas[call.index] = delta
        if call.reader is not None:  # a call-naming reader already reads the arguments
            return ""
        call.reader = reader = self.syntax.reader(self._new_writer, name)
        call.writer = reader.writer
        return reader.feed(key_lead) if key_lead else ""

    def _new_writer(self, name: str) -> ArgumentsWriter:
        """The writer of a call to tool ``name`` (typed by the tool's schema)."""
        writer = ArgumentsWriter(self.typing.properties(name))
        writer.spill = [] if self.spill else None
        return writer

    def _spilled(self, call: Call, content: list[str]) -> None:
        """Text after the arguments of a call they end (``spill``): content, as it came."""
        writer = call.writer
        if writer is not None and writer.spill:
            self.content.add("".join(writer.spill), content)
            writer.spill.clear()

    def _end(self, call: Call, deltas: dict[int, DeltaToolCall], content: list[str],
             at_end: bool) -> None:
        cut = at_end and not call.invalid and self._cut(call)
        if cut and not call.sent and not call.reader and (  # (no name began, or can)
                not self.names.may_start("".join(call.name_parts), call.inside)):
            self._prose(call, content)
            return
        if call.inside:
            self.warnings.append(f"tool call {call.index}: text between its markers is "
                                 "the call's text, not content")
        if cut:
            self._cut_off(call, content)
            return
        tail, problem = "", None
        if call.reader is not None and not call.sent and not call.invalid:
            # An envelope not judged yet: it lacked a name or arguments, or broke first.
            problem = not_a_call(call.reader)
            tail = call.reader.finish()
            call.name_parts = [""]
        if not call.sent and not call.invalid:
            self._judge(call, deltas, content, problem=problem)
        closing = self.pending
        if closing is not None and call is self.open:
            self.settle(self.events.state_id, content)  # the call's closing text
            self.closing = closing
        self._close(call)
        if call.invalid:
            return
        if (self.body_closer and not at_end and closing is not None
                and closing.marker is not None):
            # A marker ended the call before the text the body ends calls with.
            call.reader.writer.closed_at_end(self.body_closer)
        self._emit_args(call, tail or call.reader.finish(), deltas)
        self._spilled(call, content)
        if call.held is not None:  # stream_calls="complete": the whole call goes out now
            deltas[call.index], call.held = call.held, None
        writer = call.writer or call.reader.writer
        self.warnings.extend(f"tool call {call.index}: {w}" for w in writer.warnings)
        if self.syntax.names_call or call.writer is None and self.syntax.fallback is not None:
            # Its own object named it: what the object broke on after its name.
            self.warnings.extend(f"tool call {call.index} {w}" for w in call.reader.warnings)

    def _close(self, call: Call) -> None:
        call.ended = True
        self.calls.pop(call.index, None)  # nothing more comes for it: memory stays flat
        if self.open is call:
            self.open = None

    def _cut(self, call: Call) -> bool:
        """Whether the completion ended inside ``call``, not after arguments that closed."""
        reader = call.reader
        if not call.sent and reader is not None and reader.complete() and reader.name is None:
            return False  # its object broke before a name (`` tags.``): no call (_judge)
        cut = self.events.cut_off
        if cut is not None:
            return cut
        if not call.sent and reader is None and self.events.state_id != TOOL_ARGS:
            return True  # still inside the name
        if not self.syntax.closes_itself and not (call.writer is None and self.syntax.fallback):
            return True  # no end marker, and nothing else says the arguments ended
        return reader is not None and not reader.complete()

    def _cut_off(self, call: Call, content: list[str]) -> None:
        """A call cut by the end of the completion: nothing is completed or invented.

        Its deltas, if sent, stand as they are (stream_calls="incremental"); it is
        reported (``cut_calls``, ``warnings``) and its text is never content."""
        if self.pending is not None and call is self.open:
            self.settle(self.events.state_id, content)
        self._close(call)
        text = "".join(call.text)
        sent = call.sent and not self.whole_calls
        self.cut_calls.append(CutCall(call.index, text, sent))
        self.warnings.append(cut_warning(call.index, call.name if call.sent else None, text,
                                         call.written))

    def _prose(self, call: Call, content: list[str]) -> None:
        """A call marker, words, then the end before any name: prose, all content."""
        if self.pending is not None and call is self.open:
            self.settle(self.events.state_id, content)
        self._close(call)
        call.invalid = True
        ws = "" if self.content.held else call.ws_before
        self.content.add(ws + "".join(call.raw or call.text), content)

    def _emit_args(self, call: Call, text: str, deltas: dict[int, DeltaToolCall]) -> None:
        if not self.stream_args and not call.ended:
            call.name_parts.append(text)  # the name is settled: keep the arguments here
            return
        if not self.stream_args:
            text = "".join(call.name_parts) + text
        if not text:
            return
        delta = call.held if self.whole_calls else deltas.get(call.index)
        if delta is None:
            deltas[call.index] = DeltaToolCall(call.index, arguments=text)
        else:
            delta.arguments = (delta.arguments or "") + text


__all__ = ["STREAM_CALLS", "Call", "CallIds", "ToolCalls"]
