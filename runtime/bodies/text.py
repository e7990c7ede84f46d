"""Raw argument text: TOOL_ARGS text is the call's argument text as it is."""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from ..events import SemanticEvent
from .base import ARG_VALUE_CHUNK, TOOL_CALL_END, ToolBody


@mypyc_attr(allow_interpreted_subclasses=True)
class TextBody(ToolBody):
    """The call's raw argument text, streamed as it comes; markers start and end the call."""

    name = "text"
    plain = True
    whole_calls = True  # (where its syntax reads whole arguments: ArgumentSyntax.whole_arguments)

    __slots__ = ()

    def feed(self, text: str, out: list[SemanticEvent], may_hold: bool) -> int | None:
        out.append(SemanticEvent(ARG_VALUE_CHUNK, text, self.parser.tool_index))
        return None

    def finish(self, out: list[SemanticEvent], state: int) -> bool | None:
        index = self.parser.tool_index
        if index < 0:
            return False
        # The call may only lack its end marker: its arguments decide (None).
        out.append(SemanticEvent(TOOL_CALL_END, "", index))
        return None
