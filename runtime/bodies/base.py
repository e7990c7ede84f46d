"""The protocol of a tool body: how a parser's TOOL_ARGS text becomes tool calls.

A generated module names its body class (``BODY``); the driver makes one instance per
parser and the generated state machine calls it: ``enter`` when a marker enters
TOOL_ARGS, ``feed`` with the plain text there, ``leave`` when a marker leaves it, and
the driver calls ``finish`` when the stream ends inside a tool state.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import ClassVar, Final, Protocol

from mypy_extensions import mypyc_attr

from ..events import EventType, SemanticEvent

TOOL_CALL_START: Final = EventType.TOOL_CALL_START
TOOL_CALL_END: Final = EventType.TOOL_CALL_END
TOOL_NAME: Final = EventType.TOOL_NAME
ARG_VALUE_CHUNK: Final = EventType.ARG_VALUE_CHUNK
TEXT_CHUNK: Final = EventType.TEXT_CHUNK

# The body's own markup before a call that is one JSON object, matched at a position
# (a compiled regex's ``match``): what ``feed`` passes over there.
Markup = Callable[[str, int], "re.Match[str] | None"]


class BodyHost(Protocol):
    """What a body may use of its parser: the call index, and the state to go on in
    (set when the body ends inside its own text)."""

    tool_index: int
    state_id: int


@mypyc_attr(allow_interpreted_subclasses=True)
class ToolBody:
    """How TOOL_ARGS text becomes calls; subclasses are registered in ``BODIES``."""

    name: ClassVar[str]  # the spec's ``tool_body`` value
    # TOOL_ARGS text is one ARG_VALUE_CHUNK as it is, whatever it holds: generated code
    # emits it inline and lets a plain delta skip lexing (the driver's fast path).
    plain: ClassVar[bool] = False
    # States its own text can end it in (no marker needed): the compiler counts them
    # reachable from TOOL_ARGS.
    exits_to: ClassVar[tuple[str, ...]] = ()
    # Its text starts and names the calls (each element of a list is one): no
    # transition needs to emit TOOL_CALL_START.
    starts_calls: ClassVar[bool] = False
    # A whole call's TOOL_ARGS text, its end marker found, may be read at once by the
    # arguments syntax (``ArgumentSyntax.whole_call``) instead of fed: nothing the
    # body would do with it is lost (see the driver's CALL_RUNS).
    whole_calls: ClassVar[bool] = False
    # Each call is one JSON object whose closing brace ends it (``exits_to``): a call's
    # text from the object's start to its close, once complete, may be read at once by
    # the arguments syntax (``ArgumentSyntax.whole_call``) instead of fed (see the
    # driver's OBJECT_RUNS).
    whole_objects: ClassVar[bool] = False
    # The text its own reading ends each call with, not given to the arguments (a Python
    # call's ``)``): a call a marker ended instead lacked it (ToolCalls says so).
    closer: ClassVar[str] = ""
    # Its own text holds calls one after another, each one JSON object after its markup
    # (``whole_markup``): a parse may read them at once (a call program from TOOL_ARGS,
    # runtime/runs.py), not fed piece by piece.
    whole_runs: ClassVar[bool] = False

    __slots__ = ("parser",)
    __deletable__ = ("parser",)  # (release: mypyc deletes only what a class lists here)

    def __init__(self, parser: BodyHost) -> None:
        self.parser = parser

    def release(self) -> None:
        """The parser is done with (``StreamingParserBase.release``): no longer refer to it."""
        del self.parser

    def enter(self, marker: str, in_arguments: bool) -> None:
        """A marker (text ``marker``) entered TOOL_ARGS; ``in_arguments``: the transition
        gave its text out as argument text (it opens the arguments, as Llama's ``{"name"``)."""

    def feed(self, text: str, out: list[SemanticEvent], may_hold: bool) -> int | None:
        """Plain TOOL_ARGS text; its events go to ``out``.

        Returns None when all of ``text`` was used; ``i >= 0`` when the body used
        ``text[:i]`` and set the parser's state for the rest; ``~i`` (negative) when
        it used ``text[:i]`` and keeps the rest to see again with the next delta,
        which only ``may_hold`` (``text`` ends the buffer, more may follow) allows.
        """
        raise NotImplementedError

    def take_plain(self, text: str) -> str | None:
        """TOOL_ARGS text no marker can start in, taken at once, without the lexer (the
        driver's fast path for a plain delta): the ARG_VALUE_CHUNK text that goes out now,
        as ``feed`` would give it. None (the default): nothing taken, lex it (a body whose
        text can end its call answers None wherever it might)."""
        return None

    def whole_markup(self) -> tuple[Markup, Markup] | None:
        """Where its next calls may be read whole (``whole_runs``): the markup ``feed``
        passes over before the first of them now, and between two; None where they
        may not (inside a call)."""
        return None

    def ran_calls(self) -> None:
        """Calls were read whole from its text (``runs``): be as after the last."""

    def leave(self, out: list[SemanticEvent]) -> None:
        """A marker leaves TOOL_ARGS: flush what is held, close what must close."""

    def finish(self, out: list[SemanticEvent], state: int) -> bool | None:
        """The stream ended in tool state ``state``: close what is open.

        Returns whether a call was cut off: True, False, or None when only its
        arguments can tell (a call that may merely lack its end marker).
        """
        raise NotImplementedError
