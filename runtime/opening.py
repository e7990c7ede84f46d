"""Markers that count only as the first text: where a completion, or content right
after reasoning closed, begins.

Three kinds, all decided by the lexicon and the reasoning rules before any text: a
terminal marked ``at_start`` (a list that only a whole completion may open); a start
marker that opens reasoning where the prompt left the model in content (its CONTENT has
no transition for it); and, right after reasoning closed (by the prompt, the thinking-off
template or the completion), an end marker written again (once or more) before any
content text, whitespace aside, which is that marker, not content.  ``Opening`` holds which of them
are live; the parser asks it while its ``fresh`` flag is up.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from mypy_extensions import mypyc_attr

from .events import CONTENT, REASONING, RawText, SemanticEvent
from .lexicon import Lexicon
from .prompt import Reasoning


class Host(Protocol):
    """What opening markers move in their parser."""

    fresh: bool
    state_id: int
    raw: bool

    def on_marker(self, name: str | None, value: str, out: list[SemanticEvent]) -> None: ...

    def on_text(self, text: str, out: list[SemanticEvent], may_hold: bool = False) -> int | None: ...


@mypyc_attr(allow_interpreted_subclasses=True)
class Opening:
    """The markers live only as a completion's (or content's) first text, and what
    each does there."""

    __slots__ = ("lexicon", "rules", "starters", "opening", "reclosing", "reclosers",
                 "after_close")

    def __init__(self, lexicon: Lexicon, rules: Reasoning | None,
                 like: Opening | None = None) -> None:
        self.lexicon = lexicon
        self.rules = rules
        self.starters: Mapping[str, str] = lexicon.at_start  # spelling -> terminal
        # Start markers that open reasoning as the completion's first text (begin).
        self.opening: frozenset[str] = frozenset()
        self.after_close = False  # the fresh window is the one after reasoning closed
        # End markers CONTENT has no transition for: one right after reasoning closed,
        # before any content text, is that marker again (see closed).
        self.reclosing: frozenset[str]
        self.reclosers: dict[str, str]
        if like is not None:  # (the same lexicon and rules': its tables, never changed)
            self.reclosing, self.reclosers = like.reclosing, like.reclosers
            return
        ends = rules.end - lexicon.live.get(CONTENT, frozenset()) if rules else frozenset()
        self.reclosing = ends
        self.reclosers = {lit: name for lit, name in lexicon.literals.items() if name in ends}

    def begin(self, p: Host, opens: bool) -> None:
        """The completion starts anew (``initialize``); ``opens``: in content, where the
        prompt has no reasoning marker, so a start marker that CONTENT ignores opens
        reasoning as the first text."""
        self.after_close = False
        lexicon, rules = self.lexicon, self.rules
        self.starters = lexicon.at_start
        opening: frozenset[str] = frozenset()
        if opens and rules is not None:
            # (Where CONTENT has its own transition for a start marker, it decides.)
            opening = rules.start - lexicon.live.get(CONTENT, frozenset())
            openers = {lit: name for lit, name in lexicon.literals.items() if name in opening}
            self.starters = {**lexicon.at_start, **openers}
            p.fresh = p.fresh or bool(openers)
        self.opening = opening

    def closed(self, p: Host) -> None:
        """Reasoning has just closed: an end marker before content text is a marker."""
        if self.reclosing and p.state_id == CONTENT:
            if not p.fresh:  # (mid-completion: no other marker is a starter now)
                self.starters, self.opening = {}, frozenset()
            self.starters = {**self.starters, **self.reclosers}
            p.fresh = self.after_close = True

    def ids_came(self, resolved: frozenset[str]) -> None:
        """Token ids come: a start or end marker that is a token (``resolved``) typed as
        text is text."""
        if self.opening or self.reclosers:
            special = self.opening | self.reclosing
            self.starters = {lit: name for lit, name in self.starters.items()
                             if name not in special or name not in resolved}
            self.reclosers = {lit: name for lit, name in self.reclosers.items()
                              if name not in resolved}  # (the token is the marker)

    def first_token(self, p: Host, name: str, text: str, out: list[SemanticEvent]) -> bool:
        """A marker token that begins the completion: whether it is an opening one,
        read here (a start marker opens reasoning; an end marker again: no event)."""
        opens = name in self.opening
        if not opens and not (self.after_close and name in self.reclosing
                              and p.state_id == CONTENT):
            # A token that spells a start-only terminal is that terminal here (its
            # text is matched anywhere else by the terminal the token is named by).
            starter = self.lexicon.at_start.get(text)
            if starter is None or starter == name or self.starters.get(text) != starter:
                return False
            if p.raw:
                out.append(RawText(text, p.state_id, starter))  # type: ignore[arg-type]  # (the raw tap)
            p.on_marker(starter, text, out)
            return True
        if p.raw:
            out.append(RawText(text, p.state_id, name))  # type: ignore[arg-type]  # (the raw tap)
        if opens:
            p.state_id = REASONING
        else:
            self._again(p)
        return True

    def _again(self, p: Host) -> None:
        """An end marker was written again after reasoning closed: more of them (and
        whitespace) may follow before the content, each that marker too."""
        p.fresh = True
        self.starters = self.reclosers

    def starting(self, p: Host, buf: str, pos: int, final: bool,
                 out: list[SemanticEvent]) -> int:
        """Where lexing goes on in ``buf`` after the opening markers from ``pos``
        (``~at``: hold ``buf[at:]``, which may still be one)."""
        while p.fresh and pos < len(buf):
            found = self._at_start(p, buf[pos:] if pos else buf, final, out)
            if found is None:
                return ~pos
            pos += found
        return pos

    def _at_start(self, p: Host, buf: str, final: bool, out: list[SemanticEvent]) -> int | None:
        """Consume an opening marker that ``buf`` starts with, or hold for one (None);
        whitespace may come before an end marker that closes reasoning again."""
        for lit, name in self.starters.items():
            if buf.startswith(lit):
                p.fresh = False
                if p.raw:
                    out.append(RawText(lit, p.state_id, name))  # type: ignore[arg-type]  # (the raw tap)
                if name in self.opening:
                    p.state_id = REASONING
                elif name not in self.reclosing:
                    p.on_marker(name, lit, out)
                elif self.after_close:  # a repeated end marker: no event
                    self._again(p)
                return len(lit)
            if lit.startswith(buf) and not final:
                return None
        space = len(buf) - len(buf.lstrip()) if self.after_close else 0
        if space:
            # Content so far: whitespace, as it comes; only an end marker may follow.
            if p.raw:
                out.append(RawText(buf[:space], p.state_id))  # type: ignore[arg-type]  # (the raw tap)
            p.on_text(buf[:space], out)
            self.starters = self.reclosers
            return space
        p.fresh = False
        return 0


__all__ = ["Host", "Opening"]
