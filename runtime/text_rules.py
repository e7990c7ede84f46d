"""Reasoning and content as the user sees them: the assembly's text rules.

``ContentText`` holds back content whitespace that tool calls may yet drop;
``ReasoningText`` strips reasoning's trailing whitespace, drops the newlines that frame
its end marker (``reasoning.newline_framing``) and a channel-name header line
(``assembly.reasoning_header``).  ``ChatParser`` owns one of each per completion.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mypy_extensions import mypyc_attr


@mypyc_attr(allow_interpreted_subclasses=True)
class ContentText:
    """Content text, holding back whitespace that tool calls may yet drop.

    Whitespace-only content before the first non-whitespace waits: tool calls drop it
    (drop_whitespace_only_content_before_tools).  With strip_content_whitespace_with_tools
    trailing whitespace also waits, so that content ends stripped when calls follow; more
    content releases it.
    """

    __slots__ = ("held", "seen", "after_end", "_tools_seen", "_strip", "_drop_ws_before_tools",
                 "_lstrip_newlines", "_strip_all", "_rstrip")

    def __init__(self, flags: Mapping[str, Any]) -> None:
        self.held = ""  # content whitespace held back
        self.seen = False  # content with non-whitespace went out
        self.after_end = False  # the next content may start with reasoning's framing newline
        self._tools_seen = False
        self._strip = flags["strip_content_whitespace_with_tools"]
        self._drop_ws_before_tools = flags["drop_whitespace_only_content_before_tools"]
        self._lstrip_newlines = flags["strip_leading_content_newlines"]
        self._strip_all = flags["strip_text"]  # both ends, with or without calls
        self._rstrip = self._strip or self._strip_all  # trailing whitespace waits (add)

    def add(self, text: str, out: list[str]) -> None:
        """Content ``text``: what may go out now is appended to ``out``."""
        piece = self.take(text)
        if piece:
            out.append(piece)

    def take(self, text: str) -> str:
        """Content ``text``: what may go out now ("" for nothing yet)."""
        if self.after_end:
            self.after_end = False
            if text.startswith("\n"):
                text = text[1:]
                if not text:
                    return ""
        if self._lstrip_newlines and not self.seen and not self.held:
            text = text.lstrip("\n")
            if not text:
                return ""
        text = self.held + text
        self.held = ""
        if not self.seen:
            if not text.strip():
                self.held = text
                return ""
            self.seen = True
            if self._strip_all:
                text = text.lstrip()
        if self._rstrip:
            body = text.rstrip()
            self.held = text[len(body):]
            return body
        return text

    def before_call(self) -> str:
        """A tool call starts: the held whitespace it drops (content again if the call
        turns out no call)."""
        self._tools_seen = True
        self.after_end = False
        ws = self.held
        if not self.seen and self._drop_ws_before_tools:
            self.held = ""
        return ws

    def finish(self, out: list[str]) -> None:
        """End of the completion: held whitespace goes out unless calls drop it."""
        if not self._strip_all and (not self._tools_seen or not self._strip):
            if self.held and (self.seen or not self._tools_seen
                              or not self._drop_ws_before_tools):
                out.append(self.held)
        self.held = ""


@mypyc_attr(allow_interpreted_subclasses=True)
class ReasoningText:
    """Reasoning text, holding back what may still be dropped: trailing whitespace, a
    framing newline before the end marker, the header line it may open with."""

    __slots__ = ("content", "framing", "framing_nl", "header", "header_held", "ws", "_strip",
                 "_lstrip", "started")

    def __init__(self, flags: Mapping[str, Any], framing: bool, content: ContentText) -> None:
        self.content = content  # (the newline after a framed end marker is its to drop)
        self._strip = flags["strip_trailing_reasoning_whitespace"]
        self._lstrip = flags["strip_text"]  # each block's leading whitespace too
        self.started = False  # this block's text has begun (past its leading whitespace)
        # '\n' + end marker + '\n' framing (Step-3.5): both newlines are dropped.
        self.framing = framing
        self.framing_nl = False  # a newline held at the end of reasoning
        # A channel-name line opening the reasoning (Gemma's "thought"), dropped.
        self.header: str = flags["reasoning_header"] or ""
        self.header_held: str | None = "" if self.header else None
        self.ws = ""  # trailing reasoning whitespace, held

    def add(self, text: str, out: list[str]) -> None:
        """Reasoning ``text``: what may go out now is appended to ``out``."""
        piece = self.take(text)
        if piece:
            out.append(piece)

    def take(self, text: str) -> str:
        """Reasoning ``text``: what may go out now ("" for nothing yet)."""
        if self.header_held is not None:
            text = self._drop_header(text)
            if not text:
                return ""
        if self.framing:
            if self.framing_nl:
                text = "\n" + text
            self.framing_nl = text.endswith("\n")
            if self.framing_nl:
                text = text[:-1]
            if not text:
                return ""
        if self._lstrip and not self.started:
            text = text.lstrip()
            if not text:
                return ""
            self.started = True
        if not self._strip:
            return text
        text = self.ws + text
        body = text.rstrip()
        self.ws = text[len(body):]
        return body

    def _drop_header(self, text: str) -> str:
        """Hold reasoning while it may still be the header line; drop that line."""
        held = (self.header_held or "") + text  # (called while the header may come)
        line = self.header + "\n"
        if line.startswith(held):
            self.header_held = held
            return ""
        self.header_held = None
        return held[len(line):] if held.startswith(line) else held

    def end(self, out: list[str], closed: bool = True) -> None:
        """Reasoning is over (``closed``: by a marker, not by the end of the stream)."""
        held = self.header_held
        if held is not None:
            self.header_held = None
            # The header line alone, with or without its newline, is an empty channel.
            if held and held not in (self.header, self.header + "\n"):
                self.add(held, out)
        if self.framing_nl and not closed:
            # Only a newline before an end marker is framing; this one is text.
            self.framing, self.framing_nl = False, False
            self.add("\n", out)
            self.framing = True
        self.ws = ""
        self.started = False
        self.framing_nl = False
        self.content.after_end = self.framing and closed

    def finish(self, out: list[str]) -> None:
        """End of the completion: a header still held ends reasoning; trailing
        whitespace goes out unless it is stripped."""
        if self.header_held:
            self.end(out)
        if not self._strip and self.ws:
            out.append(self.ws)
        self.ws = ""


__all__ = ["ContentText", "ReasoningText"]
