"""Complete JSON in one piece, decoded by the json module's C scanners.

Strings, member keys and values read at once; anything ``decode_json_string`` would read
otherwise (a bad escape, a lone surrogate) raises ValueError, to be read piece by piece.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from ...json_text import STRICT_JSON
from .text import NOT_SPACE

# (Public in CPython's json package, left out of its type stubs.)
_SCAN_STRING: Any = json.decoder.scanstring  # type: ignore[attr-defined]
_SURROGATE: Final = re.compile("[\ud800-\udfff]").search


_SCAN_VALUE: Any = STRICT_JSON.scan_once  # type: ignore[attr-defined]


def whole_json_string(buf: str, pos: int, strict: bool = False) -> tuple[str, int]:
    """The JSON string whose text starts at ``pos`` (after its quote), decoded in C:
    (text, index past the closing quote).  Raises ValueError where the string is not
    closed or ``decode_json_string`` could decode it otherwise (a bad escape, a lone
    surrogate); ``strict``, also on raw control characters."""
    found: tuple[str, int] = _SCAN_STRING(buf, pos, strict)  # (typed: find is then direct)
    text, end = found
    if buf.find("\\", pos, end) >= 0 and _SURROGATE(text):
        raise ValueError("a lone surrogate: decoded character by character")
    return text, end


def whole_member_key(buf: str, pos: int, strict: bool = False) -> tuple[str, int] | None:
    """A member's key (its opening quote at ``pos``) and where its value starts, read
    in C; None where no value follows yet.  Raises ValueError as ``whole_json_string``."""
    key, pos = whole_json_string(buf, pos + 1, strict)
    m = NOT_SPACE(buf, pos)
    if m is None or buf[m.start()] != ":":
        return None
    m = NOT_SPACE(buf, m.start() + 1)
    return None if m is None else (key, m.start())


def scan_json_value(buf: str, pos: int) -> tuple[Any, int]:
    """The complete JSON value (no NaN or Infinity) that starts at ``pos``, decoded in
    C, and just past it; raises ValueError if there is none (or it nests too deep to
    decode)."""
    try:
        return _SCAN_VALUE(buf, pos)  # type: ignore[no-any-return]
    except (StopIteration, RecursionError) as exc:
        raise ValueError("not a complete JSON value") from exc


def whole_json_value(buf: str, pos: int) -> int:
    """Just past the complete JSON value (no NaN or Infinity) that starts at ``pos``;
    raises ValueError if there is none (or it nests too deep to decode)."""
    return scan_json_value(buf, pos)[1]


def whole_value_end(text: str) -> int:
    """Just past the JSON object or array that starts ``text`` (after whitespace),
    decoded in C; -1 if there is none."""
    m = NOT_SPACE(text)
    if m is None or text[m.start()] not in "{[":
        return -1
    try:
        return whole_json_value(text, m.start())
    except ValueError:
        return -1
