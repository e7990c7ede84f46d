"""Benchmark completions: messages written by each format's own renderer, as token ids.

Shared by ``run.py`` (timing), ``linearity.py`` and ``memory.py``.  Nothing here imports
the tests' modules: the tokenizers come from ``tests/support/tokenizers.py`` by way of
``tools/capture_goldens.py`` (both import nothing from pytest or parsergen), with the
format -> tokenizer table (``FORMAT_TOKENIZERS``).

A completion is a list of segments, ``(token ids, repeat)``: the renderer's pieces with
markers encoded as their tokens and text as typed text (never an added token, the way
``tests/test_properties.py`` ``_encode`` does it), and the reasoning and content bodies
as blocks that may repeat (for the long completions of the linearity and memory runs).
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

# Before transformers is imported (by the tokenizers): its "PyTorch was not found"
# notice is noise here, only the tokenizers are used.
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import parsergen  # noqa: E402
from capture import ROOT, load_capture_tool  # noqa: E402

CG = load_capture_tool()  # puts tests/ on sys.path
from support.streams import Deltas, schema_of, token_groups, typed_ids  # noqa: E402,F401


def tokenizer_table() -> dict[str, str]:
    """The test tokenizer of every format (tests/support/tokenizers.py)."""
    return CG.toks.FORMAT_TOKENIZERS


def get_tokenizer(fmt: str) -> Any:
    """The format's test tokenizer (cached per tokenizer name)."""
    return CG.toks.TOKENIZERS[tokenizer_table()[fmt]]()


def vllm_reference(fmt: str) -> Any:
    """tools/golden_corpus.py REFERENCES[fmt], or None (reasoning-only formats)."""
    return CG.REFERENCES.get(fmt)


def thinking_for(module: ModuleType) -> bool:
    """Thinking on when the format can write reasoning with it, else off if that can,
    else the format's default."""
    renderer = module.RENDERER
    if renderer.can_render_reasoning(True):
        return True
    if renderer.can_render_reasoning(False):
        return False
    return bool(renderer.thinking_default)


# -- the message ------------------------------------------------------------------------

# Prose vocabulary; "|" separates choices.
OPENERS = "|Hmm, |Wait, |Okay, |Actually, |First, |Then |So |Still, ".split("|")
SUBJECTS = (
    "the user|the request|this approach|the cache layer|our parser|the team in Zürich|"
    "the office in 東京|a careful reader|the forecast API|the second option|"
    "the café near the station|the naïve version"
).split("|")
VERBS = (
    "needs|suggests|implies|depends on|rules out|probably wants|should return|cannot handle|"
    "was built for|would simplify"
).split("|")
OBJECTS = (
    "a streaming answer|the weather for the next three days|an exact byte count|one more lookup|"
    "a short summary in plain words|the metric units|a retry with backoff|"
    "the list of open issues|a cheaper query 😀|both time zones (UTC+1 and UTC+9)"
).split("|")
CLAUSES = (
    "because the forecast changes hourly|so I should double-check the units|"
    "unless the API times out|which is fine|but only if the cache is warm|"
    "and that costs about 40 ms|as the docs say in §3.2|though I'm not sure 🤔"
).split("|")
CODE = ["`for i in range(n): total += i`", "`if a < b and b <= c: swap(a, c)`",
        '`data = {"k": [1, 2, 3], "ok": true}`']  # fmt: skip
BLOCKS = [
    "```python\ndef area(r: float) -> float:\n    return 3.14159 * r ** 2\n```",
    "```js\nconst ids = items.filter(x => x.ok).map(x => x.id);\n```",
]


def sentence(rng: random.Random) -> str:
    """One reasoning sentence, now and then with inline code or a code block."""
    s = f"{rng.choice(OPENERS)}{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)}"
    if rng.random() < 0.5:
        s += f", {rng.choice(CLAUSES)}"
    if rng.random() < 0.15:
        s += f"; compare {rng.choice(CODE)}"
    s = s[0].upper() + s[1:] + "."
    if rng.random() < 0.04:
        return f"{s} Something like:\n\n{rng.choice(BLOCKS)}\n\n"
    return s + ("\n\n" if rng.random() < 0.2 else " ")


