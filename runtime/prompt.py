"""Where a completion starts, and where its reasoning ends in token ids.

``Reasoning`` is a format's reasoning markers (terminal names) and what depends on
thinking.  A ``PromptReader`` reads them for one tokenizer and thinking setting: the
marker a prompt leaves the model after (the prompt walk, by ids or by text), whether
reasoning is over after some ids, which ids are content, and the markers' id
sequences.  The driver owns one reader per parser and answers its public queries
(``initialize``, ``is_reasoning_end``, ...) with it.  ``count_reasoning_tokens``
counts a completion's reasoning tokens through a fresh parser's ``raw`` tap.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final, NamedTuple

from mypy_extensions import mypyc_attr

from .events import DROP, REASONING, RawText
from .lexicon import Lexicon
from .vocabulary import TokenizerInfo

# Marker id sequences by their last id (most markers are one token).
_Seqs = dict[int, list[tuple[int, ...]]]
# initialize(start=...): the values a caller may give, and the marker each stands for.
_STARTS: Final = {"reasoning": "start", "content": "end"}


@mypyc_attr(allow_interpreted_subclasses=True)
class Reasoning:
    """A format's reasoning markers (terminal names) and what depends on thinking."""

    __slots__ = ("start", "end", "implicit_end", "wait", "start_opens", "newline_framing",
                 "start_optional", "calls_are_text")

    def __init__(self, *, start: Sequence[str], end: Sequence[str],
                 implicit_end: Sequence[str] = (), wait: tuple[bool, bool],
                 start_opens: tuple[bool, bool], newline_framing: bool = False,
                 start_optional: bool = False, calls_are_text: bool = False) -> None:
        self.start = frozenset(start)
        self.end = frozenset(end)
        # Call start markers that end reasoning (or the wait for it) and are content.
        self.implicit_end = frozenset(implicit_end)
        self.wait = {True: wait[0], False: wait[1]}
        self.start_opens = {True: start_opens[0], False: start_opens[1]}
        self.newline_framing = newline_framing
        # The models may reason without writing the start marker: a prompt with no
        # reasoning marker leaves the format's initial state, not content.
        self.start_optional = start_optional
        # The models never call a tool while reasoning: an implicit end inside an open
        # start marker is reasoning text; it ends the wait only outside one.
        self.calls_are_text = calls_are_text


class ReasoningEndAt(NamedTuple):
    """Where reasoning ends in token ids read forward (``find_reasoning_end``)."""

    offset: int | None  # the first id of the marker that ends it; None: nothing does
    implicit: bool  # that marker is content itself (a call's start)
    inside: bool  # nothing ends it and a start marker is open after the ids


def _ends_at(ids: Sequence[int], i: int, seqs: _Seqs) -> bool:
    """Whether one of ``seqs`` ends at ``ids[i]``."""
    for seq in seqs.get(ids[i], ()):
        n = len(seq)
        if n == 1 or (i + 1 >= n and tuple(ids[i + 1 - n : i + 1]) == seq):
            return True
    return False


def _sequences(seqs: _Seqs) -> tuple[tuple[int, ...], ...]:
    """Every id sequence of a map from last id to sequences."""
    return tuple(seq for group in seqs.values() for seq in group)


