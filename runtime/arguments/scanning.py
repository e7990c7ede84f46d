"""Scanning shared by the argument syntaxes (and the call bodies): JSON strings and
structure, Python strings, escapes and literals, and partial literals at a delta's end.

Every scanner jumps between the characters that matter with a compiled regex instead
of looking at each character in Python, and keeps what it needs across deltas.
"""

from __future__ import annotations

import ast
import json
import math
import re
from typing import Any, Final

from mypy_extensions import mypyc_attr

# -- character references -----------------------------------------------------------

_XML_REFERENCE: Final = re.compile(r"&(?:(amp|lt|gt|quot|apos)|#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6}));")
_XML_NAMED: Final = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}


def _xml_reference(m: re.Match[str]) -> str:
    """The character one XML reference stands for."""
    named, dec, hexa = m.groups()
    if named:
        return _XML_NAMED[named]
    code = int(dec) if dec else int(hexa, 16)
    # Not a character XML can hold (NUL, a surrogate, past Unicode): kept as written.
    if code == 0 or 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
        return m.group()
    return chr(code)


def unescape_xml(text: str) -> str:
    """XML's character references decoded: ``&amp; &lt; &gt; &quot; &apos;``, ``&#N;``
    and ``&#xH;``; anything else (``&copy;``, a bare ``&``) is kept as written."""
    return _XML_REFERENCE.sub(_xml_reference, text) if "&" in text else text


# Spec value (``tool_name.entities``, ``xml_parameters`` ``entities``) -> decoder.
ENTITY_DECODERS: Final = {"xml": unescape_xml}

# -- JSON ---------------------------------------------------------------------------

JSON_STRING_STOP: Final = re.compile(r'["\\]').search  # where a JSON string may end or escape
NOT_SPACE: Final = re.compile(r"\S").search
_STRUCTURAL: Final = re.compile(r'["{}\[\],]').search
_DEPTH_CHANGE: Final = re.compile(r'["\\{}\[\]]').search  # what may change a JsonDepth's state
_SIMPLE_ESCAPES: Final = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n",
                   "r": "\r", "t": "\t"}


@mypyc_attr(allow_interpreted_subclasses=True)
class JsonScan:
    """Remembers, across deltas, whether the text is inside a string or an escape."""

    __slots__ = ("in_string", "escape")

    def __init__(self) -> None:
        self.in_string = False
        self.escape = False

    def reset(self) -> None:
        self.in_string = False
        self.escape = False

    def next(self, text: str, pos: int) -> int:
        """Index of the next ``{ } [ ] ,`` outside strings at or after ``pos``, or -1."""
        n = len(text)
        while pos < n:
            if self.escape:
                self.escape = False
                pos += 1
                continue
            if self.in_string:
                m = JSON_STRING_STOP(text, pos)
                if m is None:
                    return -1
                i = m.start()
                if text[i] == "\\":
                    self.escape = True
                else:
                    self.in_string = False
                pos = i + 1
                continue
            m = _STRUCTURAL(text, pos)
            if m is None:
                return -1
            i = m.start()
            if text[i] != '"':
                return i
            self.in_string = True
            pos = i + 1
        return -1


@mypyc_attr(allow_interpreted_subclasses=True)
class JsonDepth:
    """JSON structure arriving in pieces: strings skipped (``JsonScan``), brackets counted."""

    __slots__ = ("scan", "depth")

    def __init__(self) -> None:
        self.scan = JsonScan()
        self.depth = 0

    def reset(self) -> None:
        self.scan.reset()
        self.depth = 0

    def next(self, text: str, pos: int) -> int:
        """Index of the next ``, { } [ ]`` outside strings at or after ``pos``, or -1;
        ``depth`` already counts it (a closer at depth 0 leaves it at -1)."""
        i = self.scan.next(text, pos)
        if i >= 0:
            ch = text[i]
            if ch == "{" or ch == "[":
                self.depth += 1
            elif ch != ",":
                self.depth -= 1
        return i

    def passes(self, text: str) -> bool:
        """Whether ``text`` leaves the structure as it is (no bracket, quote or backslash,
        no escape pending): it cannot close the value, and need not be scanned."""
        return not self.scan.escape and _DEPTH_CHANGE(text) is None

    def goes_on(self, text: str) -> bool:
        """Whether the value goes on past ``text``: then ``text`` is counted (as ``find``
        counts it); where it closes in ``text``, nothing changes."""
        if self.passes(text):
            return True
        scan = self.scan
        depth, in_string, escape = self.depth, scan.in_string, scan.escape
        if self.find(text, 0) < 0:
            return True
        self.depth, scan.in_string, scan.escape = depth, in_string, escape
        return False

    def find(self, text: str, pos: int) -> int:
        """Just past the bracket that closes the value (depth back to 0), or -1 if it is
        not in ``text``."""
        while True:
            i = self.next(text, pos)
            if i < 0:
                return -1
            if self.depth <= 0 and text[i] in "}]":
                return i + 1
            pos = i + 1


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


