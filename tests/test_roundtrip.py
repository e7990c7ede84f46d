"""Round trips through real tokenizers: message -> completion text -> token ids ->
one token per delta through the incremental detokenizer -> ChatParser -> message.

Each case starts from the message a model means (reasoning, content, tool calls with
their arguments), renders the completion in the format's syntax, tokenizes it with the
model's real tokenizer (markers as their single tokens), and streams it one token per
delta through ``tokenizers.decoders.DecodeStream``, as a server does: while a token
ends inside a multi-byte character the detokenizer returns nothing, and the delta is
then ``""`` with that token's id.  The streamed message must be the intended one, and
the same as ``parse()`` of the whole completion.

Prompts come from the models' chat templates: one that pre-fills the reasoning start
marker (the completion begins inside reasoning), one that closes reasoning (the
completion is content only), each given to ``initialize`` as token ids and as text.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from tokenizers.decoders import DecodeStream

import parsergen
from support import tokenizers as toks

EMOJI = "👍🏽"  # 8 UTF-8 bytes, a byte-level token boundary inside it in every vocab here

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"},
                                         "days": {"type": "integer"}}}}},
    {"type": "function", "function": {"name": "write_note", "parameters": {
        "type": "object", "properties": {"title": {"type": "string"},
                                         "body": {"type": "string"},
                                         "tags": {"type": "array", "items": {"type": "string"}},
                                         "pinned": {"type": "boolean"}}}}},
]


@dataclass(frozen=True)
class Message:
    """What the model means: reasoning, content and (name, arguments) calls."""

    reasoning: str | None = None
    content: str | None = None
    calls: tuple[tuple[str, dict[str, Any]], ...] = ()


WEATHER = ("get_weather", {"city": f"Paris {EMOJI}", "days": 3})
NOTE = ("write_note", {"title": "Trip", "body": f"Pack an umbrella.\nBring snacks {EMOJI}",
                       "tags": ["travel", "rain"], "pinned": True})

REASONING = f"The user asks about the weather in Paris.\nI should call the tool {EMOJI}"
CONTENT = f"Let me check the forecast for you {EMOJI}"


# -- rendering a message as the model writes it -------------------------------------


def _value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _qwen3_calls(calls) -> str:
    out = []
    for name, args in calls:
        params = "".join(f"<parameter={k}>\n{_value(v)}\n</parameter>\n" for k, v in args.items())
        out.append(f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>")
    return "\n".join(out)


def _deepseek_v31_calls(calls) -> str:
    if not calls:
        return ""
    body = "".join(f"<｜tool▁call▁begin｜>{name}<｜tool▁sep｜>"
                   f"{json.dumps(args, ensure_ascii=False)}<｜tool▁call▁end｜>"
                   for name, args in calls)
    return f"<｜tool▁calls▁begin｜>{body}<｜tool▁calls▁end｜>"


def _deepseek_v4_calls(calls) -> str:
    if not calls:
        return ""
    invokes = []
    for name, args in calls:
        params = "".join(
            f'<｜DSML｜parameter name="{k}" string="{"true" if isinstance(v, str) else "false"}">'
            f"{_value(v)}</｜DSML｜parameter>\n" for k, v in args.items())
        invokes.append(f'<｜DSML｜invoke name="{name}">\n{params}</｜DSML｜invoke>\n')
    return "<｜DSML｜tool_calls>\n" + "".join(invokes) + "</｜DSML｜tool_calls>"


def _mistral_calls(calls) -> str:
    return "".join(f"[TOOL_CALLS]{name}[ARGS]{json.dumps(args, ensure_ascii=False)}"
                   for name, args in calls)


def _poolside_calls(calls) -> str:
    # Laguna writes GLM's calls: the name, then <arg_key>/<arg_value> pairs.
    return "".join(f"<tool_call>{name}\n" + "".join(
        f"<arg_key>{k}</arg_key>\n<arg_value>{_value(v)}</arg_value>\n" for k, v in args.items())
        + "</tool_call>" for name, args in calls)


def _phi4_mini_calls(calls) -> str:
    # Phi-4-mini's tool template: one JSON list after "functools".
    return "functools" + json.dumps([{"name": name, "arguments": args} for name, args in calls],
                                    ensure_ascii=False)


def _step3_calls(calls) -> str:
    # Step-3: StepTML invokes, one per <｜tool_call_begin｜> element, in one block.
    if not calls:
        return ""
    body = "".join(
        "<｜tool_call_begin｜>function<｜tool_sep｜>" f'<steptml:invoke name="{name}">\n'
        + "".join(f'<steptml:parameter name="{k}">{_value(v)}</steptml:parameter>\n'
                  for k, v in args.items())
        + "</steptml:invoke><｜tool_call_end｜>" for name, args in calls)
    return f"<｜tool_calls_begin｜>{body}<｜tool_calls_end｜>"


def _longcat_calls(calls) -> str:
    # LongCat-Flash-Chat: hermes' JSON object per call, in its own tags.
    return "\n".join("<longcat_tool_call>\n" + json.dumps({"name": name, "arguments": args},
                                                          ensure_ascii=False)
                     + "\n</longcat_tool_call>" for name, args in calls)


def _mistral_pre_v11_calls(calls) -> str:
    # Mistral-7B-Instruct-v0.3's template: one array, each call with its 9-character id.
    items = [json.dumps({"name": name, "arguments": args, "id": f"call{i:05d}"},
                        ensure_ascii=False) for i, (name, args) in enumerate(calls)]
    return "[TOOL_CALLS] [" + ", ".join(items) + "]"


def _jamba_calls(calls) -> str:
    # As vLLM's jamba tests have Jamba write it: the array one call per line.
    items = [json.dumps({"name": name, "arguments": args}, ensure_ascii=False)
             for name, args in calls]
    return "<tool_calls>[\n    " + ",\n    ".join(items) + "\n]</tool_calls>"


def _granite_20b_fc_calls(calls) -> str:
    # Its template: "<function_call> " and the JSON object per call, then its loop's indent.
    return "\n        ".join(
        "<function_call> " + json.dumps({"name": name, "arguments": args}, ensure_ascii=False)
        for name, args in calls)


def _ernie45_calls(calls) -> str:
    # ERNIE-4.5 Thinking: hermes blocks, one per call, each on its own lines.
    return "\n".join("<tool_call>\n" + json.dumps({"name": name, "arguments": args},
                                                  ensure_ascii=False) + "\n</tool_call>"
                     for name, args in calls)


def _internlm_calls(calls) -> str:
    # InternLM's chat format: one action per call.
    return "".join("<|action_start|><|plugin|>\n" + json.dumps(
        {"name": name, "parameters": args}, ensure_ascii=False) + "<|action_end|>"
        for name, args in calls)


def _python_value(value: Any) -> str:
    """A JSON value as the Python literal a Python-call model writes."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_python_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_python_value(k)}: {_python_value(v)}"
                               for k, v in value.items()) + "}"
    return json.dumps(value, ensure_ascii=False)


