"""CDATA sections in an element value, unwrapped as the value streams (``xml_parameters``'
``cdata`` option): ``<![CDATA[text]]>`` is ``text``, exactly."""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

CDATA_OPEN: Final = "<![CDATA["
CDATA_CLOSE: Final = "]]>"


def _partial(text: str, tag: str) -> int:
    """The length of the longest end of ``text`` that is a proper prefix of ``tag``."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if tag.startswith(text[-size:]):
            return size
    return 0


@mypyc_attr(allow_interpreted_subclasses=True)
class CdataUnwrap:
    """One value's text, fed in pieces, with every CDATA section's delimiters dropped
    (XML's meaning: a section's text is the value's text as written, markup included);
    text outside sections is kept. Any split of the value gives what the whole gives: a
    delimiter cut by a piece's end is held until the next piece (or the value's end,
    where it is text: a section the call left open keeps what it has)."""

    __slots__ = ("inside", "held")

    def __init__(self) -> None:
        self.inside = False  # within a section (after its <![CDATA[)
        self.held = ""  # a delimiter's start, cut by the last piece's end

    def reset(self) -> None:
        """A new value begins."""
        self.inside = False
        self.held = ""

    def __call__(self, text: str, final: bool) -> str:
        """The part of the value's next piece ``text`` (``final``: its last) that is
        surely value text now."""
        text = self.held + text
        self.held = ""
        out: list[str] = []
        pos = 0
        while True:
            tag = CDATA_CLOSE if self.inside else CDATA_OPEN
            i = text.find(tag, pos)
            if i < 0:
                break
            out.append(text[pos:i])
            pos = i + len(tag)
            self.inside = not self.inside
        rest = text[pos:]
        cut = 0 if final else _partial(rest, CDATA_CLOSE if self.inside else CDATA_OPEN)
        if cut:
            self.held = rest[-cut:]
            rest = rest[:-cut]
        out.append(rest)
        if final:
            self.inside = False
        return "".join(out)
