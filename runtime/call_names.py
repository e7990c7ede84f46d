"""A call's name as the model wrote it, read: the tool it names and the call id in it;
and a whole call read at once (a parse's runs, ``runs``).

``CallNames`` holds what a format and a request say about names: the spec's
``tool_name`` pattern (its ``name`` and ``id`` groups), character references to decode,
a glued prefix (a name that lost its separators), the requested tools and, where the
format validates names, the names that stand.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from mypy_extensions import mypyc_attr

from .arguments import ArgumentSyntax
from .arguments.scanning import ENTITY_DECODERS
from .schema_types import ToolTyping, read_tools

_WORD = re.compile(r"\w").search
# Words, not a name: whitespace inside, or a sentence's end (a name ends in none).
_WORDS = re.compile(r"\s|[.,;!?]$").search


@mypyc_attr(allow_interpreted_subclasses=True)
class CallNames:
    """How one request reads a format's call names."""

    __slots__ = ("syntax", "typing", "properties", "requested", "valid_names", "name_pattern",
                 "name_entities", "glued_prefix", "lead", "tail", "plain")

    def __init__(self, syntax: ArgumentSyntax, typing: ToolTyping,
                 valid_names: Collection[str] | None, name_pattern: re.Pattern[str] | None,
                 name_entities: Callable[[str], str] | None,
                 glued_prefix: str | None, lead: str = "", tail: str = "") -> None:
        self.syntax = syntax  # (reads a call whole; a name may hold the first key)
        self.typing = typing
        self.properties = typing.properties  # (bound once: a syntax's whole reads call it)
        self.requested = typing.names  # the request's function tools
        self.valid_names = valid_names
        self.name_pattern = name_pattern
        self.name_entities = name_entities  # decodes character references in a name
        self.glued_prefix = glued_prefix  # a name's prefix when its separators were lost
        self.lead = lead  # the render's text between a call's marker and its name ...
        self.tail = tail.lstrip()  # ... and after it, to a field or a marker (its spelling)
        # A name's text is the name, stripped (what ``called`` gives without a pattern or
        # references to decode).
        self.plain = name_pattern is None and name_entities is None

    def whole_call(self, name: str | None, text: str) -> tuple[str, str, str] | None:
        """A call read at once from its name's text (None: the syntax reads the name in
        the arguments) and its TOOL_ARGS text: (name, arguments, call id or "") when that
        is what reading it piece by piece gives, a call with no warning; else None."""
        if name is None:
            taken = self.syntax.whole_call(text, self.properties)
            if taken is None:
                return None
            # (A name read as it is, stripped, without a call: once per call of a run.)
            name, call_id = ((taken[0].strip(), "") if self.plain else self.called(taken[0]))
            return (name, taken[1], call_id) if self.is_call_name(name) else None
        name, call_id = self.called(name)
        # (A name no requested tool has may hold the first key: _judge reads it then.)
        if not self.is_call_name(name) or self.requested and name not in self.requested:
            return None
        arguments = self.syntax.whole_arguments(text, self.typing.properties(name))
        return None if arguments is None else (name, arguments, call_id)

    def whole_object(self, text: str, pos: int) -> tuple[str, str, str, int] | None:
        """``whole_call`` of a call that is one JSON object at ``pos`` of ``text``:
        (name, arguments, call id or "", just past the object), or None."""
        taken = self.syntax.whole_object(text, pos, self.properties)
        if taken is None:
            return None
        name, call_id = ((taken[0].strip(), "") if self.plain else self.called(taken[0]))
        return (name, taken[1], call_id, taken[2]) if self.is_call_name(name) else None

    def called(self, header: str) -> tuple[str, str]:
        """(tool name, call id or "") of a call's name text: stripped, read by the
        tool_name pattern (its name and id groups) or unglued, references decoded."""
        name, call_id = header.strip(), ""
        pattern = self.name_pattern
        if pattern is not None:
            m = pattern.match(name)
            if m is not None:
                groups = m.groupdict()
                name = groups.get("name") or name
                call_id = groups.get("id") or ""
            elif self.glued_prefix is not None:
                name = self.glued(name)
        if self.name_entities is not None:
            name = self.name_entities(name)
        return name, call_id

    def is_call_name(self, name: str) -> bool:
        """Whether a call named ``name`` stands (not empty; a requested tool, where the
        format validates names)."""
        return bool(name) and (self.valid_names is None or name in self.valid_names)

    def may_start(self, text: str, words: bool = False) -> bool:
        """Whether a call cut off in its name's ``text`` may have been a call: not where
        words came before any name (``words``), nor where the format validates names and
        no requested tool's name starts with it (a call marker written in prose).  A
        requested name followed by a start of the marker that ends it is one too
        (``_marker_start``: MiniMax's ``d_"`` of ``d_">``, GLM's ``\n<arg_``).  Where
        names are not validated, a text whose name (past the render's text before it,
        Kimi's ``functions.``, and before a start of what the render writes after it,
        DeepSeek's fence) holds whitespace or ends a sentence (``tags.``) is words: no
        name holds either."""
        head = text.strip()
        if not head:
            return not words
        valid = self.valid_names
        if valid is None:
            lead, tail = self.lead, self.tail
            if lead.startswith(head):
                return True
            rest = head[len(lead):] if head.startswith(lead) else head
            size = len(rest)  # (a few places to try, each in linear time: never quadratic)
            for k in range(max(1, size - len(tail)), size + 1):  # a name, a start of the tail
                if tail.startswith(rest[k:]) and _name_like(rest[:k]):
                    return True
            k = rest.find(tail, 1) if tail else -1  # a name, the tail and more (K3's index)
            return k > 0 and _name_like(rest[:k])
        tail = self.tail
        return any(name.startswith(head) or head.startswith(name)
                   and _marker_start(head[len(name):], tail) for name in valid)

    def glued(self, name: str) -> str:
        """The requested tool a name that lost its separators names (``functionsexec5``:
        the glued prefix, the tool's name, digits), when exactly one tool fits; else the
        name as written."""
        prefix = self.glued_prefix or ""
        if not self.requested or not name.startswith(prefix):
            return name
        rest = name[len(prefix):]
        fits = [t for t in self.requested
                if rest.startswith(t) and (rest[len(t):].isdigit() or not rest[len(t):])]
        return fits[0] if len(fits) == 1 else name

    def key_in_name(self, name: str, args: str) -> tuple[str, str] | None:
        """(tool, text opening its first key) when ``name`` is no requested tool but a
        requested tool's name followed by the first argument's key, and the arguments'
        text says the key's open tag was left out (GLM: ``send_command_to_shellcommand
        </arg_key>``); else None.  The longest such tool name wins."""
        if not self.requested or not args or name in self.requested:
            return None
        opening = self.syntax.key_opening(args)
        if opening is None:
            return None
        tool = max((t for t in self.requested if name.startswith(t) and len(name) > len(t)),
                   key=len, default=None)
        if tool is None or not name[len(tool):].strip():
            return None
        return tool, opening + name[len(tool):].strip()