def _lfm2_calls(calls) -> str:
    # LFM2's model card: one Python list of calls between its two special tokens.
    if not calls:
        return ""
    items = [f"{name}(" + ", ".join(f"{k}={_python_value(v)}" for k, v in args.items()) + ")"
             for name, args in calls]
    return "<|tool_call_start|>[" + ", ".join(items) + "]<|tool_call_end|>"


def _apertus_calls(calls) -> str:
    # The Apertus chat format: one JSON array of {NAME: ARGS} between its tool tokens.
    if not calls:
        return ""
    items = [json.dumps({name: args}, ensure_ascii=False) for name, args in calls]
    return "<|tools_prefix|>[" + ", ".join(items) + "]<|tools_suffix|>"


def _muse_messages(message) -> str:
    # vLLM's muse parser docstring and its Muse Glimmer recipe: one message per channel,
    # one call per message (<atem:parameter> values: strings as written, others JSON);
    # the prompt ends with <|start|>assistant, so the first header has no role.
    parts = []
    if message.reasoning is not None:
        parts.append(("self", message.reasoning + "<|eom|>"))
    if message.content:  # an update before calls (commentary), else the answer
        parts.append(("commentary", message.content + "<|eom|>") if message.calls
                     else ("user", message.content))  # the stop token ends it
    for name, args in message.calls:
        params = "".join(f'<atem:parameter name="{k}">'
                         f"{v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)}"
                         "</atem:parameter>\n" for k, v in args.items())
        parts.append((name, f'<atem:function_calls>\n<atem:invoke name="{name}">\n{params}'
                            "</atem:invoke>\n</atem:function_calls><|eom|>"))
    return "".join((" " if i == 0 else "<|start|>assistant ") + f"to={rcpt}<|message|>{body}"
                   for i, (rcpt, body) in enumerate(parts))


def _hunyuan_messages(message) -> str:
    # Hunyuan-A13B (its agent README; vLLM's hunyuan_a13b parsers): the reasoning in
    # <think>\n...\n</think>\n, the answer in <answer>\n...\n</answer>, the calls one JSON
    # array in <tool_calls> after the answer's text (as its template writes a reply with
    # calls), a reply in words opened with the template's label 助手：.
    text = "" if message.reasoning is None else f"<think>\n{message.reasoning}\n</think>\n"
    body = message.content or ""
    if message.calls:
        body += "<tool_calls>[" + ", ".join(json.dumps(
            {"name": name, "arguments": args}, ensure_ascii=False)
            for name, args in message.calls) + "]</tool_calls>"
    else:
        body = "助手：" + body
    return text + f"<answer>\n{body}\n</answer>"


def _notation(value: Any, quote: str) -> str:
    """A JSON value in Gemma's call notation, strings between ``quote``s."""
    if isinstance(value, str):
        return quote + value + quote
    if isinstance(value, list):
        return "[" + ",".join(_notation(v, quote) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_notation(v, quote)}" for k, v in value.items()) + "}"
    return json.dumps(value)


def _functiongemma_calls(calls) -> str:
    # ai.google.dev's FunctionGemma page: one call per control-token pair, <escape> strings.
    return "".join(f"<start_function_call>call:{name}{_notation(args, '<escape>')}"
                   "<end_function_call>" for name, args in calls)


def _olmo3_calls(calls) -> str:
    # OLMo 3's chat template: one Python call per line between <function_calls> tags.
    if not calls:
        return ""
    lines = [f"{name}(" + ", ".join(f"{k}={_python_value(v)}" for k, v in args.items()) + ")"
             for name, args in calls]
    return "<function_calls>\n" + "\n".join(lines) + "\n</function_calls>"


def _xlam_calls(calls) -> str:
    # The xLAM-2 model cards: the reply is one JSON array of {"name", "arguments"} objects.
    if not calls:
        return ""
    return json.dumps([{"name": name, "arguments": args} for name, args in calls],
                      ensure_ascii=False)


def _minicpm5_calls(calls) -> str:
    # OpenBMB's README and the MiniCPM5 template: <function name=..> with <param name=..>
    # per argument; a string with markup in it as a CDATA section, others as JSON text.
    def value(v):
        if not isinstance(v, str):
            return json.dumps(v, ensure_ascii=False)
        return "<![CDATA[" + v.replace("]]>", "]]]]><![CDATA[>") + "]]>" if "<" in v else v
    return "\n".join(f'<function name="{name}">\n' + "".join(
        f'<param name="{k}">{value(v)}</param>\n' for k, v in args.items()) + "</function>"
        for name, args in calls)


def _cohere_calls(calls) -> str:
    # Cohere Command (llama.cpp's Command R7B format): one JSON array of calls between
    # <|START_ACTION|> and <|END_ACTION|>, each with the model's own tool_call_id.
    return "<|START_ACTION|>[\n    " + ",\n    ".join(json.dumps(
        {"tool_call_id": str(i), "tool_name": name, "parameters": args}, ensure_ascii=False)
        for i, (name, args) in enumerate(calls)) + "\n]<|END_ACTION|>"


