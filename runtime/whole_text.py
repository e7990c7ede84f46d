"""A whole completion read in one pass, without a streaming parser, where its shape
allows: ``WholeText``.

A short completion's ``parse()`` was mostly a streaming parser's construction and the
events it passes on.  Where a format starts in content that runs of calls read whole
(``runs``) begin and end in (the compiler's ``whole_text`` pass chooses), the text is
content, then such runs, then content: found with the state's own search and the run's
own reader, nothing else.  Any other shape (a marker the run does not take, a call it
cannot read whole, reasoning, an opening marker, token ids or a prompt) is left to the
streaming assembly, which gives the same message (tests/test_whole_text.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mypy_extensions import mypyc_attr

from .call_ids import CallIds
from .call_names import CallNames, request_names
from .messages import ParsedMessage, ToolCall
from .parser_setup import parser_setup
from .runs import CallProgram, RunCall, call_path
from .text_rules import ContentText


@mypyc_attr(allow_interpreted_subclasses=True)
class WholeText:
    """Per thinking mode, the program of calls read whole in the content a completion
    starts in (a mode without one is parsed as a stream)."""

    __slots__ = ("programs",)

    def __init__(self, programs: Mapping[bool, CallProgram]) -> None:
        self.programs = dict(programs)

    def parse(self, chat: Any, text: str, tools: Sequence[Any] | None, tokenizer: Any,
              thinking: bool | None, ids: str) -> ParsedMessage | None:
        """``parse()`` of ``text`` for a ChatParser class ``chat`` (None: a text of
        another shape), by the assembly's own rules: content through ``ContentText``,
        each call as ``ToolCalls.whole`` gives it."""
        parser = chat.StreamingParser
        mode = parser.THINKING_DEFAULT if thinking is None else bool(thinking)
        warnings: list[str] = []
        names = request_names(chat, tools, warnings)[1]
        read = self.read(parser, text, tokenizer, mode, names)
        if read is None:
            return None
        before, calls, after = read
        flags = chat.ASSEMBLY
        rules = ContentText(flags)
        content: list[str] = []
        rules.add(before, content)
        call_ids = CallIds(flags["call_ids"], ids)
        out: list[ToolCall] = []
        for between, _, _, _, (name, arguments, call_id) in calls:
            if between:
                rules.add(between, content)
            rules.before_call()
            out.append(ToolCall(call_id or call_ids.next(), name, arguments))
        rules.add(after, content)
        rules.finish(content)
        return ParsedMessage(None, "".join(content) or None, tuple(out), (), tuple(warnings))

    def read(self, parser: Any, text: str, tokenizer: Any, thinking: bool,
             names: CallNames) -> tuple[str, list[RunCall], str] | None:
        """(the content before the calls, the calls, the content after them) of a whole
        ``text`` for ``parser`` (a StreamingParser class), each call read by ``names``
        (the text before each, after the first, is content too); None where the text is
        of another shape."""
        program = self.programs.get(thinking)
        if program is None:
            return None
        setup = parser_setup(parser, thinking, parser.LEXICONS[thinking], tokenizer)
        if setup.closed_by_default and setup.opening.reclosers:
            # Reasoning closed before the completion: an end marker written again first
            # (whitespace aside) is that marker, which the stream's opening reads.
            head = text.lstrip()
            for marker in setup.opening.reclosers:
                if head.startswith(marker) or marker.startswith(head):
                    return None
        path = call_path(program, setup.matchers)
        if path.steps is None:
            return None
        search, found, starts = path.search, path.names, program.starts
        m = search(text, 0)
        if m is None:
            return text, [], ""
        begin = m.start()
        if found[m.group()] not in starts:
            return None
        calls, at = path.read(text, begin, names.whole_call, names.whole_object, None, None,
                              True)
        if not calls or search(text, at) is not None:
            return None  # (a call not read whole, or a marker after the run)
        return text[:begin], calls, text[at:]


__all__ = ["WholeText"]
