"""parsergen's vLLM plugin through vLLM's own serving code (runs where vLLM imports).

A fake engine replays the goldens' tokenized completions (token ids and detokenized
text per delta, in every cadence captured) into vLLM 0.33's ``OpenAIServingChat``,
configured with ``--reasoning-parser parsergen_<format> --tool-call-parser
parsergen_<format>``.  The streamed chunks and the non-streamed message must carry
what parsergen's own ``ChatParser`` / ``parse()`` give; the reasoning-token usage must
equal what vLLM reports with its own parser for the format; and vLLM's structured-output
manager must open its grammar at the same token with our reasoning parser as with its
own.  ``tools/check_vllm.sh`` runs this in the vLLM peer venv.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("vllm")

import parsergen  # noqa: E402
from parsergen.integrations import vllm as plugin  # noqa: E402
from parsergen.runtime import STATE_NAMES, ParsedMessage, ToolCall, accumulate  # noqa: E402
from support import messages as message_goldens  # noqa: E402
from support import tokenizers as toks  # noqa: E402
from support.goldens import Golden, event_departures, load  # noqa: E402
from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest  # noqa: E402
from vllm.entrypoints.openai.chat_completion.serving import OpenAIServingChat  # noqa: E402
from vllm.outputs import CompletionOutput, RequestOutput  # noqa: E402
from vllm.reasoning import ReasoningParserManager  # noqa: E402
from vllm.sampling_params import RequestOutputKind  # noqa: E402
from vllm.v1.structured_output import StructuredOutputManager  # noqa: E402

GOLDENS = Path(__file__).resolve().parents[2] / "goldens"
# Tier 1 (../shared/reference/formats.md): vLLM's engine formats, under their vLLM names.
TIER1 = ["qwen3", "seed_oss", "step3p5", "nemotron_v3", "kimi_k2", "kimi_k3", "deepseek_v32",
         "deepseek_v4", "deepseek_v41", "glm47_moe", "minimax_m2", "minimax_m3", "gemma4",
         "inkling", "mistral", "granite", "granite_thinking", "mimo", "plamo3"]
# vLLM's reasoning parser for a format, where vLLM registers it under another name;
# None: vLLM has none for it (its "granite" is Granite 3.2's prose reasoning).
VLLM_REASONING = {"glm47_moe": "glm47", "granite_thinking": "granite_thinking_parser",
                  "granite": None}
PROMPT = "Hi"  # the user's message (the fake renderer gives the ids of _prompt)


def _prompt(fmt: str, thinking: bool) -> str:
    """A prompt that leaves the model where the goldens start (they pass none): after
    the start marker when the format starts in reasoning, else after no marker (a
    prompt is final: with neither marker the completion starts in content)."""
    parser = parsergen.load(fmt).StreamingParser
    rules, lexicon = parser.REASONING_RULES, parser.LEXICONS[thinking]
    if rules is None or STATE_NAMES[parser.INITIAL_STATES[thinking]] != "REASONING":
        return PROMPT
    starts = lexicon.texts(rules.start)
    return PROMPT + starts[0] if starts else PROMPT


# -- a fake engine behind vLLM's real serving code ---------------------------------


class FakeModels:
    """The served model list: one base model."""

    lora_requests: dict = {}
    base_model_paths: list = []

    def model_name(self, lora_request: Any = None) -> str:
        return "m"

    def is_base_model(self, name: str) -> bool:
        return True


class FakeRenderer:
    """Renders every chat to the same prompt token ids."""

    reasoning_effort_map = None

    def __init__(self, prompt_ids: list[int]) -> None:
        self.prompt_ids = prompt_ids

    async def render_chat(self, request: Any) -> tuple[list, list]:
        return [], [{"type": "token", "prompt_token_ids": list(self.prompt_ids)}]


class FakeEngine:
    """Replays one completion: delta by delta when vLLM streams, whole otherwise."""

    errored = False
    vllm_config = None
    input_processor = None

    def __init__(self, tokenizer: Any, deltas: list[tuple[list[int], str]]) -> None:
        self.deltas = deltas
        self.renderer = SimpleNamespace(tokenizer=tokenizer)
        self.model_config = SimpleNamespace(
            model="m", hf_config=SimpleNamespace(model_type="fake"), max_model_len=1 << 20,
            get_diff_sampling_param=dict, generation_config="vllm",
            override_generation_config={}, is_encoder_decoder=False)

    def check_admission(self, n: int) -> None:
        return None

    async def generate(self, engine_input: dict, params: Any, request_id: str, **kwargs: Any):
        prompt = engine_input["prompt_token_ids"]
        steps = self.deltas
        if params.output_kind != RequestOutputKind.DELTA:
            steps = [([i for ids, _ in steps for i in ids], "".join(t for _, t in steps))]
        for n, (ids, text) in enumerate(steps):
            last = n == len(steps) - 1
            out = CompletionOutput(index=0, text=text, token_ids=list(ids), cumulative_logprob=None,
                                   logprobs=None, finish_reason="stop" if last else None)
            yield RequestOutput(request_id=request_id, prompt=None, prompt_token_ids=prompt,
                                prompt_logprobs=None, outputs=[out], finished=last)


def serve(parser: str, tokenizer: Any, deltas: list, prompt_ids: list[int], *, stream: bool,
          tools: list | None, kwargs: dict | None, tool_parser: str | None = "",
          **request: Any) -> Any:
    """One chat completion through OpenAIServingChat: the response, or its SSE payloads.

    ``parser`` names the reasoning parser, and the tool parser unless ``tool_parser``
    says otherwise (None: no tool parser)."""
    tool_parser = parser if tool_parser == "" else tool_parser
    serving = OpenAIServingChat(
        FakeEngine(tokenizer, deltas), FakeModels(), "assistant",
        online_renderer=FakeRenderer(prompt_ids), request_logger=None, chat_template=None,
        chat_template_content_format="auto", reasoning_parser=parser,
        enable_auto_tools=tool_parser is not None, tool_parser=tool_parser)
    body = ChatCompletionRequest(
        model="m", messages=[{"role": "user", "content": PROMPT}], stream=stream,
        stream_options={"include_usage": True} if stream else None, tools=tools,
        chat_template_kwargs=kwargs, **request)

    async def run() -> Any:
        result = await serving.create_chat_completion(body)
        if not stream:
            return result
        payloads = []
        async for line in result:
            data = line.removeprefix("data: ").strip()
            if data and data != "[DONE]":
                payloads.append(json.loads(data))
        return payloads

    return asyncio.run(run())


# -- cases ----------------------------------------------------------------------


# Where vLLM's own parser disagrees with itself or with the format, and so with us:
# (format, case or "*") -> why.  Marked xfail(strict): agreement would be news.
GATE_DIFFERENCES = {
    ("plamo3", "eot_ends_reasoning"): "plamo3.yaml ends reasoning at the end-of-turn tag; "
    "vLLM's plamo3 never reports reasoning over, so its grammar never starts",
    **{("plamo3", case): "plamo3.yaml ends reasoning at a tool-request block; vLLM's "
       "plamo3 only knows the end-think marker, so its grammar never starts"
       for case in ("call_from_reasoning", "unfinished_call")},
    **{("inkling", case): "inkling.yaml ends reasoning at a call block (an implicit "
       "end); vLLM's inkling adapter reports no end token ids and waits for a text block"
       for case in ("call_then_text", "thinking_then_call_directly", "unfinished_call")},
    ("minimax_m3", "*"): "vLLM's minimax_m3 reasoning parser (not an engine adapter) "
    "says reasoning is open after a prompt with thinking off: its grammar starts a "
    "token late",
}
# parsergen's own departures (goldens/DIFFERENCES.md, "call marker in reasoning"): a call
# marker inside open reasoning, where the format's models never call while reasoning
# (reasoning.calls_are_text), is reasoning text; vLLM ends reasoning at it.
CALL_MARKER_IN_REASONING = {
    (fmt, case) for (fmt, case, _), why in event_departures(GOLDENS / "DIFFERENCES.md").items()
    if why == "call marker in reasoning"}
GATE_DIFFERENCES.update({key: "goldens/DIFFERENCES.md: call marker in reasoning (the gate "
                         "waits on)" for key in CALL_MARKER_IN_REASONING})
USAGE_DIFFERENCES = {
    ("inkling", "thinking_then_call_directly"): "vLLM counts the call's 26 tokens as "
    "reasoning although its message's reasoning is 'go' (2 tokens, our count)",
    **{key: "goldens/DIFFERENCES.md: call marker in reasoning (the call's tokens are "
       "reasoning)" for key in CALL_MARKER_IN_REASONING},
}


def _cases(known: dict[tuple[str, str], str] | None = None, cadence: str | None = None) -> list:
    params = []
    for fmt in TIER1:
        for g in load(GOLDENS / f"{fmt}.golden"):
            if g.mode != "ids" or (cadence is not None and g.cadence != cadence):
                continue
            why = (known or {}).get((fmt, g.case)) or (known or {}).get((fmt, "*"))
            marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
            params.append(pytest.param(fmt, g, id=f"{fmt}: {g.title}", marks=marks))
    return params


CASES = _cases()


def _tools(fmt: str) -> list[dict]:
    return message_goldens.load(GOLDENS / f"{fmt}.messages").tools


def _kwargs(fmt: str, thinking: bool) -> dict | None:
    """chat_template_kwargs that turn thinking on or off, by the spec's switch."""
    switch = parsergen.load(fmt).SPEC.get("thinking_switch")
    if not switch:
        return None
    entry = switch[0]
    if isinstance(entry, str):
        return {entry: thinking}
    if "off" in entry:  # any other value turns thinking on
        return {entry["key"]: True if thinking else entry["off"]}
    return {entry["key"]: entry["on"] if thinking else False}


