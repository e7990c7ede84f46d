"""What the TOOL_ARGS lexer keeps of the syntax's value scanner (``lexing.ValueArgs``).

A format whose arguments syntax has strings or values that hide markers reads its
TOOL_ARGS text through a ``ValueScan`` (``arguments/values.py``); the ``ValueGate`` is
that scanner for the call being read (restarted by every transition into TOOL_ARGS,
generated ``EnterValues``), and a call closer that came as its token inside an
ambiguous value, held until what follows it decides.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
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
    A call opener (a marker that ends the call and starts the next: qwen3's
    ``<function=``, Mistral's ``[TOOL_CALLS]``) starts a call only where a call's start
    follows it: a name (no tag or line break in it) up to a marker that ends a name,
    then, inside an ambiguous value, after whitespace, a field's open tag, a call
    closer or the completion's end; other text means it was value text.  One that is a
    special token inside a string starts a call where a name and a name-ending special
    token follow it (``[TOOL_CALLS]g[ARGS]``): the string was left open.
    ``held``/``held_after``: such a marker that arrived as its token, and the
    text read after it, until what follows decides.
    """

    __slots__ = ("scan", "closers", "after", "literals", "special", "special_search", "held",
                 "held_after", "openers", "name_ends", "starts", "tokens", "spelled")

    def __init__(self, scan: ValueScan, after: Mapping[str, tuple[str, ...]],
                 literals: Mapping[str, str], special: frozenset[str] = frozenset(),
                 openers: Mapping[str, tuple[str, ...]] | None = None,
                 tables: ValueGate | None = None) -> None:
        self.scan = scan
        self.held: Any = None
        self.held_after = ""
        self.openers: dict[str, tuple[str, ...]]
        self.name_ends: dict[str, tuple[str, ...]]
        self.starts: tuple[str, ...]
        self.after: Mapping[str, tuple[str, ...]]
        self.closers: frozenset[str]
        self.literals: tuple[str, ...]
        self.spelled: dict[str, str]
        self.tokens: frozenset[str]
        self.special: frozenset[str]
        self.special_search: Callable[..., re.Match[str] | None] | None
        if tables is not None:  # (another gate's tables, read only: see fresh)
            self.openers, self.name_ends, self.starts = (
                tables.openers, tables.name_ends, tables.starts)
            self.after, self.closers, self.literals = tables.after, tables.closers, tables.literals
            self.spelled, self.tokens, self.special = tables.spelled, tables.tokens, tables.special
            self.special_search = tables.special_search
            return
        # Call openers -> the terminals that end the name after one, and their spellings.
        self.openers = dict(openers or {})
        self.name_ends = {name: tuple(lit for lit, n in literals.items() if n in ends)
                          for name, ends in self.openers.items()}
        # What may follow a call's name inside a value: a field's open tag, a call closer.
        self.starts = scan.fields + tuple(lit for lit, name in literals.items()
                                          if name in after)
        # Terminals that end a call from TOOL_ARGS -> the spellings of the markers the
        # state it leads to reads.
        self.after = after
        self.closers = frozenset(after)
        self.literals = tuple(literals)  # every marker spelling of the format
        self.spelled = dict(literals)  # spelling -> terminal
        # Terminals whose spelling in text is one special token (the tokenizer's, or the
        # spec's token_id ones without a tokenizer); the call closers and openers among
        # them, and a search for their spellings: none once token ids come, where a
        # marker in text is ordinary tokens.
        self.tokens = special
        self.special = special & (self.closers | frozenset(self.openers))
        spelled = sorted((lit for lit, name in literals.items() if name in self.special),
                         key=lambda lit: (-len(lit), lit))
        self.special_search = (re.compile("|".join(map(re.escape, spelled))).search
                               if spelled else None)

    def fresh(self, scan: ValueScan) -> ValueGate:
        """A gate for a new parser: this gate's tables (read only, shared), ``scan`` as
        its scanner, nothing held."""
        return ValueGate(scan, self.after, self.spelled, tables=self)

    def ids_came(self) -> None:
        """Token ids come: a marker spelled in text is ordinary tokens, no special one."""
        self.special = self.tokens = frozenset()
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
        if name in self.openers:
            return scan.ambiguous or special and scan.quoted
        return name in self.closers and (scan.ambiguous or special and scan.quoted)

    def closes(self, buf: str, end: int, final: bool, name: str | None) -> bool | None:
        """Whether closer ``name`` inside a value (ending at ``end`` of ``buf``) ends the
        call, by what follows it; None: not known yet.  (A call opener: whether it
        starts the next call.)"""
        if name in self.openers:
            return self._starts_call(buf, end, final, name or "")
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

    def _starts_call(self, buf: str, end: int, final: bool, name: str) -> bool | None:
        """Whether call opener ``name`` inside a value (ending at ``end``) starts a call:
        a name up to a marker that ends it, then (in an ambiguous value) a field, a call
        closer or the end; (in a string) that marker a special token."""
        j, close = -1, ""
        for lit in self.name_ends[name]:
            k = buf.find(lit, end)
            if k >= 0 and (j < 0 or k < j):
                j, close = k, lit
        header = buf[end : j if j >= 0 else len(buf)]
        if "<" in header or "\n" in header or len(header) > _MAX_NAME:
            return False  # no name: value text
        if j < 0:
            return False if final else None
        if not header.strip():
            return False
        if not self.scan.ambiguous:  # (a special token inside a string)
            if self.spelled.get(close) not in self.tokens:
                return False
            rest = buf[j + len(close) : j + len(close) + 64]
            starts = self.scan.starts_arguments(rest, final)
            return False if starts is None and len(rest) == 64 else starts  # (bounded)
        m = NOT_SPACE(buf, j + len(close))
        if m is None:
            return True if final else None  # (cut right after a call's name)
        rest = buf[m.start() : m.start() + 64]
        for lit in self.starts:
            if rest.startswith(lit):
                return True
            if not final and lit.startswith(rest):
                return None
        return False  # other text after the name: value text

    def opener_named(self, opener: str, header: str, marker: str) -> bool:
        """Whether call opener ``opener``, held as its token, then the text ``header``
        and the marker token ``marker`` start a call (``marker`` ends its name)."""
        return (marker in self.openers[opener] and bool(header.strip())
                and "<" not in header and "\n" not in header and len(header) <= _MAX_NAME)


# The longest call name a call opener inside a value may be followed by.
_MAX_NAME = 200


__all__ = ["ValueGate"]
