"""parsergen's SGLang plugin through SGLang's own parsers (runs where SGLang imports).

Golden completions, streamed in every text cadence captured (characters, random
splits, tokens, whole), go through SGLang's ``ReasoningParser`` and then its
``FunctionCallParser`` configured with ``parsergen_<format>``, as SGLang's chat serving
chains them.  What a client would assemble must be what parsergen's own ``ChatParser``
streams for the same deltas, and the non-streamed result must be ``parse()``'s.
``tools/check_sglang.sh`` runs this in an SGLang venv.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sglang.srt.function_call.function_call_parser")

import parsergen  # noqa: E402
from parsergen.integrations import sglang as plugin  # noqa: E402
from parsergen.runtime import ParsedMessage, ToolCall, accumulate  # noqa: E402
from sglang.srt.entrypoints.openai.protocol import Tool  # noqa: E402
from sglang.srt.function_call.function_call_parser import FunctionCallParser  # noqa: E402
from sglang.srt.parser.reasoning_parser import ReasoningParser  # noqa: E402
from support import messages as message_goldens  # noqa: E402
from support import tokenizers as toks  # noqa: E402
from support.goldens import Golden, load  # noqa: E402

GOLDENS = Path(__file__).resolve().parents[2] / "goldens"
FORMATS = ["hermes", "qwen3_json", "deepseek_v3", "llama3_json", "mistral", "kimi_k2", "qwen3",
           "deepseek_r1", "glm47_moe", "gemma4", "minimax_m2"]
plugin.register()


def _cases(cadence: str | None = None) -> list:
    return [pytest.param(fmt, g, id=f"{fmt}: {g.case} | {g.cadence}")
            for fmt in FORMATS for g in load(GOLDENS / f"{fmt}.golden")
            if g.mode == "text" and cadence in (None, g.cadence)]


def _tools(fmt: str) -> list[dict]:
    return message_goldens.load(GOLDENS / f"{fmt}.messages").tools


def _parsers(fmt: str, g: Golden, tokenizer: Any, stream_reasoning: bool = True,
             tools: list[dict] | None = None) -> tuple[ReasoningParser, FunctionCallParser]:
    """SGLang's two parsers as its chat serving makes them for one request (``tools``:
    the request's, else the golden's)."""
    tools = [Tool.model_validate(t) for t in (tools if tools is not None else _tools(fmt))]
    reasoning = ReasoningParser(plugin.PREFIX + fmt, stream_reasoning, g.thinking,
                                tokenizer=tokenizer, tool_call_parser_active=True)
    calls = FunctionCallParser(tools, plugin.PREFIX + fmt, tokenizer=tokenizer)
    return reasoning, calls


def _stream(fmt: str, g: Any, tokenizer: Any, stream_reasoning: bool = True,
            tools: list[dict] | None = None) -> ParsedMessage:
    """The message a client assembles from SGLang's streamed deltas."""
    reasoning_parser, call_parser = _parsers(fmt, g, tokenizer, stream_reasoning, tools)
    reasoning: list[str] = []
    content: list[str] = []
    calls: dict[int, list[str]] = {}

    def tools(text: str) -> None:
        normal, items = call_parser.parse_stream_chunk(text)
        content.append(normal or "")
        for item in items:
            call = calls.setdefault(item.tool_index, ["", ""])
            call[0] += item.name or ""
            call[1] += item.parameters or ""

    for _, text in g.deltas:
        r, normal = reasoning_parser.parse_stream_chunk(text)
        reasoning.append(r or "")
        tools(normal or "")
    r, normal = reasoning_parser.parse_stream_end()
    reasoning.append(r or "")
    tools(normal or "")
    normal, items = call_parser.parse_stream_end()
    content.append(normal or "")
    for item in items:
        call = calls.setdefault(item.tool_index, ["", ""])
        call[0] += item.name or ""
        call[1] += item.parameters or ""
    return ParsedMessage("".join(reasoning) or None, "".join(content) or None,
                         tuple(ToolCall("", *calls[i]) for i in sorted(calls)))


def _non_stream(fmt: str, g: Any, tokenizer: Any, tools: list[dict] | None = None) -> ParsedMessage:
    """The message SGLang's non-streaming chat serving returns."""
    reasoning_parser, call_parser = _parsers(fmt, g, tokenizer, tools=tools)
    reasoning, text = reasoning_parser.parse_non_stream(g.text)
    items: list = []
    if call_parser.has_tool_call(text or ""):
        text, items = call_parser.parse_non_stream(text or "")
    return ParsedMessage(reasoning or None, text or None,
                         tuple(ToolCall("", i.name or "", i.parameters) for i in items))