def _setup(fmt: str, g: Golden) -> tuple[Any, list[int], dict | None]:
    module = parsergen.load(fmt)
    kwargs = _kwargs(fmt, g.thinking)
    toggles = isinstance(module.SPEC.get("initial_state"), dict)  # else thinking changes nothing
    if toggles and kwargs is None and g.thinking != module.StreamingParser().thinking:
        pytest.skip(f"{fmt} has no thinking switch a request could set to {g.thinking}")
    tokenizer = toks.TOKENIZERS[g.tokenizer]()
    return tokenizer, tokenizer.encode(_prompt(fmt, g.thinking), add_special_tokens=False), kwargs


def _expected_stream(fmt: str, g: Golden, tokenizer: Any, prompt: list[int],
                     tools: list) -> ParsedMessage:
    """What parsergen's ChatParser streams for these very deltas."""
    chat = parsergen.load(fmt).ChatParser(tokenizer, tools=tools, thinking=g.thinking)
    chat.initialize(prompt)
    return accumulate([*(chat.feed(text, ids) for ids, text in g.deltas), chat.finish()])


def _from_chunks(payloads: list[dict]) -> ParsedMessage:
    """The message a client builds from the streamed chunks (vLLM names it ``reasoning``)."""
    reasoning, content, calls = [], [], {}
    for payload in payloads:
        for choice in payload["choices"]:
            delta = choice["delta"]
            reasoning.append(delta.get("reasoning") or "")
            content.append(delta.get("content") or "")
            for tc in delta.get("tool_calls") or ():
                call = calls.setdefault(tc["index"], ["", "", ""])
                call[0] = tc.get("id") or call[0]
                fn = tc.get("function") or {}
                call[1] += fn.get("name") or ""
                call[2] += fn.get("arguments") or ""
    return ParsedMessage("".join(reasoning) or None, "".join(content) or None,
                         tuple(ToolCall(*calls[i]) for i in sorted(calls)))


