"""SGLang plugin: a tool-call detector and a reasoning detector for every parsergen format.

``pip install parsergen-llm`` is all it takes: SGLang runs the ``sglang.srt.plugins`` entry
points before it parses its arguments (``load_plugins()`` in ``sglang serve`` and every
server process), and ``register()`` adds ``parsergen_<format>`` (and
``parsergen_<alias>``, and the formats of ``PARSERGEN_SPECS``) to
``FunctionCallParser.ToolCallParserEnum`` and ``ReasoningParser.DetectorMap``, and
``parsergen_hf`` / ``parsergen_beam``: the served tokenizer's Hugging Face
response_template, where SGLang hands the detectors its tokenizer::

    sglang serve --model-path Qwen/Qwen3-8B --reasoning-parser parsergen_qwen3 \\
        --tool-call-parser parsergen_qwen3

SGLang hands text only (no token ids) to its parsers, in two stages: the reasoning
detector splits reasoning from the rest, whose text goes to the tool-call detector.
Both are a parsergen ``ChatParser`` of the same format.  When a tool-call parser follows
(SGLang says so with ``tool_call_parser_active``), the reasoning detector hands the
model's own text over from ``content_offset`` on, and the tool-call detector, started
with ``initialize(start="content")``, reads exactly what one parser would have read.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from contextvars import ContextVar
from types import ModuleType
from typing import Any, ClassVar

from sglang.srt.function_call.base_format_detector import BaseFormatDetector
from sglang.srt.function_call.core_types import (
    StreamingParseResult,
    StructureInfo,
    ToolCallItem,
)
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from sglang.srt.parser.reasoning_parser import BaseReasoningFormatDetector, ReasoningParser
from sglang.srt.parser.reasoning_parser import StreamingParseResult as ReasoningResult

from parsergen import integrations
from parsergen.runtime import DeltaMessage, ParsedMessage

logger = logging.getLogger(__name__)
PREFIX = "parsergen_"
# The thinking switch of the request being parsed, set by the reasoning detector as it
# parses: SGLang gives the tool-call detector no request, and a request's two parsers
# run in the same task (so the same context), one request's task never in another's.
_THINKING: ContextVar[bool | None] = ContextVar("parsergen_thinking", default=None)


def _plain(value: Any) -> Any:
    """A request field (a pydantic model or plain data) as plain data."""
    dump = getattr(value, "model_dump", None)
    return dump() if callable(dump) else value


def to_result(delta: DeltaMessage | ParsedMessage | None) -> StreamingParseResult:
    """A parsergen delta or message as SGLang's tool-call ``StreamingParseResult``: the
    content as normal text, each call (by its ordinal) with its JSON argument text."""
    if delta is None:
        return StreamingParseResult()
    if isinstance(delta, ParsedMessage):
        calls = [ToolCallItem(tool_index=i, name=tc.name, parameters=tc.arguments)
                 for i, tc in enumerate(delta.tool_calls)]
    else:
        calls = [ToolCallItem(tool_index=tc.index, name=tc.name, parameters=tc.arguments or "")
                 for tc in delta.tool_calls if tc.name or tc.arguments]
    return StreamingParseResult(normal_text=delta.content or "", calls=calls)


def _marker_text(module: ModuleType, which: str) -> str:
    """The text of the format's first reasoning ``start`` or ``end`` marker, or ""."""
    found = getattr(integrations.entry(module), f"reasoning_{which}")
    return found or ""


def structure(module: ModuleType) -> tuple[str, Any, str] | None:
    """A call's trigger marker, the render parts before its arguments and the text after
    them, from the spec's render template; None unless the arguments are one JSON object
    between fixed texts that a marker opens (the shape of a legacy structural tag)."""
    call = getattr(getattr(module, "RENDERER", None), "call", None)
    # A legacy tag constrains one JSON object between a call's begin and end.
    if not call or module.RENDERER.syntax.structural_style() != "json":
        return None
    fields = [value for kind, value in call if kind == "field"]
    if fields not in (["name", "arguments"], ["name_json", "arguments"]) or call[0][0] != "marker":
        return None
    at = [value for _, value in call].index("arguments")
    end = "".join(value for _, value in call[at + 1:])
    return (call[0][1], call[:at], end) if end else None


