"""Markers spelled over several tokens, some of them special: matched as id sequences.

Kimi K3 writes ``<|open|>think<|sep|>``: two special tokens around a word; GigaChat 3
``function call<|role_sep|>\n``: words, then a special token.  Typed as prose, the same
characters are ordinary tokens, so with token ids the marker is known by its special
tokens, not by its text.  The scanner reports each special
token of such a spelling as a *piece* (a ``Marker`` whose name is one private-use
character); ``PieceSequencer`` joins pieces and the text between them into the
marker they spell, and gives back as text any piece that spells none.  A spelling is
a *pattern*: its text with each special token replaced by its piece's character.
"""

from __future__ import annotations

from collections.abc import Mapping

from mypy_extensions import mypyc_attr

from .tokens import Item, Marker
from .vocabulary import is_piece


@mypyc_attr(allow_interpreted_subclasses=True)
class PieceSequencer:
    """Turns pieces and the text around them into the markers their patterns spell."""

    __slots__ = ("patterns", "starts", "heads", "held")

    def __init__(self, patterns: Mapping[str, str]) -> None:
        self.patterns = dict(patterns)  # pattern -> terminal name
        self.starts = frozenset(pattern[0] for pattern in patterns)
        # The words a pattern starts with, before its first piece (GigaChat 3's
        # ``function call`` before <|role_sep|>): text that ends in the start of one is
        # held until the next piece shows whether it spells the marker.
        self.heads = _heads(patterns)
        # Pieces and text that may still spell a marker: (pattern text, real text).
        self.held: list[tuple[str, str]] = []

    def feed(self, items: list[Item]) -> list[Item]:
        """The scanner's items with pieces joined into markers or given back as text."""
        out: list[Item] = []
        for item in items:
            if isinstance(item, str):
                if self.held:
                    self.held.append((item, item))
                    self._resolve(out, False)
                elif item:
                    self._text(item, out)
            elif not is_piece(item.name):
                self._resolve(out, True)  # a terminal's own token ends any spelling
                out.append(item)
            elif self.held or item.name in self.starts:
                self.held.append((item.name, item.text))
                self._resolve(out, False)
            else:
                out.append(item.text)  # a piece no pattern starts with: its text
        return out

    def flush(self) -> list[Item]:
        """What is held at the end of the stream: markers it spells, else text."""
        out: list[Item] = []
        self._resolve(out, True)
        return out

    def _text(self, text: str, out: list[Item]) -> None:
        """Plain text with nothing held: its end is held if a pattern's words start there."""
        at = len(text)
        if self.heads:
            longest = max(len(head) for head in self.heads)
            for i in range(max(0, len(text) - longest), len(text)):
                tail = text[i:]
                if text[i] in self.starts and any(h.startswith(tail) for h in self.heads):
                    at = i
                    break
        if at:
            out.append(text[:at])
        if at < len(text):
            self.held = [(text[at:], text[at:])]

    def _resolve(self, out: list[Item], final: bool) -> None:
        """Take the longest pattern the held text starts with, once no longer one can
        still come; give back as text what starts none, up to where one may start."""
        while self.held:
            spelled = "".join(piece for piece, _ in self.held)
            if not final and any(len(p) > len(spelled) and p.startswith(spelled)
                                 for p in self.patterns):
                return  # a longer spelling may still come
            best = max((p for p in self.patterns if spelled.startswith(p)),
                       key=len, default="")
            if best:
                text, self.held = self._split(len(best))
                out.append(Marker(self.patterns[best], text))
                continue
            text, self.held = self._split(self._next_start(spelled))
            if text:
                out.append(text)

    def _next_start(self, spelled: str) -> int:
        """Where in ``spelled``, after its first character, a pattern may start."""
        for i in range(1, len(spelled)):
            if spelled[i] in self.starts:
                rest = spelled[i:]
                if any(p.startswith(rest) or rest.startswith(p) for p in self.patterns):
                    return i
        return len(spelled)

    def _split(self, size: int) -> tuple[str, list[tuple[str, str]]]:
        """The real text of the first ``size`` pattern characters, and the rest."""
        taken: list[str] = []
        for i, (piece, text) in enumerate(self.held):
            if size >= len(piece):
                taken.append(text)
                size -= len(piece)
                if not size:
                    return "".join(taken), self.held[i + 1 :]
                continue
            # Text split inside: a piece is one character, so only text is split.
            taken.append(text[:size])
            return "".join(taken), [(piece[size:], text[size:]), *self.held[i + 1 :]]
        return "".join(taken), []


def _heads(patterns: Mapping[str, str]) -> tuple[str, ...]:
    """The text each pattern that starts with text has before its first piece."""
    heads: set[str] = set()
    for pattern in patterns:
        at = next((i for i, c in enumerate(pattern) if is_piece(c)), 0)
        if at:
            heads.add(pattern[:at])
    return tuple(sorted(heads))


def head_chars(patterns: Mapping[str, str]) -> frozenset[str]:
    """Characters a delta may end in while the words of a pattern are under way."""
    return frozenset("".join(_heads(patterns)))