def _received(result: Any) -> ParsedMessage:
    """The message a client gets: from the streamed chunks, or the response's message."""
    if isinstance(result, list):
        return _from_chunks(result)
    m = result.choices[0].message
    return ParsedMessage(m.reasoning, m.content, tuple(
        ToolCall(tc.id, tc.function.name, tc.function.arguments) for tc in m.tool_calls))


def _without_ids(message: ParsedMessage) -> tuple:
    """A message with its random call ids left out."""
    return (message.reasoning, message.content,
            [(tc.name, tc.arguments) for tc in message.tool_calls])


def _vllm_reasoning(fmt: str) -> str:
    """The name of vLLM's own reasoning parser for ``fmt`` (skips if it has none)."""
    name = VLLM_REASONING.get(fmt, fmt)
    if name is None or name not in ReasoningParserManager.list_registered():
        pytest.skip(f"vLLM has no reasoning parser for {fmt}")
    return name


def _usage(response: Any) -> int | None:
    details = response.usage.completion_tokens_details
    return details.reasoning_tokens if details is not None else None


# -- tests ----------------------------------------------------------------------


def test_every_format_and_alias_is_registered() -> None:
    names = {plugin.PREFIX + n for n in [*parsergen.formats(), *parsergen.aliases()]}
    assert names <= set(ReasoningParserManager.list_registered())
    from vllm.tool_parsers import ToolParserManager

    assert all(ToolParserManager.get_tool_parser(n) for n in names)


