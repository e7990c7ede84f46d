"""Structural tags through xgrammar (runs where xgrammar imports, e.g. vLLM's venv).

Every format with a tag: xgrammar compiles it, and a matcher accepts the module's own
``render()`` of valid calls while rejecting a badly typed argument (and, for
"required" and named choices, text around or extra calls).  With real tokenizers the
render is fed as token ids, as a server would.  vLLM's tool parser returns the same
tag as a ``StructuralTag`` that vLLM's own validation accepts.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

xgr = pytest.importorskip("xgrammar")

import parsergen  # noqa: E402
from support import tokenizers as toks  # noqa: E402

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {
        "city": {"type": "string"}, "days": {"type": "integer"}, "flag": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "opts": {"type": "object", "properties": {"unit": {"type": "string"}}}},
    "required": ["city", "days"]}}}
SEARCH = {"type": "function", "function": {"name": "search", "parameters": {
    "type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}}
TOOLS = [WEATHER, SEARCH]
GOOD = {"name": "get_weather", "arguments": {"city": 'Paris <b> "x"', "days": 3, "flag": True,
                                             "tags": ["a", "b"], "opts": {"unit": "C"}}}
OTHER = {"name": "search", "arguments": {"q": "x y"}}
BAD = {"name": "get_weather", "arguments": {"city": "Paris", "days": "three"}}
FORMATS = [n for n in parsergen.formats()
           if parsergen.structural_tag(n, TOOLS, tool_choice="required") is not None]


def calls(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"tool_calls": [{"function": c} for c in calls]}


def completion(name: str, message: dict[str, Any]) -> str:
    """The module's render of ``message``, after what it writes for an empty one (a
    completion that starts inside reasoning closes it first: the tag starts after)."""
    render = parsergen.load(name).render
    empty, text = render({}), render(message)
    assert text.startswith(empty)
    return text[len(empty):]


@pytest.fixture(scope="module")
def byte_compiler() -> Any:
    vocab = [chr(b) if b < 128 else f"<0x{b:02X}>" for b in range(256)]
    return xgr.GrammarCompiler(xgr.TokenizerInfo(vocab))


def matches(compiler: Any, tag: dict[str, Any], text: str) -> bool:
    matcher = xgr.GrammarMatcher(compiler.compile_structural_tag(json.dumps(tag)))
    return matcher.accept_string(text) and matcher.is_completed()


def test_expected_formats_have_tags() -> None:
    assert {"hermes", "llama3_json", "mistral", "kimi_k2", "deepseek_v3", "qwen3"} <= set(FORMATS)


@pytest.mark.parametrize("name", FORMATS)
def test_required_accepts_renders_and_rejects_bad_types(name: str, byte_compiler: Any) -> None:
    tag = parsergen.structural_tag(name, TOOLS, tool_choice="required")
    assert matches(byte_compiler, tag, completion(name, calls(GOOD)))
    assert matches(byte_compiler, tag, completion(name, calls(GOOD, OTHER)))
    assert not matches(byte_compiler, tag, completion(name, calls(BAD)))
    assert not matches(byte_compiler, tag, "Sure. " + completion(name, calls(GOOD)))
    assert not matches(byte_compiler, tag, "Sure.")


@pytest.mark.parametrize("name", FORMATS)
def test_named_choice_is_one_call_of_that_tool(name: str, byte_compiler: Any) -> None:
    tag = parsergen.structural_tag(name, TOOLS, tool_choice="get_weather")
    assert matches(byte_compiler, tag, completion(name, calls(GOOD)))
    assert not matches(byte_compiler, tag, completion(name, calls(OTHER)))
    assert not matches(byte_compiler, tag, completion(name, calls(GOOD, OTHER)))
    assert not matches(byte_compiler, tag, completion(name, calls(BAD)))


@pytest.mark.parametrize("name", FORMATS)
def test_auto_lets_text_through_and_checks_calls(name: str, byte_compiler: Any) -> None:
    tag = parsergen.structural_tag(name, TOOLS, tool_choice="auto")
    assert matches(byte_compiler, tag, "Just text.")
    assert matches(byte_compiler, tag, "Let me look. " + completion(name, calls(GOOD, OTHER)))
    assert not matches(byte_compiler, tag, "Let me look. " + completion(name, calls(BAD)))


# Formats whose markers are single tokens of a tokenizer the tests rebuild.
TOKENIZED = [("qwen3", "qwen3.6"), ("hermes", "qwen3.6"), ("qwen3_json", "qwen3.6"),
             ("deepseek_v3", "deepseek"), ("kimi_k2", "kimi_k2")]


@pytest.mark.parametrize(("name", "tokenizer"), TOKENIZED)
def test_token_ids_of_a_render_pass_a_real_vocabulary(name: str, tokenizer: str) -> None:
    tok = toks.TOKENIZERS[tokenizer]()
    info = xgr.TokenizerInfo.from_huggingface(tok, vocab_size=max(tok.get_vocab().values()) + 1)
    compiler = xgr.GrammarCompiler(info)
    compiled = compiler.compile_structural_tag(
        json.dumps(parsergen.structural_tag(name, TOOLS, tool_choice="required")))

    def accepts(message: dict[str, Any]) -> bool:
        matcher = xgr.GrammarMatcher(compiled)
        ids = tok.encode(completion(name, message), add_special_tokens=False)
        return all(matcher.accept_token(i) for i in ids) and matcher.is_completed()

    assert accepts(calls(GOOD))
    assert not accepts(calls(BAD))


def test_vllm_tool_parser_returns_the_tag() -> None:
    pytest.importorskip("vllm")
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.tool_parsers.tool_strict_level import ToolStrictLevel

    from parsergen.integrations import vllm as plugin

    _, tool_parser = plugin.parser_classes("hermes", parsergen.load("hermes"))
    parser = tool_parser(toks.qwen36(), TOOLS)

    def request(choice: Any) -> Any:
        return ChatCompletionRequest(messages=[{"role": "user", "content": "hi"}],
                                     model="m", tools=TOOLS, tool_choice=choice)

    named = {"type": "function", "function": {"name": "search"}}
    for choice in ("required", named):
        tag = parser.get_structural_tag(request(choice), reasoning=False,
                                        strict_level=ToolStrictLevel.PARAMETER)
        text = json.dumps(tag.model_dump())
        xgr.Grammar.from_structural_tag(text)  # vLLM's own validation of a request's tag
        ours = parsergen.structural_tag("hermes", TOOLS, tool_choice=choice)
        assert tag.model_dump() == type(tag).model_validate(ours).model_dump()
    # auto, no strict tool, vLLM's default level: nothing to constrain, as vLLM's own.
    assert parser.get_structural_tag(request("auto"), reasoning=False) is None
    assert parser.get_structural_tag(request("none"), reasoning=False) is None
    # Tools not strict at the FUNCTION level: the call envelope only.
    tag = parser.get_structural_tag(request("required"), reasoning=False,
                                    strict_level=ToolStrictLevel.FUNCTION)
    contents = [t.content.json_schema for t in tag.format.tags]
    assert contents == [{"type": "object"}, {"type": "object"}]
    # A tag over reasoning too is not what parsergen builds.
    assert parser.get_structural_tag(request("required"), reasoning=True) is None
    # A format xgrammar cannot express gets none.
    _, pythonic = plugin.parser_classes("pythonic", parsergen.load("pythonic"))
    assert pythonic(toks.qwen36(), TOOLS).get_structural_tag(
        request("required"), strict_level=ToolStrictLevel.PARAMETER) is None


def test_vllm_serving_puts_the_tag_on_the_request() -> None:
    """vLLM's own request adjustment (its composed parser, as the server builds it)
    sets the tag as the request's structured output, as it does for its own parsers."""
    pytest.importorskip("vllm")
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.parser.parser_manager import ParserManager

    from parsergen.integrations import vllm as plugin

    assert "parsergen_qwen3" in plugin.REGISTERED
    parser_cls = ParserManager.get_parser(tool_parser_name="parsergen_qwen3",
                                          reasoning_parser_name="parsergen_qwen3",
                                          enable_auto_tools=True)
    strict = [{"type": "function", "function": dict(t["function"], strict=True)}
              for t in TOOLS]

    def adjusted(tools: list[Any], choice: Any, **kw: Any) -> Any:
        request = ChatCompletionRequest(messages=[{"role": "user", "content": "hi"}],
                                        model="m", tools=tools, tool_choice=choice, **kw)
        request = parser_cls(toks.qwen36(), request.tools).adjust_request(request)
        outputs = request.structured_outputs
        return None if outputs is None else json.loads(outputs.structural_tag)

    def ours(tools: list[Any], choice: Any) -> Any:
        tag = parsergen.structural_tag("qwen3", tools, tool_choice=choice)
        return xgr.StructuralTag.model_validate(tag).model_dump()

    for choice in ("required", "auto", {"type": "function", "function": {"name": "search"}}):
        assert adjusted(strict, choice) == ours(strict, choice)
    # Tools not marked strict, at vLLM's default level: auto is left free, and a
    # forced call is constrained to the format's envelope (any object for arguments).
    assert adjusted(TOOLS, "auto") is None
    loose = [{"type": "function", "function": dict(t["function"], strict=False)} for t in TOOLS]
    assert adjusted(TOOLS, "required") == ours(loose, "required")
    # parallel_tool_calls=false: vLLM stops our call list after its first call.
    single = adjusted(strict, "required", parallel_tool_calls=False)
    assert single["format"]["stop_after_first"] is True
