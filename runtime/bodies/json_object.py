"""One JSON object per call: the call ends where its object closes (Llama 3's JSON calls)."""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from ..events import TOOL_ARGS, TOOL_BETWEEN, SemanticEvent
from .base import TOOL_CALL_END, BodyHost
from ..arguments.scanning import NOT_SPACE, JsonDepth, whole_json_value
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
    whole_calls = False  # its own text ends calls
    whole_objects = True  # ... at its object's closing brace

    __slots__ = ("end", "opening")

    def __init__(self, parser: BodyHost) -> None:
        super().__init__(parser)
        self.end = JsonDepth()
        # The entering marker's text when it opens the object (Llama's ``{"name"``), until
        # the first text after it is read; None after that.
        self.opening: str | None = None

    def enter(self, marker: str, in_arguments: bool) -> None:
        self.end.reset()
        self.args.reset()
        self.opening = marker if in_arguments else ""
        if in_arguments:
            self.end.find(marker, 0)  # count its braces; its text is already out

    def feed(self, text: str, out: list[SemanticEvent], may_hold: bool) -> int | None:
        end = self._whole_end(text) if self.opening is not None else -1
        if end < 0:
            end = self.end.find(text, 0)
        self.arguments(text if end < 0 else text[:end], end >= 0, out)
        if end < 0:
            return None
        self.parser.state_id = TOOL_BETWEEN
        return end

    def take_plain(self, text: str) -> str | None:
        # (Text the object goes on past; the first after the marker is fed.)
        return self.args.feed(text) if self.opening is None and self.end.goes_on(text) else None

    def _whole_end(self, text: str) -> int:
        """Where the object the call's marker opened ends in its first text (the marker's
        own text, if it opens the object, before it), decoded in C; -1 where that is
        not known so (not complete here, or not strict JSON: counted bracket by bracket)."""
        opening, self.opening = self.opening or "", None
        m = NOT_SPACE(text) if not opening else None
        start = m.start() if m is not None else 0
        if not opening and (m is None or text[start] != "{"):
            return -1
        try:
            end = whole_json_value(opening + text if opening else text, start) - len(opening)
        except ValueError:
            return -1
        self.end.reset()  # as counting up to the closing brace leaves it
        return end

    def finish(self, out: list[SemanticEvent], state: int) -> bool | None:
        self.flush(out)
        index = self.parser.tool_index
        if index < 0 or state != TOOL_ARGS:
            return False  # the last object closed its call
        out.append(SemanticEvent(TOOL_CALL_END, "", index))
        return True  # cut inside its object
