"""OpenAI-style results: streaming deltas and complete messages."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from mypy_extensions import mypyc_attr


# These classes write their own ``__init__`` (init=False): compiled, the one dataclasses
# generates stays interpreted and costs 4-8x as much, once per delta or call.
@mypyc_attr(allow_interpreted_subclasses=True)
@dataclass(init=False)
class DeltaToolCall:
    """A piece of one tool call: id, type and name on its first delta, then arguments."""

    index: int
    id: str | None
    type: str | None
    name: str | None
    arguments: str | None

    def __init__(self, index: int, id: str | None = None, type: str | None = None,
                 name: str | None = None, arguments: str | None = None) -> None:
        self.index = index
        self.id = id
        self.type = type
        self.name = name
        self.arguments = arguments

    def to_openai(self) -> dict[str, Any]:
        """The ``tool_calls[i]`` entry of a ``chat.completion.chunk`` delta."""
        out: dict[str, Any] = {"index": self.index}
        if self.id is not None:
            out["id"] = self.id
        if self.type is not None:
            out["type"] = self.type
        function: dict[str, str] = {}
        if self.name is not None:
            function["name"] = self.name
        if self.arguments is not None:
            function["arguments"] = self.arguments
        if function:
            out["function"] = function
        return out


@mypyc_attr(allow_interpreted_subclasses=True)
@dataclass(init=False)
class DeltaMessage:
    """What one streamed delta adds: reasoning, content and tool-call pieces."""

    reasoning: str | None
    content: str | None
    tool_calls: list[DeltaToolCall]

    def __init__(self, reasoning: str | None = None, content: str | None = None,
                 tool_calls: list[DeltaToolCall] | None = None) -> None:
        self.reasoning = reasoning
        self.content = content
        self.tool_calls = [] if tool_calls is None else tool_calls

    def to_openai(self, reasoning_key: str = "reasoning_content") -> dict[str, Any]:
        """The ``choices[0].delta`` of a ``chat.completion.chunk`` (unset keys omitted);
        ``reasoning_key`` names the reasoning field (vLLM 0.33 says ``reasoning``)."""
        out: dict[str, Any] = {}
        if self.content is not None:
            out["content"] = self.content
        if self.reasoning is not None:
            out[reasoning_key] = self.reasoning
        if self.tool_calls:
            out["tool_calls"] = [tc.to_openai() for tc in self.tool_calls]
        return out


@mypyc_attr(allow_interpreted_subclasses=True)
@dataclass(frozen=True, init=False)
class ToolCall:
    """A complete tool call; ``arguments`` is a JSON object as text."""

    id: str
    name: str
    arguments: str

    def __init__(self, id: str, name: str, arguments: str) -> None:
        # (What a frozen dataclass's own __init__ does; compiled, this one is native:
        # mypyc sets the fields directly, which an alias of object.__setattr__ would
        # turn into a generic call, 78 -> 220 ns.)
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "arguments", arguments)

    def to_openai(self) -> dict[str, Any]:
        """One entry of a ``chat.completion`` message's ``tool_calls``."""
        return {"id": self.id, "type": "function",
                "function": {"name": self.name, "arguments": self.arguments}}


@mypyc_attr(allow_interpreted_subclasses=True)
@dataclass(frozen=True, init=False)
class ParsedMessage:
    """A complete assistant message; ``cut_calls`` holds the text of calls the completion
    cut off (markup included), which are neither calls nor content; ``warnings`` says
    what went wrong reading it (``ChatParser.warnings``)."""

    reasoning: str | None
    content: str | None
    tool_calls: tuple[ToolCall, ...]
    cut_calls: tuple[str, ...]
    # Not compared: two messages that say the same are equal whatever was reported on
    # the way (a client's summed stream has no warnings; parse()'s message has them).
    warnings: tuple[str, ...] = field(default=(), compare=False)

    def __init__(self, reasoning: str | None = None, content: str | None = None,
                 tool_calls: tuple[ToolCall, ...] = (), cut_calls: tuple[str, ...] = (),
                 warnings: tuple[str, ...] = ()) -> None:
        object.__setattr__(self, "reasoning", reasoning)
        object.__setattr__(self, "content", content)
        object.__setattr__(self, "tool_calls", tool_calls)
        object.__setattr__(self, "cut_calls", cut_calls)
        object.__setattr__(self, "warnings", warnings)

    def to_openai(self, reasoning_key: str = "reasoning_content") -> dict[str, Any]:
        """The ``choices[0].message`` of a ``chat.completion`` (unset keys omitted);
        ``reasoning_key`` names the reasoning field (vLLM 0.33 says ``reasoning``)."""
        out: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.reasoning is not None:
            out[reasoning_key] = self.reasoning
        if self.tool_calls:
            out["tool_calls"] = [tc.to_openai() for tc in self.tool_calls]
        return out


