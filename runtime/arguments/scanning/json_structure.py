"""JSON structure arriving in pieces: strings and escapes skipped, brackets counted.

``JsonScan``: the next ``{ } [ ] ,`` outside strings, its string state kept across deltas.
``JsonDepth``: the same, with the depth of brackets; where the value closes.
"""

from __future__ import annotations

import re
from typing import Final

from mypy_extensions import mypyc_attr

from .json_strings import JSON_STRING_STOP

_STRUCTURAL: Final = re.compile(r'["{}\[\],]').search
_DEPTH_CHANGE: Final = re.compile(r'["\\{}\[\]]').search  # what may change a JsonDepth's state


@mypyc_attr(allow_interpreted_subclasses=True)
class JsonScan:
    """Remembers, across deltas, whether the text is inside a string or an escape."""

    __slots__ = ("in_string", "escape")

    def __init__(self) -> None:
        self.in_string = False
        self.escape = False

    def reset(self) -> None:
        self.in_string = False
        self.escape = False

    def next(self, text: str, pos: int) -> int:
        """Index of the next ``{ } [ ] ,`` outside strings at or after ``pos``, or -1."""
        n = len(text)
        while pos < n:
            if self.escape:
                self.escape = False
                pos += 1
                continue
            if self.in_string:
                m = JSON_STRING_STOP(text, pos)
                if m is None:
                    return -1
                i = m.start()
                if text[i] == "\\":
                    self.escape = True
                else:
                    self.in_string = False
                pos = i + 1
                continue
            m = _STRUCTURAL(text, pos)
            if m is None:
                return -1
            i = m.start()
            if text[i] != '"':
                return i
            self.in_string = True
            pos = i + 1
        return -1


@mypyc_attr(allow_interpreted_subclasses=True)
class JsonDepth:
    """JSON structure arriving in pieces: strings skipped (``JsonScan``), brackets counted."""

    __slots__ = ("scan", "depth")

    def __init__(self) -> None:
        self.scan = JsonScan()
        self.depth = 0

    def reset(self) -> None:
        self.scan.reset()
        self.depth = 0

    def next(self, text: str, pos: int) -> int:
        """Index of the next ``, { } [ ]`` outside strings at or after ``pos``, or -1;
        ``depth`` already counts it (a closer at depth 0 leaves it at -1)."""
        i = self.scan.next(text, pos)
        if i >= 0:
            ch = text[i]
            if ch == "{" or ch == "[":
                self.depth += 1
            elif ch != ",":
                self.depth -= 1
        return i

    def passes(self, text: str) -> bool:
        """Whether ``text`` leaves the structure as it is (no bracket, quote or backslash,
        no escape pending): it cannot close the value, and need not be scanned."""
        return not self.scan.escape and _DEPTH_CHANGE(text) is None

    def goes_on(self, text: str) -> bool:
        """Whether the value goes on past ``text``: then ``text`` is counted (as ``find``
        counts it); where it closes in ``text``, nothing changes."""
        if self.passes(text):
            return True
        scan = self.scan
        depth, in_string, escape = self.depth, scan.in_string, scan.escape
        if self.find(text, 0) < 0:
            return True
        self.depth, scan.in_string, scan.escape = depth, in_string, escape
        return False

    def find(self, text: str, pos: int) -> int:
        """Just past the bracket that closes the value (depth back to 0), or -1 if it is
        not in ``text``."""
        while True:
            i = self.next(text, pos)
            if i < 0:
                return -1
            if self.depth <= 0 and text[i] in "}]":
                return i + 1
            pos = i + 1