@mypyc_attr(allow_interpreted_subclasses=True)
class PromptReader:
    """A format's reasoning markers as one tokenizer (or none) spells them, with
    thinking on or off: the prompt walk and the reasoning-id queries."""

    __slots__ = ("reasoning", "waits", "_opens", "_calls_are_text", "_lexicon", "_info", "_seqs")

    def __init__(self, reasoning: Reasoning | None, lexicon: Lexicon,
                 info: TokenizerInfo | None, thinking: bool) -> None:
        self.reasoning = reasoning
        # Whether the format waits for reasoning to end (else it is over from the start).
        self.waits = reasoning is not None and reasoning.wait[thinking]
        # Whether a start marker in the ids reopens reasoning.
        self._opens = reasoning is not None and reasoning.start_opens[thinking]
        self._calls_are_text = reasoning is not None and reasoning.calls_are_text
        self._lexicon = lexicon
        self._info = info
        self._seqs: tuple[_Seqs, _Seqs, _Seqs] | None = None  # see _reasoning_ids

    def start_marker(self, ids: Sequence[int], text: str | None,
                     start: str | None = None) -> str | None:
        """The reasoning marker the completion starts after: "start" (it begins
        inside reasoning), "end" (in content), "none" (the prompt was read and has
        neither) or None (no prompt to read: the format's default).

        Walking back from the prompt's end to the last reasoning marker, stopping at a
        turn boundary or any other special token; ``start`` ("reasoning" or
        "content") says it explicitly instead.
        """
        if start is not None:
            if start not in _STARTS:
                raise ValueError(f"start must be 'reasoning' or 'content', not {start!r}")
            return _STARTS[start]
        reasoning = self.reasoning
        if reasoning is None:
            return None
        info = self._info
        starts, ends, _ = self._reasoning_ids()
        if ids and (starts or ends):  # the markers are tokens: walk the ids
            assert info is not None  # without a tokenizer there are no marker ids
            for i in range(len(ids) - 1, -1, -1):
                if _ends_at(ids, i, starts):
                    return "start"
                if _ends_at(ids, i, ends):
                    return "end"
                if ids[i] in info.stop_ids:
                    break
            return "none"
        if not text:
            return None  # ids the markers cannot be found in (no tokenizer): unread
        lexicon = self._lexicon
        found, at = "none", -1
        stops = [*lexicon.turn_boundary_tokens, *(info.drop_texts if info else ())]
        for kind, texts in (("start", lexicon.texts(tuple(reasoning.start))),
                            ("end", lexicon.texts(tuple(reasoning.end))), ("none", stops)):
            for marker in texts:
                pos = text.rfind(marker)
                if pos > at:
                    found, at = kind, pos
        return found

    def _reasoning_ids(self) -> tuple[_Seqs, _Seqs, _Seqs]:
        """Token ids of the start markers, the end markers and the implicit ends,
        each as a map from a marker's last id to the markers' id sequences."""
        if self._seqs is None:
            reasoning, info = self.reasoning, self._info
            if reasoning is None or info is None:
                self._seqs = {}, {}, {}
            else:
                ids = info.name_to_ids

                def seqs(names: Iterable[str]) -> _Seqs:
                    out: dict[int, list[tuple[int, ...]]] = {}
                    for name in names:
                        for seq in ids.get(name, ()):
                            out.setdefault(seq[-1], []).append(seq)
                    return out

                self._seqs = (seqs(reasoning.start), seqs(reasoning.end),
                              seqs(reasoning.implicit_end))
        return self._seqs

    @property
    def end_token_ids(self) -> tuple[tuple[int, ...], ...]:
        """Token id sequences of the markers that end reasoning explicitly."""
        return _sequences(self._reasoning_ids()[1])

    @property
    def implicit_end_token_ids(self) -> tuple[tuple[int, ...], ...]:
        """Token id sequences of markers that end reasoning and are content themselves."""
        return _sequences(self._reasoning_ids()[2])

    def _walk_back(self, token_ids: Sequence[int]) -> str:
        """The last reasoning marker of ``token_ids`` (back to a turn boundary): "end"
        (an end marker, or a call's start that ends reasoning), "start" (a start marker
        that opens reasoning) or "none"."""
        starts, end_seqs, implicit = self._reasoning_ids()
        boundary = self._info.boundary_ids if self._info is not None else frozenset()
        # A call's start where the models never call while reasoning: it ends the wait
        # only if no start marker before it left reasoning open.
        call = False
        for i in range(len(token_ids) - 1, -1, -1):
            if _ends_at(token_ids, i, end_seqs):
                return "end"
            if _ends_at(token_ids, i, implicit):
                if not self._calls_are_text:
                    return "end"
                call = True
            elif _ends_at(token_ids, i, starts):
                if self._opens:
                    return "start"
                break
            elif token_ids[i] in boundary:
                break
        return "end" if call else "none"

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        """Whether reasoning is over after ``token_ids`` (prompt and output so far)."""
        found = self._walk_back(token_ids)
        return found == "end" or (found == "none" and not self.waits)

    def is_reasoning_open(self, token_ids: Sequence[int]) -> bool:
        """Whether a start marker left reasoning open at the end of ``token_ids``."""
        return self._walk_back(token_ids) == "start"

    def find_reasoning_end(self, token_ids: Sequence[int], inside: bool = False) -> ReasoningEndAt:
        """Where reasoning ends in ``token_ids`` read forward, after ids that left a
        start marker open (``inside``) or not: the first marker that ends it."""
        starts, end_seqs, implicit = self._reasoning_ids()
        for i in range(len(token_ids)):
            if _ends_at(token_ids, i, end_seqs):
                return ReasoningEndAt(i, False, False)
            for seq in implicit.get(token_ids[i], ()):
                if (not (inside and self._calls_are_text) and len(seq) <= i + 1
                        and _ends_at(token_ids, i, {token_ids[i]: [seq]})):
                    return ReasoningEndAt(i + 1 - len(seq), True, False)
            if self._opens and _ends_at(token_ids, i, starts):
                inside = True
        return ReasoningEndAt(None, False, inside)

    def extract_content_ids(self, token_ids: Sequence[int], inside: bool = False) -> list[int]:
        """The output's content token ids: what follows the end of reasoning (a call's
        start that ended it included); ``inside``: the output starts in reasoning."""
        ids = list(token_ids)
        if not self.waits:
            return ids
        _, end_seqs, implicit = self._reasoning_ids()
        for i in range(len(ids) - 1, -1, -1):
            if _ends_at(ids, i, end_seqs):
                return ids[i + 1 :]
        if implicit:
            boundary = self._info.boundary_ids if self._info is not None else frozenset()
            start = 0
            for i in range(len(ids) - 1, -1, -1):
                if ids[i] in boundary:
                    start = i + 1
                    inside = False
                    break
            found = self.find_reasoning_end(ids[start:], inside)
            if found.offset is not None:
                return ids[start + found.offset :]
        return ids


def count_reasoning_tokens(items: Sequence[Any], texts: Sequence[str],
                           live: Iterable[str]) -> int:
    """How many tokens (``texts``, one per id) start inside reasoning text, by the raw
    tap's ``items`` of a parse of their text (markers REASONING has a transition for,
    ``live``, and dropped ones are not reasoning text; another marker's token is)."""
    text = "".join(texts)
    reasoning = bytearray(len(text) + 1)  # 1 where a character is reasoning text
    markers = {DROP, *live}
    pos = 0
    for item in items:
        if type(item) is RawText:
            end = pos + len(item.text)
            if item.state == REASONING and item.marker not in markers:
                reasoning[pos:end] = b"\1" * len(item.text)
            pos = end
    count = 0
    pos = 0
    for piece in texts:
        if piece and reasoning[pos]:
            count += 1
        pos += len(piece)
    return count