class ParsergenDetector(BaseFormatDetector):
    """A format's content and tool calls for SGLang (subclasses set ``MODULE``)."""

    MODULE: ClassVar[ModuleType]
    # ChatParser's stream_calls: "incremental" streams arguments as they come; a
    # subclass may say "complete" (each call in one delta once complete, so a call cut
    # by max_tokens is never sent).
    STREAM_CALLS: ClassVar[str] = "incremental"

    def __init__(self, tokenizer: Any = None) -> None:
        super().__init__()
        # (markers the served tokenizer spells: its spec's tokenizer_values)
        self.MODULE = integrations.tokenized(self.MODULE, tokenizer)  # type: ignore[misc]
        self._tokenizer = tokenizer
        self._tool_choice: Any = None
        self._chat: Any = None
        shape = structure(self.MODULE)
        self.bot_token = shape[0] if shape else ""
        self.eot_token = shape[2] if shape else ""

    def get_required_tool_parser(self, tool_choice: Any) -> None:
        # FunctionCallParser shows every detector the request's tool_choice here.
        self._tool_choice = _plain(tool_choice)
        return None

    def supports_structural_tag(self) -> bool:
        return structure(self.MODULE) is not None

    def structure_info(self) -> Any:
        shape = structure(self.MODULE)
        if shape is None:
            raise NotImplementedError(f"{self.MODULE.FORMAT}: no legacy structural tag")
        trigger, before, end = shape

        def info(name: str) -> StructureInfo:
            fields = {"name": name, "name_json": json.dumps(name, ensure_ascii=False)}
            begin = "".join(fields[v] if k == "field" else v for k, v in before)
            return StructureInfo(begin=begin, end=end, trigger=trigger)

        return info

    def _new_chat(self, tools: Sequence[Any] | None) -> Any:
        chat = self.MODULE.ChatParser(self._tokenizer, tools=list(tools or ()) or None,
                                      thinking=_THINKING.get(), tool_choice=self._tool_choice,
                                      stream_calls=self.STREAM_CALLS)
        chat.initialize(start="content")
        return chat

    def has_tool_call(self, text: str) -> bool:
        chat = self._new_chat(None)
        message = chat.complete(text)
        return bool(message.tool_calls or message.cut_calls)

    def detect_and_parse(self, text: str, tools: list[Any]) -> StreamingParseResult:
        chat = self._new_chat(tools)
        message = chat.complete(text)
        self._warn(chat)
        return to_result(message)

    def parse_streaming_increment(self, new_text: str, tools: list[Any]) -> StreamingParseResult:
        if self._chat is None:
            self._chat = self._new_chat(tools)
        return to_result(self._chat.feed(new_text))

    def finish(self, tools: list[Any]) -> StreamingParseResult:
        if self._chat is None:
            return StreamingParseResult()
        result = to_result(self._chat.finish())
        self._warn(self._chat)
        return result

    def _warn(self, chat: Any) -> None:
        for warning in chat.warnings:
            logger.warning("parsergen %s: %s", self.MODULE.FORMAT, warning)
        chat.warnings.clear()


class ParsergenReasoningDetector(BaseReasoningFormatDetector):
    """A format's reasoning for SGLang (subclasses set ``MODULE``).

    ``force_reasoning`` (SGLang's "the template or request turned thinking on") is
    parsergen's ``thinking``; unset, the spec's default holds.  ``force_nonempty_content``
    acts on the non-streamed result only (a stream cannot take its reasoning back)."""

    MODULE: ClassVar[ModuleType]

    def __init__(self, stream_reasoning: bool = True, force_reasoning: bool | None = None,
                 tokenizer: Any = None, tool_call_parser_active: bool = False,
                 continue_final_message: bool = False, previous_content: str = "",
                 force_nonempty_content: bool = False) -> None:
        # (markers the served tokenizer spells: its spec's tokenizer_values; first, as
        # the base class is given the marker texts)
        self.MODULE = integrations.tokenized(self.MODULE, tokenizer)  # type: ignore[misc]
        super().__init__(_marker_text(self.MODULE, "start"), _marker_text(self.MODULE, "end"),
                         force_reasoning=bool(force_reasoning),
                         stream_reasoning=stream_reasoning,
                         continue_final_message=continue_final_message,
                         previous_content=previous_content,
                         force_nonempty_content=force_nonempty_content)
        self.reasoning_default = self._reasoning_default()
        self._thinking = force_reasoning
        self._tokenizer = tokenizer
        self._handing_over = tool_call_parser_active
        self._chat = self._new_chat()
        self._texts: list[str] = []  # text fed while reasoning, for the handover
        self._held: list[str] = []  # reasoning held back when not streamed
        self._handed_over = False

    def _reasoning_default(self) -> str | None:
        """How SGLang decides ``force_reasoning`` from a request when the chat template
        does not say: by the spec's thinking switch, else by where the spec starts."""
        for key, *_ in integrations.entry(self.MODULE).thinking_switch:
            if key in ("thinking", "enable_thinking"):
                on = self.MODULE.StreamingParser(None).thinking
                return key if on else f"explicit_{key}"
        return "always" if self.MODULE.StreamingParser(None).thinking else None

    def _new_chat(self) -> Any:
        """A parser that leaves tool markup as text: it is the tool detector's input."""
        chat = self.MODULE.ChatParser(self._tokenizer, thinking=self._thinking,
                                      tool_choice="none")
        chat.initialize(prompt_text=self.previous_content or None)
        return chat

    def get_think_end_token_ids(self, tokenizer: Any) -> list[int]:
        ends = self.MODULE.ChatParser(tokenizer, thinking=self._thinking).reasoning_end_token_ids
        return list(ends[0]) if ends else []

    def detect_and_parse(self, text: str) -> ReasoningResult:
        _THINKING.set(self._thinking)
        chat = self._new_chat()
        message = chat.complete(text)
        content = message.content
        if self._handing_over and chat.content_offset is not None and self._has_calls(text):
            # Raw, for the tool detector to parse; SGLang only runs it on text with a
            # call, so text without one is returned as this parser's content.
            content = text[chat.content_offset:]
        return self._maybe_apply_force_nonempty_content(
            ReasoningResult(normal_text=content, reasoning_text=message.reasoning))

    def _has_calls(self, text: str) -> bool:
        """Whether the completion holds a tool call (complete or cut off)."""
        chat = self.MODULE.ChatParser(self._tokenizer, thinking=self._thinking)
        chat.initialize(prompt_text=self.previous_content or None)
        message = chat.complete(text)
        return bool(message.tool_calls or message.cut_calls)

    def parse_streaming_increment(self, new_text: str) -> ReasoningResult:
        if self._handed_over:
            return ReasoningResult(normal_text=new_text)
        _THINKING.set(self._thinking)
        chat = self._chat
        delta = chat.feed(new_text)
        reasoning = delta.reasoning if delta is not None else None
        if not (self._handing_over and chat.reasoning_ended):
            if self._handing_over:
                self._texts.append(new_text)
            return self._result(reasoning, delta.content if delta is not None else None)
        # Reasoning is over: the rest of the model's text, raw (tool markup included),
        # for the tool detector to read from the start of content.
        text = "".join(self._texts) + new_text
        self._handed_over, self._texts = True, []
        return self._result(reasoning, text[chat.content_offset or 0:], done=True)

    def finish(self) -> ReasoningResult:
        if self._handed_over:
            return ReasoningResult()
        delta = self._chat.finish()
        reasoning = delta.reasoning if delta is not None else None
        content = delta.content if delta is not None else None
        return self._result(reasoning, content, done=True)

    def _result(self, reasoning: str | None, content: str | None,
                done: bool = False) -> ReasoningResult:
        """Reasoning as it comes, or held until reasoning ends when not streamed."""
        if not self.stream_reasoning:
            if reasoning:
                self._held.append(reasoning)
            reasoning = None
            if done or self._chat.reasoning_ended:
                reasoning, self._held = "".join(self._held) or None, []
        return ReasoningResult(normal_text=content, reasoning_text=reasoning)


