"""vLLM plugin: a reasoning parser and a tool parser for every parsergen format.

``pip install parsergen-llm`` is all it takes: the ``vllm.general_plugins`` entry point
calls ``register()`` in every vLLM process, which registers ``parsergen_<format>``
(and ``parsergen_<alias>``, the formats of ``PARSERGEN_SPECS``, and ``parsergen_hf`` /
``parsergen_beam``: the served tokenizer's response_template, ``vllm_templates``) with
vLLM's ``ReasoningParserManager`` and ``ToolParserManager``::

    vllm serve Qwen/Qwen3.6-35B-A3B --reasoning-parser parsergen_qwen3 \\
        --enable-auto-tool-choice --tool-call-parser parsergen_qwen3

Without the entry point, ``--tool-parser-plugin parsergen.integrations.vllm`` (and
``--reasoning-parser-plugin``) imports this module, which registers on import.

vLLM splits a completion in two phases: its reasoning parser sees the deltas until
reasoning ends, then hands what follows to its tool parser, which starts in content.
Both parsers here are a parsergen ``ChatParser`` of the same format.  The reasoning
one hands over the model's own text from ``content_offset`` on, with the token ids
that spell it (they may run ahead of the text), so the tool one, started with
``initialize(start="content")``, reads exactly what a single parser would have read
there.  They subclass vLLM's engine adapters, so vLLM's structured output gates on
reasoning the way it does for its own engine formats (an implicit end, such as a
call's start marker, is the first content token).
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar

from vllm.entrypoints.generate.base.protocol import (
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCallInformation,
    FunctionCall,
    ToolCall,
)
from vllm.parser.engine.adapters import ParserEngineReasoningAdapter, ParserEngineToolAdapter
from vllm.parser.engine.parser_engine import ReasoningEnd
from vllm.reasoning import ReasoningParser, ReasoningParserManager
from vllm.tool_parsers import ToolParser, ToolParserManager
from vllm.tool_parsers.tool_strict_level import ToolStrictLevel

from parsergen import integrations
from parsergen.runtime import DeltaMessage as OurDelta
from parsergen.runtime import ParsedMessage
from parsergen.runtime.structural import structural_tag

if TYPE_CHECKING:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

logger = logging.getLogger(__name__)
PREFIX = "parsergen_"


# Characters of the reasoning phase kept for the handover to the tool parser: far more
# than any marker the parser may hold back while it waits to see it whole.
_KEEP = 8192

def to_vllm(delta: OurDelta | None) -> DeltaMessage | None:
    """A parsergen delta as vLLM's ``DeltaMessage``."""
    if delta is None:
        return None
    calls = [DeltaToolCall(index=tc.index, id=tc.id, type=tc.type,
                           function=DeltaFunctionCall(name=tc.name, arguments=tc.arguments))
             for tc in delta.tool_calls]
    return DeltaMessage(reasoning=delta.reasoning, content=delta.content, tool_calls=calls)


def _plain(value: Any) -> Any:
    """A request field (a pydantic model or plain data) as plain data."""
    dump = getattr(value, "model_dump", None)
    return dump() if callable(dump) else value


def _single_ids(seqs: Sequence[Sequence[int]]) -> frozenset[int]:
    # Only one-token markers: masking or matching a multi-token marker's first id
    # would act on an ordinary token.
    return frozenset(seq[0] for seq in seqs if len(seq) == 1)


