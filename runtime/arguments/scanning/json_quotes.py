"""Quotes a model left unescaped inside JSON strings (``{"cmd": "say "hi""}``).

One rule, in the streaming reader and for whole text alike: a quote ends its string only
where what may follow a string there follows it (after whitespace): a colon after a key;
a comma, ``}`` or ``]`` after a value.  Any other quote is text the model did not escape.
"""

from __future__ import annotations

import re
from typing import Final

from .json_strings import json_string_end
from .text import NOT_SPACE

KEY_ENDS: Final = ":"  # what may follow a key's closing quote
VALUE_ENDS: Final = ",}]"  # what may follow a value's closing quote
_SYNTAX: Final = re.compile(r'["{}\[\],:]').search


def quote_closes(buf: str, pos: int, ends: str) -> bool | None:
    """Whether the quote just before ``pos`` ends its string: the next character that is
    not whitespace is one of ``ends``; None while ``buf`` holds none yet."""
    m = NOT_SPACE(buf, pos)
    return None if m is None else buf[m.start()] in ends


def escape_stray_quotes(text: str) -> str | None:
    """Whole JSON text with each quote that does not end its string (``quote_closes``;
    a quote that only the end of ``text`` follows ends it) escaped; None where every
    quote ends its string (the text is as the model wrote it)."""
    parts: list[str] = []
    stack: list[str] = []
    key = False  # the next string is an object's key
    pos = last = 0
    while True:
        m = _SYNTAX(text, pos)
        if m is None:
            break
        i = m.start()
        ch = text[i]
        pos = i + 1
        if ch == '"':
            ends = KEY_ENDS if key else VALUE_ENDS
            while True:
                q = json_string_end(text, pos)
                if q < 0:  # never closed: the rest is the string's
                    pos = len(text)
                    break
                pos = q + 1
                if quote_closes(text, pos, ends) is not False:
                    break
                parts.append(text[last:q] + '\\"')
                last = pos
        elif ch == "{" or ch == "[":
            stack.append(ch)
            key = ch == "{"
        elif ch == ",":
            key = bool(stack) and stack[-1] == "{"
        else:  # a closer or a colon: a value comes next, or nothing
            if ch != ":" and stack:
                stack.pop()
            key = False
    if not parts:
        return None
    parts.append(text[last:])
    return "".join(parts)