def _expected_stream(fmt: str, g: Golden, tokenizer: Any) -> tuple[ParsedMessage, bool]:
    """What parsergen's ChatParser streams for these very deltas, and whether the
    completion cut a call off."""
    chat = parsergen.load(fmt).ChatParser(tokenizer, tools=_tools(fmt), thinking=g.thinking)
    chat.initialize()
    message = accumulate([*(chat.feed(text) for _, text in g.deltas), chat.finish()])
    return message, bool(chat.cut_calls)


def _without_ids(message: ParsedMessage) -> tuple:
    return (message.reasoning, message.content,
            [(tc.name, tc.arguments) for tc in message.tool_calls])


def _tokenizer(g: Golden, with_tokenizer: bool) -> Any:
    return toks.TOKENIZERS[g.tokenizer]() if with_tokenizer else None


# -- tests ----------------------------------------------------------------------


def test_every_format_and_alias_is_registered() -> None:
    names = {plugin.PREFIX + n for n in [*parsergen.formats(), *parsergen.aliases()]}
    assert names <= set(FunctionCallParser.ToolCallParserEnum)
    assert names <= set(ReasoningParser.DetectorMap)


@pytest.mark.parametrize("with_tokenizer", [False, True], ids=["text", "tokenizer"])
@pytest.mark.parametrize("fmt, g", _cases())
def test_streaming_through_sglangs_parsers(fmt: str, g: Golden, with_tokenizer: bool) -> None:
    tokenizer = _tokenizer(g, with_tokenizer)
    expected, cut = _expected_stream(fmt, g, tokenizer)
    assert _without_ids(_stream(fmt, g, tokenizer)) == _without_ids(expected)
    if not cut:  # a stream cannot take back a cut-off call; parse() has it in cut_calls
        whole = parsergen.load(fmt).parse(g.text, tools=_tools(fmt), tokenizer=tokenizer,
                                          thinking=g.thinking)
        assert _without_ids(expected) == _without_ids(whole)


@pytest.mark.parametrize("fmt, g", _cases("chars"))
def test_reasoning_held_until_it_ends_when_not_streamed(fmt: str, g: Golden) -> None:
    got = _stream(fmt, g, None, stream_reasoning=False)
    assert _without_ids(got) == _without_ids(_expected_stream(fmt, g, None)[0])


@pytest.mark.parametrize("with_tokenizer", [False, True], ids=["text", "tokenizer"])
@pytest.mark.parametrize("fmt, g", _cases("whole"))
def test_non_streaming_through_sglangs_parsers(fmt: str, g: Golden, with_tokenizer: bool) -> None:
    tokenizer = _tokenizer(g, with_tokenizer)
    expected = parsergen.load(fmt).parse(g.text, tools=_tools(fmt), tokenizer=tokenizer,
                                         thinking=g.thinking)
    assert _without_ids(_non_stream(fmt, g, tokenizer)) == _without_ids(expected)


def test_legacy_structural_tag_from_the_render_template() -> None:
    parser = FunctionCallParser([Tool.model_validate(t) for t in _tools("hermes")],
                                "parsergen_hermes")
    tag = parser.get_legacy_structural_tag(at_least_one=True)
    assert tag.triggers == ["<tool_call>"]
    structure = tag.structures[0]
    assert structure.begin == '<tool_call>\n{"name": "' + _tools("hermes")[0]["function"][
        "name"] + '", "arguments": '
    assert structure.end == "}\n</tool_call>"
    # A call rendered by parsergen is exactly begin + JSON arguments + end.
    text = parsergen.load("hermes").render(
        {"tool_calls": [{"name": _tools("hermes")[0]["function"]["name"], "arguments": {}}]})
    assert text == structure.begin + "{}" + structure.end
    # No legacy tag where the arguments are not one JSON object between fixed texts.
    assert not FunctionCallParser([], "parsergen_qwen3").detector.supports_structural_tag()