class ParsergenReasoningParser(ParserEngineReasoningAdapter):
    """A format's reasoning phase for vLLM (subclasses set ``MODULE``)."""

    MODULE: ClassVar[ModuleType]
    engine_based_streaming = True

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        # vLLM's adapter __init__ builds its own engine: skip it, keep the base's.
        ReasoningParser.__init__(self, tokenizer, *args, **kwargs)
        # The request's variant of the format (request_options; ValueError for a value
        # the format does not list, as vLLM's own parsers refuse one).
        self.MODULE = integrations.variant(  # type: ignore[misc]
            self.MODULE, kwargs.get("chat_template_kwargs"))
        # (markers the served tokenizer spells: its spec's tokenizer_values)
        self.MODULE = integrations.tokenized(self.MODULE, tokenizer)  # type: ignore[misc]
        self._thinking = integrations.thinking(self.MODULE, kwargs.get("chat_template_kwargs"))
        self._prompt_ids: list[int] = []
        self._chat = self._new_chat()
        self._started = False
        # The reasoning phase's last deltas (text, ids), until reasoning ends: the rest of
        # the text and its ids are handed over to the tool parser as they came, unparsed.
        # Only a tail is kept (see _trim): memory stays flat however long the reasoning.
        self._texts: deque[str] = deque()
        self._ids: deque[list[int]] = deque()
        self._kept = 0  # characters in _texts
        self._dropped = 0  # characters of the completion dropped from the front
        self._handover: list[int] | None = None
        # Structured output reads the prompt, then the output batch by batch: whether a
        # start marker is open there (a call marker inside it may be reasoning text).
        self._inside = False

    def _new_chat(self) -> Any:
        """A parser that leaves tool markup as text: it is the tool parser's input."""
        chat = self.MODULE.ChatParser(self.model_tokenizer, thinking=self._thinking,
                                      tool_choice="none")
        chat.initialize(self._prompt_ids)
        return chat

    # -- where the completion starts ----------------------------------------

    def set_prompt_token_ids(self, prompt_token_ids: Sequence[int]) -> None:
        self._prompt_ids = list(prompt_token_ids)
        if not self._started:
            self._chat = self._new_chat()

    def adjust_initial_state_from_prompt(self, prompt_token_ids: Sequence[int]) -> None:
        self.set_prompt_token_ids(prompt_token_ids)

    # -- structured output: pure functions of token ids ---------------------

    def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
        self._inside = self._chat.is_reasoning_open(input_ids)
        return self._chat.is_reasoning_end(input_ids)

    def is_reasoning_end_streaming(self, input_ids: Sequence[int], delta_ids: Any) -> bool:
        return self.is_reasoning_end(input_ids)

    def extract_content_ids(self, input_ids: list[int]) -> list[int]:
        if self._handover is not None:  # vLLM asks at the end of the reasoning phase
            return self._handover
        return self._chat.extract_content_ids(input_ids)

    @property
    def reasoning_end_token_ids(self) -> frozenset[int]:
        explicit = _single_ids(self._chat.reasoning_end_token_ids)
        return explicit | self.implicit_reasoning_end_token_ids if explicit else explicit

    @property
    def implicit_reasoning_end_token_ids(self) -> frozenset[int]:
        # As vLLM's engines: only beside an explicit end token.  Without one (an end
        # marker of several tokens), vLLM gates with is_reasoning_end_streaming,
        # which reads marker sequences.
        if not _single_ids(self._chat.reasoning_end_token_ids):
            return frozenset()
        return _single_ids(self._chat.implicit_reasoning_end_token_ids)

    def find_reasoning_end(self, token_ids: Sequence[int]) -> ReasoningEnd | None:
        """The first reasoning end in ``token_ids`` and whether its token is content.

        vLLM's gate hands over the output's new ids after asking ``is_reasoning_end``
        of the prompt; whether a start marker is open carries over from one batch to
        the next, so a call marker inside open reasoning where the format's models never
        call (``reasoning.calls_are_text``) does not end the wait.  (Draft ids of
        speculative decoding count as read.)"""
        ends = self.reasoning_end_token_ids
        if not ends:
            return None
        at, inside = 0, self._inside
        while at <= len(token_ids):
            found = self._chat.find_reasoning_end(token_ids[at:], inside)
            if found.offset is None:
                self._inside = found.inside
                break
            offset = at + found.offset
            if token_ids[offset] in ends:
                self._inside = False
                return ReasoningEnd(offset, found.implicit)
            # A marker of several tokens: vLLM's gate reads one-token markers only.
            at, inside = offset + 1, False
        return ReasoningEnd(len(token_ids), False)

    def count_reasoning_tokens(self, token_ids: Sequence[int]) -> int:
        return self._new_chat().count_reasoning_tokens(token_ids)

    @property
    def reasoning_start_str(self) -> str | None:
        return integrations.entry(self.MODULE).reasoning_start

    @property
    def reasoning_end_str(self) -> str | None:
        return integrations.entry(self.MODULE).reasoning_end

    def adjust_request(self, request: Any) -> Any:
        return request

    # -- parsing ------------------------------------------------------------

    def extract_reasoning(self, model_output: str, request: Any) -> tuple[str | None, str | None]:
        chat = self._new_chat()
        message = chat.complete(model_output)
        if chat.content_offset is None:  # reasoning to the end
            return message.reasoning, message.content
        # As when streaming: the rest of the text, raw, is the tool parser's input.
        return message.reasoning, model_output[chat.content_offset:] or None

    def extract_reasoning_streaming(self, previous_text: str, current_text: str, delta_text: str,
                                    previous_token_ids: Sequence[int],
                                    current_token_ids: Sequence[int],
                                    delta_token_ids: Sequence[int]) -> DeltaMessage | None:
        self._started = True
        chat = self._chat
        self._texts.append(delta_text)
        self._ids.append(list(delta_token_ids))
        self._kept += len(delta_text)
        delta = chat.feed(delta_text, delta_token_ids)
        if not chat.reasoning_ended:
            self._trim()
            return to_vllm(delta)
        # Reasoning is over: the content is the rest of the model's text, raw (tool
        # markup included), for the tool parser to read from the start of content.
        text = "".join(self._texts)
        start = max((chat.content_offset or 0) - self._dropped, 0)
        self._handover = self._content_ids(text, [i for ids in self._ids for i in ids], start)
        self._texts, self._ids = deque(), deque()
        rest = text[start:]
        reasoning = delta.reasoning if delta is not None else None
        return DeltaMessage(reasoning=reasoning, content=rest) if reasoning or rest else None

    def _trim(self) -> None:
        """Drop the oldest deltas beyond the last ``_KEEP`` characters: reasoning ends
        within what the parser may still hold back (a partial marker), so content never
        starts that far back.  A delta is dropped only where its ids spell its text (a
        character split across tokens joins the next delta first), so the ids kept still
        line up with the text kept."""
        texts, ids, decode = self._texts, self._ids, self.model_tokenizer.decode
        while len(texts) > 1 and self._kept - len(texts[0]) >= _KEEP:
            if ids[0] and "".join(decode([i]) for i in ids[0]) != texts[0]:
                texts[1], ids[1] = texts[0] + texts[1], ids[0] + ids[1]
            else:
                self._kept -= len(texts[0])
                self._dropped += len(texts[0])
            texts.popleft()
            ids.popleft()

    def _content_ids(self, text: str, ids: list[int], start: int) -> list[int]:
        """The ids of ``text[start:]`` and of text still to come (ids may run ahead of
        the text); none when the ids do not spell the text (the tool parser then reads
        the handed-over text's markers as text)."""
        decode = self.model_tokenizer.decode
        pieces = [decode([i]) for i in ids]
        if not "".join(pieces).startswith(text):
            return []
        at = 0
        for k, piece in enumerate(pieces):
            if at + len(piece) > start:
                return ids[k:]
            at += len(piece)
        return []

    def has_engine_confirmed_reasoning_end(self) -> bool:
        return self._chat.reasoning_ended

    def finish_streaming(self) -> DeltaMessage | None:
        """The end of the stream inside reasoning: what the parser holds."""
        if self._handover is not None:
            return None  # everything after reasoning went to the tool parser, raw
        return to_vllm(self._chat.finish())

    def get_streaming_fallback_content(self, text: str, request: Any) -> str | None:
        return None


