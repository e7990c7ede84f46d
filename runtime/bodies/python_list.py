"""A Python list of calls, ``[f(a=1), g()]``: each call's name, then its argument text."""

from __future__ import annotations

import re
from typing import ClassVar, Final

from mypy_extensions import mypyc_attr

from ..arguments.scanning import PyScan
from ..events import CONTENT, SemanticEvent
from .base import (
    ARG_VALUE_CHUNK,
    TEXT_CHUNK,
    TOOL_CALL_END,
    TOOL_CALL_START,
    TOOL_NAME,
    BodyHost,
    ToolBody,
)

_HELD_LIMIT: Final = 4096  # list syntax held before a call's name( : bounded memory
_SEPARATORS: Final = re.compile(r"[\s,]*")
_NAME_START: Final = re.compile(r"[^\W\d]")
_NAME: Final = re.compile(r"[\w.]*")


@mypyc_attr(allow_interpreted_subclasses=True)
class PythonListBody(ToolBody):
    """A Python list of calls, ``[name(a=1, b="x"), ...]``: each call's name, then its arguments.

    Each call streams its name (TOOL_NAME) and the text between its parentheses (its
    argument text); the closing ``]`` ends the calls, and a marker that is itself the
    ``[`` opens the list.  List syntax is held until a call follows it: without one it
    is content after all.
    """

    name = "python_list"
    starts_calls = True
    closer = ")"
    exits_to = ("CONTENT",)  # its closing ], or text that is no call after all
    bracketed: ClassVar[bool] = True  # the calls are a list's items, [ ... ]

    __slots__ = ("where", "held", "calls", "scan")

    def __init__(self, parser: BodyHost) -> None:
        super().__init__(parser)
        self.enter("", False)

    def enter(self, marker: str, in_arguments: bool) -> None:
        """A list of calls begins; a marker that is its ``[`` has opened it."""
        # start: before the list; between: before a call; name: in one; args: in its ()
        opened = marker.lstrip().startswith("[")
        self.where = "between" if opened or not self.bracketed else "start"
        # List syntax not yet known to be a call's: it is content if no call follows.
        self.held = marker if opened and self.bracketed else ""
        self.calls = 0
        self.scan = PyScan(commas=False, call=True)  # strings and brackets inside a call's ()

    def feed(self, text: str, out: list[SemanticEvent], may_hold: bool) -> int | None:
        pos, n = 0, len(text)
        parser = self.parser
        while pos < n:
            where = self.where
            if where == "args":
                end = self._args_end(text, pos)
                piece = text[pos : n if end < 0 else end]
                if piece:
                    out.append(SemanticEvent(ARG_VALUE_CHUNK, piece, parser.tool_index))
                if end < 0:
                    return None
                out.append(SemanticEvent(TOOL_CALL_END, "", parser.tool_index))
                self.where = "between"
                return end + 1  # past the parenthesis: what follows is a piece of its own
            if len(self.held) > _HELD_LIMIT:
                return self._bail(pos, out)  # no call starts this long after: prose
            m = _SEPARATORS.match(text, pos)
            assert m is not None  # (it matches the empty string)
            if m.end() > pos:
                if where == "name":  # a name cut by a space: not a call
                    return self._bail(pos, out)
                self.held += m.group()
                pos = m.end()
                continue
            ch = text[pos]
            if where == "start":
                if ch != "[":
                    return self._bail(pos, out)
                self.where, self.held = "between", self.held + ch
                pos += 1
            elif ch == "]" and where == "between" and self.calls and self.bracketed:
                parser.state_id = CONTENT
                self.enter("", False)
                return pos + 1
            elif where == "between" and not _NAME_START.match(ch):
                return self._bail(pos, out)
            elif where == "between" and pos > 0:
                return pos  # a call may start here: its text begins a piece of its own
            else:
                m = _NAME.match(text, pos)
                assert m is not None  # (it matches the empty string)
                if m.end() == n and may_hold and where == "between" and n - pos < 256:
                    return ~pos  # a name that may be a call's: wait for what follows it
                self.held += m.group()
                self.where = "name"
                pos = m.end()
                if pos < n:
                    if text[pos] != "(":
                        return self._bail(pos, out)
                    # name( - a call after all: the held list syntax was its frame.
                    name = self.held.lstrip("[, \t\r\n")
                    parser.tool_index += 1
                    self.calls += 1
                    out.append(SemanticEvent(TOOL_CALL_START, "", parser.tool_index))
                    out.append(SemanticEvent(TOOL_NAME, name, parser.tool_index))
                    self.where, self.held = "args", ""
                    self.scan.reset()
                    pos += 1
        return None

    def leave(self, out: list[SemanticEvent]) -> None:
        """The body ends early (a marker or the stream): close the call or give back text."""
        if self.where == "args":
            out.append(SemanticEvent(TOOL_CALL_END, "", self.parser.tool_index))
        elif self.held:
            out.append(SemanticEvent(TEXT_CHUNK, self.held))
        self.enter("", False)

    def finish(self, out: list[SemanticEvent], state: int) -> bool | None:
        cut = self.where == "args"
        self.leave(out)  # closes the open call, or gives held text back
        return cut

    def _bail(self, pos: int, out: list[SemanticEvent]) -> int:
        """Not a call after all: held list syntax and the rest are content."""
        if self.held:
            out.append(SemanticEvent(TEXT_CHUNK, self.held))
        self.parser.state_id = CONTENT
        self.enter("", False)
        return pos

    def _args_end(self, text: str, pos: int) -> int:
        """Index of the parenthesis that closes the call, or -1 (brackets inside it that
        the model left open stay open: the arguments' reader closes them)."""
        scan = self.scan
        while True:
            i = scan.next(text, pos)
            if i < 0 or (text[i] == ")" and scan.depth >= 0 and not scan.parens):
                return i
            scan.depth -= 1  # an unbalanced closer inside the arguments: passed
            pos = i + 1


@mypyc_attr(allow_interpreted_subclasses=True)
class PythonLinesBody(PythonListBody):
    """Python calls one after another, no list around them: ``f(a=1)`` then ``g()`` on the next line (OLMo 3).

    As ``python_list`` without the brackets: each call's name, then its arguments; calls
    are separated by whitespace (newlines) or commas.  Only a marker ends the calls; text
    that is no call ends them too, and it and what follows are content.
    """

    name = "python_lines"
    bracketed = False