def _gigachat3_calls(calls) -> str:
    # GigaChat 3 (vllm-project/vllm#36664): the text's message ends with <|message_sep|>\n\n,
    # then a "function call" message holds one JSON call; each further call is one more.
    return "".join("<|message_sep|>\n\nfunction call<|role_sep|>\n" + json.dumps(
        {"name": name, "arguments": args}, ensure_ascii=False) for name, args in calls)


def _k2_value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _k2_horizon_calls(calls) -> str:
    # K2 Horizon, tool_call_format xml (vLLM's k2_horizon tool parser and its tests'
    # _group/_xml_call): a <ifm|tool_calls> group, one element per call, newline-separated.
    return "<ifm|tool_calls>" + "\n".join(
        f"<ifm|tool_call>{name}" + "".join(
            f"<ifm|arg_key>{k}</ifm|arg_key><ifm|arg_value>{_k2_value(v)}</ifm|arg_value>"
            for k, v in args.items()) + "</ifm|tool_call>"
        for name, args in calls) + "</ifm|tool_calls>"


def _k2_horizon_json_calls(calls) -> str:
    # tool_call_format json: each call one {"name", "arguments"} object (_json_call).
    return "<ifm|tool_calls>" + "\n".join(
        "<ifm|tool_call>" + json.dumps({"name": name, "arguments": args}, ensure_ascii=False)
        + "</ifm|tool_call>" for name, args in calls) + "</ifm|tool_calls>"
def _dots_calls(calls) -> str:
    # vLLM's dots parser docstring: one <dots_function_call> block of <invoke> elements,
    # one element per line; strings as written, other values as JSON text.
    def value(v):
        return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
    return "<dots_function_call>\n" + "\n".join(
        f'<invoke name="{name}">\n' + "".join(
            f'<parameter name="{k}">{value(v)}</parameter>\n' for k, v in args.items())
        + "</invoke>" for name, args in calls) + "\n</dots_function_call>"


@dataclass(frozen=True)
class Format:
    name: str
    tokenizer: str
    think_start: str
    think_end: str
    calls: Any
    markers: tuple[str, ...]  # markers written as one token each
    eos: str  # the end-of-turn token that ends a completion
    messages: Any = None  # writes the whole completion (formats of recipient-scoped messages)
    content_around: tuple[str, str] = ("", "")  # markers the content is written between


