"""Trimming modes for element values that stream: ``none``, ``one_newline``, ``strip``."""

from __future__ import annotations

from typing import Any, Final

from mypy_extensions import mypyc_attr

TRIM_MODES: Final = ("none", "one_newline", "strip")
TRIM_SCHEMA: dict[str, Any] = {
    "enum": list(TRIM_MODES),
    "description": (
        "Whitespace dropped around each value: none (default; kept verbatim), "
        "one_newline (one leading and one trailing newline: templates put the value on "
        "its own line), strip (all leading and trailing whitespace, held back while "
        "streaming until the value goes on or ends)."),
}


def trim_mode(value: str | bool | None) -> str:
    """A ``trim`` option as a mode name (``true`` is ``one_newline``, ``false`` ``none``)."""
    if value is True:
        return "one_newline"
    if value is None or value is False:
        return "none"
    if value not in TRIM_MODES:
        raise ValueError(f"unknown trim mode {value!r} (one of {', '.join(TRIM_MODES)})")
    return value


def trimmed(text: str, mode: str) -> str:
    """A whole value ``text`` trimmed as ``mode`` says (what ``ValueTrim`` gives it in
    one piece)."""
    return ValueTrim(mode)(text, True) if mode != "none" else text


@mypyc_attr(allow_interpreted_subclasses=True)
class ValueTrim:
    """Trims one value at a time, fed in pieces: any split gives what the whole gives.

    Leading whitespace is dropped as it comes; trailing whitespace is held back until
    what follows shows whether the value goes on (it is emitted) or ends (dropped).
    """

    __slots__ = ("mode", "started", "held")

    def __init__(self, mode: str | bool | None = "none") -> None:
        self.mode = trim_mode(mode)
        self.started = False  # the value has begun (its leading whitespace is settled)
        self.held = ""  # trailing whitespace held back (one_newline: at most one newline)

    def reset(self) -> None:
        """A new value begins."""
        self.started = False
        self.held = ""

    def __call__(self, text: str, final: bool) -> str:
        """The part of ``text`` (the value's next piece; ``final``: its last) that is
        surely value text now."""
        mode = self.mode
        if mode == "one_newline":
            if not self.started and text:
                self.started = True
                if text[0] == "\n":
                    text = text[1:]
            if self.held:
                text = "\n" + text
                self.held = ""
            if text.endswith("\n"):
                if final:
                    text = text[:-1]
                else:
                    self.held = "\n"
                    text = text[:-1]
            return text
        if mode == "strip":
            if not self.started:
                text = text.lstrip()
                if not text:
                    return ""
                self.started = True
            body = text.rstrip()
            if not body:  # only whitespace: it may yet be inside the value
                self.held = "" if final else self.held + text
                return ""
            out = self.held + body
            self.held = "" if final else text[len(body):]
            return out
        return text
