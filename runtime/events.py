"""Semantic events, raw text and parser states shared by every generated parser."""

from __future__ import annotations

from enum import Enum
from typing import Final

from mypy_extensions import mypyc_attr


class EventType(Enum):
    """The eight event kinds of vLLM's parser engine, in its order."""

    TEXT_CHUNK = 1
    REASONING_START = 2
    REASONING_CHUNK = 3
    REASONING_END = 4
    TOOL_CALL_START = 5
    TOOL_NAME = 6
    ARG_VALUE_CHUNK = 7
    TOOL_CALL_END = 8


# Chunk events carry a piece of a longer text; consumers may merge neighbours.
CHUNK_EVENTS: Final = frozenset(
    (
        EventType.TEXT_CHUNK,
        EventType.REASONING_CHUNK,
        EventType.TOOL_NAME,
        EventType.ARG_VALUE_CHUNK,
    )
)


@mypyc_attr(allow_interpreted_subclasses=True)
class SemanticEvent:
    """One parser event: a type, a string value and a tool index (-1 outside calls)."""

    __slots__ = ("type", "value", "tool_index")

    def __init__(self, type: EventType, value: str = "", tool_index: int = -1) -> None:
        self.type = type
        self.value = value
        self.tool_index = tool_index

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SemanticEvent):
            return NotImplemented
        return (
            self.type is other.type
            and self.value == other.value
            and self.tool_index == other.tool_index
        )

    def __hash__(self) -> int:
        return hash((self.type, self.value, self.tool_index))

    def __repr__(self) -> str:
        return f"SemanticEvent({self.type.name}, {self.value!r}, {self.tool_index})"


@mypyc_attr(allow_interpreted_subclasses=True)
class RawText:
    """Model text a parser consumed (in ``state``), interleaved with its events when
    the parser's ``raw`` tap is on; ``marker`` names the terminal it was, if it was one."""

    __slots__ = ("text", "state", "marker")

    def __init__(self, text: str, state: int, marker: str | None = None) -> None:
        self.text = text
        self.state = state
        self.marker = marker


@mypyc_attr(allow_interpreted_subclasses=True)
class CallRun:
    """Whole calls a parse read at once, one after another, in ``state`` (the raw tap's
    stand-in for each call's pieces and events): per call, the text before it, its text
    up to its arguments (markers and name), its TOOL_ARGS text, its text after them
    (markers; "" for a call whose object ends it) and what was read there (name,
    arguments, call id or ""); ``first`` is the first's index, ``end`` the terminal that
    ends each ("": the object's close).  ``framing``: the text before each call is a
    framing state's, dropped, not content."""

    __slots__ = ("calls", "state", "first", "end", "framing")

    def __init__(self, calls: list[tuple[str, str, str, str, tuple[str, str, str]]],
                 state: int, first: int, end: str, framing: bool = False) -> None:
        self.calls = calls
        self.state = state
        self.first = first
        self.end = end  # the end terminal's name
        self.framing = framing


def merge_chunks(events: list[SemanticEvent]) -> list[SemanticEvent]:
    """Merge adjacent chunk events of one type and tool index; drop empty chunks."""
    merged: list[SemanticEvent] = []
    for ev in events:
        if ev.type in CHUNK_EVENTS:
            if not ev.value:
                continue
            last = merged[-1] if merged else None
            if last is not None and last.type is ev.type and last.tool_index == ev.tool_index:
                merged[-1] = SemanticEvent(ev.type, last.value + ev.value, ev.tool_index)
                continue
        merged.append(ev)
    return merged


# Parser states: vLLM's seven, as small ints so generated code compares cheaply
# (Final: compiled, a comparison with one is with the number, not a module lookup).
CONTENT: Final = 0
REASONING: Final = 1
MESSAGE_HEADER: Final = 2
TOOL_PREAMBLE: Final = 3
TOOL_NAME: Final = 4
TOOL_ARGS: Final = 5
TOOL_BETWEEN: Final = 6

STATE_NAMES: tuple[str, ...] = (
    "CONTENT",
    "REASONING",
    "MESSAGE_HEADER",
    "TOOL_PREAMBLE",
    "TOOL_NAME",
    "TOOL_ARGS",
    "TOOL_BETWEEN",
)
TOOL_STATES: Final = frozenset((TOOL_PREAMBLE, TOOL_NAME, TOOL_ARGS, TOOL_BETWEEN))

# Name of the pseudo-terminal for tokenizer special tokens the format does not name.
DROP: Final = "__DROP__"
