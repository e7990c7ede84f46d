"""``parsergen_hf`` through vLLM's own serving code (runs where vLLM imports; issue 37 item 4).

The served tokenizer carries a Hugging Face ``response_template`` (TRL's Qwen3 table
entry, on the Qwen3.6 test tokenizer whose markers it names); vLLM 0.33's
``OpenAIServingChat`` is configured with ``--reasoning-parser parsergen_hf
--tool-call-parser parsergen_hf`` (and ``parsergen_beam``), and a fake engine replays
each completion token by token, or whole.  The message a client receives must be what
transformers' ``parse_response`` reads from the same prompt and completion with the same
template (run here), field by field.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("vllm")
chat_parsing = pytest.importorskip("transformers.utils.chat_parsing")

from parsergen.integrations import vllm as plugin  # noqa: E402
from parsergen.integrations.vllm_templates import template_module  # noqa: E402
from support import tokenizers as toks  # noqa: E402
from support.hf_templates import LOOKAHEAD_ELSEWHERE, TRL_qwen3  # noqa: E402
from test_vllm import _received, serve  # noqa: E402
from vllm.reasoning import ReasoningParserManager  # noqa: E402
from vllm.tool_parsers import ToolParserManager  # noqa: E402

PROMPT = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
CALL = ('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", '
        '"when": {"days": [1, 2], "note": "say \\"hi\\""}}}\n</tool_call>\n')
SECOND = '<tool_call>\n{"name": "get_time", "arguments": {"tz": "CET"}}\n</tool_call>\n'
THINK = "<think>\nLet me think.\n</think>\n\n"
END = "<|im_end|>"
# (case, prompt, completion)
CASES = [
    ("content only", PROMPT, "Hello there." + END),
    ("reasoning and content", PROMPT, THINK + "Hello there.\n" + END),
    ("reasoning, content and two calls", PROMPT, THINK + "Sure." + CALL + SECOND + END),
    ("reasoning opened by the prompt", PROMPT + "<think>\n",
     "Let me think.\n</think>\n\n" + CALL + END),
]
TOOLS = [{"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
         for name in ("get_weather", "get_time")]


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    # A tokenizer of its own (the cached one is shared with the other tests).
    tok = toks.qwen36.__wrapped__()
    tok.response_template = TRL_qwen3
    return tok


def _as_hf(message: Any) -> dict[str, Any]:
    """A received message as parse_response writes one (TRL's field names)."""
    out: dict[str, Any] = {"role": "assistant"}
    if message.reasoning:
        out["reasoning_content"] = message.reasoning
    if message.content:
        out["content"] = message.content
    if message.tool_calls:
        out["tool_calls"] = [{"type": "function", "function": {
            "name": c.name, "arguments": json.loads(c.arguments)}} for c in message.tool_calls]
    return out


def test_hf_and_beam_are_registered() -> None:
    for name in ("parsergen_hf", "parsergen_beam"):
        assert name in ReasoningParserManager.list_registered()
        assert ToolParserManager.get_tool_parser(name)
        assert name in plugin.REGISTERED


@pytest.mark.parametrize("parser", ["parsergen_hf", "parsergen_beam"])
@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("case,prompt,text", CASES, ids=[c[0] for c in CASES])
def test_served_as_transformers_parses_it(tokenizer: Any, parser: str, stream: bool,
                                          case: str, prompt: str, text: str) -> None:
    ids = tokenizer.encode(text, add_special_tokens=False)
    deltas = [([i], tokenizer.decode([i])) for i in ids]  # one token a delta
    assert "".join(t for _, t in deltas) == text
    prompt_ids = tokenizer.encode(prompt, add_special_tokens=False)
    got = serve(parser, tokenizer, deltas, prompt_ids, stream=stream, tools=TOOLS, kwargs=None)
    expected = chat_parsing.parse_response(text, TRL_qwen3, prefix=prompt, tools=TOOLS)
    assert _as_hf(_received(got)) == expected


def test_special_tokens_stay_in_the_text(tokenizer: Any) -> None:
    # As vLLM's hf parser: the template's markers may be special tokens.
    reasoning = ReasoningParserManager.get_reasoning_parser("parsergen_hf")(tokenizer)
    request = SimpleNamespace(skip_special_tokens=True, spaces_between_special_tokens=True)
    assert reasoning.adjust_request(request).skip_special_tokens is False
    assert request.spaces_between_special_tokens is False


def test_a_tokenizer_without_a_usable_template_is_refused_with_the_reason() -> None:
    import parsergen

    bare = toks.qwen36()  # (no response_template)
    with pytest.raises(TypeError, match="parsergen_hf requires `response_template`"):
        ReasoningParserManager.get_reasoning_parser("parsergen_hf")(bare)
    refused = SimpleNamespace(response_template=LOOKAHEAD_ELSEWHERE)
    with pytest.raises(parsergen.SpecError, match="lookahead"):
        template_module(refused)


def test_vllms_own_hf_parser_refuses_this_template(tokenizer: Any) -> None:
    """What parsergen_hf adds: vLLM 0.33's hf parser serves only the field names
    thinking, content and tool_calls, so TRL's templates (reasoning_content) fail at
    startup there; parsergen maps either name to reasoning."""
    with pytest.raises(TypeError, match="unsupported semantic fields"):
        serve("hf", tokenizer, [], [], stream=False, tools=TOOLS, kwargs=None)
