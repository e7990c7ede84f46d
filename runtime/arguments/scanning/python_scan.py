"""Python text arriving in pieces: strings, escapes and bracket depth (``PyScan``).

``py_escape_size``: how long an escape sequence is (0 while a delta cuts it).
``py_unescape``: the character an escape sequence stands for.
``py_closers``: what closes the strings and brackets a piece of Python leaves open.
"""

from __future__ import annotations

import re
from typing import Final

from mypy_extensions import mypyc_attr

# Where a quoted Python string may end or escape.
PY_STRING_STOP: Final = {q: re.compile(r"[\\%s]" % q) for q in ("'", '"')}
_PY_SPECIAL: Final = re.compile(r"""[\\'"()\[\]{},]""")
_PY_BRACKETS: Final = re.compile(r"""[\\'"()\[\]{}]""")


@mypyc_attr(allow_interpreted_subclasses=True)
class PyScan:
    """Python text across deltas: inside which string, after an escape, how deep in brackets.

    ``next`` stops at what ends a value: a comma (``commas``) or a closing bracket
    outside strings and outside brackets opened since ``reset`` (depth 0 or below);
    the caller decides whether it ends the value, and lowers ``depth`` for a closer
    it passes.  ``call``: the text is a call's arguments, so a ``)`` with no ``(`` open
    since ``reset`` closes the call, whatever brackets inside it the model left open.
    """

    __slots__ = ("quote", "escape", "depth", "_find", "call", "parens")

    def __init__(self, *, commas: bool = True, call: bool = False) -> None:
        self.quote = ""  # the quote of the string the text is in
        self.escape = False  # a backslash ended the last delta
        self.depth = 0
        self._find = (_PY_SPECIAL if commas else _PY_BRACKETS).search
        self.call = call
        self.parens = 0  # ``call``: how many ``(`` are open inside the call

    def reset(self) -> None:
        self.quote, self.escape, self.depth = "", False, 0
        self.parens = 0

    def next(self, text: str, pos: int) -> int:
        """Index of the next comma or closer at depth 0 or below, outside strings, or -1
        (``call``: or a ``)`` that closes no ``(``)."""
        n = len(text)
        if self.escape and pos < n:
            self.escape = False
            pos += 1  # the character a backslash at the end of the last delta escaped
        find = self._find
        while True:
            m = find(text, pos)
            if m is None:
                return -1
            i = m.start()
            ch = text[i]
            pos = i + 1
            if self.quote:
                if ch == "\\":
                    if pos == n:
                        self.escape = True
                        return -1
                    pos += 1
                elif ch == self.quote:
                    self.quote = ""
            elif ch in "'\"":
                self.quote = ch
            elif ch in "([{":
                self.depth += 1
                if ch == "(":
                    self.parens += 1
            elif ch in ")]}":
                if self.depth <= 0:
                    return i
                if ch == ")":
                    if self.parens:
                        self.parens -= 1
                    elif self.call:
                        return i  # the call's own parenthesis: what is open stays open
                self.depth -= 1
            elif ch == "," and self.depth <= 0:
                return i


_CLOSER: Final = {"(": ")", "[": "]", "{": "}"}


def py_closers(text: str) -> str:
    """The quote and brackets that close what ``text`` (Python) leaves open, innermost
    first; a closer that matches no open bracket is passed."""
    stack: list[str] = []
    quote = ""
    pos = 0
    while True:
        m = _PY_BRACKETS.search(text, pos)
        if m is None:
            break
        ch = m.group()
        pos = m.end()
        if quote:
            if ch == "\\":
                pos += 1
            elif ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in _CLOSER:
            stack.append(_CLOSER[ch])
        elif stack and stack[-1] == ch:
            stack.pop()
    return quote + "".join(reversed(stack))


_PY_ESCAPES: Final = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "\n": "",
               "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
_PY_HEX_ESCAPES: Final = {"x": 4, "u": 6, "U": 10}  # their length, backslash included
_OCTAL: Final = "01234567"
_PY_NAME_LIMIT: Final = 90
_PY_NAMED_ESCAPE: Final = re.compile(r"\\N\{[A-Za-z0-9 \-]{1,%d}\}" % _PY_NAME_LIMIT)
_PY_NOT_A_NAME: Final = re.compile(r"[^A-Za-z0-9 \-]")


def py_escape_size(text: str, i: int) -> int:
    """Length of the escape sequence at ``text[i]`` (a backslash), 0 if it is cut."""
    n = len(text)
    if i + 1 >= n:
        return 0
    kind = text[i + 1]
    if kind in _PY_HEX_ESCAPES:
        size = _PY_HEX_ESCAPES[kind]
        return size if i + size <= n else 0
    if kind == "N":  # \N{NAME}: names are short and quote-free
        if i + 2 >= n:
            return 0
        if text[i + 2] != "{":
            return 2
        m = _PY_NAMED_ESCAPE.match(text, i)
        if m is not None:
            return m.end() - i
        return 0 if n - i < _PY_NAME_LIMIT and not _PY_NOT_A_NAME.search(text, i + 3) else 2
    if kind in _OCTAL:
        j = i + 1
        while j < n and j < i + 4 and text[j] in _OCTAL:
            j += 1
        return j - i if j == i + 4 or j < n else 0
    return 2


def py_unescape(seq: str) -> str:
    """The character a Python escape sequence stands for; unknown ones stay as written."""
    simple = _PY_ESCAPES.get(seq[1])
    if simple is not None and len(seq) == 2:
        return simple
    if seq[1] in _OCTAL:
        return chr(int(seq[1:], 8))
    if seq[1] in _PY_HEX_ESCAPES or seq[1] == "N":
        try:
            return seq.encode("ascii").decode("unicode_escape")
        except UnicodeError:
            return seq
    return seq