def _marker_start(rest: str, tail: str) -> bool:
    """Whether ``rest``, what came after a requested name, is a start of what the render
    writes after a name (``tail``) or of the marker that follows it: no word character
    (MiniMax's ``d_"``), a start of the tail (HY 3's ``<tool_`` of ``<tool_sep>``), or the
    tail, whitespace, then a run without whitespace that does not begin a word (GLM's
    ``\n<arg_``, HY 4's ``<arg_``); words after a name (``get_weather is``) are prose."""
    if not _WORD(rest) or tail.startswith(rest):
        return True
    if tail and rest.startswith(tail):
        rest = rest[len(tail):]
    rest = rest.lstrip()  # (the render's newline between a name and a marker)
    return not _WORD(rest[:1]) and not _WORDS(rest)


def _name_like(text: str) -> bool:
    """Whether ``text`` (less trailing whitespace) may be a name: no name holds
    whitespace or ends a sentence."""
    name = text.rstrip()
    return bool(name) and not _WORDS(name)


def request_names(chat: Any, tools: Sequence[Any] | None, warnings: list[str]
                  ) -> tuple[list[Mapping[str, Any]] | None, CallNames]:
    """The request's tools as mappings (None without any) and how a ChatParser class
    (``chat``: its syntax, name rules and assembly options) reads its calls' names and
    arguments; ``warnings`` gets what cannot be read of the tools."""
    functions: dict[str, Mapping[str, Any]] = {}  # (read_tools fills it: one walk)
    read = read_tools(tools, warnings, functions) if tools else None
    typing = ToolTyping(read, functions)
    names = typing.names
    valid = names if chat.ASSEMBLY["validate_tool_names"] and names else None
    return read, CallNames(
        chat.SYNTAX, typing, valid, chat.TOOL_NAME_PATTERN,
        ENTITY_DECODERS.get(chat.TOOL_NAME_ENTITIES or ""), chat.TOOL_NAME_GLUED_PREFIX,
        chat.NAME_LEAD, chat.NAME_TAIL)


def not_a_call(reader: Any) -> str:
    """Why a call whose text names it (an envelope, ``CallReader``) that ended before it
    was judged is no call: it is judged once it has a name and arguments."""
    if reader.warnings:
        return str(reader.warnings[0])
    if reader.name is None:
        return ("has arguments but no name" if reader.args_seen
                else "has no name and no arguments object")
    if not reader.name:
        return "has an empty name"
    return f"names {reader.name!r} but has no arguments object"


__all__ = ["CallNames", "not_a_call", "request_names"]
