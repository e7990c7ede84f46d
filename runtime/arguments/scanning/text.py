"""Plain text: the next character that is not whitespace; a literal cut by a delta's end."""

from __future__ import annotations

import re
from typing import Final

NOT_SPACE: Final = re.compile(r"\S").search


def partial_len(buf: str, start: int, literals: tuple[str, ...]) -> int:
    """Length of the longest suffix of buf[start:] that is a proper prefix of a literal."""
    best = 0
    for lit in literals:
        for n in range(min(len(lit) - 1, len(buf) - start), best, -1):
            if buf.endswith(lit[:n]):
                best = n
                break
    return best


def tail_prefix(buf: str, start: int, literals: tuple[str, ...]) -> str:
    """The end of buf (from ``start`` on) that may be the start of a literal."""
    n = partial_len(buf, max(start, 0), literals)
    return buf[len(buf) - n:] if n else ""
