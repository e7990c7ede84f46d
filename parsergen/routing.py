"""Which format parses a model: by name patterns, most specific first, never by order.

Each format declares case-insensitive substrings of model names (``models`` in its
spec).  A pattern that contains another is more specific than it (``step-3.5`` over
``step-3``); the most specific matching patterns decide, and if they belong to two
formats the name is ambiguous and nothing is guessed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from .index import FormatEntry


def model_key(name: str) -> str:
    """What patterns are matched against: a repo id, or a local path's last part."""
    name = name.strip().rstrip("/\\")
    if name.startswith(("/", ".", "~")) or "\\" in name or name.count("/") > 1:
        name = re.split(r"[/\\]", name)[-1]
    return name.lower()


class Router:
    """Model-name patterns per format, and the decisions they make."""

    def __init__(self, patterns: Mapping[str, Iterable[str]]) -> None:
        self.patterns = sorted({(p.lower(), fmt) for fmt, ps in patterns.items() for p in ps})

    def candidates(self, name: str) -> list[tuple[str, str]]:
        """The most specific (pattern, format) pairs matching ``name``."""
        key = model_key(name)
        matches = [(p, f) for p, f in self.patterns if p in key]
        return [(p, f) for p, f in matches
                if not any(p != q and p in q for q, _ in matches)]

    def detect(self, name: str) -> str | None:
        """The one format for ``name``, or None (no pattern, or an ambiguous name)."""
        formats = {f for _, f in self.candidates(name)}
        return formats.pop() if len(formats) == 1 else None

    def conflicts(self) -> list[tuple[str, str, str, str, str]]:
        """Pattern pairs of two formats that make some name ambiguous.

        Names are built from each pair: the pattern itself when two formats share it,
        and the two merged where one ends with a name piece the other begins with
        (``kimi-k2`` and ``k2-thinking`` give ``kimi-k2-thinking``).  Returns (pattern, format,
        pattern, format, example name).
        """
        out = []
        for i, (p, a) in enumerate(self.patterns):
            for q, b in self.patterns[i + 1 :]:
                if a == b:
                    continue
                for name in _merges(p, q):
                    if self.detect(name) is None:
                        out.append((p, a, q, b, name))
                        break
        return out


def _merges(p: str, q: str) -> list[str]:
    if p == q:
        return [p]
    if p in q or q in p:
        return []  # one is more specific: never ambiguous between the two
    names = []
    for x, y in ((p, q), (q, p)):
        for k in range(min(len(x), len(y)) - 1, 1, -1):
            # The shared part must be a whole name piece (kimi-k2 + k2-thinking),
            # not a coincidence of letters (distill + llama).
            if x.endswith(y[:k]) and x[-k - 1] in _SEPARATORS and y[k] in _SEPARATORS:
                names.append(x + y[k:])
                break
    return names


_SEPARATORS = "-_./: "


def tokenizer_markers(tokenizer: object) -> tuple[set[str], str]:
    """The tokenizer's vocabulary entries that look like markers, and its chat template."""
    try:
        vocab = set(tokenizer.get_vocab())  # type: ignore[attr-defined]
    except (AttributeError, TypeError):
        vocab = set()
    template = getattr(tokenizer, "chat_template", None)
    return vocab, template if isinstance(template, str) else ""


def detect_by_tokenizer(entries: Iterable[FormatEntry], tokenizer: object) -> str | None:
    """The format whose markers the tokenizer knows best; None on a tie or no match.

    A format qualifies when every terminal it matches by token id is a token of the
    vocabulary (one without such terminals, when two of its markers are known); it scores
    one per such token and one per other marker that the chat template writes or the
    vocabulary holds as one token (GLM's <arg_key>).
    """
    vocab, template = tokenizer_markers(tokenizer)
    best: list[str] = []
    best_score = 0
    for entry in sorted(entries, key=lambda e: e.name):
        tokens = entry.token_markers
        if not all(t in vocab for t in tokens):
            continue
        texts = entry.text_markers + entry.preserve_tokens  # control tokens that spell markers
        # A plain word (DeepSeek's call type, "function") is in every vocabulary: no evidence.
        score = len(tokens) + sum(1 for t in texts if len(t) > 2 and not t.isalpha()
                                  and (t in template or t in vocab))
        if not tokens and score < 2:
            continue  # markers matched as text qualify only when several are known
        if score > best_score:
            best, best_score = [entry.name], score
        elif score == best_score:
            best.append(entry.name)
    return best[0] if len(best) == 1 else None
