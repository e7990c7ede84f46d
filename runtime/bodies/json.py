"""JSON arguments: streamed as they arrive, a closer that may end the value held back.

vLLM's engine streams JSON arguments as they arrive but keeps back a closing ``}``
or ``]`` that ends the top-level value, until another character, a transition out
of the arguments or the end of the stream shows it is final.  ``JsonArgs`` makes the
same decisions, jumping between structural characters with compiled regexes instead
of looking at every character in Python; ``JsonBody`` is the tool body built on it,
and the base of the bodies whose JSON value ends a call by itself.
"""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from ..events import SemanticEvent
from ..arguments.scanning import JsonScan, whole_value_end
from .base import ARG_VALUE_CHUNK, TOOL_CALL_END, BodyHost, ToolBody


@mypyc_attr(allow_interpreted_subclasses=True)
class JsonArgs:
    """Tracks depth (and, through JsonScan, strings) of a JSON argument body."""

    __slots__ = ("held", "depth", "scan")

    def __init__(self) -> None:
        self.held = ""
        self.depth = 0
        self.scan = JsonScan()

    def reset(self) -> None:
        """Start a new value (on entering the argument state); held text stays."""
        self.depth = 0
        self.scan.reset()

    def take(self) -> str:
        """Return and clear the held closers."""
        held = self.held
        self.held = ""
        return held

    def feed(self, text: str) -> str:
        """Consume ``text``; return what may be emitted now (the rest is held)."""
        n = len(text)
        if not n:
            return ""
        depth = self.depth
        scan = self.scan
        if not depth and not self.held and not scan.in_string and not scan.escape:
            end = whole_value_end(text)
            if end == n:  # one complete value: its last closer is the run held back
                self.held = text[-1]
                return text[:-1]
        # The trailing run of closers that end the top-level value; a run may continue
        # one held from the previous delta (run_start 0).
        run_start, run_end = (0, 0) if self.held else (-1, 0)
        pos = 0
        while True:
            i = scan.next(text, pos)
            if i < 0:
                break
            ch = text[i]
            pos = i + 1
            if ch == "{" or ch == "[":
                depth += 1
            elif ch != ",":
                if depth > 0:
                    depth -= 1
                if depth == 0:
                    # A closer ending the top-level value waits for what follows.
                    if run_start < 0 or run_end != i:
                        run_start = i
                    run_end = i + 1
        self.depth = depth
        if run_start >= 0 and run_end == n:
            emit = self.held + text[:run_start] if run_start > 0 else ""
            self.held = (self.held if run_start == 0 else "") + text[run_start:]
            return emit
        emit = self.held + text
        self.held = ""
        return emit


@mypyc_attr(allow_interpreted_subclasses=True)
class JsonBody(ToolBody):
    """One JSON value per call between markers, its final closing bracket held back.

    A ``}`` or ``]`` that ends the top-level value is given out once more text, a marker
    or the end of the stream shows it is final, as vLLM's engine does.
    """

    name = "json"
    # Its events are the text less a closer held until the end marker: all of it.
    whole_calls = True

    __slots__ = ("args",)

    def __init__(self, parser: BodyHost) -> None:
        super().__init__(parser)
        self.args = JsonArgs()

    def enter(self, marker: str, in_arguments: bool) -> None:
        self.args.reset()

    def feed(self, text: str, out: list[SemanticEvent], may_hold: bool) -> int | None:
        chunk = self.args.feed(text)
        if chunk:
            out.append(SemanticEvent(ARG_VALUE_CHUNK, chunk, self.parser.tool_index))
        return None

    def take_plain(self, text: str) -> str | None:
        return self.args.feed(text)  # (what feed gives out, without an event list)

    def leave(self, out: list[SemanticEvent]) -> None:
        self.flush(out)

    def flush(self, out: list[SemanticEvent]) -> None:
        """Give out the held closers: nothing can follow them any more."""
        held = self.args.take()
        if held:
            out.append(SemanticEvent(ARG_VALUE_CHUNK, held, self.parser.tool_index))

    def arguments(self, piece: str, ended: bool, out: list[SemanticEvent]) -> None:
        """Argument text of the open call; at its end, what was held and the call's end."""
        chunk = self.args.feed(piece)
        if chunk:
            out.append(SemanticEvent(ARG_VALUE_CHUNK, chunk, self.parser.tool_index))
        if ended:
            self.flush(out)
            out.append(SemanticEvent(TOOL_CALL_END, "", self.parser.tool_index))

    def finish(self, out: list[SemanticEvent], state: int) -> bool | None:
        self.flush(out)
        index = self.parser.tool_index
        if index < 0:
            return False
        # The call may only lack its end marker: its arguments decide (None).
        out.append(SemanticEvent(TOOL_CALL_END, "", index))
        return None