CONTENT = (
    "Here is the plan for your trip to Zürich and 東京 ✈️:\n\n"
    "1. **Weather**: I'm checking the next five days in Zürich (metric units, °C).\n"
    "2. **Food**: looking for ramen near Tōkyō station 🍜, open now, price level 1–3.\n"
    "3. **Notes**: saving a packing list to `/tmp/notes/trip.md`.\n"
    "4. **Calendar**: a café meeting with Zoë and Łukasz on Monday at 09:30 JST.\n\n"
    "Naïve estimates say the flight takes about 14 h; I'll confirm once the results are in. "
)


def tool_calls(rng: random.Random) -> list[tuple[str, dict[str, Any]]]:
    """Four calls: strings with non-ASCII, quotes and newlines, numbers, booleans,
    null, lists and nested objects."""
    city = rng.choice(["Zürich", "São Paulo", "Kraków", "Reykjavík"])
    note = (
        f"# Trip to {city} and 東京\n\nvia Zürich → 東京 ✈️\n- pack an umbrella ☔\n"
        '- say "こんにちは" to the host\n- budget: 1200 € ≈ ¥190000\n'
    )
    return [
        ("get_weather", {"city": city, "days": rng.randint(3, 7), "units": "metric"}),
        ("search_places", {"query": "ramen near 東京 station 🍜", "limit": 5,
                           "filters": {"open_now": True, "price": {"min": 1, "max": 3},
                                       "languages": ["ja", "en"], "tags": ["noodles", "夜"]}}),
        ("write_file", {"path": "/tmp/notes/trip.md", "content": note, "overwrite": False}),
        ("create_event", {"title": "Café ☕ with Zoë & Łukasz",
                          "start": "2026-12-07T09:30:00+09:00",
                          "duration_minutes": 45, "attendees": ["zoe@example.com", "佐藤さん"],
                          "reminder": None}),
    ]  # fmt: skip


