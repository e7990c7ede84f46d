"""Complete values of Gemma 4's call notation, typed by the notation itself.

``parse_notation``: a whole ``{...}`` or ``[...]`` value; strings between delimiters.
``bare_value``: a bare word as a JSON number, ``true``, ``false``, ``null``, or text.
"""

from __future__ import annotations

import json
import math
from typing import Any, Final

from ..json_text import STRICT_JSON
from .scanning import NOT_SPACE, json_string_end


def find_any(text: str, pos: int, chars: str) -> int:
    """Index of the first of ``chars`` in ``text`` from ``pos`` on, or -1."""
    best = -1
    for ch in chars:
        i = text.find(ch, pos)
        if i >= 0 and (best < 0 or i < best):
            best = i
    return best


def parse_notation(text: str, delim: str) -> Any:
    """A complete ``{...}`` or ``[...]`` value of the notation, bare words typed by
    their notation (``bare_value``)."""
    value, _ = _notation_value(text, 0, delim)
    return value


def _notation_value(text: str, pos: int, delim: str) -> tuple[Any, int]:
    n = len(text)
    while pos < n and text[pos] in " \n\t":
        pos += 1
    if text.startswith(delim, pos):
        end = text.find(delim, pos + len(delim))
        if end < 0:
            return text[pos + len(delim) :], n
        return text[pos + len(delim) : end], end + len(delim)
    if pos < n and text[pos] == '"':
        quoted = _json_quoted(text, pos)
        if quoted is not None:
            return quoted
    if pos < n and text[pos] in "{[":
        closing = "}" if text[pos] == "{" else "]"
        items: Any = {} if closing == "}" else []
        pos += 1
        while True:
            while pos < n and text[pos] in " ,\n\t":
                pos += 1
            if pos >= n:
                return items, n
            if text[pos] == closing:
                return items, pos + 1
            if closing == "]":
                item, pos = _notation_value(text, pos, delim)
                items.append(item)
                continue
            colon = text.find(":", pos)
            if colon < 0:
                return items, n
            key = text[pos:colon].strip()
            if len(key) >= 2 * len(delim) and key.startswith(delim) and key.endswith(delim):
                key = key[len(delim) : -len(delim)]
            items[key], pos = _notation_value(text, colon + 1, delim)
    end = find_any(text, pos, ",}]")
    end = n if end < 0 else end
    return bare_value(text[pos:end].strip()), end


def _json_quoted(text: str, pos: int) -> tuple[str, int] | None:
    """The JSON string at ``pos`` and where it ends, when the next ``,`` ``}`` ``]`` (or
    the end) follows it; else None (the quote belongs to a bare word)."""
    end = json_string_end(text, pos + 1)
    if end < 0:
        return None
    after = NOT_SPACE(text, end + 1)
    if after is not None and text[after.start()] not in ",}]":
        return None
    try:
        return json.loads(text[pos : end + 1], strict=False), end + 1
    except ValueError:
        return None


def bare_value(word: str) -> Any:
    """A bare word as the notation writes values: a JSON number, ``true``, ``false`` or
    ``null`` is that value; anything else (``inf``, ``1e400``, ``Paris``) is text."""
    if not word or word[0] not in _LITERAL_START:
        return word
    try:
        value = _JSON_LITERAL(word)
    except ValueError:
        return word
    if isinstance(value, float) and not math.isfinite(value):
        return word  # 1e400: JSON cannot hold it
    return value if value is None or isinstance(value, (bool, int, float)) else word


_LITERAL_START: Final = frozenset("-0123456789tfn")

_JSON_LITERAL: Final = STRICT_JSON.decode