def test_think_end_token_ids() -> None:
    tokenizer = toks.TOKENIZERS["qwen3.6"]()
    parser = ReasoningParser("parsergen_qwen3", tokenizer=tokenizer)
    ids = parser.detector.get_think_end_token_ids(tokenizer)
    assert ids == tokenizer.encode("</think>", add_special_tokens=False)
    assert parser.detector.think_end_token == "</think>"


REGISTERED = """
import sys
from sglang.srt.function_call.function_call_parser import FunctionCallParser
assert not any(n.startswith("parsergen_") for n in FunctionCallParser.ToolCallParserEnum)
from sglang.srt.plugins import load_plugins
from sglang.srt.server_args import prepare_server_args
load_plugins()
for name in sys.argv[1:]:
    args = prepare_server_args(["--model-path", "m", "--tool-call-parser", name,
                                "--reasoning-parser", name])
    assert (args.tool_call_parser, args.reasoning_parser) == (name, name)
print("ok")
"""


def test_entry_point_registers_in_a_fresh_sglang_process(tmp_path) -> None:
    """SGLang's own plugin loader (run before it parses its arguments) finds the entry
    point, and a user's spec listed in PARSERGEN_SPECS is registered with the bundled
    ones; the server's argument parser then accepts the names."""
    from test_integration_api import MY_FORMAT  # README's example spec

    spec = tmp_path / "my_format.yaml"
    spec.write_text(MY_FORMAT)
    env = {**os.environ, "PARSERGEN_SPECS": str(spec)}
    done = subprocess.run([sys.executable, "-c", REGISTERED, "parsergen_qwen3",
                           "parsergen_granite4", "parsergen_my_format"],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.stdout.strip().endswith("ok"), done.stderr[-2000:]


def test_tool_choice_none_leaves_tool_markup_as_content() -> None:
    g = next(g for g in load(GOLDENS / "hermes.golden") if g.mode == "text" and g.cadence ==
             "whole" and "<tool_call>" in g.text)
    tools = [Tool.model_validate(t) for t in _tools("hermes")]
    parser = FunctionCallParser(tools, "parsergen_hermes", tool_choice="none")
    normal, calls = parser.parse_stream_chunk(g.text)
    end, more = parser.parse_stream_end()
    expected = parsergen.load("hermes").parse(g.text, tools=_tools("hermes"), tool_choice="none")
    assert calls == more == [] and "<tool_call>" in normal + end
    assert normal + end == expected.content


# -- parsergen_hf: the served tokenizer's Hugging Face response_template --------------
# TRL's Qwen3.5 template (tests/support/hf_templates.py) on a copy of Qwen3.5/3.6's
# tokenizer (tests/support/tokenizers.py), driven through SGLang's two parsers with
# parsergen_hf (and parsergen_beam), as SGLang's chat serving chains them for a request.


def _hf_tokenizer() -> Any:
    import copy

    from support.hf_templates import TRL_qwen3_5

    tokenizer = copy.copy(toks.qwen36())  # (the cached one stays without a template)
    tokenizer.response_template = TRL_qwen3_5
    return tokenizer


def _hf_cases() -> list:
    from support.hf_templates import written

    out = []
    for case, text in written("trl_qwen3_5").items():
        for cadence in ("chars", "by7", "tokens", "whole"):
            out.append(pytest.param(case, text, cadence, id=f"{case} | {cadence}"))
    return out


def _hf_deltas(text: str, cadence: str, tokenizer: Any) -> list[str]:
    if cadence == "chars":
        return list(text)
    if cadence == "by7":
        return [text[i:i + 7] for i in range(0, len(text), 7)]
    if cadence == "tokens":  # each token's text, as SGLang's detokenizer hands them over
        ids = tokenizer.encode(text, add_special_tokens=False)
        pieces, seen = [], ""
        for n in range(1, len(ids) + 1):
            now = tokenizer.decode(ids[:n])
            if not now.endswith("\ufffd"):
                pieces.append(now[len(seen):])
                seen = now
        assert seen == text
        return pieces
    return [text]


@pytest.mark.parametrize("name", ["hf", "beam"])
@pytest.mark.parametrize("case, text, cadence", _hf_cases())
def test_parsergen_hf_through_sglangs_parsers(name: str, case: str, text: str,
                                              cadence: str) -> None:
    """Streamed, what parsergen's own ChatParser of the template streams for the same
    deltas; whole, what its parse() gives."""
    from types import SimpleNamespace

    from support.hf_templates import TOOLS

    tokenizer = _hf_tokenizer()
    module = parsergen.load(tokenizer)
    deltas = _hf_deltas(text, cadence, tokenizer)
    g = SimpleNamespace(deltas=[(None, d) for d in deltas], thinking=None, text=text)
    chat = module.ChatParser(tokenizer, tools=TOOLS)
    chat.initialize()
    expected = accumulate([*(chat.feed(d) for d in deltas), chat.finish()])
    got = _stream(name, g, tokenizer, tools=TOOLS)
    assert _without_ids(got) == _without_ids(expected)
    whole = module.parse(text, tools=TOOLS, tokenizer=tokenizer)
    if not chat.cut_calls:  # (a stream cannot take back a cut call: parse() lists it)
        assert _without_ids(expected) == _without_ids(whole)
    if cadence == "whole":
        assert _without_ids(_non_stream(name, g, tokenizer, tools=TOOLS)) == _without_ids(whole)


def test_parsergen_hf_needs_a_template() -> None:
    """A tokenizer without a response_template: the server is told which name needs it."""
    with pytest.raises(TypeError, match="parsergen_hf requires `response_template`"):
        FunctionCallParser([], "parsergen_hf", tokenizer=toks.qwen36())


# -- markers the served tokenizer spells (tokenizer_values) ----------------------------
# HY 3 with a checkpoint's token_suffix (tests/support/tokenizers.py hy_v3_suffixed):
# SGLang hands both detectors its tokenizer, and parsergen_hy_v3 must read the
# suffixed markers as parsergen's own module for that tokenizer does.
_S = ":a1b2c3d4"
_HY_CALLS = (f"Checking.<tool_calls{_S}>\n<tool_call{_S}>get_weather<tool_sep{_S}>\n"
             f"<arg_key{_S}>city</arg_key{_S}>\n<arg_value{_S}>Beijing</arg_value{_S}>\n"
             f"<arg_key{_S}>days</arg_key{_S}>\n<arg_value{_S}>3</arg_value{_S}>\n"
             f"</tool_call{_S}>\n</tool_calls{_S}>")
_HY_TEXTS = {"opened": f"<think{_S}>Need the weather.</think{_S}>" + _HY_CALLS,
             "prompt-opened": f"Need the weather.</think{_S}>" + _HY_CALLS}
_HY_TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "get_weather tool",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"},
                                                    "days": {"type": "integer"}}}}}]


