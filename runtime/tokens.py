"""Token-id terminals: which ids are markers, and splitting a delta at them.

A delta arrives as text plus the ids of the tokens it came from.  Ids of special
tokens become pre-lexed terminals; the text between them is left to the lexer.  The
detokenizer may hold text back and release it later, so the scanner finds each
terminal's text inside ``delta_text`` (anchors, searched from the right) and defers
a terminal whose text has not arrived yet.  Same decisions as vLLM 0.33's
``TokenIDScanner``, minus its token counting.  Which ids are markers comes from the
tokenizer (``vocabulary``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, NamedTuple, Protocol

from mypy_extensions import mypyc_attr

from .events import DROP
from .vocabulary import is_piece


class Marker(NamedTuple):
    """A terminal found by token id: its name and the text of its token."""

    name: str
    text: str


# Items of a scanned delta: plain text (str) or a Marker, in stream order.
Item = str | Marker

# Deltas of more token ids than this are split by counting marker texts first: a
# whole completion (parse()) then never decodes its tokens one by one.
_MANY: Final = 32


class Sequencer(Protocol):
    """An item stage after the scanner: joins the pieces of spellings over several tokens
    (``sequences.PieceSequencer``), holds markers that need a follower (``FollowHold``),
    joins a marker's framing to it (``FramingHold``)."""

    @property
    def held(self) -> object: ...

    def feed(self, items: list[Item]) -> list[Item]: ...

    def flush(self) -> list[Item]: ...