def accumulate(deltas: list[DeltaMessage | None]) -> ParsedMessage:
    """The message a client builds by concatenating streamed deltas."""
    return message_of(merge_deltas(deltas))


def message_of(merged: DeltaMessage | None) -> ParsedMessage:
    """The message of one delta that holds a whole completion (``merge_deltas``'s)."""
    if merged is None:
        return ParsedMessage()
    return ParsedMessage(
        reasoning=merged.reasoning, content=merged.content,
        tool_calls=tuple([ToolCall(tc.id or "", tc.name or "", tc.arguments or "")
                          for tc in merged.tool_calls]))  # (a list: no generator per call)


def merge_deltas(deltas: Iterable[DeltaMessage | None]) -> DeltaMessage | None:
    """Consecutive deltas as one: reasoning and content concatenated, and the pieces of
    each tool call (by index, in index order) merged in order: its first id and type,
    its name and arguments concatenated; None if they add nothing.  A call that came in
    one piece is that piece (the same object); the deltas are never changed."""
    reasoning: list[str] = []
    content: list[str] = []
    calls: dict[int, DeltaToolCall] = {}
    copies: set[int] = set()  # calls whose first piece was copied to add more to it
    for delta in deltas:
        if delta is None:
            continue
        if delta.reasoning:
            reasoning.append(delta.reasoning)
        if delta.content:
            content.append(delta.content)
        for tc in delta.tool_calls:
            call = calls.get(tc.index)
            if call is None:
                calls[tc.index] = tc  # (most calls come whole: no copy)
                continue
            if tc.index not in copies:
                # Copied before the next piece is added to it; made directly, as
                # dataclasses.replace costs several times more per call.
                copies.add(tc.index)
                call = calls[tc.index] = DeltaToolCall(call.index, call.id, call.type,
                                                       call.name, call.arguments)
            call.id = call.id if call.id is not None else tc.id
            call.type = call.type if call.type is not None else tc.type
            if tc.name is not None:
                call.name = (call.name or "") + tc.name
            if tc.arguments is not None:
                call.arguments = (call.arguments or "") + tc.arguments
    if not (reasoning or content or calls):
        return None
    return DeltaMessage(reasoning="".join(reasoning) or None, content="".join(content) or None,
                        tool_calls=[calls[i] for i in sorted(calls)])


class CutCall(NamedTuple):
    """A call the completion cut off (max_tokens): never completed, never content."""

    # (as a tool call's index; a NamedTuple field that shadows tuple.index on purpose)
    index: int  # type: ignore[assignment]
    text: str  # all the model wrote for it since the previous call, wrapper markers included
    sent: bool  # the stream sent its name (stream_calls="incremental")


def cut_warning(index: int, name: str | None, text: str, written: bool) -> str:
    """The warning for call ``index`` cut off by the completion's end (``name``: None
    while its name was not complete; ``written``: more than its markers came)."""
    if name is None and not written:
        # Only the call's markers: the completion stopped right after them. A marker is
        # no text for the user, and there is no call.
        return (f"tool call {index} ended right after its marker {text.strip()!r}: no call, "
                "no content; its text is in cut_calls")
    if name is None:
        return (f"tool call {index} was cut off before its name was complete; its text is "
                "in cut_calls")
    return (f"tool call {index} ({name}) was cut off before its end: its arguments are "
            "incomplete and not completed; its text is in cut_calls")


def without_cut_calls(message: ParsedMessage, cut: Sequence[CutCall]) -> ParsedMessage:
    """``message`` with the calls the completion cut off moved to ``cut_calls``.

    Those the stream sent are the last of ``tool_calls`` (the completion ended inside
    them); they are dropped.  Content is untouched: a cut call is never content."""
    if not cut:
        return message
    sent = sum(1 for c in cut if c.sent)
    calls = message.tool_calls[: len(message.tool_calls) - sent]
    return replace(message, tool_calls=tuple(calls),
                   cut_calls=message.cut_calls + tuple(c.text for c in cut))
