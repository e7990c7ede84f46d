"""REASONING's state lexers: call markers that wait for what follows (``GatedReasoning``),
an end marker written again after reasoning closed (``ClosingReasoning``), and reasoning
held until its end confirms it (``ConfirmedReasoning``); the compiler chooses one per
state (``compiler/lexers.py``), ``lexing.LEXERS`` names them."""

from __future__ import annotations

from typing import Final

from mypy_extensions import mypyc_attr

from .events import CONTENT, SemanticEvent, EventType
from .machine import ParserCore, StateLexer
from .tokens import Marker

# Most whitespace a call marker in reasoning waits past for what follows it (a bounded
# hold; the Rust engine's GATE_SPACE is the same).
GATE_SPACE: Final = 64


def follows(buf: str, end: int, final: bool, heads: tuple[str, ...]) -> bool | None:
    """Whether what follows ``buf[:end]``, past whitespace, begins with one of ``heads``
    (None: it may yet; the end of the completion, or a head it cut, counts as one)."""
    i, n = end, len(buf)
    while i < n and buf[i].isspace():
        i += 1
        if i - end > GATE_SPACE:
            return True  # (no words came: the marker counts, as it did)
    rest = buf[i:]
    for head in heads:
        if rest.startswith(head):
            return True
    if i == n or any(head.startswith(rest) for head in heads):
        return True if final else None
    return False


@mypyc_attr(allow_interpreted_subclasses=True)
class GatedReasoning(StateLexer):
    """REASONING whose call markers, typed as text, count only before the markup the
    render writes after them (``gates``: terminal -> the texts it begins with, past
    whitespace): a marker quoted in prose (``calls in <tool_call> tags.``) is reasoning.
    As its token, a marker counts (``token``)."""

    __slots__ = ("gates",)

    def __init__(self, event: EventType | None = None,
                 gates: dict[str, tuple[str, ...]] | None = None) -> None:
        super().__init__(event)
        self.gates = dict(gates or {})

    def take(self, p: ParserCore, buf: str, start: int, end: int, name: str | None,
             final: bool, out: list[SemanticEvent]) -> int:
        heads = self.gates.get(name) if name is not None else None
        if heads is not None:
            marker = follows(buf, end, final, heads)
            if marker is None:
                return ~start  # what follows will tell
            if not marker:
                used = p.give(buf, start, end, final, out)  # reasoning text
                return end if used is None else ~(start + ~used) if used < 0 else start + used
        return self.taken(p, buf, start, end, name, final, out)

    def taken(self, p: ParserCore, buf: str, start: int, end: int, name: str | None,
              final: bool, out: list[SemanticEvent]) -> int:
        """The marker counts here: its transition."""
        p.take(name, buf[start:end], out)
        return end


@mypyc_attr(allow_interpreted_subclasses=True)
class ClosingReasoning(GatedReasoning):
    """REASONING where an end marker CONTENT has no transition for may be written again
    right after reasoning closed: then it is that marker (``Opening.closed``); its call
    markers may wait as ``GatedReasoning``'s do."""

    __slots__ = ()

    def taken(self, p: ParserCore, buf: str, start: int, end: int, name: str | None,
              final: bool, out: list[SemanticEvent]) -> int:
        p.take(name, buf[start:end], out)
        if p.state_id != CONTENT:
            return end
        p.opening.closed(p)
        return p.opening.starting(p, buf, end, final, out)

    def token(self, p: ParserCore, marker: Marker, out: list[SemanticEvent]) -> None:
        p.take(marker.name, marker.text, out)
        if p.state_id == CONTENT:
            p.opening.closed(p)


@mypyc_attr(allow_interpreted_subclasses=True)
class ConfirmedReasoning(ClosingReasoning):
    """REASONING whose text is reasoning only when a marker that leaves it follows
    (``reasoning.confirmed_by_end``): its text and marker tokens are held (``p.held``,
    scanned once) until one comes, then go out as reasoning before it; at the
    completion's end without one they are read again from CONTENT, as if reasoning had
    never opened.  What a stream holds is the parse's answer: no bound can keep both."""

    __slots__ = ()

    def lex(self, p: ParserCore, buf: str, pos: int, final: bool,
            out: list[SemanticEvent]) -> int:
        start, end, name = p.matchers[p.state_id].scan(buf, pos, final)
        if name is None and end >= 0:  # (a literal that is only text here)
            p.held.append(buf[pos:end])
            return end
        if start > pos:
            p.held.append(buf[pos:start])
        if end < 0:
            return ~start
        _release(p, out)
        return self.take(p, buf, start, end, name, final, out)

    def token(self, p: ParserCore, marker: Marker, out: list[SemanticEvent]) -> None:
        if marker.name not in p.opening.lexicon.live.get(p.state_id, ()):
            p.held.append(marker)  # (its text, unless CONTENT reads it again)
            return
        _release(p, out)
        ClosingReasoning.token(self, p, marker, out)

    def flush(self, p: ParserCore, out: list[SemanticEvent]) -> None:
        """No end came: what was held is read from CONTENT, then the held tail."""
        held, p.held = p.held, []
        tail, p.pending = p.pending, ""
        p.state_id = CONTENT
        text: list[str] = []
        for item in held:
            if type(item) is str:
                text.append(item)
                continue
            p.pending = p.lex(p.pending + "".join(text), False, out)
            text = []
            p.marker(item, out)  # type: ignore[arg-type]
        p.pending = p.lex(p.pending + "".join(text) + tail, False, out)


def _release(p: ParserCore, out: list[SemanticEvent]) -> None:
    """What a confirmed REASONING held is reasoning: out as the state's text."""
    held, p.held = p.held, []
    text: list[str] = []
    for item in (*held, None):
        if type(item) is str:
            text.append(item)
            continue
        if text:
            joined = "".join(text)
            p.give(joined, 0, len(joined), True, out)
            text = []
        if item is not None:
            p.take(item.name, item.text, out)  # type: ignore[union-attr]


__all__ = ["GATE_SPACE", "ClosingReasoning", "ConfirmedReasoning", "GatedReasoning", "follows"]