def _through_serving(fmt: str, g: Golden, *, stream: bool,
                     **request: Any) -> tuple[ParsedMessage, Any, list[int], list]:
    """A golden served with parsergen's parsers: the message received, the tokenizer,
    the prompt's ids and the request's tools."""
    tokenizer, prompt, kwargs = _setup(fmt, g)
    tools = _tools(fmt)
    got = serve(plugin.PREFIX + fmt, tokenizer, g.deltas, prompt, stream=stream, tools=tools,
                kwargs=kwargs, **request)
    return _received(got), tokenizer, prompt, tools


@pytest.mark.parametrize("fmt, g", CASES)
def test_streaming_through_serving_chat(fmt: str, g: Golden) -> None:
    got, tokenizer, prompt, tools = _through_serving(fmt, g, stream=True)
    assert _without_ids(got) == _without_ids(_expected_stream(fmt, g, tokenizer, prompt, tools))


@pytest.mark.parametrize("fmt, g", _cases(cadence="whole"))
def test_non_streaming_through_serving_chat(fmt: str, g: Golden) -> None:
    got, tokenizer, prompt, tools = _through_serving(fmt, g, stream=False)
    # vLLM's non-streaming path hands the parsers text only: no token ids.
    expected = parsergen.load(fmt).parse(g.text, tools=tools, tokenizer=tokenizer,
                                         thinking=g.thinking, prompt_token_ids=prompt)
    assert _without_ids(got) == _without_ids(expected)


@pytest.mark.parametrize("fmt, g", _cases(USAGE_DIFFERENCES, "whole"))
def test_reasoning_token_usage_equals_vllms(fmt: str, g: Golden) -> None:
    tokenizer, prompt, kwargs = _setup(fmt, g)
    tools = _tools(fmt)
    # Only the reasoning parser counts reasoning tokens.
    ours = serve(plugin.PREFIX + fmt, tokenizer, g.deltas, prompt, stream=False, tools=tools,
                 kwargs=kwargs, tool_parser=None)
    theirs = serve(_vllm_reasoning(fmt), tokenizer, g.deltas, prompt, stream=False, tools=tools,
                   kwargs=kwargs, tool_parser=None)
    assert _usage(ours) == _usage(theirs)


