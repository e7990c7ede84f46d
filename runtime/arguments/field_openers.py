"""An element syntax's open tag written inside a value: whether it opens the next field.

Decided by what follows it, the same in the reader (``xml_parameters_reader``) and in
the value scanner (``values.ElementValues``), as a value's close tag is.
"""

from __future__ import annotations

from typing import Final

from .scanning import NOT_SPACE

# The longest field header an open tag written inside a value may be followed by.
_MAX_HEADER: Final = 200


def _partial(text: str, literal: str) -> int:
    """How long the end of ``text`` that is a proper prefix of ``literal`` is."""
    for n in range(min(len(literal) - 1, len(text)), 0, -1):
        if text.endswith(literal[:n]):
            return n
    return 0


def opens_field(buf: str, at: int, name_end: str, value_open: str | None,
                name: str | None, seen: set[str] | frozenset[str]) -> bool | None:
    """Whether an open tag written inside a value (its header starts at ``buf[at]``)
    opens the next field, by what follows it: a header up to ``name_end`` (no tag or
    line break in it) whose field ``name`` (None: the header's text) the call has not
    had (``seen``), then ``value_open`` where there is one; None: not known yet."""
    j = buf.find(name_end, at)
    header = buf[at : j if j >= 0 else len(buf)]
    if j < 0:  # (its end may be the start of name_end)
        header = header[: len(header) - _partial(header, name_end)]
    if "\n" in header or "<" in header or len(header) > _MAX_HEADER:
        return False
    if j < 0:
        return None
    field = header.strip() if name is None else name
    if not field or field in seen:
        return False
    if not value_open:
        return True
    m = NOT_SPACE(buf, j + len(name_end))
    if m is None:
        return None
    rest = buf[m.start():]
    if rest.startswith(value_open):
        return True
    return None if value_open.startswith(rest) else False