def detector_classes(name: str, module: ModuleType) -> tuple[type, type]:
    """The tool-call and reasoning detector classes of one format."""
    # An alias may hold hyphens (vLLM's granite-20b-fc): no class name does.
    title = "".join(part.title() for part in name.replace("-", "_").split("_"))
    return (type(f"Parsergen{title}Detector", (ParsergenDetector,),
                 {"MODULE": module, "__module__": __name__}),
            type(f"Parsergen{title}ReasoningDetector", (ParsergenReasoningDetector,),
                 {"MODULE": module, "__module__": __name__}))


class TemplateDetector(ParsergenDetector):
    """Content and tool calls of the served tokenizer's Hugging Face response_template
    (``parsergen_hf``); SGLang must hand the detector its tokenizer."""

    def __init__(self, tokenizer: Any = None) -> None:
        # Per instance: the module is the served tokenizer's, not the class's.
        self.MODULE = integrations.template_module(tokenizer, PREFIX + "hf")  # type: ignore[misc]
        super().__init__(tokenizer)


class TemplateReasoningDetector(ParsergenReasoningDetector):
    """The reasoning of the served tokenizer's response_template (``parsergen_hf``)."""

    def __init__(self, stream_reasoning: bool = True, force_reasoning: bool | None = None,
                 tokenizer: Any = None, **kwargs: Any) -> None:
        # Per instance: the module is the served tokenizer's, not the class's.
        self.MODULE = integrations.template_module(tokenizer, PREFIX + "hf")  # type: ignore[misc]
        super().__init__(stream_reasoning, force_reasoning, tokenizer, **kwargs)


def register() -> list[str]:
    """Register ``parsergen_<name>`` for every format, and ``parsergen_hf`` /
    ``parsergen_beam`` (the served tokenizer's response_template); return the names
    registered."""
    names = []
    for name, module in integrations.formats().items():
        tools, reasoning = detector_classes(name, module)
        FunctionCallParser.ToolCallParserEnum[PREFIX + name] = tools
        ReasoningParser.DetectorMap[PREFIX + name] = reasoning
        names.append(PREFIX + name)
    for name in integrations.TEMPLATE_NAMES:
        FunctionCallParser.ToolCallParserEnum[PREFIX + name] = TemplateDetector
        ReasoningParser.DetectorMap[PREFIX + name] = TemplateReasoningDetector
        names.append(PREFIX + name)
    return names


__all__ = ["PREFIX", "ParsergenDetector", "ParsergenReasoningDetector", "TemplateDetector",
           "TemplateReasoningDetector", "detector_classes", "register", "structure",
           "to_result"]