def _gate(reasoner: Any, prompt: list[int], output: list[int]) -> tuple[int, int] | None:
    """Where vLLM's structured-output manager starts the grammar as tokens come one by
    one: (output index of the token, grammar start within it), or None."""
    manager = SimpleNamespace(enable_in_reasoning=False, _get_reasoner=lambda request: reasoner)
    state = SimpleNamespace(reasoning_ended=None)
    request = SimpleNamespace(structured_output_request=state, prompt_token_ids=prompt,
                              all_token_ids=list(prompt))
    for i, token in enumerate(output):
        request.all_token_ids.append(token)
        start, _ = StructuredOutputManager._get_constraint_bounds(
            manager, request, [token], spec_tokens_committed=True)
        if start <= 1:
            return i, start
    return None


@pytest.mark.parametrize("fmt, g", _cases(GATE_DIFFERENCES, "whole"))
def test_structured_output_gate_starts_where_vllms_does(fmt: str, g: Golden) -> None:
    tokenizer, prompt, kwargs = _setup(fmt, g)
    output = [i for ids, _ in g.deltas for i in ids]
    ours = ReasoningParserManager.get_reasoning_parser(plugin.PREFIX + fmt)(
        tokenizer, chat_template_kwargs=kwargs)
    theirs = ReasoningParserManager.get_reasoning_parser(_vllm_reasoning(fmt))(
        tokenizer, chat_template_kwargs=kwargs)
    assert _gate(ours, prompt, output) == _gate(theirs, prompt, output)


@pytest.mark.parametrize("fmt, g", [
    pytest.param(fmt, g, id=f"{fmt}: {g.title}") for fmt, case in sorted(CALL_MARKER_IN_REASONING)
    for g in load(GOLDENS / f"{fmt}.golden") if (g.case, g.cadence, g.mode) == (case, "whole", "ids")])
def test_call_marker_in_reasoning_is_reasoning_for_the_gate_and_the_usage(fmt: str,
                                                                          g: Golden) -> None:
    # The documented departure, exactly: vLLM starts the grammar at the call marker and
    # counts the reasoning up to it; parsergen's reasoning (and the wait) goes on.
    tokenizer, prompt, kwargs = _setup(fmt, g)
    output = [i for ids, _ in g.deltas for i in ids]
    ours = ReasoningParserManager.get_reasoning_parser(plugin.PREFIX + fmt)(
        tokenizer, chat_template_kwargs=kwargs)
    theirs = ReasoningParserManager.get_reasoning_parser(_vllm_reasoning(fmt))(
        tokenizer, chat_template_kwargs=kwargs)
    call = next(i for i, t in enumerate(output) if t in theirs.implicit_reasoning_end_token_ids)
    chat = parsergen.load(fmt).ChatParser(tokenizer, thinking=g.thinking)
    start = next(i for i in range(len(output)) if chat.is_reasoning_open(output[: i + 1]))
    assert _gate(theirs, prompt, output) == (call, 0)
    assert _gate(ours, prompt, output) is None  # no end marker: reasoning to the end
    counts = [_usage(serve(parser, tokenizer, g.deltas, prompt, stream=False, tools=_tools(fmt),
                           kwargs=kwargs, tool_parser=None)) for parser in
              (plugin.PREFIX + fmt, _vllm_reasoning(fmt))]
    assert counts == [len(output) - start - 1, call - start - 1]


def _qwen3_case(case: str, cadence: str = "tokens") -> Golden:
    return next(g for g in load(GOLDENS / "qwen3.golden")
                if (g.case, g.cadence, g.mode) == (case, cadence, "ids"))


@pytest.mark.parametrize("stream", [True, False])
def test_include_reasoning_false_drops_the_reasoning(stream: bool) -> None:
    g = _qwen3_case("reasoning_content_call")
    message, tokenizer, prompt, tools = _through_serving("qwen3", g, stream=stream,
                                                         include_reasoning=False)
    expected = _expected_stream("qwen3", g, tokenizer, prompt, tools)
    assert message.reasoning is None
    assert [(tc.name, tc.arguments) for tc in message.tool_calls] == [
        (tc.name, tc.arguments) for tc in expected.tool_calls]


