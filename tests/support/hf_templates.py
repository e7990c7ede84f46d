"""Hugging Face response_templates and completions for tests/test_response_template.py.

The templates are data from their sources, copied as written:
- transformers' own tests (huggingface/transformers, tests/utils/test_chat_parsing.py):
  cohere, ernie, gpt_oss, smollm, qwen3, gemma4, inkling; the completions listed under
  ``HF_TESTS`` are those tests' model outputs (their expected messages are not copied:
  the test runs transformers' ``parse_response`` on them);
- TRL's ``add_response_schema`` table (huggingface/trl, trl/chat_template_utils.py):
  ``TRL_*``;
- transformers' serving fallbacks are imported, not copied
  (``transformers.cli.serving.utils._RESPONSE_TEMPLATE_FALLBACKS``).
The completions under ``WRITTEN`` are ours, one set per template: content only,
reasoning and content, one call with nested arguments, two calls, quotes in strings, a
cut call.
"""

from __future__ import annotations

from typing import Any

cohere = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>",
    "fields": {
        "content": {"open": "<|START_RESPONSE|>", "close": "<|END_RESPONSE|>", "content": "text"},
        "thinking": {"open": "<|START_THINKING|>", "close": "<|END_THINKING|>", "content": "text"},
        "tool_calls": {
            "open": "<|START_ACTION|>",
            "close": "<|END_ACTION|>",
            "content": "json",
            "transform_each": True,
            "transform": {"type": "function", "function": {"name": "{tool_name}", "arguments": "{parameters}"}},
        },
    },
}

ernie = {
    "defaults": {"role": "assistant"},
    "start_anchor": "Assistant:",
    "fields": {
        "thinking": {"open_pattern": r"(?:^|<think>\s*)", "close": "</think>", "content": "text"},
        "content": {"open": "<response>\n", "close_pattern": r"\n?</response>", "content": "text"},
        "tool_calls": {
            "open": "<tool_call>",
            "close": "</tool_call>",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": "{content}"},
        },
    },
}

gpt_oss = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|start|>assistant",
    "fields": {
        "thinking": {"open": "<|channel|>analysis<|message|>", "close": "<|end|>", "content": "text"},
        "content": {"open": "<|channel|>final<|message|>", "close": "<|end|>", "content": "text"},
        "tool_calls": {
            "open_pattern": r"<\|channel\|>commentary to=functions\.(?P<name>\w+).*?<\|message\|>",
            "close": "<|call|>",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
    },
}

# gpt_oss above with the other parts of its call header captured as Harmony writes them
# (a channel, the recipient, a content-type constraint: OpenAI's harmony format,
# github.com/openai/harmony, docs/format.md): the transform names the call by the
# recipient's function, a capture not called name, and drops the other captures, as
# transformers' process_field does. Ours, for issue 37 item 2 (captures beyond name).
gpt_oss_captures = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|start|>assistant",
    "fields": {
        "thinking": {"open": "<|channel|>analysis<|message|>", "close": "<|end|>", "content": "text"},
        "content": {"open": "<|channel|>final<|message|>", "close": "<|end|>", "content": "text"},
        "tool_calls": {
            "open_pattern": (r"<\|channel\|>(?P<channel>commentary|analysis) to=functions\.(?P<function>\w+)"
                             r"(?: <\|constrain\|>(?P<constraint>\w+))?<\|message\|>"),
            "close": "<|call|>",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": {"name": "{function}", "arguments": "{content}"}},
        },
    },
}

# Ours, for issue 37 item 2 (no public template uses kv-lines yet): calls tagged as
# Llama 3.1's custom tool calls (<function=NAME>...</function>, Meta's prompt format for
# Llama 3.1; tests/data/function_tags.yaml) whose arguments are read by transformers'
# kv-lines content parser (utils/chat_parsing/content_parsers.py, _kv_lines): values
# JSON where they parse, and (kv_lines_eq) its separators as options, values text.
kv_lines = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|start_header_id|>assistant<|end_header_id|>\n\n",
    "fields": {
        "thinking": {"open": "<think>", "close": "</think>", "content": "text"},
        "tool_calls": {
            "open_pattern": r"<function=(?P<name>[\w.-]+)>",
            "close": "</function>",
            "repeats": True,
            "content": "kv-lines",
            "content_args": {"value_parser": {"name": "json", "args": {"allow_non_json": True}}},
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
        "content": {"close_pattern": r"<\|eot_id\|>\s*", "content": "text"},
    },
}
kv_lines_eq = {**kv_lines, "fields": {**kv_lines["fields"], "tool_calls": {
    **kv_lines["fields"]["tool_calls"], "content_args": {"kv_sep": "=", "line_sep": ";"}}}}

