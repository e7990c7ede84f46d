"""Where every byte of a completion went: the proof that nothing is lost or invented.

``account()`` streams deltas through a parser with its ``raw`` tap on, then lays the
events over the text the parser consumed.  The result partitions the input into segments:
text an event carries (content, reasoning, a tool name, arguments), a marker the
spec names, a special token the tokenizer names and the format does not,
framing: text of a state whose spec gives it no event (the whitespace between a
tool section's markers, a message header, an array's brackets and commas), and text the
spec drops on purpose (``SPEC_DROPPED``: a message header its rules read, a built-in
tool's call).  Given the message's ``cut_calls``, the text of the calls the completion
cut off is one more destination, "cut call": it must be the end of the input.

Framing is only whitespace and punctuation: a letter or digit there is text a model
wrote that reached no one, and a problem.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
import re
from dataclasses import dataclass, field
from typing import Any, Final

from mypy_extensions import mypyc_attr

from .events import CONTENT, DROP, REASONING, STATE_NAMES, EventType, RawText, SemanticEvent

# What an event's text is, by its type.
_CATEGORY: Final = {
    EventType.TEXT_CHUNK: "content",
    EventType.REASONING_CHUNK: "reasoning",
    EventType.TOOL_NAME: "tool name",
    EventType.ARG_VALUE_CHUNK: "arguments",
}

# A letter or digit of any script: what framing never holds.
_WORD: Final = re.compile(r"[^\W_]")


@mypyc_attr(allow_interpreted_subclasses=True)
@dataclass
class Accounting:
    """A completion split by destination; ``problems`` is empty when all is well."""

    segments: list[tuple[str, str]] = field(default_factory=list)  # (category, text)
    problems: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The segments put back together: the input, when nothing was lost or added."""
        return "".join(text for _, text in self.segments)

    def by_category(self) -> dict[str, str]:
        """All text of each category, in input order."""
        out: dict[str, str] = {}
        for category, text in self.segments:
            out[category] = out.get(category, "") + text
        return out


def account(parser: Any, deltas: Iterable[tuple[str, Sequence[int]]],
            cut_calls: Sequence[str] = ()) -> Accounting:
    """Feed ``deltas`` to a fresh StreamingParser and account for every byte;
    ``cut_calls`` (``ParsedMessage.cut_calls``) is the text of the calls it cut off."""
    parser.raw = True
    items: list[Any] = []
    for text, ids in deltas:
        items += parser.feed(text, ids)
    items += parser.finish()
    raw = [item for item in items if type(item) is RawText]
    consumed = "".join(r.text for r in raw)
    # Each character of the consumed text: (state, marker) of the piece it came in.
    owners: list[tuple[int, str | None]] = []
    for r in raw:
        owners += [(r.state, r.marker)] * len(r.text)
    covered: list[str | None] = [None] * len(consumed)
    dropped: frozenset[int] = getattr(parser, "SPEC_DROPPED", frozenset())
    result = Accounting()
    cursor = piece_start = piece_end = 0
    piece_marker: str | None = None
    for item in items:
        if type(item) is RawText:
            piece_start, piece_end = piece_end, piece_end + len(item.text)
            piece_marker = item.marker
            continue
        if type(item) is not SemanticEvent or item.type not in _CATEGORY or not item.value:
            continue
        # Events carry consumed text in order, mostly from the piece just consumed; a
        # held value (a JSON closer, a header) comes from earlier text, and so does the
        # text a marker lets out (a header that was text after all): never the marker's
        # own letters first.
        at = consumed.find(item.value, cursor if piece_marker else max(cursor, piece_start),
                           piece_end)
        if at < 0:
            at = consumed.find(item.value, cursor, piece_end)
        span = range(at, at + len(item.value)) if at >= 0 else _across_dropped(
            consumed, owners, item.value, cursor, piece_end)
        if not span:
            result.problems.append(f"{_CATEGORY[item.type]} {item.value!r} is not in the input "
                                   "where expected: invented or reordered")
            continue
        for i in span:
            covered[i] = _CATEGORY[item.type]
        cursor = span[-1] + 1
    cut = "".join(cut_calls)
    cut_at = len(consumed) - len(cut)
    if not consumed.endswith(cut):
        result.problems.append(f"cut call {cut!r} is not the end of the input")
        cut_at = len(consumed)
    for i in range(cut_at, len(consumed)):
        covered[i] = "cut call"
    i = 0
    while i < len(consumed):
        state, marker = owners[i]
        category = covered[i]
        if category is None:
            if marker == DROP:
                category = "special token"
            elif marker is not None:
                category = f"marker {marker}"
            elif state in dropped:
                category = f"dropped {STATE_NAMES[state]}"
            else:
                category = f"framing {STATE_NAMES[state]}"
        j = i + 1
        while j < len(consumed) and owners[j] == owners[i] and covered[j] == covered[i]:
            j += 1
        if covered[i] is None and marker is None and state in (CONTENT, REASONING):
            result.problems.append(f"{consumed[i:j]!r} in {STATE_NAMES[state]} reached no "
                                   "event: lost")
        if category.startswith("framing ") and _WORD.search(consumed, i, j):
            result.problems.append(f"{consumed[i:j]!r} in {STATE_NAMES[state]} is words in "
                                   "framing: lost")
        if result.segments and result.segments[-1][0] == category:
            result.segments[-1] = (category, result.segments[-1][1] + consumed[i:j])
        else:
            result.segments.append((category, consumed[i:j]))
        i = j
    return result


def _across_dropped(consumed: str, owners: list[tuple[int, str | None]], value: str, lo: int,
                    hi: int) -> list[int]:
    """Indices of ``value`` in ``consumed[lo:hi]`` with dropped special tokens skipped
    (a held value, a JSON closer, goes out with the text after such a token), or []."""
    kept = [i for i in range(lo, hi) if owners[i][1] != DROP]
    at = "".join(consumed[i] for i in kept).find(value)
    return kept[at : at + len(value)] if at >= 0 else []
