"""Finding JSON structure in text that arrives in pieces: the inside of strings is skipped."""

from __future__ import annotations

import re

_STRUCTURAL = re.compile(r'["{}\[\],]').search
_STRING_STOP = re.compile(r'["\\]').search


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
                m = _STRING_STOP(text, pos)
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