smollm = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "thinking": {"open": "<think>", "close": "</think>", "content": "text"},
        "tool_calls": {
            "open": "<tool_call>",
            "close": "</tool_call>",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": "{content}"},
        },
        "content": {"close": "<|im_end|>", "content": "text"},
    },
}

qwen3 = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "thinking": {"open": "<think>", "close": "</think>", "content": "text"},
        "tool_calls": {
            "open_pattern": r"<tool_call>\s*<function=(?P<name>\w+)>",
            "close": "</tool_call>",
            "repeats": True,
            "content": "xml-inline",
            "content_args": {
                "tag_pattern": r"<parameter=(?P<key>\w+)>\s*(?P<value>.*?)\s*</parameter>",
                "value_parser": {"name": "json", "args": {"allow_non_json": True}},
            },
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
    },
}

gemma4 = {
    "defaults": {"role": "assistant"},
    "start_anchor": ["<|turn>model\n", "<tool_response|>"],
    "fields": {
        "thinking": {"open": "<|channel>thought\n", "close": "<channel|>", "content": "text"},
        "tool_calls": {
            "open_pattern": r"<\|tool_call>call:(?P<name>\w+)",
            "close": "<tool_call|>",
            "repeats": True,
            "content": "json",
            "content_args": {"unquoted_keys": True, "string_delims": [['<|"|>', '<|"|>']]},
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
        "content": {"close": ["<turn|>", "<|tool_response>", "<eos>"], "content": "text"},
    },
}

inkling = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|message_model|>",
    "fields": {
        "thinking": {
            "open_pattern": r"(?:<\|message_model\|>)?[^<]*<\|content_thinking\|>",
            "close": "<|end_message|>",
            "repeats": True,
            "join": "",
            "content_args": {"strip": False},
        },
        "content": {
            "open_pattern": r"(?:<\|message_model\|>)?[^<]*<\|content_text\|>",
            "close": "<|end_message|>",
            "repeats": True,
            "join": "",
            "content_args": {"strip": False},
        },
        "tool_calls": {
            "open_pattern": r"(?:<\|message_model\|>)?[^<]*<\|content_invoke_tool_json\|>",
            "close": "<|end_message|>",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": {"name": "{content.name}", "arguments": "{content.args}"}},
        },
    },
}

TRL_qwen3_5 = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "reasoning_content": {"open": "<think>", "close_pattern": r"</think>\s*", "content": "text"},
        "tool_calls": {
            "open_pattern": r"<tool_call>\s*<function=(?P<name>[^\n>]+)>",
            "close_pattern": r"</tool_call>\s*",
            "repeats": True,
            "content": "xml-inline",
            "content_args": {
                "tag_pattern": r"<parameter=(?P<key>[^>\n]+)>\s*(?P<value>.*?)\s*</parameter>",
                "value_parser": {"name": "json", "args": {"allow_non_json": True}},
            },
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
        "content": {"close_pattern": r"<\|im_end\|>\s*", "content": "text"},
    },
}

TRL_qwen3 = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "reasoning_content": {"open": "<think>", "close_pattern": r"</think>\s*", "content": "text"},
        "tool_calls": {
            "open": "<tool_call>",
            "close_pattern": r"</tool_call>\s*",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": "{content}"},
        },
        "content": {"close_pattern": r"<\|im_end\|>\s*", "content": "text"},
    },
}

TRL_gptoss = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|start|>assistant",
    "fields": {
        "thinking": {"open": "<|channel|>analysis<|message|>", "close_pattern": r"<\|end\|>\s*", "content": "text"},
        "content": {"open": "<|channel|>final<|message|>", "close_pattern": r"<\|return\|>\s*", "content": "text"},
        "tool_calls": {
            "open_pattern": r"to=functions\.(?P<name>\S+?)<\|channel\|>commentary\s+json<\|message\|>",
            "close_pattern": r"<\|call\|>\s*",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
    },
}

