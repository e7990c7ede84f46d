"""Tool call ids: ``chatcmpl-tool-...`` or 9 alphanumerics, random or sequential."""

from __future__ import annotations

import os
import string
from random import Random
from typing import Final

from mypy_extensions import mypyc_attr

_ALNUM: Final = string.ascii_letters + string.digits
# uuid.uuid4()'s version and variant bits, set on 128 random bits (as uuid.UUID does,
# without building a UUID object per call).
_UUID4_CLEAR: Final = ~((0xF000 << 64) | (0xC000 << 48))
_UUID4_SET: Final = (0x4000 << 64) | (0x8000 << 48)


# Call ids' random bits: a generator of our own, seeded by the system, so a program
# that seeds ``random`` for its own reasons does not repeat ids; reseeded in every forked
# child, so workers do not share them.
_IDS: Final = Random()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_IDS.seed)


_HEX2: Final = tuple(f"{i:02x}" for i in range(256))  # a byte as two hex digits


@mypyc_attr(allow_interpreted_subclasses=True)
class CallIds:
    """Tool call ids: ``chatcmpl-tool-...`` or 9 alphanumerics; random or sequential."""

    def __init__(self, style: str | None, ids: str) -> None:
        self.short = style == "alnum9"
        self.sequential = ids == "sequential"
        self.count = 0
        # Random ids: a uuid4's first 24 hex digits (its version and variant among
        # them) drawn once per completion, then its last 8 counted on from a random
        # start: one draw per request, not per call (a call-dense text has thousands).
        self._prefix = ""
        self._base = 0

    def next(self) -> str:
        """The next call's id."""
        count = self.count
        self.count = count + 1
        if not self._prefix:  # (random ids have one after the first: asked first)
            if self.sequential:
                return f"call{count:05d}" if self.short else f"chatcmpl-tool-{count}"
            if self.short:
                return "".join(_IDS.choices(_ALNUM, k=9))  # (unique, not secret)
            # (One draw: a uuid4's first 24 hex digits, its last 32 bits the count's start.)
            bits = _IDS.getrandbits(128) & _UUID4_CLEAR | _UUID4_SET
            self._prefix = f"chatcmpl-tool-{bits >> 32:024x}"
            self._base = bits & 0xFFFFFFFF
        n = (self._base + count) & 0xFFFFFFFF
        # (Four table lookups in one build: "%08x" parses its format on every call.)
        return (f"{self._prefix}{_HEX2[n >> 24]}{_HEX2[n >> 16 & 255]}"
                f"{_HEX2[n >> 8 & 255]}{_HEX2[n & 255]}")


__all__ = ["CallIds"]
