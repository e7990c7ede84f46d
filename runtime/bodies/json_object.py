"""One JSON object per call: the call ends where its object closes (Llama 3's JSON calls)."""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from ..events import TOOL_ARGS, TOOL_BETWEEN, SemanticEvent
from .base import TOOL_CALL_END, BodyHost
from ..arguments.scanning import JsonDepth
from .json import JsonBody


@mypyc_attr(allow_interpreted_subclasses=True)
class JsonObjectBody(JsonBody):
    """One JSON object per call: its closing brace ends the call (Llama 3's JSON calls).

    When the object closes, TOOL_CALL_END follows and the parser goes on in TOOL_BETWEEN.
    The object's opening may be the text of the marker that starts the call (Llama's
    ``{"name"``), given out as argument text.
    """

    name = "json_object"
    exits_to = ("TOOL_BETWEEN",)  # the object's closing brace ends the call

    __slots__ = ("end",)

    def __init__(self, parser: BodyHost) -> None:
        super().__init__(parser)
        self.end = JsonDepth()

    def enter(self, marker: str, in_arguments: bool) -> None:
        self.end.reset()
        self.args.reset()
        if in_arguments:
            self.end.find(marker, 0)  # count its braces; its text is already out

    def feed(self, text: str, out: list[SemanticEvent], may_hold: bool) -> int | None:
        end = self.end.find(text, 0)
        self.arguments(text if end < 0 else text[:end], end >= 0, out)
        if end < 0:
            return None
        self.parser.state_id = TOOL_BETWEEN
        return end

    def finish(self, out: list[SemanticEvent], state: int) -> bool | None:
        self.flush(out)
        index = self.parser.tool_index
        if index < 0 or state != TOOL_ARGS:
            return False  # the last object closed its call
        out.append(SemanticEvent(TOOL_CALL_END, "", index))
        return True  # cut inside its object