FORMATS = {
    "qwen3": Format("qwen3", "qwen3.6", "<think>", "</think>", _qwen3_calls,
                    ("</think>", "<tool_call>", "</tool_call>"), "<|im_end|>"),
    # MiniCPM-V 4.5: Qwen3-based, ChatML turns, qwen3's reasoning and calls.
    "minicpmv": Format("minicpmv", "qwen3.6", "<think>", "</think>", _qwen3_calls,
                       ("</think>", "<tool_call>", "</tool_call>"), "<|im_end|>"),
    "deepseek_v31": Format("deepseek_v31", "deepseek", "<think>", "</think>",
                           _deepseek_v31_calls,
                           ("</think>", "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>",
                            "<｜tool▁sep｜>", "<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>"),
                           "<｜end▁of▁sentence｜>"),
    "deepseek_v4": Format("deepseek_v4", "deepseek", "<think>", "</think>", _deepseek_v4_calls,
                          ("</think>", "｜DSML｜"), "<｜end▁of▁sentence｜>"),
    "mistral": Format("mistral", "tekken", "[THINK]", "[/THINK]", _mistral_calls,
                      ("[THINK]", "[/THINK]", "[TOOL_CALLS]", "[ARGS]"), "</s>"),
    # Mistral-Nemo-Instruct-2407: tokenizer v3 tekken, no reasoning.
    "mistral_pre_v11": Format("mistral_pre_v11", "tekken", "", "", _mistral_pre_v11_calls,
                              ("[TOOL_CALLS]",), "</s>"),
    # AI21 Jamba 1.5-1.7: no reasoning; the test vocabulary is bytes plus its markers.
    "jamba": Format("jamba", "jamba", "", "", _jamba_calls, ("<tool_calls>", "</tool_calls>"),
                    "<|endoftext|>"),
    # ERNIE-4.5 Thinking: always reasons first; its tags are added tokens of its vocabulary.
    "ernie45": Format("ernie45", "ernie", "<think>", "</think>", _ernie45_calls,
                      ("</think>", "<tool_call>", "</tool_call>"), "<|end_of_sentence|>"),
    # InternLM2/2.5/3: no reasoning; its chat tokens at their published ids.
    "internlm": Format("internlm", "internlm", "", "", _internlm_calls,
                       ("<|action_start|>", "<|plugin|>", "<|action_end|>"), "<|im_end|>"),
    # granite-20b-functioncalling: no reasoning; <function_call> is text.
    "granite_20b_fc": Format("granite_20b_fc", "granite_20b", "", "", _granite_20b_fc_calls, (),
                             "<|endoftext|>"),
    # Laguna with thinking off (its default): content and calls.
    "poolside_v1": Format("poolside_v1", "laguna", "<think>", "</think>", _poolside_calls,
                          ("<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>",
                           "<arg_value>", "</arg_value>"), "<|endoftext|>"),
    "phi4_mini_json": Format("phi4_mini_json", "phi4_mini", "", "", _phi4_mini_calls, (),
                             "<|end|>"),
    # Step-3: the prompt opens the reasoning; the model writes only </think>.
    "step3": Format("step3", "step3", "", "</think>", _step3_calls,
                    ("</think>", "<｜tool_calls_begin｜>", "<｜tool_calls_end｜>",
                     "<｜tool_call_begin｜>", "<｜tool_call_end｜>", "<｜tool_sep｜>"),
                    "<|endoftext|>"),
    # Step-5: deepseek_r1's reasoning (the prompt opens it), Qwen3-Coder calls.
    "step5": Format("step5", "qwen3.6", "<think>", "</think>", _qwen3_calls,
                    ("</think>", "<tool_call>", "</tool_call>"), "<|im_end|>"),
    "longcat": Format("longcat", "longcat", "", "", _longcat_calls,
                      ("<longcat_tool_call>", "</longcat_tool_call>"), "<|endoftext|>"),
    # LiquidAI LFM2: no reasoning; its special tokens at the ids its tokenizer lists.
    "lfm2": Format("lfm2", "lfm2", "", "", _lfm2_calls,
                   ("<|tool_call_start|>", "<|tool_call_end|>"), "<|im_end|>"),
    # Swiss AI Apertus: no reasoning read; its test vocabulary is bytes plus its tokens.
    "apertus": Format("apertus", "apertus", "", "", _apertus_calls,
                      ("<|tools_prefix|>", "<|tools_suffix|>"), "<|assistant_end|>"),
    # FunctionGemma: no reasoning; its control tokens and <escape> are single tokens.
    "functiongemma": Format("functiongemma", "functiongemma", "", "", _functiongemma_calls,
                            ("<start_function_call>", "<end_function_call>", "<escape>"),
                            "<end_of_turn>"),
    # OLMo 3 Think: the prompt opens <think>; none of its markers is a special token.
    "olmo3": Format("olmo3", "olmo3", "<think>", "</think>", _olmo3_calls, (), "<|im_end|>"),
    # Llama-xLAM-2: Llama 3.1's tokenizer; the calls are plain JSON text.
    "xlam": Format("xlam", "llama3", "", "", _xlam_calls, (), "<|eot_id|>"),
    # MiniCPM5: no reasoning split off; its call tags are plain text (ChatML's <|im_end|>).
    "minicpm5": Format("minicpm5", "qwen3.6", "", "", _minicpm5_calls, (), "<|im_end|>"),
    # Dots: no reasoning split off (vLLM has no dots reasoning parser); plain-text tags, in
    # the qwen3.6 test tokenizer's ChatML turn (no Dots chat template is public here).
    "dots": Format("dots", "qwen3.6", "", "", _dots_calls, (), "<|im_end|>"),
    # Muse: recipient-scoped messages (no think markers); its framing tokens at assumed ids.
    "muse": Format("muse", "muse", "", "", None, ("<|start|>", "<|message|>", "<|eom|>"),
                   "<|eot|>", _muse_messages),
    "muse_glimmer": Format("muse_glimmer", "muse", "", "", None,
                           ("<|start|>", "<|message|>", "<|eom|>"), "<|eot|>", _muse_messages),
    # Hunyuan-A13B: every marker is ordinary text (several tokens); <|eos|> ends the turn.
    "hunyuan_a13b": Format("hunyuan_a13b", "hunyuan", "", "", None, (), "<|eos|>",
                           _hunyuan_messages),
    # K2 Horizon: the prompt opens <ifm|think> (reasoning_effort high, the default); every
    # marker is a special token. Its tool_call_format chooses k2_horizon or k2_horizon_json.
    **{name: Format(name, "k2_horizon", "<ifm|think>", "</ifm|think>", calls,
                    ("</ifm|think>", "<ifm|tool_calls>", "</ifm|tool_calls>", "<ifm|tool_call>",
                     "</ifm|tool_call>", "<ifm|arg_key>", "</ifm|arg_key>", "<ifm|arg_value>",
                     "</ifm|arg_value>"), "<|ifm|im_end|>")
       for name, calls in (("k2_horizon", _k2_horizon_calls),
                           ("k2_horizon_json", _k2_horizon_json_calls))},
    # GigaChat 3: no reasoning; its separators are special tokens that hold their newlines,
    # "function call" before <|role_sep|> is words (an id sequence).
    "gigachat3": Format("gigachat3", "gigachat3", "", "", _gigachat3_calls,
                        ("<|message_sep|>\n\n", "<|role_sep|>\n"), "</s>"),
    # Cohere Command A / R7B and Command A Reasoning: every marker is a special token; the
    # answer is written between <|START_RESPONSE|> and <|END_RESPONSE|>.
    **{name: Format(name, "cohere", "<|START_THINKING|>", "<|END_THINKING|>", _cohere_calls,
                    ("<|START_THINKING|>", "<|END_THINKING|>", "<|START_RESPONSE|>",
                     "<|END_RESPONSE|>", "<|START_ACTION|>", "<|END_ACTION|>"),
                    "<|END_OF_TURN_TOKEN|>",
                    content_around=("<|START_RESPONSE|>", "<|END_RESPONSE|>"))
       for name in ("cohere_command3", "cohere_command4")},
}

TOKENIZERS = {"qwen3.6": toks.qwen36, "deepseek": toks.deepseek, "tekken": toks.tekken,
              "jamba": toks.jamba, "granite_20b": toks.granite_20b,
              "ernie": toks.ernie, "internlm": toks.internlm,
              "longcat": toks.longcat, "laguna": toks.laguna,
              "phi4_mini": toks.phi4_mini, "step3": toks.step3,
              "lfm2": toks.lfm2, "apertus": toks.apertus,
              "functiongemma": toks.functiongemma, "olmo3": toks.olmo3,
              "llama3": toks.llama3, "muse": toks.muse, "cohere": toks.cohere,
              "gigachat3": toks.gigachat3, "hunyuan": toks.hunyuan,
              "k2_horizon": toks.k2_horizon}


def render(fmt: Format, message: Message, *, opens: bool, before_calls: str = "") -> str:
    """The completion: ``opens`` when the model writes the reasoning start marker itself."""
    if fmt.messages is not None:
        return fmt.messages(message)
    text = ""
    if message.reasoning is not None:
        text = (fmt.think_start if opens else "") + message.reasoning + fmt.think_end
    if message.content is not None:
        text += fmt.content_around[0] + message.content + fmt.content_around[1]
    if message.calls:
        text += before_calls + fmt.calls(message.calls)
    return text


# -- prompts, as the chat templates end them ----------------------------------------

QWEN_HISTORY = ("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
                "<|im_start|>user\nWhat is the weather in Paris?<|im_end|>\n")