class ParsergenToolParser(ParserEngineToolAdapter):
    """A format's content and tool calls for vLLM (subclasses set ``MODULE``)."""

    MODULE: ClassVar[ModuleType]
    engine_based_streaming = True
    # Calls are parsed in the format's own syntax whatever tool_choice says, not as
    # the JSON list vLLM would otherwise force for "required" and named choices.
    supports_required_and_named = False
    # vLLM asks get_structural_tag only of parsers that name a structural tag model;
    # any name does, as the tag is built here from the format's own spec.
    structural_tag_model = "parsergen"
    # ChatParser's stream_calls: "incremental" (as vLLM's parsers) streams arguments as
    # they come; a subclass may say "complete" (each call in one delta once complete,
    # so a call cut by max_tokens is never sent).
    STREAM_CALLS: ClassVar[str] = "incremental"

    def __init__(self, tokenizer: Any, tools: list[Any] | None = None, **kwargs: Any) -> None:
        ToolParser.__init__(self, tokenizer, tools)
        # (markers the served tokenizer spells: its spec's tokenizer_values)
        self.MODULE = integrations.tokenized(self.MODULE, tokenizer)  # type: ignore[misc]
        self._tool_list = list(tools or ())  # as given: pydantic models or dicts
        self._thinking = integrations.thinking(self.MODULE, kwargs.get("chat_template_kwargs"))
        self._skip_reasoning = False
        self._chat: Any = None

    @property
    def skip_reasoning_parsing(self) -> bool:
        return self._skip_reasoning

    @skip_reasoning_parsing.setter
    def skip_reasoning_parsing(self, value: bool) -> None:
        # vLLM sets it when no reasoning parser is configured; accepted, not acted
        # on: the format's own content transitions say what a reasoning marker in
        # content is (qwen3 drops a stray </think>, for one).
        self._skip_reasoning = value

    def adjust_request(self, request: Any) -> Any:
        self._variant(request)  # a value the format does not list: refused before generation
        return ToolParser.adjust_request(self, request)

    def _variant(self, request: Any) -> ModuleType:
        """The format's variant the request's chat_template_kwargs choose (request_options)."""
        module = integrations.variant(self.MODULE, getattr(request, "chat_template_kwargs", None))
        return module if module is self.MODULE else integrations.tokenized(module, self.model_tokenizer)

    def get_structural_tag(self, request: Any, *, reasoning: bool = False,
                           strict_level: ToolStrictLevel = ToolStrictLevel.AUTO) -> Any:
        """The format's xgrammar ``StructuralTag`` for the request's tools and tool_choice.

        As vLLM's own parsers: the tools a choice lets the model call, each ``strict``
        as ``strict_level`` pins it (a non-strict tool's arguments only have to be an
        object).  None without tools, with tool_choice none, when the grammar should
        cover reasoning too (parsergen's tags start after it, where vLLM's reasoning
        gate hands over), or when xgrammar cannot express the format's calls.
        """
        from vllm import envs
        from vllm.tool_parsers.structural_tag_registry import (
            get_structural_tag_tools,
            resolve_tool_strictness,
        )
        from xgrammar import StructuralTag

        choice = getattr(request, "tool_choice", None) or "auto"
        if reasoning or not request.tools or choice == "none" \
                or not envs.VLLM_ENFORCE_STRICT_TOOL_CALLING:
            return None
        tools = resolve_tool_strictness(
            get_structural_tag_tools(self.structural_tag_model, request.tools, choice),
            choice, strict_level)
        if not tools:
            return None
        try:
            tag = structural_tag(self._variant(request).RENDERER, tools,
                                 tool_choice=_plain(choice))
        except ValueError as exc:  # a choice we cannot constrain: parse unconstrained
            logger.warning("parsergen %s: no structural tag: %s", self.MODULE.FORMAT, exc)
            return None
        return None if tag is None else StructuralTag.model_validate(tag)

    def _new_chat(self, request: Any) -> Any:
        """A parser that starts in content, with the request's tools and tool_choice."""
        tools = self._tool_list or list(getattr(request, "tools", None) or ())
        module = self._variant(request)
        thinking = self._thinking
        if thinking is None:
            thinking = integrations.thinking(module, integrations.template_kwargs(request))
        chat = module.ChatParser(self.model_tokenizer, tools=tools, thinking=thinking,
                                      tool_choice=_plain(getattr(request, "tool_choice", None)),
                                      stream_calls=self.STREAM_CALLS)
        chat.initialize(start="content")
        return chat

    def extract_tool_calls(self, model_output: str,
                           request: ChatCompletionRequest) -> ExtractedToolCallInformation:
        chat = self._new_chat(request)
        message: ParsedMessage = chat.complete(model_output)
        self._warn(chat)
        calls = [ToolCall(id=tc.id, function=FunctionCall(name=tc.name, arguments=tc.arguments))
                 for tc in message.tool_calls]
        # A call the completion cut off is no call and not content either; vLLM keeps the
        # text it passed in as content unless a call was made, so one was (none returned).
        return ExtractedToolCallInformation(tools_called=bool(calls or message.cut_calls),
                                            tool_calls=calls, content=message.content)

    def extract_tool_calls_streaming(self, previous_text: str, current_text: str,
                                     delta_text: str, previous_token_ids: Sequence[int],
                                     current_token_ids: Sequence[int],
                                     delta_token_ids: Sequence[int],
                                     request: ChatCompletionRequest) -> DeltaMessage | None:
        if self._chat is None:
            self._chat = self._new_chat(request)
        return to_vllm(self._chat.feed(delta_text, delta_token_ids))

    def finish_streaming(self) -> DeltaMessage | None:
        if self._chat is None:
            return None
        delta = to_vllm(self._chat.finish())
        self._warn(self._chat)
        return delta

    def _warn(self, chat: Any) -> None:
        for warning in chat.warnings:
            logger.warning("parsergen %s: %s", self.MODULE.FORMAT, warning)
        chat.warnings.clear()