def tools_for(calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The request's OpenAI tool definitions for these calls (one per name)."""
    seen: dict[str, dict[str, Any]] = {}
    for name, args in calls:
        seen.setdefault(name, {"type": "function", "function": {
            "name": name, "description": f"{name.replace('_', ' ')}",
            "parameters": schema_of(args)}})  # fmt: skip
    return list(seen.values())


# -- token ids --------------------------------------------------------------------------


def piece_ids(tokenizer: Any, text: str, is_marker: bool) -> list[int]:
    """A rendered piece's ids: a marker as its token(s), text as typed."""
    if not text:
        return []
    if is_marker:
        return tokenizer.encode(text, add_special_tokens=False)
    return typed_ids(tokenizer, text)


def token_texts(tokenizer: Any, ids: Iterator[int] | list[int]) -> Iterator[str]:
    """Per-token delta text, as a server's incremental detokenizer releases it (empty
    while a character's bytes are incomplete)."""
    from tokenizers.decoders import DecodeStream

    stream = DecodeStream(skip_special_tokens=False)
    backend = tokenizer.backend_tokenizer
    step = stream.step
    for tid in ids:
        yield step(backend, tid) or ""


# -- completions ------------------------------------------------------------------------

REASONING_MARK = "\ue000reasoning\ue000"  # private-use placeholders for the bodies
CONTENT_MARK = "\ue000content\ue000"


@dataclass
class Completion:
    """One format's completion: segments of token ids, each repeated ``repeat`` times."""

    fmt: str
    thinking: bool
    tools: list[dict[str, Any]]
    segments: list[tuple[list[int], int]]
    texts: list[str]  # the text of each segment (one repetition)
    expected: tuple[str | None, str | None, list[tuple[str, Any]]]
    parts: dict[str, int] = field(default_factory=dict)  # tokens per part of the message

    @property
    def n_tokens(self) -> int:
        return sum(len(ids) * rep for ids, rep in self.segments)

    @property
    def n_bytes(self) -> int:
        return sum(len(t.encode()) * rep for t, (_, rep) in zip(self.texts, self.segments))

    def ids(self) -> Iterator[int]:
        """Every token id, lazily."""
        for ids, rep in self.segments:
            for _ in range(rep):
                yield from ids

    def text(self) -> str:
        return "".join(t * rep for t, (_, rep) in zip(self.texts, self.segments))

    def token_deltas(self, tokenizer: Any) -> Iterator[tuple[str, list[int]]]:
        """One delta per token, lazily: (text the detokenizer releases, [id])."""
        ids = self.ids()
        ids2 = self.ids()
        for text in token_texts(tokenizer, ids):
            yield text, [next(ids2)]


CADENCE_LABEL = {"tokens": "per token", "groups": "1-8 token groups"}


def cadences(c: Completion, tokenizer: Any) -> dict[str, Deltas]:
    """The completion's deltas per cadence: one per token, and random groups of 1-8
    consecutive tokens (seeded per format; texts and ids joined)."""
    tokens = list(c.token_deltas(tokenizer))
    if "".join(t for t, _ in tokens) != c.text():
        raise RuntimeError(f"{c.fmt}: detokenized deltas do not spell the completion")
    return {"tokens": tokens, "groups": token_groups(tokens, random.Random(f"groups/{c.fmt}"))}


def _message(reasoning: str | None, content: str | None, calls: list) -> dict[str, Any]:
    return {"reasoning": reasoning, "content": content,
            "tool_calls": [{"name": n, "arguments": a} for n, a in calls]}  # fmt: skip


def build(fmt: str, tokenizer: Any, *, reasoning: str, content: str,
          calls: list[tuple[str, dict[str, Any]]], reasoning_repeat: int = 1,
          content_repeat: int = 1) -> Completion:  # fmt: skip
    """Render the message with the format's renderer and encode it.

    The reasoning and content bodies are rendered as placeholders and replaced by
    their typed ids (repeated ``*_repeat`` times), so a long body costs one encoding.
    """
    module = parsergen.load(fmt)
    renderer = module.RENDERER
    thinking = thinking_for(module)
    if not renderer.can_render_reasoning(thinking):
        reasoning, reasoning_repeat = "", 0
    if renderer.call is None:
        calls = []
    message = _message(REASONING_MARK if reasoning else None, CONTENT_MARK, calls)
    pieces = renderer.pieces(message, thinking=thinking)
    segments: list[tuple[list[int], int]] = []
    texts: list[str] = []
    parts = {"reasoning": 0, "content": 0, "markup and calls": 0}
    cache: dict[tuple[str, bool], list[int]] = {}
    for text, is_marker in pieces:
        if not is_marker and (REASONING_MARK in text or CONTENT_MARK in text):
            mark = REASONING_MARK if REASONING_MARK in text else CONTENT_MARK
            body, rep = (reasoning, reasoning_repeat) if mark == REASONING_MARK else (
                content, content_repeat)  # fmt: skip
            before, after = text.split(mark)
            for t, r, part in ((before, 1, "markup and calls"), (body, rep, mark.strip("\ue000")),
                               (after, 1, "markup and calls")):  # fmt: skip
                if t and r:
                    ids = typed_ids(tokenizer, t)
                    segments.append((ids, r))
                    texts.append(t)
                    parts[part] += len(ids) * r
            continue
        key = (text, is_marker)
        if key not in cache:
            cache[key] = piece_ids(tokenizer, text, is_marker)
        if cache[key]:
            segments.append((cache[key], 1))
            texts.append(text)
            parts["markup and calls"] += len(cache[key])
    expected = ((reasoning * reasoning_repeat) or None, content * content_repeat or None,
                [(n, a) for n, a in calls])  # fmt: skip
    return Completion(fmt, thinking, tools_for(calls), segments, texts, expected, parts)


def prose(rng: random.Random, tokenizer: Any, tokens: int) -> str:
    """Reasoning prose of about ``tokens`` tokens (typed)."""
    text = ""
    # Grow by an estimate from the characters per token so far, then sentence by
    # sentence, re-encoding the whole prose (per-sentence counts overshoot: BPE merges
    # across the seams).
    while True:
        have = len(typed_ids(tokenizer, text)) if text else 0
        if have >= tokens:
            return text.rstrip() + "\n"
        per_token = len(text) / have if have else 1.0
        goal = len(text) + (tokens - have) * per_token * 0.9
        text += sentence(rng)
        while len(text) < goal:
            text += sentence(rng)


def realistic(fmt: str, tokenizer: Any, target_tokens: int = 4000, seed: int = 0) -> Completion:
    """About ``target_tokens``: long reasoning (where the format writes reasoning), a
    paragraph of content and four calls with unicode arguments; the reasoning fills
    what the rest leaves."""
    rng = random.Random(f"{seed}/{fmt}")
    calls = tool_calls(rng)
    base = build(fmt, tokenizer, reasoning="x", content=CONTENT, calls=calls)
    budget = target_tokens - base.n_tokens
    module = parsergen.load(fmt)
    if module.RENDERER.can_render_reasoning(thinking_for(module)):
        reasoning = prose(rng, tokenizer, max(budget, 200))
        return build(fmt, tokenizer, reasoning=reasoning, content=CONTENT, calls=calls)
    # No reasoning in this format: the content is long instead.
    paragraphs = CONTENT
    while len(typed_ids(tokenizer, paragraphs)) < budget + len(typed_ids(tokenizer, CONTENT)):
        paragraphs += "\n\n" + prose(rng, tokenizer, 120).strip()
    return build(fmt, tokenizer, reasoning="", content=paragraphs.rstrip() + "\n\n", calls=calls)


def scaled(fmt: str, tokenizer: Any, tokens: int, seed: int = 0) -> Completion:
    """A completion of about ``tokens`` tokens with the same make-up at every size: per
    1024 tokens, the four calls once (where the format has calls), and the rest a
    ~200-token block repeated, 7/8 as reasoning and 1/8 as content (all content in
    formats without reasoning)."""
    rng = random.Random(f"{seed}/{fmt}/scaled")
    four = tool_calls(rng)
    block = prose(rng, tokenizer, 200)
    module = parsergen.load(fmt)
    has_reasoning = module.RENDERER.can_render_reasoning(thinking_for(module))
    has_calls = module.RENDERER.call is not None
    units = max(1, round(tokens / 1024))
    one = build(fmt, tokenizer, reasoning=block, content=block, calls=[])
    block_tokens = max(1, one.parts["reasoning"] or one.parts["content"])
    with_calls = build(fmt, tokenizer, reasoning=block, content=block, calls=four)
    calls_tokens = (with_calls.parts["markup and calls"] - one.parts["markup and calls"]
                    if has_calls else 0)  # fmt: skip
    per_unit = max(2, round((1024 - calls_tokens) / block_tokens))
    content_per_unit = max(1, round(per_unit / 8)) if has_reasoning else per_unit
    n_content = units * content_per_unit
    n_reasoning = units * (per_unit - content_per_unit)
    calls = four * units if has_calls else []
    return build(fmt, tokenizer, reasoning=block, content=block, calls=calls,
                 reasoning_repeat=n_reasoning, content_repeat=n_content)  # fmt: skip


# -- checks -----------------------------------------------------------------------------


def message_of(parsed: Any) -> tuple[str | None, str | None, list[tuple[str, Any]]]:
    """(reasoning, content, [(name, arguments)]) of a ParsedMessage, stripped."""
    return ((parsed.reasoning or "").strip() or None, (parsed.content or "").strip() or None,
            [(c.name, json.loads(c.arguments)) for c in parsed.tool_calls])  # fmt: skip


def expected_of(c: Completion) -> tuple[str | None, str | None, list[tuple[str, Any]]]:
    reasoning, content, calls = c.expected
    return ((reasoning or "").strip() or None, (content or "").strip() or None, calls)


def round_trip_problem(c: Completion, tokenizer: Any) -> str | None:
    """None if parse() gives back the rendered message, else what differs."""
    module = parsergen.load(c.fmt)
    got = message_of(module.parse(c.text(), tools=c.tools, tokenizer=tokenizer,
                                  token_ids=list(c.ids()), thinking=c.thinking))  # fmt: skip
    want = expected_of(c)
    for name, a, b in zip(("reasoning", "content", "calls"), got, want):
        if a != b:
            return f"{name}: parsed {str(a)[:120]!r}, rendered {str(b)[:120]!r}"
    return None
