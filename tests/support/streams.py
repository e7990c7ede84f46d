"""Inputs as a model, a server and a request make them (typed token ids, grouped deltas,
tool schemas): shared by the tests and the benchmarks."""

from __future__ import annotations

import random
import re
from typing import Any

Deltas = list[tuple[str, list[int]]]

_ADDED: dict[int, re.Pattern[str] | None] = {}


def _added_pattern(tokenizer: Any) -> re.Pattern[str] | None:
    """The tokenizer's added tokens (longest first) as one regex, or None."""
    key = id(tokenizer)
    if key not in _ADDED:
        words = sorted((w for w in tokenizer.get_added_vocab() if len(w) > 1), key=len,
                       reverse=True)  # fmt: skip
        _ADDED[key] = re.compile("|".join(map(re.escape, words))) if words else None
    return _ADDED[key]


def typed_ids(tokenizer: Any, text: str) -> list[int]:
    """Ids of text the model typed: never an added token, even where it spells one
    (such a spelling is encoded one character at a time)."""
    added = _added_pattern(tokenizer)
    ids: list[int] = []
    pos = 0
    for m in added.finditer(text) if added is not None else ():
        if m.start() > pos:
            ids += tokenizer.encode(text[pos : m.start()], add_special_tokens=False)
        for ch in m.group():
            ids += tokenizer.encode(ch, add_special_tokens=False)
        pos = m.end()
    if pos < len(text):
        ids += tokenizer.encode(text[pos:], add_special_tokens=False)
    return ids


def encode_pieces(tokenizer: Any, pieces: list[tuple[str, bool]]) -> list[int]:
    """Ids of (text, is_marker) pieces: markers encoded as the tokenizer has them, the
    rest as typed text (``typed_ids``)."""
    ids: list[int] = []
    for text, is_marker in pieces:
        if not text:
            continue
        if is_marker:
            ids += tokenizer.encode(text, add_special_tokens=False)
        else:
            ids += typed_ids(tokenizer, text)
    return ids


def token_deltas(tokenizer: Any, ids: list[int]) -> Deltas:
    """One delta per token, as a server's incremental detokenizer makes them."""
    from tokenizers.decoders import DecodeStream

    stream = DecodeStream(skip_special_tokens=False)
    backend = tokenizer.backend_tokenizer
    return [(stream.step(backend, tid) or "", [tid]) for tid in ids]


def text_pieces(text: str, rng: random.Random, most: int = 8) -> Deltas:
    """``text`` in random pieces of 1 to ``most`` characters, without ids."""
    out, i = [], 0
    while i < len(text):
        n = rng.randint(1, most)
        out.append((text[i : i + n], []))
        i += n
    return out


def token_groups(deltas: Deltas, rng: random.Random) -> Deltas:
    """Random groups of 1-8 consecutive token deltas, texts and ids joined."""
    out, i = [], 0
    while i < len(deltas):
        n = rng.randint(1, 8)
        chunk = deltas[i : i + n]
        out.append(("".join(t for t, _ in chunk), [x for _, ids in chunk for x in ids]))
        i += n
    return out


def schema_of(value: Any) -> dict[str, Any]:
    """A JSON Schema that types ``value`` exactly (what a request's tools would say)."""
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "integer"}
    if isinstance(value, float):
        return {"type": "number"}
    if isinstance(value, str):
        return {"type": "string"}
    if value is None:
        return {"type": "null"}
    if isinstance(value, list):  # lists are homogeneous; objects in one merge their keys
        if value and all(isinstance(v, dict) for v in value):
            return {"type": "array", "items": schema_of({k: v for d in value for k, v in d.items()})}
        return {"type": "array", **({"items": schema_of(value[0])} if value else {})}
    return {"type": "object", "properties": {k: schema_of(v) for k, v in value.items()}}


def cadences(text: str, tokenizer: Any = None, seeds: int = 3, cuts: bool = False) -> dict[str, Deltas]:
    """``text`` as a stream in several cadences: without a tokenizer whole, one character
    per delta, random pieces (``seeds`` of them) and, with ``cuts``, two deltas split at
    every index; with one, one token per delta and random groups of tokens."""
    if tokenizer is None:
        out = {"whole": [(text, [])], "chars": [(ch, []) for ch in text]}
        for seed in range(seeds):
            out[f"random {seed}"] = text_pieces(text, random.Random(seed), 9)
        if cuts:
            for cut in range(1, len(text)):
                out[f"cut {cut}"] = [(text[:cut], []), (text[cut:], [])]
        return out
    per_token = token_deltas(tokenizer, tokenizer.encode(text, add_special_tokens=False))
    out = {"tokens": per_token}
    for seed in range(seeds):
        out[f"groups {seed}"] = token_groups(per_token, random.Random(seed))
    return out


def recording_parser(module: Any, seen: list[Any], *args: Any, **kwargs: Any) -> Any:
    """A ChatParser of ``module`` that also puts every item the driver gives its
    assembly in ``seen`` (raw text, events, CallRuns): a subclass, as a compiled
    parser's methods cannot be replaced on the instance."""

    class Recording(module.ChatParser):  # type: ignore[name-defined,misc]
        def _push(self, items: list[Any], finished: bool) -> Any:
            seen.extend(items)
            return super()._push(items, finished)

    return Recording(*args, **kwargs)


def tapped_text(seen: list[Any]) -> str:
    """The text a recording parser's pushes hold (``recording_parser``): the raw tap's
    pieces and the runs' calls, in order (all the text, when every byte is accounted)."""
    from parsergen.runtime.events import CallRun, RawText

    out = []
    for item in seen:
        if type(item) is RawText:
            out.append(item.text)
        elif type(item) is CallRun:
            out.extend(b + s + t + e for b, s, t, e, _ in item.calls)
    return "".join(out)