@pytest.mark.parametrize("stream", [True, False])
def test_tool_choice_none_leaves_tool_markup_as_content(stream: bool) -> None:
    g = _qwen3_case("reasoning_content_call")
    message, tokenizer, _, tools = _through_serving("qwen3", g, stream=stream,
                                                    tool_choice="none")
    expected = parsergen.load("qwen3").parse(g.text, tools=tools, tokenizer=tokenizer,
                                             thinking=True, tool_choice="none")
    assert message.tool_calls == ()
    assert "<tool_call>" in expected.content
    assert (message.reasoning, message.content) == (expected.reasoning, expected.content)


@pytest.mark.parametrize("tool_choice", ["required", {"type": "function",
                                                      "function": {"name": "get_weather"}}])
@pytest.mark.parametrize("stream", [True, False])
def test_required_and_named_tool_choice_parse_the_formats_own_calls(tool_choice, stream) -> None:
    g = _qwen3_case("reasoning_content_call")
    message, *_ = _through_serving("qwen3", g, stream=stream, tool_choice=tool_choice)
    calls = [(tc.name, tc.arguments) for tc in message.tool_calls]
    assert calls == [("get_weather", '{"city": "Paris", "days": 3}')]  # from the golden's text


def test_thinking_switch_of_chat_template_kwargs() -> None:
    # The same text with thinking off: no reasoning phase, </think> is a stray marker.
    g = _qwen3_case("reasoning_content_call", "whole")
    tokenizer, _, _ = _setup("qwen3", g)
    prompt = tokenizer.encode(_prompt("qwen3", False), add_special_tokens=False)
    tools = _tools("qwen3")
    got = serve("parsergen_qwen3", tokenizer, g.deltas, prompt, stream=False, tools=tools,
                kwargs={"enable_thinking": False})
    expected = parsergen.load("qwen3").parse(g.text, tools=tools, tokenizer=tokenizer,
                                             thinking=False)
    message = got.choices[0].message
    assert expected.reasoning is None and message.reasoning is None
    assert message.content == expected.content
    assert [(tc.function.name, tc.function.arguments) for tc in message.tool_calls] == [
        (tc.name, tc.arguments) for tc in expected.tool_calls]


@pytest.mark.parametrize("stream", [True, False])
@pytest.mark.parametrize("fmt", ["k2_horizon", "k2_horizon_json"])
def test_request_options_choose_the_variant_per_request(fmt: str, stream: bool) -> None:
    """The parsergen_k2_horizon parsers parse a request whose chat_template_kwargs say
    tool_call_format json as k2_horizon_json (request_options), as vLLM's own k2_horizon
    parsers read that key; the golden's request options are the request's."""
    g = next(g for g in load(GOLDENS / f"{fmt}.golden")
             if (g.case, g.cadence, g.mode) == ("reasoning_then_call", "tokens", "ids"))
    case = next(c for c in message_goldens.load(GOLDENS / f"{fmt}.messages").cases
                if c.name == g.case)
    tokenizer = toks.TOKENIZERS[g.tokenizer]()
    prompt = tokenizer.encode(_prompt(fmt, True), add_special_tokens=False)
    tools = _tools(fmt)
    got = _received(serve(plugin.PREFIX + "k2_horizon", tokenizer, g.deltas, prompt,
                          stream=stream, tools=tools, kwargs=case.kwargs or None))
    expected = _expected_stream(fmt, g, tokenizer, prompt, tools)
    assert got.reasoning == expected.reasoning == "I should check."
    assert [(tc.name, json.loads(tc.arguments)) for tc in got.tool_calls] == [
        ("get_weather", {"city": "Paris", "days": 3})]


