"""JSON text of typed values, as json.dumps(value, ensure_ascii=False) writes it, and
the one strict decoder that reads model text back.

A string through the C string encoder; any other value through a C encoder made once.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

encode_string: Callable[[str], str] = json.encoder.encode_basestring  # type: ignore[attr-defined]


def _value_encoder() -> Callable[[Any], str]:
    """json.dumps(value, ensure_ascii=False) without building an encoder per call.

    Even a reused JSONEncoder builds its C scanner anew per ``encode``; the C one is
    made once here.  It skips the circular-reference check: values come from decoded
    model text, which cannot hold a cycle."""
    make: Any = getattr(json.encoder, "c_make_encoder", None)
    try:
        iterencode = make(None, _not_json, encode_string, None, ": ", ", ", False, False, True)
    except TypeError:  # no C accelerator (None), or another signature
        return json.JSONEncoder(ensure_ascii=False).encode
    return lambda value: "".join(iterencode(value, 0))


def _not_json(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# JSON text of a value that is not a string (``to_json`` without its check).
encode_value: Final = _value_encoder()


def to_json(value: Any) -> str:
    """JSON text of a value, keeping non-ASCII characters as they are."""
    if type(value) is str:
        return encode_string(value)
    # (A typed scalar as json.dumps writes it, without the encoder's machinery.)
    if type(value) is int:
        return int.__repr__(value)
    if value is None or type(value) is bool:
        return _SCALARS[value]
    return encode_value(value)


_SCALARS: Final = {None: "null", True: "true", False: "false"}


def refuse_constant(name: str) -> Any:
    """A ``parse_constant`` hook: NaN, Infinity and -Infinity are not JSON."""
    raise ValueError(f"{name} is not JSON")


# One decoder shared by every reader of model text (json.loads with a hook builds a
# decoder, and its C scanner, per call).
STRICT_JSON: Final = json.JSONDecoder(parse_constant=refuse_constant)
