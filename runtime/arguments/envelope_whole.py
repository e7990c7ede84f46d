"""A ``json_envelope`` call written as json.dumps writes one, read at once: the name,
then the arguments object, each part decoded once, in C (``EnvelopeArguments`` and
``EnvelopeSyntax`` take such a call whole; anything else is read piece by piece)."""

from __future__ import annotations

import functools
from typing import Any

from ..json_text import encode_string
from .scanning import scan_json_value, whole_json_string


def read_canonical(text: str, pos: int,
                   parts: tuple[str, tuple[str, ...]]) -> tuple[str, int, Any, int] | None:
    """An envelope at ``pos`` as json.dumps writes one, up to its arguments object:
    ``{"name": "f", "arguments": {...}`` gives (name, where the object starts, the
    object decoded, just past it), each part decoded once, in C; None otherwise.
    ``parts``: ``canonical_parts`` of the envelope's keys."""
    head, leads = parts
    # (Each part compared as a slice: compiled, startswith with a position is a generic
    # call that parses its arguments, per call of a run.)
    if text[pos : pos + len(head)] != head:
        return None
    pos += len(head)
    close = text.find('"', pos)
    name = text[pos:close] if close >= 0 else ""
    if close >= 0 and "\\" not in name and name.isprintable():
        pos = close + 1  # (a name as most are: its text is its value, no decoder called)
    else:
        try:
            name, pos = whole_json_string(text, pos, strict=True)
        except ValueError:
            return None
    for lead in leads:
        if text[pos : pos + len(lead)] == lead:
            pos += len(lead)
            break
    else:
        return None
    if text[pos : pos + 1] != "{":
        return None
    try:
        value, end = scan_json_value(text, pos)
    except ValueError:
        return None
    return name, pos, value, end


def read_keyed(text: str, pos: int) -> tuple[str, int, Any, int] | None:
    """``read_canonical`` for an envelope named by its only key, as json.dumps writes
    one: ``{"f": {...}`` gives (name, where the object starts, the object decoded, just
    past it); None otherwise (an empty name too: read piece by piece)."""
    if text[pos : pos + 2] != '{"':
        return None
    try:
        name, pos = whole_json_string(text, pos + 2, strict=True)
    except ValueError:
        return None
    if not name or text[pos : pos + 3] != ": {":
        return None
    try:
        value, end = scan_json_value(text, pos + 2)
    except ValueError:
        return None
    return name, pos + 2, value, end


@functools.lru_cache(maxsize=64)
def canonical_parts(name_key: str, argument_keys: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """A canonical envelope's text up to its name, and each text from the name to the
    arguments (made once per spelling, not once per call)."""
    return ("{" + encode_string(name_key) + ': "',
            tuple(", " + encode_string(k) + ": " for k in argument_keys))
