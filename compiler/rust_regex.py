"""The regex syntax the Rust backend's engine reads as Python's ``re`` does.

The Rust engine (``runtime/rust/``) compiles a format's header rules (``when``) and its
``cut_header`` with the ``fancy-regex`` crate (0.7, over ``regex`` 1.7), whose syntax is
not Python's: ``\\Z`` is an error there (its end of text is ``\\z``, which Python 3.13
does not read), ``[`` inside a class opens a nested class, ``&&``/``--``/``~~`` in a class
are set operations, Python's ``{,3}`` is ``{0,3}`` but not Rust's, and flags
``a``/``L``/``x`` differ.  A spec's regex is checked against the subset both read alike
(docs/spec.md, "Regexes the Rust backend reads"), so that ``build --target rust`` refuses
what the Rust engine would panic on or read otherwise, naming the spec line.
"""

from __future__ import annotations

import re
import string

from .diagnostics import Diagnostic, Position, json_path
from .ir import FormatIR

# Escapes both read alike: classes, anchors, controls, hex and Unicode code points.
_CLASS_ESCAPES = frozenset("dDsSwW")
_OUTSIDE_ONLY = frozenset("AbB")  # (\b in a Python class is a backspace)
_CONTROLS = frozenset("afnrtv")
_HEX_DIGITS = {"x": 2, "u": 4, "U": 8}
# What may follow "(?": the groups and assertions both have, then flags.
_GROUPS = (":", "=", "!", "<=", "<!", "P<", "P=", ">", "#")
_FLAGS = frozenset("ims-")
_REPEAT = re.compile(r"\{\d+(?:,\d*)?\}")


def rust_regex_problem(pattern: str) -> str | None:
    """Why the Rust engine would not read ``pattern`` (a valid Python regex) as Python
    does, or None when it is in the subset both read alike."""
    i, n = 0, len(pattern)
    in_class = False
    class_start = 0
    while i < n:
        ch = pattern[i]
        if ch == "\\":
            why = _escape_problem(pattern, i, in_class)
            if why:
                return why
            i += 2 + _HEX_DIGITS.get(pattern[i + 1], 0)
            continue
        if in_class:
            if ch == "]" and i > class_start:
                in_class = False
            elif ch == "[":
                return "'[' inside a class opens a nested or POSIX class in Rust: write \\["
            elif pattern[i:i + 2] in ("&&", "--", "~~"):
                return f"{pattern[i:i + 2]!r} inside a class is a set operation in Rust"
            i += 1
            continue
        if ch == "[":
            in_class = True
            i += 1 + (pattern[i + 1:i + 2] == "^")
            class_start = i  # a ']' right here is a literal ']', in both
            continue
        if ch == "(" and pattern[i + 1:i + 2] == "?":
            why = _group_problem(pattern[i + 2:])
            if why:
                return why
            if pattern[i + 2:i + 3] == "#":  # a comment: to its ')'
                i = pattern.index(")", i) + 1
                continue
        if ch == "{" and not _REPEAT.match(pattern, i):
            return ("a '{' that is no repetition {n}, {n,} or {n,m} (Python reads {,m} as {0,m}, "
                    "which Rust does not): write \\{ or {0,m}")
        i += 1
    return None


def _escape_problem(pattern: str, i: int, in_class: bool) -> str | None:
    """Why the escape at ``pattern[i]`` is not read alike, or None."""
    c = pattern[i + 1]
    if c in string.punctuation or c == " ":
        return None  # an escaped literal
    if c in _CLASS_ESCAPES or c in _CONTROLS or (c in _OUTSIDE_ONLY and not in_class):
        return None
    if c in _HEX_DIGITS:
        digits = pattern[i + 2:i + 2 + _HEX_DIGITS[c]]
        if len(digits) == _HEX_DIGITS[c] and all(d in string.hexdigits for d in digits):
            return None
    if c == "Z":
        return ("\\Z (the end of the text) is an error in Rust, whose \\z Python does not "
                "read: write (?![\\s\\S]), or $ (which Python lets match before a last "
                "newline)")
    if c.isdigit():
        return f"\\{c}: backreferences and octal escapes are outside the subset both read alike"
    return f"\\{c}: not an escape the Rust engine reads as Python does"


def _group_problem(rest: str) -> str | None:
    """Why the ``(?`` construct ``rest`` starts is not read alike, or None."""
    if rest.startswith(_GROUPS):
        return None
    flags = rest[: len(rest) - len(rest.lstrip(string.ascii_letters + "-"))]  # (its letters)
    if flags and rest[len(flags):len(flags) + 1] in (":", ")"):
        other = sorted(set(flags) - _FLAGS)
        if not other:
            return None
        return (f"the flag{'s' if len(other) > 1 else ''} {''.join(other)} (only i, m and s "
                f"mean the same in Rust)")
    return f"(?{rest[:2]}...: not a group the Rust engine reads as Python does"


def rust_regex_diagnostics(fmt: FormatIR) -> list[Diagnostic]:
    """Each regex of ``fmt`` that its Rust module compiles (header rules, cut_header) and
    the Rust engine would not read as Python does, at its spec line, in spec order."""
    found = []
    if fmt.cut_header is not None:
        found.append((fmt.cut_header, "$.cut_header", fmt.lines.get("cut_header") or 1))
    for state in fmt.states:
        for tr in state.transitions:
            for i, rule in enumerate(tr.rules):
                if rule.when is not None:
                    key = json_path(("transitions", state.name, tr.terminal, i, "when"))
                    found.append((rule.when, key, fmt.lines.get(key) or tr.line))
    return sorted(Diagnostic(Position(fmt.source, line, 1), path,
                             f"the Rust backend (build --target rust) cannot use this regex: {why}")
                  for pattern, path, line in found
                  for why in [rust_regex_problem(pattern)] if why)
