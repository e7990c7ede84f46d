"""JSON string text arriving in pieces: where a string ends, and its text decoded.

An escape cut by a delta's end is left to be read again with the next delta.
"""

from __future__ import annotations

import re
from typing import Final

JSON_STRING_STOP: Final = re.compile(r'["\\]').search  # where a JSON string may end or escape
_SIMPLE_ESCAPES: Final = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n",
                   "r": "\r", "t": "\t"}


def json_string_end(buf: str, pos: int) -> int:
    """Index of the quote that closes a JSON string whose text starts at pos, or -1."""
    while True:
        m = JSON_STRING_STOP(buf, pos)
        if m is None:
            return -1
        i = m.start()
        if buf[i] == '"':
            return i
        pos = i + 2
        if pos > len(buf):
            return -1


def decode_json_string(buf: str, pos: int) -> tuple[str, int, bool]:
    """Decode JSON string text from pos: (text, end, closed).

    Closed, ``end`` is just past the closing quote; open, ``buf[end:]`` is an escape
    cut by the end of ``buf``, to be read again with the next delta (``end`` is
    ``len(buf)`` when there is none).
    """
    parts = []
    n = len(buf)
    while pos < n:
        m = JSON_STRING_STOP(buf, pos)
        if m is None:
            parts.append(buf[pos:])
            return "".join(parts), n, False
        i = m.start()
        parts.append(buf[pos:i])
        if buf[i] == '"':
            return "".join(parts), i + 1, True
        # An escape: complete it now, or keep it for the next delta.
        if i + 1 >= n:
            return "".join(parts), i, False
        esc = buf[i + 1]
        if esc != "u":
            parts.append(_SIMPLE_ESCAPES.get(esc, esc))
            pos = i + 2
            continue
        if i + 6 > n:
            return "".join(parts), i, False
        code = int(buf[i + 2 : i + 6], 16) if _is_hex(buf[i + 2 : i + 6]) else 0xFFFD
        pos = i + 6
        if 0xD800 <= code < 0xDC00:
            if pos + 6 > n and buf.startswith("\\u"[: n - pos], pos):
                return "".join(parts), i, False
            low = buf[pos + 2 : pos + 6]
            if buf.startswith("\\u", pos) and _is_hex(low) and 0xDC00 <= int(low, 16) < 0xE000:
                code = 0x10000 + ((code - 0xD800) << 10) + (int(low, 16) - 0xDC00)
                pos += 6
            else:
                code = 0xFFFD
        elif 0xDC00 <= code < 0xE000:
            code = 0xFFFD
        parts.append(chr(code))
    return "".join(parts), n, False


def _is_hex(s: str) -> bool:
    return len(s) == 4 and all(c in "0123456789abcdefABCDEF" for c in s)
