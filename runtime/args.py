"""Streaming of raw JSON tool arguments: pass text through, hold a top-level closer.

vLLM's engine streams JSON arguments as they arrive but keeps back a closing ``}``
or ``]`` that ends the top-level value, until another character, a transition out
of the arguments or the end of the stream shows it is final.  This tracker makes the
same decisions, jumping between structural characters with compiled regexes instead
of looking at every character in Python.
"""

from __future__ import annotations

import re

_STRUCTURAL = re.compile(r'["{}\[\]]').search
_IN_STRING = re.compile(r'["\\]').search


class JsonArgs:
    """Tracks string/escape/depth state of a JSON argument body across deltas."""

    __slots__ = ("held", "depth", "in_string", "escape")

    def __init__(self) -> None:
        self.held = ""
        self.depth = 0
        self.in_string = False
        self.escape = False

    def reset(self) -> None:
        """Start a new value (on entering the argument state); held text stays."""
        self.depth = 0
        self.in_string = False
        self.escape = False

    def take(self) -> str:
        """Return and clear the held closers."""
        held = self.held
        self.held = ""
        return held

    def feed(self, text: str) -> str:
        """Consume ``text``; return what may be emitted now (the rest is held)."""
        n = len(text)
        pos = 0
        depth = self.depth
        in_string = self.in_string
        escape = self.escape
        run_start = -1  # start of the trailing run of held closers, if any
        run_end = 0
        if self.held:
            run_start, run_end = 0, 0  # a run continuing from the previous delta
        while pos < n:
            if escape:
                escape = False
                pos += 1
                continue
            if in_string:
                m = _IN_STRING(text, pos)
                if m is None:
                    pos = n
                    break
                i = m.start()
                if text[i] == "\\":
                    escape = True
                else:
                    in_string = False
                pos = i + 1
                continue
            m = _STRUCTURAL(text, pos)
            if m is None:
                pos = n
                break
            i = m.start()
            ch = text[i]
            pos = i + 1
            if ch == '"':
                in_string = True
            elif ch == "{" or ch == "[":
                depth += 1
            else:
                if depth > 0:
                    depth -= 1
                if depth == 0:
                    # A closer ending the top-level value waits for what follows.
                    if run_start < 0 or run_end != i:
                        run_start = i
                    run_end = i + 1
        self.depth = depth
        self.in_string = in_string
        self.escape = escape
        if run_start >= 0 and run_end == n:
            if run_start == 0 and run_end == 0 and self.held:
                # Empty text: nothing changes.
                return ""
            emit = self.held + text[:run_start] if run_start > 0 else ""
            self.held = (self.held if run_start == 0 else "") + text[run_start:]
            return emit
        emit = self.held + text
        self.held = ""
        return emit