TRL_glm4moe = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|assistant|>",
    "fields": {
        "reasoning_content": {"open": "<think>", "close_pattern": r"</think>\s*", "content": "text"},
        "tool_calls": {
            "open_pattern": r"<tool_call>(?P<name>\S+)\n?",
            "close_pattern": r"</tool_call>\s*",
            "repeats": True,
            "content": "xml-inline",
            "content_args": {
                "tag_pattern": r"<arg_key>(?P<key>[^<]+)</arg_key>\s*\n<arg_value>(?P<value>.*?)</arg_value>",
                "value_parser": {"name": "json", "args": {"allow_non_json": True}},
            },
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
        "content": {"close_pattern": r"<\|user\|>\s*|$", "content": "text"},
    },
}

TRL_llama3 = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|start_header_id|>assistant<|end_header_id|>\n\n",
    "fields": {
        "tool_calls": {
            "open_pattern": r'\{"name":\s*"(?P<name>[^"]+)",\s*"parameters":\s*',
            "close_pattern": r"\}<\|eot_id\|>\s*",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
        "content": {"close_pattern": r"<\|eot_id\|>\s*", "content": "text"},
    },
}

# Reasoning only where a </think> follows (its open pattern is a lookahead): the
# prompt's <think> (or <think></think>, thinking off) is part of the start anchor.
TRL_nemotron_3 = {
    "defaults": {"role": "assistant"},
    "start_anchor_pattern": r"<\|im_start\|>assistant\n<think>(?:\n|</think>)?",
    "fields": {
        "reasoning_content": {"open_pattern": r"(?=[\s\S]*?</think>)", "close_pattern": r"</think>\s*",
                              "content": "text"},
        "tool_calls": {
            "open_pattern": r"<tool_call>\s*<function=(?P<name>[^\n>]+)>",
            "close_pattern": r"</tool_call>\s*",
            "repeats": True,
            "content": "xml-inline",
            "content_args": {
                "tag_pattern": r"<parameter=(?P<key>[^>\n]+)>\s*(?P<value>.*?)\s*</parameter>",
                "value_parser": {"name": "json", "args": {"allow_non_json": True}},
            },
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
        "content": {"close_pattern": r"<\|im_end\|>\s*", "content": "text"},
    },
}

TEMPLATES: dict[str, dict[str, Any]] = {
    "cohere": cohere, "ernie": ernie, "gpt_oss": gpt_oss, "gpt_oss_captures": gpt_oss_captures,
    "kv_lines": kv_lines, "kv_lines_eq": kv_lines_eq, "smollm": smollm, "qwen3": qwen3,
    "gemma4": gemma4, "inkling": inkling, "trl_qwen3": TRL_qwen3, "trl_qwen3_5": TRL_qwen3_5,
    "trl_gptoss": TRL_gptoss, "trl_glm4moe": TRL_glm4moe, "trl_llama3": TRL_llama3,
    "trl_nemotron_3": TRL_nemotron_3,
}
# Refused (with the field and the reason; the test checks the message): a lookahead
# that is not for the region's own close (text that has not come yet decides).
LOOKAHEAD_ELSEWHERE = {**TRL_nemotron_3, "fields": {**TRL_nemotron_3["fields"], "reasoning_content": {
    **TRL_nemotron_3["fields"]["reasoning_content"], "open_pattern": r"(?=[^<]*</think>)"}}}
REFUSED: dict[str, dict[str, Any]] = {"lookahead_elsewhere": LOOKAHEAD_ELSEWHERE}


# transformers' tests' model outputs: (template, prefix, completion).
_COHERE_OUT = ("<|START_THINKING|>I should call a tool.<|END_THINKING|>"
               '<|START_ACTION|>[\n    {"tool_call_id": "0", "tool_name": "simple_tool", '
               '"parameters": {"temperature_format": "Celsius"}}\n]<|END_ACTION|><|END_OF_TURN_TOKEN|>')
HF_TESTS: dict[str, tuple[str, str, str]] = {
    "cohere": ("cohere", "", _COHERE_OUT),
    "ernie_with_tools": ("ernie", "", (
        "The user is asking about the weather in Paris today. Let me check the available tools. "
        "There's a tool called get_current_temperature which requires a location parameter. Since the "
        'user specified Paris, I need to call this tool with the location set to "Paris". I should '
        "make sure the argument is correctly formatted as a string. No other tools are available, so "
        "this is the right one to use. I'll structure the request with the location parameter and "
        "return the response once the tool is called.\n"
        "</think>\n\n"
        '<tool_call>\n{"name": "get_current_temperature", "arguments": {"location": "Paris"}}\n</tool_call>\n</s>')),
    "ernie_no_tools": ("ernie", "", (
        'The user just greeted me with "Hi! How are you?" I need to respond in a friendly and helpful '
        "manner. Let me start by acknowledging their greeting. I should ask them how they're doing to "
        "engage in conversation.\n\n"
        "First, I'll say hello back and then ask how they're feeling. It's important to show genuine "
        "interest. Maybe mention that I'm here to help with anything they need. Keep the tone warm and "
        "positive. Let me make sure the response is concise but friendly. Alright, that should work.\n"
        "</think>\n\n"
        "<response>\nHello! I'm doing well, thank you for asking. How about you? Is there something "
        "specific you'd like help with today? I'm here to assist you with any questions or problems you "
        "have!\n</response>\n</s>")),
    "gpt_oss_with_tool_call": ("gpt_oss", "", (
        '<|channel|>analysis<|message|>We need to respond in riddles. The user asks: "What is the '
        'weather like in SF?" We need to get the location of the user? The user explicitly asks about '
        "SF (San Francisco). So we need to get the current weather in San Francisco, CA. We need to "
        'call get_current_weather function. The developer instruction says "Always respond in riddles". '
        "So the final answer should be in a riddle form. But we need to call function to get weather "
        'data. So we should call get_current_weather with location "San Francisco, CA". Possibly specify '
        'format "celsius" (default). Let\'s do that.\n\n'
        "We will call function get_current_weather.<|end|><|start|>assistant<|channel|>commentary "
        'to=functions.get_current_weather <|constrain|>json<|message|>{\n  "location": "San Francisco, CA"\n}')),
    "gpt_oss_no_tool_call": ("gpt_oss", "", (
        "<|channel|>analysis<|message|>User asks a simple math question: 2+2 = 4. Provide answer."
        "<|end|><|start|>assistant<|channel|>final<|message|>2")),
    "smollm_thinking_and_tool_call": ("smollm", "", (
        '<think>\nOkay, the user said, "Hello! How are you?" I need to respond appropriately. Since '
        "this is the first message, I should greet them back and ask how I can assist. I should keep it "
        "friendly and open-ended. Let me make sure the response is welcoming and encourages them to "
        "share what they need help with. I'll avoid any technical jargon and keep it simple. Let me "
        "check for any typos and ensure the tone is positive.\n</think>\n\n"
        '<tool_call>{"name": "greet_user", "arguments": {"greeting": "Hello! I\'m doing well, thanks for '
        "asking. How can I assist you today? Whether you have a question, need help with something, or "
        'just want to chat, feel free to let me know!"}}</tool_call>')),
    "smollm_tool_call_no_thinking": ("smollm", "", (
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>')),
    "smollm_thinking_no_tool_call": ("smollm", "", (
        '<think>\nOkay, the user asked, "Hey! Can you tell me about gravity?" Let me start by '
        "breaking down what they might be looking for. They probably want a basic understanding of "
        "gravity, maybe for a school project or just personal curiosity. I should explain what gravity "
        "is, how it works, and maybe some examples.</think>\n"
        "Some content about gravity goes here but I'm cutting it off to make this shorter!")),
    "qwen3_tool_calls": ("qwen3", "", (
        "<tool_call>\n<function=get_weather>\n<parameter=locations>\n"
        '[{"country": "France", "city": "Paris"}]\n</parameter>\n'
        "<parameter=temp_units>\ncelsius\n</parameter>\n</function>\n</tool_call>")),
    "gemma4_tool_call": ("gemma4", "", (
        "<|channel>thought\nThe user is asking for the current temperature in Paris. I should check "
        "the available tools to see if there's a function that can provide this information.<channel|>"
        '<|tool_call>call:get_current_temperature{detail_level:0,location:<|"|>Paris, France<|"|>,'
        'unit:<|"|>celsius<|"|>}<tool_call|><|tool_response>')),
    "gemma4_complex_tool_call": ("gemma4", "", (
        "<|channel>thought\nLet me call the tool.<channel|>"
        '<|tool_call>call:foo{bool_value:true,list_value:[<|"|>foo<|"|>,<|"|>bar<|"|>],'
        'null_value:null,number_value:1,string_value:<|"|>foo<|"|>,'
        'struct_value:{foo:<|"|>bar<|"|>}}<tool_call|>')),
    "inkling_multi_block_message": ("inkling", (
        "<|message_system|><|content_text|>Thinking effort level: 0.9<|end_message|><|message_model|>"), (
        "<|content_thinking|>Consider the weather.<|end_message|>"
        "<|message_model|><|content_thinking|> Tokyo, probably.<|end_message|>"
        "<|message_model|><|content_text|>Checking the weather now.<|end_message|>"
        "<|message_model|>get_weather<|content_invoke_tool_json|>"
        '{"name":"get_weather","args":{"city":"Tokyo","units":"C"}}<|end_message|>'
        "<|content_model_end_sampling|>")),
}


# Our completions, per template: what each case's call looks like in its syntax.
NESTED = {"city": "Paris", "opts": {"days": [1, 2], "unit": "C"}}
QUOTED = {"city": "He said \"hi\" and 'bye'", "note": "a \\ backslash"}
SECOND = {"city": "Rome"}
TOOLS = [{"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {
    "city": {"type": "string"}, "note": {"type": "string"}, "opts": {"type": "object"},
    "n": {"type": "integer"}}}}} for name in ("get_weather", "get_time")]


