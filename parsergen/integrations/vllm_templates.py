"""vLLM parsers for a checkpoint's own Hugging Face ``response_template``: ``parsergen_hf``.

vLLM 0.33's ``hf`` parser (and ``beam``, built on it) reads the served tokenizer's
``response_template`` and interprets it with transformers' ``ResponseParser``.
``parsergen_hf`` reads the same template the same way (the tokenizer's
``response_template``, else its ``init_kwargs``' one: ``vllm/parser/response_template.py``,
``resolve_response_template``) and serves the module ``parsergen.load`` compiles from
it, through the same reasoning and tool parsers as every bundled format::

    vllm serve HuggingFaceTB/SmolLM3-3B --reasoning-parser parsergen_hf \\
        --enable-auto-tool-choice --tool-call-parser parsergen_hf

``parsergen_beam`` is the same parser under vLLM's other template name (Beam's markers
come from its checkpoint's template too; vLLM's Beam grammar is not carried over).
A tokenizer without a template, or with one the compiler refuses, fails when the
first request's parser is made, with the reason (the template's field and why).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from parsergen import integrations
from parsergen.integrations import TEMPLATE_NAMES as NAMES
from parsergen.integrations.vllm import PREFIX, ParsergenReasoningParser, ParsergenToolParser


def template_module(tokenizer: Any) -> ModuleType:
    """The module of the served tokenizer's response_template (``integrations``)."""
    return integrations.template_module(tokenizer, PREFIX + "hf")


def _keep_special_tokens(request: Any) -> Any:
    """As vLLM's ``hf`` parser: a template's markers are often special tokens, which
    must stay in the text the parsers read."""
    if hasattr(request, "skip_special_tokens"):
        request.skip_special_tokens = False
    if hasattr(request, "spaces_between_special_tokens"):
        request.spaces_between_special_tokens = False
    return request


class TemplateReasoningParser(ParsergenReasoningParser):
    """The reasoning phase of the served tokenizer's response_template."""

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        # Per instance: the module is the served tokenizer's, not the class's.
        self.MODULE = template_module(tokenizer)  # type: ignore[misc]
        super().__init__(tokenizer, *args, **kwargs)

    def adjust_request(self, request: Any) -> Any:
        return _keep_special_tokens(super().adjust_request(request))


class TemplateToolParser(ParsergenToolParser):
    """Content and tool calls of the served tokenizer's response_template."""

    def __init__(self, tokenizer: Any, tools: list[Any] | None = None, **kwargs: Any) -> None:
        self.MODULE = template_module(tokenizer)  # type: ignore[misc]
        super().__init__(tokenizer, tools, **kwargs)

    def adjust_request(self, request: Any) -> Any:
        return _keep_special_tokens(super().adjust_request(request))


def register() -> list[str]:
    """Register ``parsergen_hf`` and ``parsergen_beam``; return the names registered."""
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers import ToolParserManager

    for name in NAMES:
        ReasoningParserManager.register_module(PREFIX + name, module=TemplateReasoningParser)
        ToolParserManager.register_module(PREFIX + name, module=TemplateToolParser)
    return [PREFIX + name for name in NAMES]


__all__ = ["NAMES", "TemplateReasoningParser", "TemplateToolParser", "register",
           "template_module"]
