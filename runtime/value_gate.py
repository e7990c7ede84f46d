"""What the TOOL_ARGS lexer keeps of the syntax's value scanner (``lexing.ValueArgs``).

A format whose arguments syntax has strings or values that hide markers reads its
TOOL_ARGS text through a ``ValueScan`` (``arguments/values.py``); the ``ValueGate`` is
that scanner for the call being read (restarted by every transition into TOOL_ARGS,
generated ``EnterValues``), and a call closer that came as its token inside an
ambiguous value, held until what follows it decides.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from mypy_extensions import mypyc_attr

from .arguments.values import NOT_SPACE, ValueScan


@mypyc_attr(allow_interpreted_subclasses=True)
class ValueGate:
    """The lexer's side of a ``ValueScan``: the scanner of the current call's TOOL_ARGS
    text (started as a transition enters it, ``entered``), and what follows a call
    closer inside a value.

    A closer inside an ambiguous value ends the call where another marker or the end of
    the completion follows it, and is the value's text where the syntax's own tags or
    more text do.  A closer that is one special token inside a string (the model may
    have lost the string's closing quote) ends the call where what follows is what the
    grammar reads after that closer (a marker of the state it leads to) or the end of
    the completion; another marker or more text means it is the string's.
    ``held``/``held_after``: such a closer that arrived as its token, and the
    whitespace read after it, until what follows decides.
    """

    __slots__ = ("scan", "closers", "after", "literals", "special", "special_search", "held",
                 "held_after")

    def __init__(self, scan: ValueScan, after: Mapping[str, tuple[str, ...]],
                 literals: Mapping[str, str], special: frozenset[str] = frozenset()) -> None:
        self.scan = scan
        # Terminals that end a call from TOOL_ARGS -> the spellings of the markers the
        # state it leads to reads.
        self.after = after
        self.closers = frozenset(after)
        self.literals = tuple(literals)  # every marker spelling of the format
        # Closers whose spelling in text is one special token (the tokenizer's, or the
        # spec's token_id ones without a tokenizer), and a search for those spellings:
        # none once token ids come, where a marker in text is ordinary tokens.
        self.special = special & self.closers
        spelled = sorted((lit for lit, name in literals.items() if name in self.special),
                         key=lambda lit: (-len(lit), lit))
        self.special_search = (re.compile("|".join(map(re.escape, spelled))).search
                               if spelled else None)
        self.held: Any = None
        self.held_after = ""

    def ids_came(self) -> None:
        """Token ids come: a marker spelled in text is ordinary tokens, no special one."""
        self.special = frozenset()
        self.special_search = None

    def entered(self, marker: str) -> None:
        """A marker entered TOOL_ARGS: its text may open the arguments (Llama's
        ``{"name"``, GLM's ``<arg_key>``), so the scanner starts with it."""
        self.scan.reset()
        self.scan.feed(marker)

    def waits(self, name: str | None, special: bool) -> bool:
        """Whether terminal ``name`` here, a special token or not, is a closer that what
        follows decides: inside an ambiguous value, or a special one inside a string."""
        scan = self.scan
        return name in self.closers and (scan.ambiguous or special and scan.quoted)

    def closes(self, buf: str, end: int, final: bool, name: str | None) -> bool | None:
        """Whether closer ``name`` inside a value (ending at ``end`` of ``buf``) ends the
        call, by what follows it; None: not known yet."""
        m = NOT_SPACE(buf, end)
        if m is None:
            return True if final else None  # the stream ends: the close tag was missing
        i = m.start()
        rest = buf[i : i + 64]
        if not self.scan.ambiguous:  # (a special token inside a string)
            for lit in self.after[name or ""]:
                if rest.startswith(lit):
                    return True  # what the grammar reads next: the string was left open
                if not final and lit.startswith(rest):
                    return None
            for lit in self.literals:
                if rest.startswith(lit):
                    return False  # markup that cannot follow: quoted in the string
                if not final and lit.startswith(rest):
                    return None
            return False  # more text: the string's
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
