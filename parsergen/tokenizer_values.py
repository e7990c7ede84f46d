"""A spec's ``tokenizer_values`` read from a tokenizer: the values its markers are spelt
with for that checkpoint (``FormatEntry.tokenizer_values``; docs/spec.md).

The rule is the spec's, not a format's: the tokenizer's ``init_kwargs`` key if it is set
and not empty, else the first group of the first vocabulary token the declared regex
matches whole, else the default.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

Declaration = tuple[str, "str | None", "str | None", str]


def read_values(declarations: Iterable[Declaration], tokenizer: Any) -> dict[str, str]:
    """Each declared value as ``tokenizer`` gives it (name -> text)."""
    init_kwargs = getattr(tokenizer, "init_kwargs", None) or {}
    vocab: Any = None
    out: dict[str, str] = {}
    for name, key, pattern, default in declarations:
        value = init_kwargs.get(key) if key else None
        if isinstance(value, str) and value:
            out[name] = value
            continue
        if pattern:
            if vocab is None:  # (read once: a vocabulary may hold 200k tokens)
                get_vocab = getattr(tokenizer, "get_vocab", None)
                vocab = get_vocab() if callable(get_vocab) else {}
            found = _first_match(re.compile(pattern), vocab)
            if found is not None:
                out[name] = found
                continue
        out[name] = default
    return out


def _first_match(pattern: re.Pattern[str], vocab: Iterable[str]) -> str | None:
    """The first group of the first token ``pattern`` matches whole ("" if it takes no part)."""
    for token in vocab:
        if isinstance(token, str):
            match = pattern.fullmatch(token)
            if match:
                return match.group(1) or ""
    return None


__all__ = ["read_values"]