def parser_classes(name: str, module: ModuleType) -> tuple[type, type]:
    """The reasoning and tool parser classes of one format."""
    # An alias may hold hyphens (vLLM's granite-20b-fc): no class name does.
    title = "".join(part.title() for part in name.replace("-", "_").split("_"))
    return (type(f"Parsergen{title}ReasoningParser", (ParsergenReasoningParser,),
                 {"MODULE": module, "__module__": __name__}),
            type(f"Parsergen{title}ToolParser", (ParsergenToolParser,),
                 {"MODULE": module, "__module__": __name__}))


def register() -> list[str]:
    """Register ``parsergen_<name>`` for every format, and ``parsergen_hf`` and
    ``parsergen_beam`` (the served tokenizer's response_template: ``vllm_templates``);
    return the names registered."""
    from parsergen.integrations import vllm_templates

    names = []
    for name, module in integrations.formats().items():
        reasoning, tools = parser_classes(name, module)
        ReasoningParserManager.register_module(PREFIX + name, module=reasoning)
        ToolParserManager.register_module(PREFIX + name, module=tools)
        names.append(PREFIX + name)
    return names + vllm_templates.register()


# Imported by path or module name (--tool-parser-plugin, --reasoning-parser-plugin),
# the module registers itself; the entry point calls register() again, harmlessly.
REGISTERED = register()

__all__ = ["PREFIX", "ParsergenReasoningParser", "ParsergenToolParser", "parser_classes",
           "register", "to_vllm"]