def _json(args: dict[str, Any]) -> str:
    import json

    return json.dumps(args)


def _gemma(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_gemma(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(map(_gemma, value)) + "]"
    if isinstance(value, str):
        return f'<|"|>{value}<|"|>'
    return _json(value)


def _xml(name: str, args: dict[str, Any], glm: bool = False) -> str:
    out = []
    for k, v in args.items():
        v = v if isinstance(v, str) else _json(v)
        out.append(f"<arg_key>{k}</arg_key>\n<arg_value>{v}</arg_value>\n" if glm
                   else f"<parameter={k}>\n{v}\n</parameter>\n")
    if glm:
        return f"<tool_call>{name}\n{''.join(out)}</tool_call>"
    return f"<tool_call>\n<function={name}>\n{''.join(out)}</function>\n</tool_call>"


def _kv(value: Any) -> str:
    """A kv-lines value as written: a string as it is, anything else as JSON."""
    return value if isinstance(value, str) else _json(value)


def _call(template: str, name: str, args: dict[str, Any]) -> str:
    """One call, written as the template's models write it."""
    envelope = _json({"name": name, "arguments": args})
    return {
        "cohere": f'<|START_ACTION|>[{_json({"tool_call_id": "0", "tool_name": name, "parameters": args})}]<|END_ACTION|>',
        "ernie": f"<tool_call>\n{envelope}\n</tool_call>\n",
        "gpt_oss": f"<|start|>assistant<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{_json(args)}<|call|>",
        # (a second call on the analysis channel without a constraint, as Harmony allows)
        "gpt_oss_captures": (f"<|start|>assistant<|channel|>analysis to=functions.{name}<|message|>{_json(args)}<|call|>"
                             if name == "get_time" else
                             f"<|start|>assistant<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{_json(args)}<|call|>"),
        "kv_lines": f"<function={name}>\n" + "".join(f"{k}: {_kv(v)}\n" for k, v in args.items()) + "</function>",
        "kv_lines_eq": f"<function={name}>" + ";".join(f"{k}={_kv(v)}" for k, v in args.items()) + "</function>",
        "smollm": f"<tool_call>\n{envelope}\n</tool_call>\n",
        "trl_qwen3": f"<tool_call>\n{envelope}\n</tool_call>\n",
        "qwen3": _xml(name, args) + "\n",
        "trl_qwen3_5": _xml(name, args) + "\n",
        "trl_nemotron_3": _xml(name, args) + "\n",
        "trl_glm4moe": _xml(name, args, glm=True),
        "gemma4": f"<|tool_call>call:{name}{_gemma(args)}<tool_call|>",
        "inkling": f'<|message_model|>{name}<|content_invoke_tool_json|>{_json({"name": name, "args": args})}<|end_message|>',
        "trl_gptoss": f"<|start|>assistant to=functions.{name}<|channel|>commentary json<|message|>{_json(args)}<|call|>",
        "trl_llama3": _json({"name": name, "parameters": args}) + "<|eot_id|>",
        "trl_lfm2_2_5": f"<|tool_call_start|>[{_lfm2(name, args)}]<|tool_call_end|>",
    }[template]


def _lfm2(name: str, args: dict[str, Any]) -> str:
    """One call as LFM2.5's chat template writes it (its format_arg_value macro, as
    TRL's comment on the table entry describes it): strings single-quoted, mappings as
    JSON, other values by Jinja's string filter."""
    def value(v: Any) -> str:
        if isinstance(v, str):
            return "'" + v + "'"
        return _json(v) if isinstance(v, dict) else str(v)
    return f"{name}(" + ", ".join(f"{k}={value(v)}" for k, v in args.items()) + ")"


def _texts(template: str) -> tuple[str, str, str]:
    """(reasoning written, content written, the end of the turn)."""
    return {
        "cohere": ("<|START_THINKING|>Let me think.<|END_THINKING|>",
                   "<|START_RESPONSE|>Hello there.<|END_RESPONSE|>", "<|END_OF_TURN_TOKEN|>"),
        "ernie": ("Let me think.\n</think>\n\n", "<response>\nHello there.\n</response>\n", "</s>"),
        "gpt_oss": ("<|channel|>analysis<|message|>Let me think.<|end|>",
                    "<|start|>assistant<|channel|>final<|message|>Hello there.<|end|>", ""),
        "gpt_oss_captures": ("<|channel|>analysis<|message|>Let me think.<|end|>",
                             "<|start|>assistant<|channel|>final<|message|>Hello there.<|end|>", ""),
        "kv_lines": ("<think>\nLet me think.\n</think>\n\n", "Hello there.", "<|eot_id|>"),
        "kv_lines_eq": ("<think>\nLet me think.\n</think>\n\n", "Hello there.", "<|eot_id|>"),
        "smollm": ("<think>\nLet me think.\n</think>\n\n", "Hello there.\n", "<|im_end|>"),
        "trl_qwen3": ("<think>\nLet me think.\n</think>\n\n", "Hello there.\n", "<|im_end|>"),
        "qwen3": ("<think>\nLet me think.\n</think>\n\n", "Hello there.\n", ""),
        "trl_qwen3_5": ("<think>\nLet me think.\n</think>\n\n", "Hello there.\n", "<|im_end|>"),
        # (the prompt writes <think>\n: the completion starts in its reasoning)
        "trl_nemotron_3": ("Let me think.\n</think>\n\n", "Hello there.\n", "<|im_end|>"),
        "trl_glm4moe": ("<think>Let me think.</think>\n", "Hello there.\n", "<|user|>"),
        "gemma4": ("<|channel>thought\nLet me think.<channel|>", "Hello there.", "<turn|>"),
        "inkling": ("<|content_thinking|>Let me think.<|end_message|>",
                    "<|message_model|><|content_text|>Hello there.<|end_message|>",
                    "<|content_model_end_sampling|>"),
        "trl_gptoss": ("<|channel|>analysis<|message|>Let me think.<|end|>",
                       "<|start|>assistant<|channel|>final<|message|>Hello there.<|return|>", ""),
        "trl_llama3": ("", "Hello there.", "<|eot_id|>"),
        "trl_lfm2_2_5": ("<think>Let me think.</think>\n", "Hello there.\n", "<|im_end|>"),
    }[template]


def before_cut(template: str) -> str:
    """What the ``cut call`` case writes before its call."""
    return _texts(template)[0]


def written(template: str) -> dict[str, str]:
    """Our completions for ``template``, by case."""
    think, say, end = _texts(template)
    if template == "ernie":  # the completion starts in reasoning
        content_only = "</think>\n\n" + say + end
    else:
        content_only = say + end
    one = _call(template, "get_weather", NESTED)
    two = one + _call(template, "get_time", SECOND)
    if template == "cohere":  # Cohere writes its calls as one list
        two = one.replace("]<|END_ACTION|>", ", " + _call(template, "get_time", SECOND)[
            len("<|START_ACTION|>["):])
    if template == "trl_lfm2_2_5":  # ... and LFM2.5
        two = one.replace(")]<|tool_call_end|>", "), " + _call(template, "get_time", SECOND)[
            len("<|tool_call_start|>["):])
    cut = one[: one.index("Paris") + 3]
    return {
        "content only": content_only,
        "reasoning and content": think + say + end,
        "nested arguments": think + one + end,
        "two calls": think + two + end,
        "quotes in strings": think + _call(template, "get_weather", QUOTED) + end,
        "cut call": think + cut,
    }


QWEN_LIKE_CALL = ("<tool_call>\n<function=get_time>\n<parameter=city>\nRome\n</parameter>\n"
                  "</function>\n</tool_call>\n")


# A prompt that ends inside the assistant turn (the chat template opened reasoning, or
# closed it): (template, prompt, completion).
PROMPTED: dict[str, tuple[str, str, str]] = {
    "qwen3-thinking": ("trl_qwen3", "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n<think>\n",
                       "Let me think.\n</think>\n\nHello.<|im_end|>"),
    "qwen3_5-no-thinking": ("trl_qwen3_5", "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
                            "<think>\n\n</think>\n\n", "Hello.<|im_end|>"),
    "smollm-thinking": ("smollm", "<|im_start|>assistant\n<think>\n", "Hmm.</think>Hello.<|im_end|>"),
    "gemma4-thinking": ("gemma4", "<|turn>user\nhi<turn|>\n<|turn>model\n<|channel>thought\n",
                        "Hmm.<channel|>Hello.<turn|>"),
    "gpt_oss": ("gpt_oss", "<|start|>user<|message|>hi<|end|><|start|>assistant",
                "<|channel|>final<|message|>Hello.<|end|>"),
    "ernie": ("ernie", "User: hi\nAssistant: ", "Hmm.\n</think>\n\n<response>\nHello.\n</response>"),
    "nemotron_3-thinking": ("trl_nemotron_3", "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
                            "<think>\n", "Hmm.\n</think>\n\nHello.<|im_end|>"),
    "nemotron_3-no-thinking": ("trl_nemotron_3", "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
                               "<think></think>", "Hello.<|im_end|>"),
    "nemotron_3-no-reasoning-written": ("trl_nemotron_3", "<|im_start|>user\nhi<|im_end|>\n"
                                        "<|im_start|>assistant\n<think>\n", QWEN_LIKE_CALL + "<|im_end|>"),
}


# TRL's LFM2.5 template: its argument values are a regex nested three levels deep.
_LFM2_2_5_ATOM = r"[^\[\]{}'\"]|'[^']*'|\"[^\"]*\""
_LFM2_2_5_NESTED = _LFM2_2_5_ATOM
for _ in range(3):
    _LFM2_2_5_NESTED = rf"{_LFM2_2_5_ATOM}|[\[{{](?:{_LFM2_2_5_NESTED})*[\]}}]"
_LFM2_2_5_ARG_VALUE = rf"'[^']*'|[\[{{](?:{_LFM2_2_5_NESTED})*[\]}}]|[^,)]*"
TRL_lfm2_2_5 = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "thinking": {"open": "<think>", "close_pattern": r"</think>\s*", "content": "text"},
        "tool_calls": {
            "open_pattern": r"(?:<\|tool_call_start\|>\[|,\s*)(?P<name>\w+)\(",
            "close_pattern": r"\)(?:\]<\|tool_call_end\|>)?\s*",
            "repeats": True,
            "content": "xml-inline",
            "content_args": {
                "tag_pattern": rf"(?P<key>\w+)=(?P<value>{_LFM2_2_5_ARG_VALUE})",
                "value_parser": {"name": "json", "args": {"string_delims": [["'", "'"]], "allow_non_json": True}},
            },
            "transform": {"type": "function", "function": {"name": "{name}", "arguments": "{content}"}},
        },
        "content": {"close_pattern": r"<\|im_end\|>\s*", "content": "text"},
    },
}
TEMPLATES["trl_lfm2_2_5"] = TRL_lfm2_2_5