DEEPSEEK_HISTORY = ("<｜begin▁of▁sentence｜>You are a helpful assistant."
                    "<｜User｜>What is the weather in Paris?")
MISTRAL_SYSTEM = ("<s>[SYSTEM_PROMPT]First draft your thinking process (inner monologue) until "
                  "you arrive at a response. Your thinking process must follow the template "
                  "below:[THINK]Your thoughts or/and draft.[/THINK]Here, provide a "
                  "self-contained response.[/SYSTEM_PROMPT]")
MISTRAL_HISTORY = MISTRAL_SYSTEM + "[INST]What is the weather in Paris?[/INST]"

PROMPTS = {
    # (format, kind) -> prompt; "open": the completion starts inside reasoning.
    ("qwen3", "open"): QWEN_HISTORY + "<|im_start|>assistant\n<think>\n",
    ("qwen3", "closed"): QWEN_HISTORY + "<|im_start|>assistant\n<think>\n\n</think>\n\n",
    ("minicpmv", "open"): QWEN_HISTORY + "<|im_start|>assistant\n<think>\n",
    ("deepseek_v31", "open"): DEEPSEEK_HISTORY + "<｜Assistant｜><think>",
    ("deepseek_v31", "closed"): DEEPSEEK_HISTORY + "<｜Assistant｜></think>",
    ("deepseek_v4", "open"): DEEPSEEK_HISTORY + "<｜Assistant｜><think>",
    ("deepseek_v4", "closed"): DEEPSEEK_HISTORY + "<｜Assistant｜></think>",
    # Magistral: the model opens [THINK] itself; the system prompt's markers are in an
    # earlier message.  A prefix continuation may also pre-fill or close it.
    ("mistral", "model_opens"): MISTRAL_HISTORY,
    ("mistral", "open"): MISTRAL_HISTORY + "[THINK]",
    ("mistral", "closed"): MISTRAL_HISTORY + "[THINK]Easy.[/THINK]",
    ("mistral_pre_v11", "closed"): "<s>[INST]What is the weather in Paris?[/INST]",
    # Jamba's role tokens are not in its test vocabulary: the prompt is the question.
    ("jamba", "closed"): "What is the weather in Paris?\n",
    # ERNIE's role tokens are not in its test vocabulary: the question, then the <think>
    # its output (as vLLM's ernie45 parser documents it, "abc\n</think>...") follows.
    ("ernie45", "open"): "What is the weather in Paris?\n<think>\n",
    ("internlm", "closed"): ("<|im_start|>user\nWhat is the weather in Paris?<|im_end|>\n"
                             "<|im_start|>assistant\n"),
    ("granite_20b_fc", "closed"): ("SYSTEM: You are a helpful assistant.\n\nUSER: What is the "
                                   "weather in Paris?\nASSISTANT: "),
    # LongCat has no reasoning: any prompt leaves it in content (its turn markup unread).
    ("longcat", "closed"): "What is the weather in Paris?",
    ("phi4_mini_json", "closed"): "<|user|>What is the weather in Paris?<|end|><|assistant|>",
    # No marker in the prompt: Step-3 starts in reasoning (start_optional).
    ("step3", "open"): "What is the weather in Paris?",
    ("step5", "open"): QWEN_HISTORY + "<|im_start|>assistant\n<think>\n",
    ("poolside_v1", "closed"): "What is the weather in Paris?<assistant>",
    ("lfm2", "closed"): ("<|startoftext|><|im_start|>user\nWhat is the weather in Paris?"
                         "<|im_end|>\n<|im_start|>assistant\n"),
    ("apertus", "closed"): "What is the weather in Paris?<|assistant_start|>",
    ("functiongemma", "closed"): ("<start_of_turn>user\nWhat is the weather in Paris?"
                                  "<end_of_turn>\n<start_of_turn>model\n"),
    ("olmo3", "open"): ("<|im_start|>user\nWhat is the weather in Paris?<|im_end|>\n"
                        "<|im_start|>assistant\n<think>"),
    ("olmo3", "closed"): "<|im_start|>user\nWhat is the weather in Paris?<|im_end|>\n"
                         "<|im_start|>assistant\n",
    ("dots", "closed"): ("<|im_start|>user\nWhat is the weather in Paris?<|im_end|>\n"
                         "<|im_start|>assistant\n"),
    ("minicpm5", "closed"): ("<|im_start|>user\nWhat is the weather in Paris?<|im_end|>\n"
                             "<|im_start|>assistant\n"),
    # Muse: the prompt ends with the assistant's role; the completion starts in a header.
    ("muse", "header"): "<|start|>user<|message|>What is the weather in Paris?<|eot|><|start|>assistant",
    ("muse_glimmer", "header"): ("<|start|>user<|message|>What is the weather in Paris?<|eot|>"
                                 "<|start|>assistant"),
    # Cohere's prompt ends with the chatbot turn, and opens the thinking where it is on;
    # with it off, llama.cpp's Command R7B handler closes it (<|START_THINKING|><|END_THINKING|>).
    **{(name, kind): ("<BOS_TOKEN><|START_OF_TURN_TOKEN|><|USER_TOKEN|>What is the weather in "
                      "Paris?<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>"
                      + ("<|START_THINKING|>" if kind == "open"
                         else "<|START_THINKING|><|END_THINKING|>"))
       for name in ("cohere_command3", "cohere_command4") for kind in ("open", "closed")},
    # GigaChat 3's template ends the prompt with the assistant's role (llama.cpp's GigaChat 3
    # handler: generation prompt "assistant<|role_sep|>\n").
    ("gigachat3", "closed"): ("user<|role_sep|>\nWhat is the weather in Paris?<|message_sep|>\n\n"
                              "assistant<|role_sep|>\n"),
    # Hunyuan-A13B's template (tokenizer_config.json) ends the prompt at the user's turn,
    # and the model opens <think> itself; with enable_thinking false it closes the
    # reasoning in the prompt, and the completion is the answer.
    ("hunyuan_a13b", "model_opens"): "<|startoftext|>What is the weather in Paris?<|extra_0|>",
    ("hunyuan_a13b", "closed"): ("<|startoftext|>What is the weather in Paris?<|extra_0|>"
                                 "<think>\n\n</think>\n"),
    # K2 Horizon's template opens the request's effort marker and a newline
    # (<|ifm|im_start|>assistant\n<ifm|think>\n: the prompts public K2 Horizon clients
    # build; the turn tokens' spelling as those clients write them).
    **{(name, "open"): ("<|ifm|im_start|>user\nWhat is the weather in Paris?<|ifm|im_end|>\n"
                        "<|ifm|im_start|>assistant\n<ifm|think>\n")
       for name in ("k2_horizon", "k2_horizon_json")},
    ("xlam", "closed"): ("<|start_header_id|>user<|end_header_id|>\n\nWhat is the weather in "
                         "Paris?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"),
}


