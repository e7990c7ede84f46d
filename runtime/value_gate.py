"""What the TOOL_ARGS lexer keeps of the syntax's value scanner (``lexing.ValueArgs``).

A format whose arguments syntax has strings or values that hide markers reads its
TOOL_ARGS text through a ``ValueScan`` (``arguments/values.py``); the ``ValueGate`` is
that scanner for the call being read (restarted by every transition into TOOL_ARGS,
generated ``EnterValues``), and a call closer that came as its token inside an
ambiguous value, held until what follows it decides.
"""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

from .arguments.values import NOT_SPACE, ValueScan


@mypyc_attr(allow_interpreted_subclasses=True)
class ValueGate:
    """The lexer's side of a ``ValueScan``: the scanner of the current call's TOOL_ARGS
    text (started as a transition enters it, ``entered``), and what follows a call
    closer inside an ambiguous value.

    ``held``/``held_after``: a closer that arrived as a token id inside an ambiguous
    value, and the whitespace read after it, until what follows decides.
    """

    __slots__ = ("scan", "closers", "literals", "held", "held_after")

    def __init__(self, scan: ValueScan, closers: frozenset[str], literals: tuple[str, ...]) -> None:
        self.scan = scan
        self.closers = closers  # terminal names that end a call from TOOL_ARGS
        self.literals = literals  # every marker spelling of the format
        self.held: Any = None
        self.held_after = ""

    def entered(self, marker: str) -> None:
        """A marker entered TOOL_ARGS: its text may open the arguments (Llama's
        ``{"name"``, GLM's ``<arg_key>``), so the scanner starts with it."""
        self.scan.reset()
        self.scan.feed(marker)

    def waits(self, name: str | None) -> bool:
        """Whether terminal ``name`` here is a closer inside an ambiguous value."""
        return self.scan.ambiguous and name in self.closers

    def closes(self, buf: str, end: int, final: bool) -> bool | None:
        """Whether a closer inside an ambiguous value (ending at ``end`` of ``buf``) ends
        the call, by what follows it; None: not known yet."""
        m = NOT_SPACE(buf, end)
        if m is None:
            return True if final else None  # the stream ends: the close tag was missing
        i = m.start()
        rest = buf[i : i + 64]
        for tag in self.scan.tags:
            if rest.startswith(tag):
                return False  # the value's own tags follow: it was value text
            if not final and tag.startswith(rest):
                return None
        for lit in self.literals:
            if rest.startswith(lit):
                return True  # more markup follows: the value's close tag was missing
            if not final and lit.startswith(rest):
                return None
        return False  # more text follows: it was value text


__all__ = ["ValueGate"]
