"""Streaming of raw JSON tool arguments: pass text through, hold a top-level closer.

vLLM's engine streams JSON arguments as they arrive but keeps back a closing ``}``
or ``]`` that ends the top-level value, until another character, a transition out
of the arguments or the end of the stream shows it is final.  This tracker makes the
same decisions, jumping between structural characters with compiled regexes instead
of looking at every character in Python.
"""

from __future__ import annotations

from .arguments.scanning import JsonScan


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