@dataclass(frozen=True)
class Case:
    id: str
    format: str
    prompt: str  # a key of PROMPTS (with the format)
    message: Message
    before_calls: str = ""

    @property
    def fmt(self) -> Format:
        return FORMATS[self.format]

    def completion(self) -> str:
        return render(self.fmt, self.message, opens=self.prompt == "model_opens",
                      before_calls=self.before_calls)


FULL = Message(REASONING, CONTENT, (WEATHER, NOTE))
CASES = [
    # Reasoning, content and two calls; emojis end the reasoning (before the end
    # marker), the content (before the calls) and argument strings.
    Case("qwen3-full", "qwen3", "open", FULL),
    # Qwen's template puts a blank line before the calls: not content.
    Case("qwen3-blank-line-before-calls", "qwen3", "open", FULL, before_calls="\n\n"),
    Case("qwen3-reasoning-then-call", "qwen3", "open", Message(REASONING, None, (WEATHER,))),
    Case("qwen3-closed-content-and-call", "qwen3", "closed", Message(None, CONTENT, (NOTE,))),
    Case("qwen3-closed-content-only", "qwen3", "closed", Message(None, CONTENT)),
    Case("minicpmv-full", "minicpmv", "open", FULL),
    Case("minicpmv-reasoning-then-call", "minicpmv", "open", Message(REASONING, None, (WEATHER,))),
    Case("deepseek_v31-full", "deepseek_v31", "open", FULL),
    Case("deepseek_v31-reasoning-then-call", "deepseek_v31", "open",
         Message(REASONING, None, (NOTE,))),
    Case("deepseek_v31-closed-content-and-call", "deepseek_v31", "closed",
         Message(None, CONTENT, (WEATHER, NOTE))),
    Case("deepseek_v31-closed-content-only", "deepseek_v31", "closed", Message(None, CONTENT)),
    Case("deepseek_v4-full", "deepseek_v4", "open", FULL),
    Case("deepseek_v4-reasoning-then-call", "deepseek_v4", "open",
         Message(REASONING, None, (WEATHER,))),
    Case("deepseek_v4-closed-content-and-call", "deepseek_v4", "closed",
         Message(None, CONTENT, (NOTE, WEATHER))),
    Case("deepseek_v4-closed-content-only", "deepseek_v4", "closed", Message(None, CONTENT)),
    Case("mistral-full", "mistral", "model_opens", FULL),
    Case("mistral-reasoning-then-call", "mistral", "model_opens",
         Message(REASONING, None, (NOTE,))),
    Case("mistral-content-and-call", "mistral", "model_opens", Message(None, CONTENT, (WEATHER,))),
    Case("mistral-prefilled-think", "mistral", "open", FULL),
    Case("mistral-closed-content-and-call", "mistral", "closed",
         Message(None, CONTENT, (NOTE, WEATHER))),
    Case("mistral_pre_v11-calls", "mistral_pre_v11", "closed", Message(None, None, (WEATHER, NOTE))),
    Case("mistral_pre_v11-content-and-call", "mistral_pre_v11", "closed",
         Message(None, CONTENT, (NOTE,))),
    Case("mistral_pre_v11-content-only", "mistral_pre_v11", "closed", Message(None, CONTENT)),
    Case("jamba-calls", "jamba", "closed", Message(None, None, (WEATHER, NOTE))),
    Case("jamba-content-and-call", "jamba", "closed", Message(None, CONTENT, (NOTE,))),
    Case("jamba-content-only", "jamba", "closed", Message(None, CONTENT)),
    Case("lfm2-calls", "lfm2", "closed", Message(None, None, (WEATHER, NOTE))),
    Case("lfm2-content-and-call", "lfm2", "closed", Message(None, CONTENT, (NOTE,))),
    Case("lfm2-content-only", "lfm2", "closed", Message(None, CONTENT)),
    Case("apertus-calls", "apertus", "closed", Message(None, None, (WEATHER, NOTE))),
    Case("apertus-content-and-call", "apertus", "closed", Message(None, CONTENT, (NOTE,))),
    Case("apertus-content-only", "apertus", "closed", Message(None, CONTENT)),
    Case("functiongemma-calls", "functiongemma", "closed", Message(None, None, (WEATHER, NOTE))),
    Case("functiongemma-content-and-call", "functiongemma", "closed",
         Message(None, CONTENT, (NOTE,))),
    Case("functiongemma-content-only", "functiongemma", "closed", Message(None, CONTENT)),
    Case("olmo3-full", "olmo3", "open", FULL),
    Case("olmo3-reasoning-then-content", "olmo3", "open", Message(REASONING, CONTENT)),
    Case("olmo3-closed-calls", "olmo3", "closed", Message(None, None, (WEATHER, NOTE))),
    Case("olmo3-closed-content-and-call", "olmo3", "closed", Message(None, CONTENT, (NOTE,))),
    Case("gigachat3-call", "gigachat3", "closed", Message(None, None, (WEATHER,))),
    Case("gigachat3-content-and-call", "gigachat3", "closed", Message(None, CONTENT, (NOTE,))),
    Case("gigachat3-content-only", "gigachat3", "closed", Message(None, CONTENT)),
    Case("hunyuan_a13b-full", "hunyuan_a13b", "model_opens", FULL),
    Case("hunyuan_a13b-reasoning-then-call", "hunyuan_a13b", "model_opens",
         Message(REASONING, None, (WEATHER,))),
    Case("hunyuan_a13b-reasoning-then-content", "hunyuan_a13b", "model_opens",
         Message(REASONING, CONTENT)),
    Case("hunyuan_a13b-closed-calls", "hunyuan_a13b", "closed",
         Message(None, None, (WEATHER, NOTE))),
    Case("hunyuan_a13b-closed-content-only", "hunyuan_a13b", "closed", Message(None, CONTENT)),
    *(Case(f"{name}-{what}", name, "open", message) for name in ("k2_horizon", "k2_horizon_json")
      for what, message in (("full", FULL), ("reasoning-then-content", Message(REASONING, CONTENT)),
                            ("reasoning-then-calls", Message(REASONING, None, (WEATHER, NOTE))))),
    Case("xlam-calls", "xlam", "closed", Message(None, None, (WEATHER, NOTE))),
    Case("xlam-content-only", "xlam", "closed", Message(None, CONTENT)),
    Case("muse-full", "muse", "header", FULL),
    Case("muse-reasoning-then-content", "muse", "header", Message(REASONING, CONTENT)),
    Case("muse-calls", "muse", "header", Message(None, None, (WEATHER, NOTE))),
    Case("muse_glimmer-reasoning-then-calls", "muse_glimmer", "header",
         Message(REASONING, None, (WEATHER, NOTE))),
    Case("muse_glimmer-reasoning-then-content", "muse_glimmer", "header",
         Message(REASONING, CONTENT)),
    *(Case(f"{name}-{id_}", name, kind, message) for name in ("cohere_command3", "cohere_command4")
      for id_, kind, message in (
          ("full", "open", FULL), ("reasoning-then-call", "open", Message(REASONING, None, (NOTE,))),
          ("closed-content-and-call", "closed", Message(None, CONTENT, (WEATHER,))),
          ("closed-content-only", "closed", Message(None, CONTENT)))),
    Case("dots-calls", "dots", "closed", Message(None, None, (WEATHER, NOTE))),
    Case("dots-content-and-call", "dots", "closed", Message(None, CONTENT, (NOTE,))),
    Case("minicpm5-calls", "minicpm5", "closed", Message(None, None, (WEATHER, NOTE))),
    Case("minicpm5-content-and-call", "minicpm5", "closed", Message(None, CONTENT, (NOTE,))),
    # A value with markup (a close tag, XML's ]]>) is written as CDATA and read back exactly.
    Case("minicpm5-cdata-value", "minicpm5", "closed",
         Message(None, None, (("write_note", {"title": "Page", "body": "<p>Hi & bye</p>\n"
                                              f"</param> kept ]]> end {EMOJI}"}),))),
    Case("ernie45-full", "ernie45", "open", FULL),
    Case("ernie45-reasoning-then-call", "ernie45", "open", Message(REASONING, None, (WEATHER,))),
    Case("ernie45-reasoning-then-content", "ernie45", "open", Message(REASONING, CONTENT)),
    Case("internlm-call", "internlm", "closed", Message(None, None, (WEATHER,))),
    Case("internlm-content-and-call", "internlm", "closed", Message(None, CONTENT, (NOTE,))),
    Case("internlm-two-calls", "internlm", "closed", Message(None, None, (WEATHER, NOTE))),
    Case("internlm-content-only", "internlm", "closed", Message(None, CONTENT)),
    Case("granite_20b_fc-calls", "granite_20b_fc", "closed", Message(None, None, (WEATHER, NOTE))),
    Case("granite_20b_fc-content-and-call", "granite_20b_fc", "closed",
         Message(None, CONTENT, (NOTE,)), before_calls=" "),
    Case("granite_20b_fc-content-only", "granite_20b_fc", "closed", Message(None, CONTENT)),
    Case("poolside_v1-calls", "poolside_v1", "closed", Message(None, None, (WEATHER, NOTE))),
    Case("poolside_v1-content-and-call", "poolside_v1", "closed",
         Message(None, CONTENT, (NOTE, WEATHER))),
    Case("phi4_mini_json-calls", "phi4_mini_json", "closed", Message(None, None, (WEATHER, NOTE))),
    Case("phi4_mini_json-content-and-call", "phi4_mini_json", "closed",
         Message(None, CONTENT, (NOTE,)), before_calls=" "),
    Case("step3-full", "step3", "open", Message(REASONING, CONTENT, (WEATHER, NOTE))),
    Case("step3-reasoning-then-call", "step3", "open", Message(REASONING, None, (NOTE,))),
    # One call: Step-5 keeps the newline between two calls as content (vLLM's config).
    Case("step5-full", "step5", "open", Message(REASONING, CONTENT, (NOTE,))),
    Case("step5-reasoning-then-call", "step5", "open", Message(REASONING, None, (WEATHER,))),
    Case("longcat-calls", "longcat", "closed", Message(None, None, (WEATHER, NOTE))),
    Case("longcat-content-and-call", "longcat", "closed", Message(None, CONTENT, (NOTE,))),
]


