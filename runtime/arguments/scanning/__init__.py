"""Scanning shared by the argument syntaxes (and the call bodies), one module per kind.

Every scanner jumps between the characters that matter with a compiled regex instead
of looking at each character in Python, and keeps what it needs across deltas.
``json_strings``: JSON string text in pieces (where it ends, its text decoded).
``json_structure``: JSON in pieces, strings skipped and brackets counted.
``json_whole``: complete JSON decoded at once by the json module's C scanners.
``json_quotes``: which quote ends a JSON string; quotes a model left unescaped.
``python_scan``: Python strings, escapes and brackets in pieces.
``python_literals``: a complete Python literal as a JSON value.
``text``: the next character that is not whitespace; a literal cut by a delta's end.
``entities``: XML character references decoded.
"""

from __future__ import annotations

from .entities import ENTITY_DECODERS, unescape_xml
from .json_quotes import KEY_ENDS, VALUE_ENDS, escape_stray_quotes, quote_closes
from .json_strings import JSON_STRING_STOP, decode_json_string, json_string_end
from .json_structure import JsonDepth, JsonScan
from .json_whole import (scan_json_value, whole_json_string, whole_json_value, whole_member_key,
                         whole_value_end)
from .python_literals import JSON_NAMES, py_literal
from .python_scan import PY_STRING_STOP, PyScan, py_closers, py_escape_size, py_unescape
from .text import NOT_SPACE, partial_len, tail_prefix

__all__ = [
    "ENTITY_DECODERS",
    "JSON_STRING_STOP",
    "KEY_ENDS",
    "NOT_SPACE",
    "PY_STRING_STOP",
    "VALUE_ENDS",
    "JsonDepth",
    "JsonScan",
    "PyScan",
    "decode_json_string",
    "escape_stray_quotes",
    "json_string_end",
    "partial_len",
    "py_closers",
    "py_escape_size",
    "JSON_NAMES",
    "py_literal",
    "py_unescape",
    "quote_closes",
    "scan_json_value",
    "tail_prefix",
    "unescape_xml",
    "whole_json_string",
    "whole_json_value",
    "whole_member_key",
    "whole_value_end",
]