@pytest.mark.parametrize(("parser", "kwargs", "message"), [
    (plugin.PREFIX + "k2_horizon", {"tool_call_format": "yaml"}, "tool_call_format='yaml'"),
    # vLLM's own k2_horizon parsers refuse a value the same way, when they are made
    ("k2_horizon", {"reasoning_effort": "none"}, "Unsupported reasoning_effort"),
])
def test_a_request_option_value_the_format_does_not_list_is_refused(parser: str, kwargs: dict,
                                                                    message: str) -> None:
    g = next(g for g in load(GOLDENS / "k2_horizon.golden")
             if (g.case, g.cadence, g.mode) == ("reasoning_then_call", "whole", "ids"))
    tokenizer = toks.TOKENIZERS[g.tokenizer]()
    with pytest.raises(ValueError, match=re.escape(message)):
        serve(parser, tokenizer, g.deltas, [], stream=False, tools=_tools("k2_horizon"),
              kwargs=kwargs)


REGISTERED = """
import sys
from vllm.plugins import load_general_plugins
from vllm.reasoning import ReasoningParserManager
from vllm.tool_parsers import ToolParserManager
assert not any(n.startswith("parsergen_") for n in ReasoningParserManager.list_registered())
load_general_plugins()
for name in sys.argv[1:]:
    ReasoningParserManager.get_reasoning_parser(name)
    ToolParserManager.get_tool_parser(name)
print("ok")
"""