# -- streaming ----------------------------------------------------------------------


def encode(tokenizer: Any, text: str) -> list[int]:
    return tokenizer.encode(text, add_special_tokens=False)


def accumulate(deltas) -> tuple[Message, tuple[str, ...]]:
    """The message a client assembles from the deltas, and the call ids.

    Checks the delta contract on the way: a call's first delta has its id, type and
    complete name; later ones only arguments; indexes start at 0 and go up by one.
    """
    reasoning, content, calls = [], [], {}
    for delta in deltas:
        if delta is None:
            continue
        reasoning.append(delta.reasoning or "")
        content.append(delta.content or "")
        for tc in delta.tool_calls:
            call = calls.get(tc.index)
            if call is None:
                assert tc.index == len(calls), f"call index {tc.index} after {len(calls)}"
                assert tc.id and tc.type == "function" and tc.name, tc
                calls[tc.index] = call = {"id": tc.id, "name": tc.name, "arguments": ""}
            else:
                assert tc.id is None and tc.type is None and tc.name is None, tc
            call["arguments"] += tc.arguments or ""
    message = Message("".join(reasoning) or None, "".join(content) or None,
                      tuple((c["name"], json.loads(c["arguments"])) for c in calls.values()))
    return message, tuple(c["id"] for c in calls.values())