# -- complete JSON in one piece: decoded by the json module's C scanners ----------------

# (Public in CPython's json package, left out of its type stubs.)
_SCAN_STRING: Any = json.decoder.scanstring  # type: ignore[attr-defined]
_SURROGATE: Final = re.compile("[\ud800-\udfff]").search


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_SCAN_VALUE: Any = json.JSONDecoder(parse_constant=_no_constant).scan_once  # type: ignore[attr-defined]


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


def _is_hex(s: str) -> bool:
    return len(s) == 4 and all(c in "0123456789abcdefABCDEF" for c in s)


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


# -- literals cut by a delta ----------------------------------------------------------


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


# -- Python -----------------------------------------------------------------------------

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
    it passes.
    """

    __slots__ = ("quote", "escape", "depth", "_find")

    def __init__(self, *, commas: bool = True) -> None:
        self.quote = ""  # the quote of the string the text is in
        self.escape = False  # a backslash ended the last delta
        self.depth = 0
        self._find = (_PY_SPECIAL if commas else _PY_BRACKETS).search

    def reset(self) -> None:
        self.quote, self.escape, self.depth = "", False, 0

    def next(self, text: str, pos: int) -> int:
        """Index of the next comma or closer at depth 0 or below, outside strings, or -1."""
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
            elif ch in ")]}":
                if self.depth <= 0:
                    return i
                self.depth -= 1
            elif ch == "," and self.depth <= 0:
                return i


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


_INT_BITS: Final = 14_000  # beyond about 4,300 digits Python will not write an int in decimal


def py_literal(raw: str) -> tuple[Any, list[str]]:
    """A Python literal as a JSON value, and the texts of the values in it JSON cannot hold.

    Such a value (``1e400``, ``-inf`` spelled as a number, ``1j``, ``b'x'``, ``...``) becomes
    its own text as the model wrote it, so the arguments stay strict JSON; tuples and sets
    become lists (JSON has no set: its elements in written order, duplicates dropped as the
    set drops them).  Raises as ast.literal_eval does for text that is no literal.

    The tree is walked here, not by literal_eval: literal_eval defines recursive closures on
    every call (reference cycles that stay allocated until the collector runs, so a stream of
    calls would grow memory), and only the tree knows each value's text.
    """
    src = raw.lstrip(" \t")
    lost: list[str] = []
    return _py_json(ast.parse(src, mode="eval").body, src, lost), lost


def _py_json(node: ast.AST, src: str, lost: list[str]) -> Any:
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_py_json(e, src, lost) for e in node.elts]
    if isinstance(node, ast.Set):
        seen: set[Any] = set()
        out = []
        for e in node.elts:
            key = _py_value(e)  # unhashable elements raise, as in Python
            if key not in seen:
                seen.add(key)
                out.append(_py_json(e, src, lost))
        return out
    if isinstance(node, ast.Dict) and None not in node.keys:
        # Keys as str() of their Python value; a repeated key keeps its last value.
        values = {_py_value(k): _py_json(v, src, lost)  # type: ignore[arg-type]
                  for k, v in zip(node.keys, node.values)}
        return {str(k): v for k, v in values.items()}
    value = _py_value(node)
    if isinstance(value, (set, frozenset)) and not value:  # set(), literal_eval's one call
        return []
    if (isinstance(value, float) and not math.isfinite(value)
            or isinstance(value, int) and value.bit_length() > _INT_BITS
            or not (value is None or isinstance(value, (str, int, float)))):
        text = ast.get_source_segment(src, node) or repr(value)
        lost.append(text)
        return text
    return value


def _py_value(node: ast.AST) -> Any:
    """The Python value of a literal node, as ast.literal_eval gives it."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_py_value(e) for e in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Dict) and None not in node.keys:
        return {_py_value(k): _py_value(v)  # type: ignore[arg-type]
                for k, v in zip(node.keys, node.values)}
    if (isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub))
            and isinstance(node.operand, ast.Constant)
            and type(node.operand.value) in (int, float, complex)):  # fmt: skip
        value: Any = node.operand.value  # (a number, checked above)
        return -value if isinstance(node.op, ast.USub) else +value
    return ast.literal_eval(node)  # sets, complex sums, and the errors: as literal_eval