@pytest.mark.parametrize("cadence", ["tokens", "whole"])
@pytest.mark.parametrize("thinking", [True, False, None], ids=["think", "no_think", "default"])
@pytest.mark.parametrize("text_id", sorted(_HY_TEXTS))
def test_hy_v3_markers_spelt_by_the_served_tokenizer(text_id: str, thinking: bool | None,
                                                     cadence: str) -> None:
    """Streamed, what parsergen's ChatParser of hy_v3 for the suffixed tokenizer streams
    for the same deltas; whole, what its parse() gives; a call either way."""
    from types import SimpleNamespace

    text = _HY_TEXTS[text_id]
    tokenizer = toks.hy_v3_suffixed()
    module = parsergen.load("hy_v3", tokenizer=tokenizer)
    assert module is not parsergen.load("hy_v3")  # (the suffix is the tokenizer's)
    deltas = _hf_deltas(text, cadence, tokenizer)
    g = SimpleNamespace(deltas=[(None, d) for d in deltas], thinking=thinking, text=text)
    chat = module.ChatParser(tokenizer, tools=_HY_TOOLS, thinking=thinking)
    chat.initialize()
    expected = accumulate([*(chat.feed(d) for d in deltas), chat.finish()])
    whole = module.parse(text, tools=_HY_TOOLS, tokenizer=tokenizer, thinking=thinking)
    assert _without_ids(expected) == _without_ids(whole)
    assert [(c.name, json.loads(c.arguments)) for c in whole.tool_calls] == \
        [("get_weather", {"city": "Beijing", "days": 3})]
    # hy_v3 reasons only when reasoning_effort asks for it (thinking_default: false).
    assert (whole.reasoning is not None) == bool(thinking)
    assert _without_ids(_stream("hy_v3", g, tokenizer, tools=_HY_TOOLS)) == _without_ids(whole)
    assert _without_ids(_non_stream("hy_v3", g, tokenizer, tools=_HY_TOOLS)) == \
        _without_ids(whole)