def from_parsed(parsed) -> tuple[Message, tuple[str, ...]]:
    message = Message(parsed.reasoning, parsed.content,
                      tuple((c.name, json.loads(c.arguments)) for c in parsed.tool_calls))
    return message, tuple(c.id for c in parsed.tool_calls)


def stream(case: Case, init: str, text: str) -> tuple[list, str, int]:
    """Stream ``text`` one token per delta; (deltas, detokenized text, held tokens)."""
    tokenizer = TOKENIZERS[case.fmt.tokenizer]()
    prompt = PROMPTS[case.format, case.prompt]
    parser = parsergen.load(case.format).ChatParser(tokenizer, tools=TOOLS, ids="sequential")
    if init == "ids":
        parser.initialize(encode(tokenizer, prompt))
    else:
        parser.initialize(prompt_text=prompt)
    detok = DecodeStream(skip_special_tokens=False)
    backend = tokenizer.backend_tokenizer
    deltas, pieces, held = [], [], 0
    for tid in encode(tokenizer, text):
        piece = detok.step(backend, tid)
        if piece is None:  # the token ends inside a character: nothing to show yet
            held += 1
            piece = ""
        pieces.append(piece)
        deltas.append(parser.feed(piece, [tid]))
    deltas.append(parser.finish())
    return deltas, "".join(pieces), held


@pytest.mark.parametrize("eos", [False, True], ids=["", "eos"])
@pytest.mark.parametrize("init", ["ids", "text"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_streamed_message_is_the_intended_one(case: Case, init: str, eos: bool) -> None:
    # With ``eos`` the completion ends with the end-of-turn token, detokenized with
    # special tokens kept: it is no part of the message.
    text = case.completion() + (case.fmt.eos if eos else "")
    deltas, streamed_text, held = stream(case, init, text)
    assert streamed_text == text  # the detokenizer gave back the completion
    assert held > 0  # the emoji really was split over tokens
    streamed, streamed_ids = accumulate(deltas)
    assert streamed == case.message

    tokenizer = TOKENIZERS[case.fmt.tokenizer]()
    prompt = PROMPTS[case.format, case.prompt]
    chat = parsergen.load(case.format).ChatParser
    prompt_args = ({"prompt_token_ids": encode(tokenizer, prompt)} if init == "ids"
                   else {"prompt_text": prompt})
    whole = chat.parse(text, tools=TOOLS, tokenizer=tokenizer,
                       token_ids=encode(tokenizer, text), ids="sequential", **prompt_args)
    assert from_parsed(whole) == (streamed, streamed_ids)


@pytest.mark.parametrize("format_name, kind", sorted(PROMPTS))
def test_the_prompt_decides_where_the_completion_starts(format_name: str, kind: str) -> None:
    tokenizer = TOKENIZERS[FORMATS[format_name].tokenizer]()
    module = parsergen.load(format_name)
    prompt = PROMPTS[format_name, kind]
    expected = {"open": "REASONING", "header": "MESSAGE_HEADER"}.get(kind, "CONTENT")
    for thinking in (True, False):  # the prompt wins over the request's default
        by_ids = module.StreamingParser(tokenizer, thinking=thinking)
        by_ids.initialize(encode(tokenizer, prompt))
        by_text = module.StreamingParser(tokenizer, thinking=thinking)
        by_text.initialize(prompt_text=prompt)
        assert (by_ids.state, by_text.state) == (expected, expected)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_markers_are_single_tokens(case: Case) -> None:
    tokenizer = TOKENIZERS[case.fmt.tokenizer]()
    text = case.completion()
    ids = encode(tokenizer, text)
    for marker in case.fmt.markers:
        if marker in text:
            (tid,) = encode(tokenizer, marker)
            assert tid in ids and tokenizer.convert_ids_to_tokens(tid) == marker


@pytest.mark.parametrize("name", sorted(TOKENIZERS))
def test_the_emoji_spans_several_tokens(name: str) -> None:
    tokenizer = TOKENIZERS[name]()
    for text in (EMOJI, f"Paris {EMOJI}", f"you {EMOJI}"):
        ids = encode(tokenizer, text)
        detok = DecodeStream(skip_special_tokens=False)
        steps = [detok.step(tokenizer.backend_tokenizer, tid) for tid in ids]
        assert None in steps and "".join(s or "" for s in steps) == text


def test_tekken_builder_matches_mistral_common() -> None:
    """The tekken tokenizer encodes as mistral-common's own Tekkenizer does."""
    from importlib.resources import files

    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    path = files("mistral_common") / "data" / "tekken_240911.json"
    reference = Tekkenizer.from_file(str(path))
    tokenizer = toks.tekken()
    texts = [REASONING, CONTENT, json.dumps(NOTE[1], ensure_ascii=False),
             "Hello, world! café naïve 東京 1234567\n\n  x\r\n\ty  ", "def f(x):\n    return x**2"]
    for text in texts:
        assert encode(tokenizer, text) == reference.encode(text, bos=False, eos=False)
    for marker in ("[TOOL_CALLS]", "[INST]", "[/INST]", "[SYSTEM_PROMPT]", "</s>"):
        assert encode(tokenizer, marker) == [reference.get_special_token(marker)]
    # The v13 control tokens are not in the shipped (v3) file: these ids are those of
    # mistral-common's v13 test data (cases chat-v13-call-id-x and chat-v13-think-order).
    assert encode(tokenizer, "[TOOL_CALLS]f[ARGS]{}") == [9, 1102, 32, 30620]
    assert encode(tokenizer, "S1[THINK]TS[/THINK]S2") == [1083, 1049, 34, 9983, 35, 1083, 1050]