@mypyc_attr(allow_interpreted_subclasses=True)
class TokenIdScanner:
    """Splits (delta_text, delta_token_ids) into text and markers, deferring as needed."""

    __slots__ = ("id_to_name", "decode", "decode_run", "deferred", "post_text", "sequencer")

    def __init__(self, id_to_name: dict[int, str], decode: Callable[[int], str],
                 decode_run: Callable[[Sequence[int]], str] | None = None,
                 sequencer: Sequencer | None = None) -> None:
        self.id_to_name = id_to_name
        self.decode = decode
        self.decode_run = decode_run
        self.deferred: list[Marker] = []
        self.post_text = ""  # text that arrived while waiting for a deferred marker
        # Joins pieces (special tokens of a spelling) into markers: sequences.py.
        self.sequencer = sequencer

    def waiting(self) -> bool:
        """Whether markers wait for their text, or pieces for the rest of a spelling."""
        return bool(self.deferred) or (self.sequencer is not None and bool(self.sequencer.held))

    def scan(self, delta_text: str, ids: Sequence[int]) -> list[Item]:
        """Items of one delta, in order (one with a marker id, or with markers waiting)."""
        if self.sequencer is None:
            return self._scan(delta_text, ids)
        if self.deferred or not self.id_to_name.keys().isdisjoint(ids):
            return self.sequencer.feed(self._scan(delta_text, ids))
        return self.sequencer.feed([delta_text])

    def _scan(self, delta_text: str, ids: Sequence[int]) -> list[Item]:
        items: list[Item] = []
        text = delta_text
        id_to_name = self.id_to_name
        # The caller scans only deltas with marker ids, or with markers deferred.
        if self.deferred:
            text = self._resolve_deferred(text, items)
            if id_to_name.keys().isdisjoint(ids):
                if text:
                    items.append(text)
                return items
        if len(ids) > _MANY and text:
            split = self._split_unambiguous(text, ids)
            if split is not None:
                items.extend(split)
                return items
        found = self._tokens(ids, False)
        if not text:
            # No text to anchor on yet: the markers wait for it, so that the state
            # machine never moves before the text preceding a marker has arrived.
            self.deferred.extend(item for item in found if type(item) is Marker)
            return items
        anchored = self._anchor(text, found)
        if anchored is None and self.decode_run is not None:
            # Tokens decoded one by one split multi-byte characters; decoded as runs
            # they give the real text, and each marker's exact place in it.
            anchored = self._anchor(text, self._tokens(ids, True))
        if anchored is None and self.sequencer is not None:
            anchored = self._lagging(text, found)
        items.extend(anchored if anchored is not None else self._split_at_markers(text, found))
        return items

    def _lagging(self, delta_text: str, found: list[Item]) -> list[Item] | None:
        """Tokens whose text lags behind them, with pieces among them: the text is the
        start of the tokens' text, so each token takes its own place in it and those
        not reached wait (a piece's text recurs, as <|plamo:begin_ does in every PLaMo
        marker: its rightmost occurrence need not be its own).  None otherwise."""
        if not any(type(i) is Marker and is_piece(i.name) for i in found):
            return None
        rebuilt = "".join(item if isinstance(item, str) else item.text for item in found)
        if not rebuilt.startswith(delta_text):
            return None
        out: list[Item] = []
        left = len(delta_text)
        for item in found:
            size = len(item) if isinstance(item, str) else len(item.text)
            if left >= size:
                out.append(item)
                left -= size
            elif isinstance(item, str):
                if left:
                    out.append(item[:left])  # the rest of it comes as later text
                left = 0
            else:
                if left:  # the start of its text came: the rest will follow it
                    self.post_text += item.text[:left]
                    left = 0
                self.deferred.append(item)
        return out

    def _split_unambiguous(self, text: str, ids: Sequence[int]) -> list[Item] | None:
        """Split a long delta at its markers without decoding its text tokens.

        When each marker text occurs in ``text`` exactly as often as the delta has
        tokens spelling it, every occurrence is one of those markers and they are
        taken in order; else None (a lookalike typed as text, a marker the
        detokenizer did not spell, two names with one text), and the tokens are
        decoded to tell them apart.  Only C-level scans touch every id.
        """
        id_to_name, decode = self.id_to_name, self.decode
        markers = [Marker(id_to_name[tid], decode(tid))
                   for tid in filter(id_to_name.__contains__, ids)]  # fmt: skip
        counts: dict[str, int] = {}
        names: dict[str, str] = {}
        for marker in markers:
            if names.setdefault(marker.text, marker.name) != marker.name or not marker.text:
                return None
            counts[marker.text] = counts.get(marker.text, 0) + 1
        if any(text.count(marker_text) != n for marker_text, n in counts.items()):
            return None
        out: list[Item] = []
        consumed = 0
        for marker in markers:
            pos = text.find(marker.text, consumed)
            if pos > consumed:
                out.append(text[consumed:pos])
            out.append(marker)
            consumed = pos + len(marker.text)
        if consumed < len(text):
            out.append(text[consumed:])
        return out

    def _tokens(self, ids: Sequence[int], runs: bool) -> list[Item]:
        """The delta's tokens as text runs and markers (runs decoded whole if asked)."""
        id_to_name, decode = self.id_to_name, self.decode
        found: list[Item] = []
        run: list[int] = []
        for tid in ids:
            name = id_to_name.get(tid)
            if name is None:
                run.append(tid)
                continue
            if run:
                joined = self._joined(run, runs)
                if joined:
                    found.append(joined)
                run = []
            found.append(Marker(name, decode(tid)))
        if run:
            joined = self._joined(run, runs)
            if joined:
                found.append(joined)
        return found

    def _joined(self, run: list[int], whole: bool) -> str:
        """The text of a run of text tokens: decoded as one run, or token by token."""
        if whole and self.decode_run is not None:
            return self.decode_run(run)
        return "".join(map(self.decode, run))

    def flush(self) -> list[Item]:
        """Everything still waiting, at the end of the stream."""
        items: list[Item] = []
        if self.post_text:
            items.append(self.post_text)
            self.post_text = ""
        # A piece whose text never came (the server gave it to another parser) is not
        # text of this stream: only markers the format names are flushed.
        items.extend(m for m in self.deferred if not is_piece(m.name))
        self.deferred = []
        if self.sequencer is not None:
            return [*self.sequencer.feed(items), *self.sequencer.flush()]
        return items

    def _resolve_deferred(self, delta_text: str, items: list[Item]) -> str:
        """Place deferred markers in the text that arrived; return the unplaced rest."""
        waiting = self.deferred
        self.deferred = []
        rest = self.post_text + delta_text
        self.post_text = ""
        for marker in waiting:
            pos = rest.find(marker.text)
            if pos < 0:
                # Only the marker itself gives a reliable split point: keep waiting
                # (a piece is text until its spelling is complete: text goes on).
                if rest and not is_piece(marker.name):
                    self.post_text += rest
                    rest = ""
                elif rest:
                    items.append(rest)
                    rest = ""
                self.deferred.append(marker)
                continue
            if pos:
                items.append(rest[:pos])
            items.append(marker)
            rest = rest[pos + len(marker.text) :]
        return rest

    def _anchor(self, delta_text: str, found: list[Item]) -> list[Item] | None:
        """Align individually decoded tokens with the detokenizer's text."""
        rebuilt = "".join(item if isinstance(item, str) else item.text for item in found)
        if not rebuilt:
            return [delta_text, *found]
        pos = delta_text.find(rebuilt)
        if pos >= 0:
            # Text before the tokens was held back by the detokenizer earlier.
            head = [delta_text[:pos]] if pos else []
            tail_at = pos + len(rebuilt)
            # vLLM drops text after the tokens here; we keep it (it never occurs
            # with a real detokenizer, and no byte may be lost).
            tail = [delta_text[tail_at:]] if tail_at < len(delta_text) else []
            return [*head, *found, *tail]
        return None

    def _split_at_markers(self, delta_text: str, found: list[Item]) -> list[Item]:
        """Context-dependent decoding: re-split the real text at the markers' texts."""
        markers = [item for item in found if type(item) is Marker]
        # Right to left, each marker takes the rightmost occurrence of its text that is
        # left of the next marker, so a lookalike typed earlier in prose is not taken.
        positions = [-1] * len(markers)
        limit = len(delta_text)
        for i in range(len(markers) - 1, -1, -1):
            pos = delta_text.rfind(markers[i].text, 0, limit)
            if pos >= 0:
                positions[i] = pos
                limit = pos
        out: list[Item] = []
        consumed = 0
        for i, marker in enumerate(markers):
            pos = positions[i]
            if pos >= consumed:
                if pos > consumed:
                    out.append(delta_text[consumed:pos])
                out.append(marker)
                consumed = pos + len(marker.text)
                continue
            later_found = any(p >= 0 for p in positions[i + 1 :])
            # A dropped token's text may never arrive (the detokenizer strips it),
            # so text is only parked behind a marker the format names (a piece is
            # text until its spelling is complete: text before it goes on at once).
            if (not later_found and consumed < len(delta_text) and marker.name != DROP
                    and not is_piece(marker.name)):
                self.post_text += delta_text[consumed:]
                consumed = len(delta_text)
            self.deferred.append(marker)
        if consumed < len(delta_text):
            out.append(delta_text[consumed:])
        return out