@mypyc_attr(allow_interpreted_subclasses=True)
class FollowHold:
    """Holds a marker token that counts only when a follower comes next (``followed_by``).

    ``followers``: terminal name -> (names of follower terminals, follower texts).  The
    held marker goes out as the marker once the next item is a follower's token or the
    text after it starts with a follower text; once neither can come, its text goes out
    as plain text (the state's content, as any marker text the state does not take).
    """

    __slots__ = ("followers", "marker", "text")

    def __init__(self, followers: Mapping[str, tuple[frozenset[str], tuple[str, ...]]]) -> None:
        self.followers = dict(followers)
        self.marker: Marker | None = None  # the marker held
        self.text = ""  # text after it, while it may still be a follower's start

    @property
    def held(self) -> bool:
        """Whether a marker waits for what follows it."""
        return self.marker is not None

    def feed(self, items: list[Item]) -> list[Item]:
        """The items with each gated marker decided (or held until it can be)."""
        out: list[Item] = []
        for item in items:
            marker = self.marker
            if marker is None:
                if isinstance(item, str) or item.name not in self.followers:
                    out.append(item)
                else:
                    self.marker = item
                continue
            names, texts = self.followers[marker.name]
            if isinstance(item, str):
                if not item:
                    continue  # (an empty delta shows nothing of what follows)
                text = self.text + item
                if any(text.startswith(t) for t in texts):
                    self._give(out, True)
                    out.append(text)
                elif any(t.startswith(text) for t in texts):
                    self.text = text  # a follower's text may still come
                else:
                    self._give(out, False)
                    out.append(text)
                continue
            followed = not self.text and item.name in names
            text = self.text
            self._give(out, followed)
            if text:
                out.append(text)
            out.extend(self.feed([item]))  # (it may be a gated marker itself)
        return out

    def flush(self) -> list[Item]:
        """The stream ends: a held marker was followed by nothing, so it is text."""
        out: list[Item] = []
        if self.marker is not None:
            text = self.text
            self._give(out, False)
            if text:
                out.append(text)
        return out

    def _give(self, out: list[Item], followed: bool) -> None:
        marker, self.marker, self.text = self.marker, None, ""
        assert marker is not None
        out.append(marker if followed else marker.text)


@mypyc_attr(allow_interpreted_subclasses=True)
class FramingHold:
    """Joins a marker token's framing to it (a terminal's ``framing``): the text right
    before it and right after it that is part of it (one character each, or none).

    ``framing``: terminal name -> (text before, text after).  Text that ends in a
    before-framing is held until the next item shows whether a framed marker follows;
    a marker with after-framing is held until the text after it shows.  Joined, the
    framing is the marker's own text: where the state takes the marker it is dropped
    with it, where the state has no transition for it, it is the state's text again.
    """

    __slots__ = ("framing", "befores", "marker", "tail")

    def __init__(self, framing: Mapping[str, tuple[str, str]]) -> None:
        self.framing = dict(framing)
        self.befores = frozenset(before for before, _ in framing.values() if before)
        self.marker: Marker | None = None  # a marker whose after-framing may come next
        self.tail = ""  # the end of the text, held: a framed marker's before-framing?

    @property
    def held(self) -> bool:
        """Whether a marker or the end of a text waits for what follows."""
        return self.marker is not None or bool(self.tail)

    def feed(self, items: list[Item]) -> list[Item]:
        """The items with framing joined to the markers it frames (or held until known)."""
        out: list[Item] = []
        for item in items:
            if isinstance(item, str):
                if not item:
                    continue
                marker = self.marker
                if marker is not None:
                    self.marker = None
                    after = self.framing[marker.name][1]
                    if item.startswith(after):
                        marker = Marker(marker.name, marker.text + after)
                        item = item[len(after):]
                    out.append(marker)
                text = self.tail + item
                self.tail = text[-1:] if text[-1:] in self.befores else ""
                if len(text) > len(self.tail):
                    out.append(text[: len(text) - len(self.tail)])
                continue
            if self.marker is not None:
                out.append(self.marker)
                self.marker = None
            before, after = self.framing.get(item.name, ("", ""))
            if self.tail:
                if self.tail == before:
                    item = Marker(item.name, before + item.text)
                else:
                    out.append(self.tail)
                self.tail = ""
            if after:
                self.marker = item
            else:
                out.append(item)
        return out

    def flush(self) -> list[Item]:
        """The stream ends: what is held goes out as it is."""
        out: list[Item] = []
        if self.marker is not None:
            out.append(self.marker)
        if self.tail:
            out.append(self.tail)
        self.marker, self.tail = None, ""
        return out


@mypyc_attr(allow_interpreted_subclasses=True)
class Chained:
    """Item stages in a row (the piece sequencer, the follower hold, the framing)."""

    __slots__ = ("stages",)

    def __init__(self, *stages: PieceSequencer | FollowHold | FramingHold) -> None:
        self.stages = stages

    @property
    def held(self) -> bool:
        """Whether any stage holds items."""
        return any(bool(stage.held) for stage in self.stages)

    def feed(self, items: list[Item]) -> list[Item]:
        """Items through every stage."""
        for stage in self.stages:
            items = stage.feed(items)
        return items

    def flush(self) -> list[Item]:
        """Everything the stages still hold, in order: each stage's flush goes through
        the stages after it."""
        out: list[Item] = []
        for i, stage in enumerate(self.stages):
            out = stage.feed(out) if i else out
            out += stage.flush()
        return out