def test_entry_point_registers_in_a_fresh_vllm_process(tmp_path) -> None:
    """vLLM's own plugin loader (what every vLLM process runs) finds the entry point,
    and a user's spec listed in PARSERGEN_SPECS is registered with the bundled ones."""
    import os
    import subprocess
    import sys

    from test_integration_api import MY_FORMAT  # README's example spec

    spec = tmp_path / "my_format.yaml"
    spec.write_text(MY_FORMAT)
    env = {**os.environ, "PARSERGEN_SPECS": str(spec)}
    done = subprocess.run([sys.executable, "-c", REGISTERED, "parsergen_qwen3",
                           "parsergen_qwen3_coder", "parsergen_my_format"],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.stdout.strip().endswith("ok"), done.stderr[-2000:]


def test_plugin_flags_by_module_and_by_file_path() -> None:
    """--tool-parser-plugin / --reasoning-parser-plugin take a module or a file path."""
    import subprocess
    import sys

    from parsergen.integrations import parsergen_vllm

    code = """
import sys
from vllm.reasoning import ReasoningParserManager
from vllm.tool_parsers import ToolParserManager
ToolParserManager.import_tool_parser(sys.argv[1])
ReasoningParserManager.import_reasoning_parser(sys.argv[1])
ReasoningParserManager.get_reasoning_parser("parsergen_qwen3")
ToolParserManager.get_tool_parser("parsergen_qwen3")
print("ok")
"""
    for plugin_path in ("parsergen.integrations.vllm", parsergen_vllm.__file__):
        done = subprocess.run([sys.executable, "-c", code, plugin_path], capture_output=True,
                              text=True, timeout=300)
        assert done.stdout.strip().endswith("ok"), done.stderr[-2000:]


def _stream_reasoning(reasoner: Any, tokenizer: Any, words: int) -> tuple[int, str]:
    """Stream ``words`` words of reasoning then an answer, one token a delta, through the
    reasoning parser; return the memory still allocated before the answer, and the
    content handed over at the end."""
    import tracemalloc

    reasoner.set_prompt_token_ids(tokenizer.encode("<|im_start|>assistant\n<think>\n"))
    word = tokenizer.encode(" thought")
    tracemalloc.start()
    try:
        for _ in range(words):
            reasoner.extract_reasoning_streaming("", "", " thought", [], [], word)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    end = "</think>\n\nThe answer"
    delta = reasoner.extract_reasoning_streaming("", "", end, [], [], tokenizer.encode(end))
    return held, delta.content if delta is not None else ""


def test_reasoning_parser_memory_stays_flat_however_long_the_reasoning() -> None:
    tokenizer = toks.qwen36()
    make = ReasoningParserManager.get_reasoning_parser(plugin.PREFIX + "qwen3")
    short, short_content = _stream_reasoning(make(tokenizer), tokenizer, 5_000)
    long, long_content = _stream_reasoning(make(tokenizer), tokenizer, 50_000)
    # Ten times the reasoning: what stays allocated grows by far less than ten times
    # (it kept every delta, 8 bytes and more a character, before).
    assert long < short * 2 + 200_000, (short, long)
    # And the handover is still exact: the content after </think>, raw.
    assert short_content == long_content == "\n\nThe answer"


# HY 3 and 4 with a checkpoint's suffix (tokenizer_values: HY 3's token_suffix, HY 4's
# vocabulary): the plugin spells the markers as the served tokenizer does, and reads
# reasoning_effort from chat_template_kwargs or from the request's own field (vLLM
# merges it into the template kwargs).
_S = ":a1b2c3d4"
HY_SUFFIXED = {
    "hy_v3": (f"Need the weather.</think{_S}>Checking.<tool_calls{_S}>\n<tool_call{_S}>"
              f"get_weather<tool_sep{_S}>\n<arg_key{_S}>city</arg_key{_S}>\n<arg_value{_S}>"
              f"Beijing</arg_value{_S}>\n</tool_call{_S}>\n</tool_calls{_S}>"),
    "hy_v4": (f"Need the weather.</think{_S}>Checking.<tool_calls{_S}><tool_call{_S}>"
              f"get_weather<arg_key{_S}>city</arg_key{_S}><arg_value{_S}>Beijing"
              f"</arg_value{_S}></tool_call{_S}></tool_calls{_S}>"),
}


@pytest.mark.parametrize("fmt", sorted(HY_SUFFIXED))
@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("kwargs, request_fields, thinking", [
    ({"reasoning_effort": "high"}, {}, True),
    (None, {"reasoning_effort": "high"}, True),
    ({"reasoning_effort": "no_think"}, {}, False),
    (None, {}, None),  # the format's default: hy_v3 does not reason, hy_v4 does
])
def test_markers_spelt_by_the_served_tokenizer(kwargs: dict | None, request_fields: dict,
                                               thinking: bool | None, stream: bool,
                                               fmt: str) -> None:
    if thinking is None:
        thinking = parsergen.entry(fmt).thinking_default
    tokenizer = toks.hy_v3_suffixed()
    ids = tokenizer.encode(HY_SUFFIXED[fmt], add_special_tokens=False)
    deltas = [([i], tokenizer.decode([i])) for i in ids]
    # Hy3's template ends the prompt in <think> to reason, in <think></think> not to
    # (vllm-project/vllm#48800).
    opened = f"<think{_S}>" + ("" if thinking else f"</think{_S}>")
    prompt = tokenizer.encode(PROMPT + opened, add_special_tokens=False)
    tools = _tools(fmt)

    def message(parser: str) -> tuple[Any, ...]:
        got = serve(parser, tokenizer, deltas, prompt, stream=stream, tools=tools,
                    kwargs=kwargs, **request_fields)
        if not stream:
            m = got.choices[0].message
            return (m.reasoning, m.content,
                    [(tc.function.name, tc.function.arguments) for tc in m.tool_calls])
        reasoning, content, calls = "", "", {}
        for payload in got:
            for choice in payload.get("choices", ()):
                delta = choice["delta"]
                reasoning += delta.get("reasoning") or ""
                content += delta.get("content") or ""
                for tc in delta.get("tool_calls") or ():
                    name, args = calls.get(tc["index"], ("", ""))
                    fn = tc.get("function") or {}
                    calls[tc["index"]] = (name + (fn.get("name") or ""),
                                          args + (fn.get("arguments") or ""))
        return reasoning or None, content or None, [calls[i] for i in sorted(calls)]

    ours, theirs = message(f"parsergen_{fmt}"), message(fmt)
    assert ours[2] and ours == theirs
    assert (ours[0] is not None) == thinking
