"""One JSON array of calls: each ``{...}`` element is a call, ``]`` ends them (Granite)."""

from __future__ import annotations

import re
from typing import Final

from mypy_extensions import mypyc_attr

from ..events import CONTENT, SemanticEvent
from .base import TOOL_CALL_END, TOOL_CALL_START, BodyHost, Markup
from ..arguments.scanning import JsonDepth, whole_json_value
from .json import JsonBody

# What ``feed`` passes over before an element: whitespace, then the array's ``[`` (not
# started yet) ...
_OPENING: Final = re.compile(r"[ \t\r\n]*\[[ \t\r\n,]*").match
# ... or whitespace and commas (started).
_BETWEEN: Final = re.compile(r"[ \t\r\n,]*").match


@mypyc_attr(allow_interpreted_subclasses=True)
class JsonArrayBody(JsonBody):
    """One JSON array of calls, ``[{...}, {...}]``: each element is a call (Granite).

    TOOL_CALL_START and TOOL_CALL_END come from the JSON; the closing ``]``, or anything
    that is not an element, goes back to CONTENT.
    """

    name = "json_array"
    starts_calls = True
    exits_to = ("CONTENT",)  # its closing ]
    whole_calls = False  # its own text ends calls
    whole_runs = True  # ... and whole elements in a row may be read at once (whole_markup)

    __slots__ = ("started", "element", "end")

    def __init__(self, parser: BodyHost) -> None:
        super().__init__(parser)
        self.end = JsonDepth()
        self.reset()

    def reset(self) -> None:
        """Before the array's ``[``."""
        self.started = False
        self.element = False  # inside an element: a call is open
        self.end.reset()

    def enter(self, marker: str, in_arguments: bool) -> None:
        self.args.reset()
        self.reset()

    def feed(self, text: str, out: list[SemanticEvent], may_hold: bool) -> int | None:
        """Returns where the body ended inside ``text`` (the rest is for the new state),
        or None if all of it belongs to the body."""
        pos, n = 0, len(text)
        while pos < n:
            if self.element:
                end = self._element_end(text, pos)
                self.arguments(text[pos : n if end < 0 else end], end >= 0, out)
                if end < 0:
                    return None
                self.element = False
                return end  # what follows the call is a piece of its own
            ch = text[pos]
            if ch in " \t\r\n" or (ch == "," and self.started):
                pos += 1
            elif not self.started and ch == "[":
                self.started = True
                pos += 1
            elif self.started and ch == "{":
                if pos > 0:
                    return pos  # each call's text begins a piece of its own
                parser = self.parser
                parser.tool_index += 1
                self.args.reset()
                self.element = True
                self.end.reset()
                out.append(SemanticEvent(TOOL_CALL_START, "", parser.tool_index))
            else:
                # "]" ends the body; anything else was no array of calls after all.
                self.parser.state_id = CONTENT
                self.reset()
                return pos + 1 if ch == "]" else pos
        return None

    def take_plain(self, text: str) -> str | None:
        # (Text an element goes on past; an element's start may be read whole: fed.)
        if not self.element or not self.end.depth and text.startswith("{"):
            return None
        return self.args.feed(text) if self.end.goes_on(text) else None

    def whole_markup(self) -> tuple[Markup, Markup] | None:
        """Before the next element: the array's ``[`` first if it has not started (then
        whitespace and commas), between elements whitespace and commas."""
        if self.element:
            return None
        return (_BETWEEN if self.started else _OPENING), _BETWEEN

    def ran_calls(self) -> None:
        self.started = True  # (as after its last element: between elements)

    def _element_end(self, text: str, pos: int) -> int:
        """Just past the element that goes on at ``pos``; -1 if it goes on after ``text``.
        An element whose whole text is here, strict JSON, is found by the json module's
        C scanner; anything else is counted bracket by bracket."""
        end = self.end
        if (not end.depth and not end.scan.in_string and not end.scan.escape
                and text[pos : pos + 1] == "{"):
            try:
                return whole_json_value(text, pos)  # (the count stays at its reset)
            except ValueError:
                pass
        return end.find(text, pos)

    def finish(self, out: list[SemanticEvent], state: int) -> bool | None:
        self.flush(out)
        index = self.parser.tool_index
        if index < 0 or not self.element:
            return False  # finished elements closed their calls
        out.append(SemanticEvent(TOOL_CALL_END, "", index))
        return True  # cut inside an element
