"""The corpus behind the goldens: completions per format, and the vLLM parser each replays.

Each case is a completion as a sequence of parts: a str is tokenized normally (markers
that are tokens become their ids), a ``Lit`` is typed byte by byte (a marker written
as prose).  ``tools/capture_goldens.py`` feeds every case to the format's vLLM parser.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Lit:
    """Text the model typed byte by byte, not as the special token it spells."""

    text: str


@dataclass(frozen=True)
class Case:
    name: str
    parts: tuple[str | Lit, ...]
    thinking: bool = True
    # The request's chat_template_kwargs besides the thinking switch (a request option:
    # K2 Horizon's reasoning_effort), as (key, value) pairs.
    kwargs: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Reference:
    """The vLLM parser a format replaces, and how the goldens feed it.

    ``parser`` names an engine-backed parser (event and message goldens); without it,
    ``reasoning`` and ``tool`` name vLLM's legacy parsers (message goldens only; the
    event goldens are parsergen's own, reviewed by hand).
    """

    parser: str | None  # module.Class in vllm.parser
    tokenizer: str  # name in tests/support/tokenizers.py
    thinking_keys: tuple[str, ...] = ("enable_thinking",)  # chat_template_kwargs it reads
    # The value each key is given with thinking on, and off.
    thinking_values: tuple[object, object] = (True, False)
    reasoning: str | None = None  # vLLM reasoning parser name (legacy)
    tool: str | None = None  # vLLM tool parser name (legacy)
    # vLLM composes the two into one parser that parses whole itself (parse()), its
    # reasoning and tool parsers only naming it (Cohere Command's cohere_melody filter).
    composed: bool = False
    # chat_template_kwargs every case's request sets (the variant's request option:
    # K2 Horizon's tool_call_format), as (key, value) pairs.
    kwargs: tuple[tuple[str, str], ...] = ()


def _tool(name: str, **props: dict) -> dict:
    return {"type": "function", "function": {
        "name": name, "description": f"{name} tool",
        "parameters": {"type": "object", "properties": props}}}


# The request's tools for every case: typed fields exercise schema coercion
# ("3" for an integer), and a few calls in the corpus name tools not listed here.
TOOLS = [
    _tool("get_weather", city={"type": "string"}, days={"type": "integer"}),
    _tool("get_time", zone={"type": "string"}),
    _tool("search", q={"type": "string"}),
    _tool("write_file", path={"type": "string"}, content={"type": "string"}),
    _tool("run", code={"type": "string"}, json={"type": "object"},
          city={"type": ["string", "null"]}, nested={"type": "object"},
          path={"type": "string"}),
    _tool("ping", host={"type": "string"}),
    _tool("a", x={"type": "integer"}),
    _tool("b"),
    _tool("f", a={"type": "string"}),
    _tool("g", q={"type": "array", "items": {"type": "integer"}}),
    _tool("write", path={"type": "string"}, body={"type": "string"}),
    _tool("create_order", user_id={"type": "integer"},
          items={"type": "array", "items": {"type": "object", "properties": {
              "sku": {"type": "string"}, "qty": {"type": "integer"}}}},
          tags={"type": "array", "items": {"type": "string"}}, note={"type": "string"}),
]


# -- qwen3's grammar, with a format's own markers -------------------------------------

QWEN_CALL = (
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
    "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
)


def qwen_like(think: str = "<think>", end: str = "</think>", call: str = "<tool_call>",
              call_end: str = "</tool_call>", thinking_off: bool = True) -> list[Case]:
    """Cases for qwen3's grammar, with a format's own reasoning and call markers."""
    q = QWEN_CALL.replace("<tool_call>", call).replace("</tool_call>", call_end)
    cases = [
        Case("reasoning_content_call", (
            "The user wants the weather in Paris.\nI will call the tool.\n", end,
            "\n\nLet me check that for you.\n", q)),
        Case("reasoning_opened_in_output", (
            think, "\nShort thought.\n", end, "\n\nAnswer: 42.")),
        Case("two_calls", (
            "Two lookups.", end, "\n\n", q, "\n",
            call, "\n<function=get_time>\n<parameter=zone>\nEurope/Paris\n</parameter>\n"
            "</function>\n", call_end)),
        Case("call_from_reasoning", (
            "No need to think more.\n", call,
            "\n<function=search>\n<parameter=q>\nvllm\n</parameter>\n</function>\n", call_end)),
        Case("unfinished_call", (
            "ok", end, "\n", call,
            "\n<function=write_file>\n<parameter=path>\n/tmp/a.txt\n</parameter>\n"
            "<parameter=content>\nfirst line\nsecond")),
        Case("tricky_values", (
            "Go.", end, "\n", call,
            '\n<function=run>\n<parameter=code>\nif (a) { b("}"); }\n</parameter>\n'
            '<parameter=json>\n{"k": {"n": [1, {"x": "y"}]}, "q": "say \\"hi\\""}\n'
            "</parameter>\n<parameter=city>\nZürich, 東京 😀\n</parameter>\n</function>\n",
            call_end)),
        Case("literal_marker_in_prose", (
            "Explain the syntax.", end, "\nWrap calls in ", Lit(call), " and ", Lit(call_end),
            " tags; then ", Lit("<function=x>"), ".\n", q)),
        Case("name_swallows_marker", (
            "x", end, "\n", call, "\n<function=fo", Lit(think), "x>\n<parameter=a>\n1\n"
            "</parameter>\n</function>\n", call_end)),
        Case("function_without_wrapper", (
            "y", end, "\n<function=ping>\n<parameter=host>\nexample.org\n</parameter>\n"
            "</function>\nDone.")),
        Case("emoji_bytes_before_marker", (
            "Smile ", Lit("😀"), end, "\n", Lit("🎉"), " party", Lit("é"))),
        Case("reasoning_newline_framing", (
            "\nFirst.\n\nSecond.\n", end, "\n\nAnswer.\n")),
    ]
    if thinking_off:
        cases += [
            Case("thinking_off_content_and_call", ("Sure.\n", q, "\nAnything else?"),
                 thinking=False),
            Case("thinking_off_stray_end", ("Plain answer", end, " still content."),
                 thinking=False),
        ]
    return cases


# -- DSML (DeepSeek V3.2, V4, V4.1) ----------------------------------------------------

def dsml(calls: str, sep: str = "") -> tuple[str, str, str, str]:
    """A format's DSML tags: (call wrapper open, close, invoke open, parameter open)."""
    d = f"｜DSML｜{sep}"
    return f"<{d}{calls}>", f"</{d}{calls}>", f'<{d}invoke name="', f"<{d}parameter"


def dsml_cases(calls: str, sep: str = "", reasoning: bool = True) -> list[Case]:
    start, end, invoke, param = dsml(calls, sep)
    close_param, close_invoke = param.replace("<", "</", 1) + ">", invoke.split(" name=")[0].replace("<", "</", 1) + ">"
    weather = (f'{invoke}get_weather">\n{param} name="city" string="true">杭州{close_param}\n'
               f'{param} name="days" string="false">3{close_param}\n{close_invoke}\n')
    think_end = ("</think>",) if reasoning else ()
    cases = [
        Case("content_then_call", (
            *(("The user asks about weather.",) + think_end if reasoning else ()),
            "Let me check.\n\n", start, "\n", weather, end)),
        Case("two_calls_and_text_after", (
            *(("Plan.",) + think_end if reasoning else ()), start, "\n", weather,
            f'{invoke}get_time">\n{param} name="zone" string="true">Asia/Shanghai{close_param}\n'
            f"{close_invoke}\n", end, "\ntrailing text")),
        Case("json_values", (
            *(("x",) + think_end if reasoning else ()), start, "\n",
            f'{invoke}run">\n{param} name="json" string="false">{{"k": [1, {{"a": "}}"}}]}}'
            f'{close_param}\n{param} name="code" string="true">if (a) {{ b("}}") }}{close_param}\n'
            f'{param} name="city">null{close_param}\n{param} name="path" string="false">'
            f"not json{close_param}\n{close_invoke}\n", end)),
        Case("unfinished_call", (
            *(("x",) + think_end if reasoning else ()), start, "\n",
            f'{invoke}write_file">\n{param} name="path" string="true">/tmp/a{close_param}\n'
            f'{param} name="content" string="true">half of it')),
        Case("literal_wrapper_in_prose", (
            *(("x",) + think_end if reasoning else ()), "Calls look like ", Lit(start),
            " in text.\n", start, "\n", weather, end)),
    ]
    if not reasoning:
        # V3.2's template thinks only when asked (thinking_mode "chat" by default), and
        # vLLM's V3.2 engine has no reasoning: these cases are thinking off.
        cases = [Case(case.name, case.parts, thinking=False) for case in cases]
    if reasoning:
        cases += [
            Case("call_from_reasoning", ("Thinking, then straight to a call.\n", start, "\n",
                                         weather, end)),
            Case("think_tags_in_output", ("<think>", "r1", "<think>", "r2", "</think>", "c",
                                          "</think>", "d")),
            Case("thinking_off_opens_reasoning", ("pre ", "<think>", "r", "</think>",
                                                  " post"), thinking=False),
            Case("thinking_off_call", ("Sure.\n", start, "\n", weather, end), thinking=False),
        ]
    return cases


# -- GLM-4.7 -----------------------------------------------------------------------------

GLM_CALL = ("<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n"
            "<arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>")

GLM = [
    Case("reasoning_content_call", ("Weather question.", "</think>", "Checking.\n", GLM_CALL)),
    Case("call_from_reasoning", ("Straight to it.", GLM_CALL)),
    Case("two_calls_no_args", ("x", "</think>", GLM_CALL, "\n", "<tool_call>", "b",
                               "</tool_call>")),
    Case("unknown_tool", ("x", "</think>", "<tool_call>", "rm_rf", "<arg_key>", "path",
                          "</arg_key>", "<arg_value>", "/", "</arg_value>", "</tool_call>",
                          "after")),
    Case("tricky_values", ("x", "</think>", "<tool_call>", "run\n", "<arg_key>", " code ",
                           "</arg_key>", "<arg_value>", ' if (a) { b("}") } ', "</arg_value>",
                           "<arg_key>", "json", "</arg_key>", "<arg_value>",
                           '{"k": [1, 2]}', "</arg_value>", "</tool_call>")),
    Case("unfinished_call", ("x", "</think>", "<tool_call>", "write_file", "<arg_key>",
                             "content", "</arg_key>", "<arg_value>", "partial")),
    Case("literal_marker_in_prose", ("x", "</think>", "Use ", Lit("<tool_call>"), " tags.\n",
                                     GLM_CALL)),
    Case("think_opened_in_output", ("<think>", "r", "</think>", "answer")),
    Case("thinking_off_think_tags", ("<think>", "not reasoning", "</think>", " ", GLM_CALL),
         thinking=False),
]


# -- MiniMax M2 -----------------------------------------------------------------------

MM_CALL = ('<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris'
           '</parameter>\n<parameter name="days">3</parameter>\n</invoke>\n</minimax:tool_call>')

MINIMAX = [
    Case("reasoning_content_call", ("Weather.", "</think>", "\n\nChecking.\n", MM_CALL)),
    Case("call_from_reasoning", ("Straight.", MM_CALL)),
    Case("quotes_and_two_calls", ("x", "</think>", "<minimax:tool_call>",
                                  "\n<invoke name='get_time'>\n<parameter name='zone'> UTC "
                                  "</parameter>\n</invoke>\n<invoke name=search>\n"
                                  "<parameter name=q>vllm</parameter>\n</invoke>\n",
                                  "</minimax:tool_call>", " after")),
    Case("unknown_tool", ("x", "</think>", "<minimax:tool_call>",
                          '<invoke name="nope"><parameter name="a">1</parameter></invoke>',
                          "</minimax:tool_call>")),
    Case("invoke_without_wrapper", ("x", "</think>", 'text <invoke name="ping">'
                                    '<parameter name="host">example.org</parameter></invoke>'
                                    " tail")),
    Case("unfinished_call", ("x", "</think>", "<minimax:tool_call>",
                             '<invoke name="write_file"><parameter name="content">abc')),
    Case("literal_marker_in_prose", ("x", "</think>", "Use ", Lit("<minimax:tool_call>"),
                                     ".\n", MM_CALL)),
]


# -- Kimi K2 -------------------------------------------------------------------------

KIMI = [
    Case("reasoning_content_call", (
        "The user wants weather.", "</think>", "Let me check.",
        "<|tool_calls_section_begin|>", "<|tool_call_begin|>", "functions.get_weather:0",
        "<|tool_call_argument_begin|>", '{"city": "Paris", "days": 3}', "<|tool_call_end|>",
        "<|tool_calls_section_end|>")),
    Case("two_calls", (
        "hm", "</think>", "<|tool_calls_section_begin|>", "<|tool_call_begin|>",
        "functions.a:0", "<|tool_call_argument_begin|>", '{"x": 1}', "<|tool_call_end|>",
        "<|tool_call_begin|>", "functions.b:1", "<|tool_call_argument_begin|>", "{}",
        "<|tool_call_end|>", "<|tool_calls_section_end|>")),
    Case("section_from_reasoning", (
        "thinking", "<|tool_calls_section_begin|>", "<|tool_call_begin|>", "functions.f:0",
        "<|tool_call_argument_begin|>", '{"a": "b"}', "<|tool_call_end|>",
        "<|tool_calls_section_end|>", "trailing text")),
    Case("unfinished_call", (
        "r", "</think>", "c", "<|tool_calls_section_begin|>", "<|tool_call_begin|>",
        "functions.write:0", "<|tool_call_argument_begin|>", '{"path": "/tmp/x", "body": "abc')),
    Case("tricky_json", (
        "r", "</think>", "<|tool_calls_section_begin|>", "<|tool_call_begin|>",
        "functions.run:0", "<|tool_call_argument_begin|>",
        '{"code": "if (a) { b(\\"}\\"); }", "nested": {"l": [1, {"m": [[]]}]}, '
        '"path": "C:\\\\dir\\\\", "city": "Zürich 東京 😀"}  ',
        "<|tool_call_end|>", "<|tool_calls_section_end|>")),
    Case("literal_marker_in_prose", (
        "r", "</think>", "Calls start with ", Lit("<|tool_call_begin|>"), " and ",
        Lit("<|tool_calls_section_begin|>"), ".", "<|tool_calls_section_begin|>",
        "<|tool_call_begin|>", "functions.f:0", "<|tool_call_argument_begin|>", "{}",
        "<|tool_call_end|>", "<|tool_calls_section_end|>")),
    Case("repeated_think_markers", (
        "<think>", "a", "<think>", "b", "</think>", "c", "</think>", "d")),
    Case("emoji_bytes", ("x", Lit("😀"), "</think>", Lit("🎉"), "y", Lit("é"))),
    Case("thinking_off_call", (
        "Sure.", "<|tool_calls_section_begin|>", "<|tool_call_begin|>", "functions.g:0",
        "<|tool_call_argument_begin|>", '{"q": [1, 2]}', "<|tool_call_end|>",
        "<|tool_calls_section_end|>"), thinking=False),
    Case("thinking_off_think_tokens", (
        "<think>", "not reasoning", "</think>", " plain", "[EOS]"), thinking=False),
]


# -- Gemma 4 ----------------------------------------------------------------------------

Q = '<|"|>'
GEMMA_CALL = ("<|tool_call>", f"call:get_weather{{city:{Q}Paris{Q},days:3}}", "<tool_call|>")

GEMMA = [
    Case("reasoning_content_call", ("<|channel>", "thought\nThe user wants weather.",
                                    "<channel|>", "Checking.\n", *GEMMA_CALL)),
    Case("call_from_reasoning", ("<|channel>", "thought\nStraight on.", *GEMMA_CALL)),
    Case("two_calls_nested", ("<|channel>", "thought\nx", "<channel|>", *GEMMA_CALL,
                              "<|tool_call>", f"call:run{{nested:{{a:{Q}x,{{}}{Q},b:[1,{Q}y{Q}]}},"
                              f"code:{Q}if (a) {{ b() }}{Q},path:bare words}}", "<tool_call|>",
                              "after")),
    Case("bare_colon_opener", ("<|tool_call>", f":ping{{host:{Q}example.org{Q}}}",
                               "<tool_call|>")),
    Case("unfinished_call", ("<|tool_call>", f"call:write_file{{path:{Q}/tmp/a{Q},content:{Q}"
                             "half")),
    Case("no_reasoning_channel_label", ("<|channel>", "thinking without a label",
                                        "<channel|>", "answer")),
    Case("literal_marker_in_prose", ("Write ", Lit("<|tool_call>"), " to call.\n",
                                     *GEMMA_CALL)),
]


# -- Hermes JSON calls (Qwen2.5, Hermes; Qwen3 and QwQ with <think>) --------------------

HERMES_CALL = ('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}'
               "\n</tool_call>")


def hermes_cases(reasoning: bool) -> list[Case]:
    pre = ("The user wants weather.\n", "</think>", "\n\n") if reasoning else ()
    cases = [
        Case("content_then_call", (*pre, "Let me check.\n", HERMES_CALL)),
        Case("two_calls", (*pre, HERMES_CALL, "\n", '<tool_call>\n{"name": "get_time", '
                           '"arguments": {"zone": "Europe/Paris"}}\n</tool_call>')),
        Case("arguments_first_and_typed", (*pre, '<tool_call>\n{"arguments": {"days": "3", '
                                           '"city": "Zürich 😀"}, "name": "get_weather"}\n'
                                           "</tool_call>")),
        Case("arguments_as_a_string", (*pre, '<tool_call>{"name": "run", "arguments": '
                                       '"{\\"code\\": \\"if (a) { b(\\\\\\"}\\\\\\") }\\"}"}'
                                       "</tool_call>")),
        Case("nested_and_escaped", (*pre, '<tool_call>{"name": "run", "arguments": {"json": '
                                    '{"k": [1, {"x": "}"}]}, "code": "say \\"hi\\"\\n"}}'
                                    "</tool_call>")),
        Case("not_json", (*pre, "<tool_call>\nnot json at all\n</tool_call>")),
        Case("unfinished_call", (*pre, '<tool_call>\n{"name": "write_file", "arguments": '
                                 '{"path": "/tmp/a", "content": "half')),
        Case("literal_marker_in_prose", (*pre, "Wrap calls in ", Lit("<tool_call>"),
                                         " tags.\n", HERMES_CALL)),
        Case("text_after_call", (*pre, HERMES_CALL, "\nDone.")),
    ]
    if reasoning:
        cases += [
            Case("call_from_reasoning", ("Straight to it.\n", HERMES_CALL)),
            Case("thinking_off", ("Sure.\n", HERMES_CALL), thinking=False),
        ]
    return cases


def retagged(cases: list[Case], tags: dict[str, str]) -> list[Case]:
    """``cases`` with each marker text replaced (the same completions in another family's tags)."""
    def swap(part: str | Lit) -> str | Lit:
        text = part.text if isinstance(part, Lit) else part
        for old, new in tags.items():
            text = text.replace(old, new)
        return Lit(text) if isinstance(part, Lit) else text
    return [Case(c.name, tuple(swap(p) for p in c.parts), c.thinking) for c in cases]


# -- DeepSeek V3, R1, V3.1 -------------------------------------------------------------

def ds_call(name: str, args: str, fenced: bool) -> tuple[str, ...]:
    if fenced:
        return ("<｜tool▁call▁begin｜>", "function", "<｜tool▁sep｜>",
                f"{name}\n```json\n{args}\n```", "<｜tool▁call▁end｜>")
    return ("<｜tool▁call▁begin｜>", name, "<｜tool▁sep｜>", args, "<｜tool▁call▁end｜>")


def deepseek_cases(fenced: bool, pre: tuple[str, ...], thinking_cases: bool) -> list[Case]:
    weather = ds_call("get_weather", '{"city": "Paris", "days": 3}', fenced)
    calls = ("<｜tool▁calls▁begin｜>",)
    end = ("<｜tool▁calls▁end｜>",)
    cases = [
        Case("content_then_call", (*pre, "Let me check.", *calls, *weather, *end)),
        Case("two_calls_text_after", (*pre, *calls, *weather,
                                      *ds_call("get_time", '{"zone": "UTC"}', fenced), *end,
                                      "done")),
        Case("tricky_json", (*pre, *calls, *ds_call(
            "run", '{\n  "code": "if (a) { b(\\"}\\") }",\n  "json": {"k": [1]},\n'
            '  "city": "東京 😀"\n}', fenced), *end)),
        Case("unfinished_call", (*pre, *calls, *ds_call("write_file", '{"path": "/tmp/a", "co',
                                                          fenced)[:-1])),
        Case("literal_marker_in_prose", (*pre, "Use ", Lit("<｜tool▁calls▁begin｜>"), ".",
                                         *calls, *weather, *end)),
    ]
    if thinking_cases:
        cases += [
            Case("call_from_reasoning", ("Just call it.", *calls, *weather, *end)),
            Case("thinking_off", ("Sure.", *calls, *weather, *end), thinking=False),
        ]
    return cases


# -- Mistral --------------------------------------------------------------------------

MISTRAL = [
    Case("think_content_call", ("[THINK]", "The user wants weather.", "[/THINK]",
                                "Checking.\n", "[TOOL_CALLS]", "get_weather", "[ARGS]",
                                '{"city": "Paris", "days": "3"}')),
    Case("parallel_calls", ("[TOOL_CALLS]", "get_weather", "[ARGS]", '{"city": "Paris"}',
                            "[TOOL_CALLS]", "get_time", "[ARGS]", '{"zone": "UTC"}')),
    Case("brace_form", ("[TOOL_CALLS]", 'search{"q": "vllm {x}"}', "[TOOL_CALLS]",
                        'ping{"host": "a.org"}')),
    Case("call_from_reasoning", ("[THINK]", "Just call.", "[TOOL_CALLS]", "get_time", "[ARGS]",
                                 '{"zone": "UTC"}')),
    Case("nested_and_unicode", ("[TOOL_CALLS]", "run", "[ARGS]",
                                '{"json": {"a": [1, {"b": "}"}]}, "city": "Zürich 😀"}  ')),
    Case("unfinished_call", ("[TOOL_CALLS]", "write_file", "[ARGS]", '{"path": "/tmp/a", "con')),
    Case("literal_marker_in_prose", ("Use ", Lit("[TOOL_CALLS]"), " then JSON.",
                                     "[TOOL_CALLS]", "b", "[ARGS]", "{}")),
    Case("stray_think_end", ("Answer", "[/THINK]", " more.")),
    Case("empty_name", ("[TOOL_CALLS]", "[ARGS]", '{"x": 1}')),
]


# Before tokenizer v11: one JSON array of calls after [TOOL_CALLS] (a space between, as
# the v3 templates write it; v0.3's adds each call's 9-character "id").
MISTRAL_PRE_V11 = [
    Case("one_call_with_id", ("[TOOL_CALLS]", ' [{"name": "get_weather", "arguments": '
                              '{"city": "Paris", "days": 3}, "id": "a1b2C3d4E"}]')),
    Case("two_calls", ("[TOOL_CALLS]", ' [{"name": "get_weather", "arguments": {"city": '
                       '"Paris"}}, {"name": "get_time", "arguments": {"zone": "UTC"}}]')),
    Case("content_only", ("Paris is sunny today.",)),
    Case("content_then_call", ("Let me check.", "[TOOL_CALLS]",
                               ' [{"name": "search", "arguments": {"q": "vllm"}}]')),
    Case("tricky_json", ("[TOOL_CALLS]", ' [{"name": "run", "arguments": {"code": "x = [1]; '
                         'y = {\\"a\\": \\"]}\\"}", "city": "Zürich 😀"}}]')),
    Case("schema_typed", ("[TOOL_CALLS]", ' [{"name": "get_weather", "arguments": '
                          '{"city": "Paris", "days": "3"}}]')),
    Case("trailing_marker", ("Sure.", "[TOOL_CALLS]")),
    Case("literal_marker_in_prose", ("Use ", Lit("[TOOL_CALLS]"), " then JSON. ",
                                     "[TOOL_CALLS]", ' [{"name": "b", "arguments": {}}]')),
]


# -- AI21 Jamba 1.5-1.7: one JSON array of calls between <tool_calls> and </tool_calls> --

J_WEATHER = '{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}'

JAMBA = [
    Case("content_then_calls", ("Let me check.", "<tool_calls>", f'[{J_WEATHER}, {{"name": '
                                '"get_time", "arguments": {"zone": "UTC"}}]', "</tool_calls>")),
    Case("one_call", ("<tool_calls>", '[{"name": "search", "arguments": {"q": "vllm"}}]',
                      "</tool_calls>")),
    Case("content_only", ("Paris is sunny today.",)),
    # As vLLM's jamba tests have Jamba write it: a leading space, one call per line.
    Case("spaced_array", (" ", "<tool_calls>", f"[\n    {J_WEATHER},\n    "
                          '{"name": "get_time", "arguments": {"zone": "UTC"}}\n]',
                          "</tool_calls>")),
    Case("text_after_calls", ("<tool_calls>", f"[{J_WEATHER}]", "</tool_calls>", "\nDone.")),
    Case("tricky_json", ("<tool_calls>", '[{"name": "run", "arguments": {"code": "x = [1]; '
                         'y = {\\"a\\": \\"]}\\"}", "nested": {"l": [1, {"m": []}]}, '
                         '"city": "Zürich 😀"}}]', "</tool_calls>")),
    Case("schema_typed", ("<tool_calls>", '[{"name": "get_weather", "arguments": '
                          '{"city": "Paris", "days": "3"}}]', "</tool_calls>")),
    Case("unfinished_call", ("Sure.", "<tool_calls>", '[{"name": "write_file", "arguments": '
                             '{"path": "/tmp/a", "content": "half')),
    Case("literal_marker_in_prose", ("Wrap calls in ", Lit("<tool_calls>"), " tags. ",
                                     "<tool_calls>", '[{"name": "b", "arguments": {}}]',
                                     "</tool_calls>")),
]


# -- granite-20b-functioncalling: <function_call> then one JSON object, per call ---------

FC_WEATHER = '<function_call> {"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}'

GRANITE_20B_FC = [
    # Its template joins calls with the newline and indent of its for loop.
    Case("content_then_calls", ("Let me check. ", FC_WEATHER, "\n        ", '<function_call> '
                                '{"name": "get_time", "arguments": {"zone": "UTC"}}')),
    Case("one_call", ('<function_call> {"name": "search", "arguments": {"q": "vllm"}}',)),
    Case("content_only", ("Paris is sunny today.",)),
    Case("text_after_calls", (FC_WEATHER, "\nDone.")),
    Case("tricky_json", ('<function_call> {"name": "run", "arguments": {"code": "x = [1]; '
                         'y = {\\"a\\": \\"}<function_call>\\"}", "nested": {"l": [1, '
                         '{"m": []}]}, "city": "Zürich 😀"}}',)),
    Case("schema_typed", ('<function_call> {"name": "get_weather", "arguments": '
                          '{"city": "Paris", "days": "3"}}',)),
    Case("unfinished_call", ("Sure. ", '<function_call> {"name": "write_file", "arguments": '
                             '{"path": "/tmp/a", "content": "half')),
]


# -- ERNIE-4.5 Thinking: reasoning, </think>, an answer in <response>, hermes calls -------

E_CALL = ("<tool_call>", '\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n',
          "</tool_call>")

ERNIE45 = [
    # As vLLM's ernie45 parsers document the model's output.
    Case("reasoning_then_response", ("The user greets me.", "\n", "</think>", "\n\n",
                                     "<response>", "\nHello! How can I help?\n",
                                     "</response>", "\n")),
    Case("answer_without_response", ("Short thought.\n", "</think>", "\nPlain answer.")),
    Case("reasoning_then_call", ("The user wants the weather.\n", "</think>", "\n\n", *E_CALL,
                                 "\n")),
    Case("two_calls", ("Two lookups.\n", "</think>", "\n\n", *E_CALL, "\n", "<tool_call>",
                       '\n{"name": "get_time", "arguments": {"zone": "UTC"}}\n',
                       "</tool_call>")),
    Case("think_opened_in_output", ("<think>", "\nA thought.\n", "</think>", "\n\n",
                                    "<response>", "Answer: 42.", "</response>")),
    Case("call_from_reasoning", ("No need to think more.\n", *E_CALL)),
    Case("schema_typed", ("x\n", "</think>", "\n\n", "<tool_call>",
                          '\n{"name": "get_weather", "arguments": {"city": "Paris", '
                          '"days": "3"}}\n', "</tool_call>")),
    Case("unfinished_call", ("x\n", "</think>", "\n\n", "<tool_call>",
                             '\n{"name": "write_file", "arguments": {"path": "/tmp/a", '
                             '"content": "half')),
    Case("literal_marker_in_prose", ("x\n", "</think>", "\n\n", "<response>", "Wrap calls in ",
                                     Lit("<tool_call>"), " tags.", "</response>")),
]


# -- InternLM2/2.5/3: <|action_start|><|plugin|>\n{JSON}<|action_end|> -----------------

I_CALL = ("<|action_start|>", "<|plugin|>",
          '\n{"name": "get_weather", "parameters": {"city": "Paris", "days": 3}}', "<|action_end|>")

INTERNLM = [
    # As InternLM's chat_format.md shows it: words, then the call.
    Case("content_then_call", ("Sure, I will search for the weather of Paris.", *I_CALL)),
    Case("one_call", ("<|action_start|>", "<|plugin|>",
                      '\n{"name": "search", "parameters": {"q": "vllm"}}', "<|action_end|>")),
    Case("content_only", ("The weather in Paris is 22 celsius",)),
    Case("arguments_key", ("<|action_start|>", "<|plugin|>",
                           '\n{"name": "get_time", "arguments": {"zone": "UTC"}}',
                           "<|action_end|>")),
    Case("text_after_call", (*I_CALL, "\nDone.")),
    Case("tricky_json", ("<|action_start|>", "<|plugin|>",
                         '\n{"name": "run", "parameters": {"code": "x = {\\"a\\": \\"}\\"}", '
                         '"nested": {"l": [1, {"m": []}]}, "city": "Zürich 😀"}}',
                         "<|action_end|>")),
    Case("schema_typed", ("<|action_start|>", "<|plugin|>",
                          '\n{"name": "get_weather", "parameters": {"city": "Paris", '
                          '"days": "3"}}', "<|action_end|>")),
    # No cut call here: vLLM's internlm parse() raises on one (json.loads, uncaught);
    # tests/test_cut_calls.py covers cut calls for every format.
    Case("literal_marker_in_prose", ("Calls start with ", Lit("<|action_start|>"), ". ",
                                     *I_CALL)),
]


# Phi-4-mini: one JSON list of calls after "functools[" (vLLM's example template asks
# for it; no closing marker).
PHI4_CALL = 'functools[{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}]'
PHI4_MINI = [
    Case("one_call", (PHI4_CALL,)),
    Case("two_calls_multiline", ('functools[\n  {"name": "get_weather", "arguments": '
                                 '{"city": "Paris"}},\n  {"name": "get_time", "arguments": '
                                 '{"zone": "UTC"}}\n]',)),
    Case("content_then_call", ("Let me check. ", PHI4_CALL)),
    Case("parameters_key", ('functools[{"name": "search", "parameters": {"q": "vllm"}}]',)),
    Case("arguments_first_and_typed", ('functools[{"arguments": {"days": "3", "city": '
                                       '"Zürich 😀"}, "name": "get_weather"}]',)),
    Case("nested_and_escaped", ('functools[{"name": "run", "arguments": {"json": {"k": '
                                '[1, {"x": "]}"}]}, "code": "say \\"hi\\"\\n"}}]',)),
    Case("content_only", ("Use functools.partial to bind the arguments.",)),
    Case("unfinished_call", ('functools[{"name": "write_file", "arguments": {"path": '
                             '"/tmp/a", "content": "half',)),
    Case("text_after_call", (PHI4_CALL, " Done.")),
]


# Step-3: StepTML invokes inside DeepSeek-V3-style call markers, after </think>.
def step3_call(name: str, params: str) -> tuple[str, ...]:
    return ("<｜tool_call_begin｜>", "function", "<｜tool_sep｜>",
            f'<steptml:invoke name="{name}">\n{params}</steptml:invoke>', "<｜tool_call_end｜>")


STEP3_WEATHER = step3_call("get_weather", '<steptml:parameter name="city">Paris</steptml:parameter>'
                           '\n<steptml:parameter name="days">3</steptml:parameter>\n')
STEP3_BLOCK = ("<｜tool_calls_begin｜>", "\n", *STEP3_WEATHER, "\n", "<｜tool_calls_end｜>")
STEP3 = [
    Case("reasoning_content_call", ("Weather question.", "</think>", "Let me check.\n",
                                    *STEP3_BLOCK)),
    Case("two_calls_text_after", ("x", "</think>", "<｜tool_calls_begin｜>", *STEP3_WEATHER,
                                  *step3_call("get_time", '<steptml:parameter name="zone">UTC'
                                              '</steptml:parameter>'),
                                  "<｜tool_calls_end｜>", "\nDone.")),
    Case("call_from_reasoning", ("Straight to it.", *STEP3_BLOCK)),
    Case("tricky_values", ("x", "</think>", "<｜tool_calls_begin｜>", *step3_call(
        "run", '<steptml:parameter name="code">if a < b: print("}")</steptml:parameter>'
        '<steptml:parameter name="json">{"k": [1, 2]}</steptml:parameter>'),
        "<｜tool_calls_end｜>")),
    Case("unfinished_call", ("x", "</think>", "<｜tool_calls_begin｜>", "<｜tool_call_begin｜>",
                             "function", "<｜tool_sep｜>",
                             '<steptml:invoke name="write_file"><steptml:parameter '
                             'name="content">half')),
    Case("literal_marker_in_prose", ("x", "</think>", "Use ", Lit("<｜tool_calls_begin｜>"),
                                     " first.\n", *STEP3_BLOCK)),
    Case("reasoning_only", ("Still thinking about it",)),
]


# -- Granite ----------------------------------------------------------------------------

G_CALL = '[{"name": "get_weather", "arguments": {"city": "Paris", "days": "3"}}]'

GRANITE = [
    Case("content_then_calls", ("Let me check. ", "<|tool_call|>",
                                '[{"name": "get_weather", "arguments": {"city": "Paris"}}, '
                                '{"name": "get_time", "arguments": {"zone": "UTC"}}]')),
    Case("string_marker_and_text_after", ("<tool_call>", G_CALL, " done")),
    Case("tricky_json", ("<|tool_call|>", '[{"arguments": {"code": "x = [1]; y = {\\"a\\": '
                                          '\\"}\\"}", "city": "東京"}, "name": "run"}]')),
    Case("not_an_array", ("<|tool_call|>", "no json here")),
    Case("unfinished_call", ("<|tool_call|>", '[{"name": "write_file", "arguments": '
                                              '{"path": "/tmp/a", "content": "ha')),
    Case("literal_marker_in_prose", ("Use ", Lit("<|tool_call|>"), " then JSON. ",
                                     "<|tool_call|>", G_CALL)),
]


# -- Inkling ----------------------------------------------------------------------------

INK_CALL = ("<|message_model|>", "<|content_invoke_tool_json|>",
            '{"name": "get_weather", "args": {"city": "Paris", "days": "3"}}', "<|end_message|>")

INKLING = [
    Case("think_text_call", ("<|message_model|>", "<|content_thinking|>", "Weather?",
                             "<|end_message|>", "<|message_model|>", "<|content_text|>",
                             "Checking.", "<|end_message|>", *INK_CALL)),
    Case("call_then_text", (*INK_CALL, "<|message_model|>", "<|content_text|>", "Done.",
                            "<|end_message|>")),
    Case("header_without_block", ("bare text", "<|end_message|>", " then more")),
    Case("end_sampling", ("<|message_model|>", "<|content_thinking|>", "cut short",
                          "<|content_model_end_sampling|>", "tail")),
    Case("thinking_then_call_directly", ("<|message_model|>", "<|content_thinking|>", "go",
                                         "<|content_invoke_tool_json|>",
                                         '{"name": "b", "args": {}}', "<|end_message|>")),
    Case("unfinished_call", ("<|message_model|>", "<|content_invoke_tool_json|>",
                             '{"name": "write_file", "args": {"path": "/tmp/a", "content": "x')),
    Case("tool_text_and_error_blocks", ("<|message_model|>", "<|content_invoke_tool_text|>",
                                        "raw call", "<|end_message|>", "<|message_model|>",
                                        "<|content_tool_error|>", "oops", "<|end_message|>")),
]


# -- PLaMo 3 -----------------------------------------------------------------------------

def plamo_marker(kind: str) -> str:
    return f"<|plamo:{kind}:plamo|>"


P_CALL = (plamo_marker("begin_tool_requests"), plamo_marker("begin_tool_request"),
          plamo_marker("begin_tool_name"), "get_weather", plamo_marker("end_tool_name"),
          plamo_marker("begin_tool_arguments"), "<|plamo:constrain|>json<|plamo:msg|>",
          '{"city": "Paris", "days": 3}', plamo_marker("end_tool_arguments"),
          plamo_marker("end_tool_request"), plamo_marker("end_tool_requests"))

PLAMO = [
    Case("think_content_call", (plamo_marker("begin_think"), "Weather?",
                                plamo_marker("end_think"), "Checking.", *P_CALL, "<|plamo:tag|>")),
    Case("call_from_reasoning", ("thinking", *P_CALL)),
    Case("eot_ends_reasoning", ("still thinking", "<|plamo:tag|>", "after")),
    Case("unfinished_call", (*P_CALL[:7], '{"path": "/tmp/a", "con')),
    Case("thinking_off", ("Sure.", *P_CALL, "<|plamo:tag|>"), thinking=False),
]


# -- gpt-oss Harmony ---------------------------------------------------------------------

def hm(header: str, body: str, end: str = "<|end|>", start: bool = True) -> tuple[str, ...]:
    """One Harmony message: [<|start|>assistant] header <|message|> body end."""
    head = ("<|start|>", "assistant") if start else ()
    parts: list[str] = []
    for piece in header.split("|"):
        parts += ["<|channel|>"] if piece == "C" else ["<|constrain|>"] if piece == "K" else [piece]
    return (*head, *parts, "<|message|>", body, end)


HARMONY = [
    Case("analysis_then_final", (*hm("C|analysis", "The user asks 6*7.", start=False),
                                 *hm("C|final", "It is 42.", "<|return|>"))),
    Case("analysis_then_call", (*hm("C|analysis", "Need the weather.", start=False),
                                *hm("C|commentary to=functions.get_weather |K|json",
                                    '{"city": "Paris", "days": 3}', "<|call|>"))),
    Case("recipient_before_channel", (*hm(" to=functions.get_time|C|commentary json",
                                          '{"zone": "UTC"}', "<|call|>", start=False),)),
    Case("preamble_then_call", (*hm("C|commentary", "Checking the weather now.",
                                    start=False),
                                *hm("C|commentary to=functions.get_weather |K|json",
                                    '{"city": "Zürich 😀"}', "<|call|>"))),
    Case("builtin_tool_ignored", (*hm("C|analysis to=browser.search", '{"query": "x"}',
                                      "<|call|>", start=False),
                                  *hm("C|final", "Done.", "<|return|>"))),
    Case("unfinished_call", (*hm("C|commentary to=functions.write_file |K|json",
                                 '{"path": "/tmp/a", "con', "", start=False)[:-1],)),
    Case("reasoning_cut_by_return", (*hm("C|analysis", "only thinking", "<|return|>",
                                         start=False),)),
    Case("no_markers_at_all", ("plain text without any header",)),
    Case("literal_marker_in_prose", (*hm("C|final", "", "", start=False)[:-1],
                                     "Messages start with ", Lit("<|start|>"), ".",
                                     "<|return|>")),
]


# -- Llama 3 JSON calls -------------------------------------------------------------------

L_CALL = '{"name": "get_weather", "parameters": {"city": "Paris", "days": "3"}}'

LLAMA3 = [
    Case("bare_call", (L_CALL,)),
    Case("python_tag_call", ("<|python_tag|>", L_CALL, "<|eom_id|>")),
    Case("two_calls", (L_CALL, "; ", '{"name": "get_time", "parameters": {"zone": "UTC"}}')),
    Case("json_answer_stays_content", ('{"answer": 42, "unit": "none"}',)),
    Case("name_without_arguments", ('{"name": "Bob", "age": 30}',)),
    Case("text_then_call", ("Let me check. ", L_CALL)),
    Case("nested_and_unicode", ('{"name": "run", "arguments": {"json": {"a": [1, "}"]}, '
                                '"city": "Zürich 😀"}}',)),
    Case("unfinished_call", ('{"name": "write_file", "parameters": {"path": "/tmp/a", "c',)),
]


# -- Kimi K3: XTML channels ---------------------------------------------------------------

def xtml(kind: str, word: str) -> tuple[str, str, str]:
    """A channel marker as the model writes it: three tokens."""
    return ("<|open|>" if kind == "open" else "<|close|>", word, "<|sep|>")


def k3_call(tool: str, index: int, *args: tuple[str, str, str]) -> tuple[str, ...]:
    parts: list[str] = ["<|open|>", f'call tool="{tool}" index="{index}"', "<|sep|>"]
    for key, kind, value in args:
        parts += ["<|open|>", f'argument key="{key}" type="{kind}"', "<|sep|>", value,
                  *xtml("close", "argument")]
    return (*parts, *xtml("close", "call"))


K3_WEATHER = k3_call("get_weather", 1, ("city", "string", "Paris"), ("days", "integer", "3"))

KIMI_K3 = [
    Case("reasoning_response_call", ("Plan.", *xtml("close", "think"), *xtml("open", "response"),
                                     "Checking.", *xtml("close", "response"),
                                     *xtml("open", "tools"), *K3_WEATHER, *xtml("close", "tools"),
                                     *xtml("close", "message"))),
    Case("think_channel_in_output", (*xtml("open", "think"), "Hmm.", *xtml("close", "think"),
                                     *xtml("open", "response"), "Hi!", *xtml("close", "response"),
                                     *xtml("close", "message"))),
    Case("two_calls_typed", ("x", *xtml("close", "think"), *xtml("open", "tools"),
                             *k3_call("run", 1, ("code", "string", 'print("}")\n'),
                                      ("json", "object", '{"a": [1, "😀"]}')),
                             *k3_call("get_time", 2, ("zone", "string", " UTC ")),
                             *xtml("close", "tools"))),
    Case("response_only_thinking_off", (*xtml("open", "response"), "Plain answer.",
                                        *xtml("close", "response")), thinking=False),
    Case("unfinished_call", ("x", *xtml("close", "think"), *xtml("open", "tools"), "<|open|>",
                             'call tool="write_file" index="1"', "<|sep|>", "<|open|>",
                             'argument key="content" type="string"', "<|sep|>", "abc")),
]


# -- MiniMax M3: every tag behind the ]<]minimax[>[ prefix --------------------------------

M3 = "]<]minimax[>["
M3_CALL = (f"{M3}<tool_call>", f'\n{M3}<invoke name="get_weather">\n{M3}<city>Paris{M3}</city>\n'
           f"{M3}<days>3{M3}</days>\n{M3}</invoke>\n", f"{M3}</tool_call>")


def m3_order(*items: str) -> str:
    return "".join(f"{M3}<item>{M3}<sku>{sku}{M3}</sku>{M3}<qty>{qty}{M3}</qty>{M3}</item>"
                   for sku, qty in (i.split(":") for i in items))


# The engine config has no reasoning (vLLM composes M3's reasoning parser around it),
# so these cases run with thinking off; parsergen's own tests cover <mm:think>.
MINIMAX_M3 = [Case(c.name, c.parts, thinking=False) for c in [
    Case("content_then_call", ("Checking.\n", *M3_CALL)),
    Case("nested_order", (f"{M3}<tool_call>\n", f'{M3}<invoke name="create_order">\n',
                          f"{M3}<user_id>42{M3}</user_id>\n{M3}<items>",
                          m3_order("book-001:2", "pen:10"), f"{M3}</items>\n",
                          f"{M3}<tags>{M3}<item>gift{M3}</item>{M3}</tags>\n"
                          f"{M3}<note>fast{M3}</note>{M3}<note>wrapped{M3}</note>\n",
                          f"{M3}</invoke>\n{M3}</tool_call>")),
    Case("quotes_and_two_calls", (f"{M3}<tool_call>", f"\n{M3}<invoke name='get_time'>"
                                  f"{M3}<zone> UTC {M3}</zone>{M3}</invoke>\n"
                                  f"{M3}<invoke name=search>{M3}<q>vllm{M3}</q>{M3}</invoke>",
                                  f"\n{M3}</tool_call>")),
    Case("empty_list_and_mixed_text", (f"{M3}<tool_call>", f'{M3}<invoke name="create_order">'
                                       f"{M3}<items>{M3}</items>{M3}<note>a{M3}<b>x{M3}</b>c"
                                       f"{M3}</note>{M3}</invoke>{M3}</tool_call>")),
    Case("text_after_block", (*M3_CALL, "\nAnything else?")),
    Case("unfinished_call", (f"{M3}<tool_call>", f'{M3}<invoke name="write_file">{M3}<path>/tmp/a'
                             f"{M3}</path>{M3}<content>ab")),
    Case("prose_with_brackets", ("a ]<] b [>[ c <item> d",)),
    Case("unicode_values", (f"{M3}<tool_call>", f'{M3}<invoke name="get_weather">'
                            f"{M3}<city>Zürich 😀{M3}</city>{M3}</invoke>", f"{M3}</tool_call>")),
]]


# -- Python lists of calls (pythonic, Llama 4) -------------------------------------------

PY_CALL = '[get_weather(city="Paris", days=3)]'

PYTHONIC = [
    Case("one_call", (PY_CALL,)),
    Case("two_calls", ('[get_weather(city="Paris", days=3), ', "get_time(zone='UTC')]")),
    Case("nested_values", ('[run(cmd="ls (x)", env={"A": [1, 2.5, None, True]}, '
                           'note=\'it\\\'s "ok"\')]',)),
    Case("prose_stays_content", ("The list [1, 2] has two items.",)),
    Case("list_of_names_stays_content", ("[alpha, beta]",)),
    Case("content_after_list", (PY_CALL, " Done.")),
    Case("unicode_value", ('[get_weather(city="Zürich 😀")]',)),
    Case("unfinished_call", ('[write_file(path="/tmp/a", content="ab',)),
]

LLAMA4 = PYTHONIC + [
    Case("python_tags", ("<|python_start|>", PY_CALL, "<|python_end|>")),
    Case("tags_around_cut_list", ("<|python_start|>", '[get_time(zone="UTC")', "<|python_end|>",
                                  " after")),
    Case("text_then_tagged_call", ("Checking. ", "<|python_start|>", PY_CALL, "<|python_end|>")),
]


# -- LiquidAI LFM2: a Python list of calls between <|tool_call_start|> and <|tool_call_end|> --

LFM2_CALL = ("<|tool_call_start|>", PY_CALL, "<|tool_call_end|>")

LFM2 = [
    # As vLLM's lfm2 parser documents the model's output: the call, then the answer.
    Case("call_then_text", (*LFM2_CALL, "The weather in Paris is sunny.")),
    Case("content_then_two_calls", ("Let me check.", "<|tool_call_start|>",
                                    '[get_weather(city="Paris", days=3), '
                                    "get_time(zone='UTC')]", "<|tool_call_end|>")),
    Case("one_call", ("<|tool_call_start|>", '[search(q="vllm")]', "<|tool_call_end|>")),
    Case("content_only", ("Paris is sunny today.",)),
    Case("nested_values", ("<|tool_call_start|>", '[run(code="x = [1]; y = f(\')]\')", '
                           'nested={"l": [1, {"m": None}], "ok": True}, city="Zürich 😀")]',
                           "<|tool_call_end|>")),
    Case("schema_typed", ("<|tool_call_start|>", '[get_weather(city="Paris", days="3")]',
                          "<|tool_call_end|>")),
    Case("spaced_list", ("<|tool_call_start|>", '\n[get_time(zone="UTC")]\n', "<|tool_call_end|>",
                         "\nIt is noon.")),
    Case("prose_brackets_stay_content", ("The list [1, 2] has two items.",)),
    Case("unfinished_call", ("Sure.", "<|tool_call_start|>",
                             '[write_file(path="/tmp/a", content="ab')),
    Case("literal_marker_in_prose", ("Calls go after ", Lit("<|tool_call_start|>"), " here. ",
                                     "<|tool_call_start|>", "[b()]", "<|tool_call_end|>")),
]


# -- Swiss AI Apertus: one JSON array of {NAME: ARGS} between <|tools_prefix|>/<|tools_suffix|> --

A_WEATHER = '{"get_weather": {"city": "Paris", "days": 3}}'

APERTUS = [
    # As vLLM's apertus parser documents the model's output: text, then the calls.
    Case("content_then_calls", ("I will check. ", "<|tools_prefix|>",
                                f'[{A_WEATHER}, {{"get_time": {{"zone": "UTC"}}}}]',
                                "<|tools_suffix|>")),
    Case("one_call", ("<|tools_prefix|>", '[{"search": {"q": "vllm"}}]', "<|tools_suffix|>")),
    Case("content_only", ("Paris is sunny today.",)),
    # As the Apertus chat format renders a turn: the calls, a newline, then the answer.
    Case("text_after_calls", ("<|tools_prefix|>", f"[{A_WEATHER}]", "<|tools_suffix|>",
                              "\nThe answer is 4.")),
    Case("no_arguments", ("<|tools_prefix|>", '[{"b": {}}]', "<|tools_suffix|>")),
    Case("tricky_json", ("<|tools_prefix|>", '[{"run": {"code": "x = [1]; y = {\\"a\\": '
                         '\\"]}\\"}", "nested": {"l": [1, {"m": []}]}, "city": "Zürich 😀"}}]',
                         "<|tools_suffix|>")),
    Case("schema_typed", ("<|tools_prefix|>", '[{"get_weather": {"city": "Paris", "days": "3"}}]',
                          "<|tools_suffix|>")),
    Case("unfinished_call", ("Sure.", "<|tools_prefix|>",
                             '[{"write_file": {"path": "/tmp/a", "content": "half')),
    Case("literal_marker_in_prose", ("Wrap calls in ", Lit("<|tools_prefix|>"), " tags. ",
                                     "<|tools_prefix|>", '[{"b": {}}]', "<|tools_suffix|>")),
]


# -- Google FunctionGemma: Gemma 4's notation with <escape> strings ---------------------

E = "<escape>"
FG_CALL = ("<start_function_call>", f"call:get_weather{{city:{E}Paris{E},days:3}}",
           "<end_function_call>")

FUNCTIONGEMMA = [
    # As ai.google.dev's FunctionGemma formatting page writes a call: string values only.
    Case("one_call", ("<start_function_call>", f"call:get_time{{zone:{E}UTC{E}}}",
                      "<end_function_call>")),
    Case("content_then_call", ("Checking.\n", *FG_CALL)),
    Case("two_calls", (*FG_CALL, "<start_function_call>",
                       f"call:search{{q:{E}vllm{E}}}", "<end_function_call>")),
    Case("content_only", ("Paris is sunny today.",)),
    Case("nested_values", ("<start_function_call>", f"call:run{{code:{E}if (a) {{ b(x, y) }}{E},"
                           f"nested:{{a:{E}x,{{}}{E},b:[1,{E}y{E}]}},path:bare words}}",
                           "<end_function_call>")),
    Case("no_arguments", ("<start_function_call>", "call:b{}", "<end_function_call>")),
    Case("unfinished_call", ("<start_function_call>", f"call:write_file{{path:{E}/tmp/a{E},"
                             f"content:{E}half")),
    Case("literal_marker_in_prose", ("Write ", Lit("<start_function_call>"), " to call.\n",
                                     *FG_CALL)),
]


# -- AllenAI OLMo 3: <think> reasoning, Python calls one per line in <function_calls> --------

O_CALLS = ("<function_calls>", '\nget_weather(city="Paris", days=3)\n', "</function_calls>")

OLMO3 = [
    # OLMo 3 Think: the prompt opens <think>; the model closes it, then answers or calls.
    Case("reasoning_then_call", ("The user wants the weather.", "</think>", "\n", *O_CALLS)),
    Case("reasoning_then_content", ("Easy.", "</think>", "Paris is sunny today.")),
    Case("two_calls_json_literals", ("<function_calls>", '\nget_weather(city="Paris", days=3)\n'
                                     "run(code=\"print('hi')\", json={\"a\": true, "
                                     '"b": [null, false]}, city=null)\n', "</function_calls>"),
         thinking=False),
    Case("content_then_call", ("Let me check.\n", *O_CALLS), thinking=False),
    Case("content_only", ("Paris is sunny today.",), thinking=False),
    Case("python_literals", ("<function_calls>", "\nrun(json={'a': True, 'b': None}, "
                             "code='x = f(1)\\n')\n", "</function_calls>"), thinking=False),
    Case("text_in_block", ("<function_calls>", "\nI cannot call a tool.\n", "</function_calls>"),
         thinking=False),
    Case("unfinished_call", ("<function_calls>", '\nwrite_file(path="/tmp/a", content="ab'),
         thinking=False),
    Case("schema_typed", ("<function_calls>", '\nget_weather(city="Paris", days="3")\n',
                          "</function_calls>"), thinking=False),
]


# -- Salesforce xLAM: a bare JSON array of {"name", "arguments"} calls ------------------

X_WEATHER = '{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}'

XLAM = [
    # As the xLAM-2 model cards and vLLM's xlam tests have the model answer: the array alone.
    Case("one_call", (f"[{X_WEATHER}]",)),
    Case("two_calls", (f'[{X_WEATHER}, {{"name": "get_time", "arguments": {{"zone": "UTC"}}}}]',)),
    Case("content_only", ("Paris is sunny today.",)),
    Case("prose_list_stays_content", ("The list [1, 2] has two items.",)),
    Case("text_then_array", ("I will check.\n", f"[\n  {X_WEATHER}\n]")),
    Case("tricky_json", ('[{"name": "run", "arguments": {"code": "x = [1]; y = {\\"a\\": '
                         '\\"]}\\"}", "nested": {"l": [1, {"m": []}]}, "city": "Zürich 😀"}}]',)),
    Case("schema_typed", ('[{"name": "get_weather", "arguments": {"city": "Paris", "days": "3"}}]',)),
    Case("answer_object_array", ('[{"answer": 42}]',)),
    Case("unfinished_call", ('[{"name": "write_file", "arguments": {"path": "/tmp/a", '
                             '"content": "half',)),
]


# -- GigaChat 3 / 3.1: text, <|message_sep|>\n\n, then function call<|role_sep|>\n{json} ----
# (or GigaChat 3.1's <|function_call|>{json}): one call, as vLLM's, SGLang's and llama.cpp's
# GigaChat 3 tests write it (vllm-project/vllm#36664, sgl-project/sglang#14765).

G_WEATHER = '{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}'
G_SEP, G_HEADER, G_31 = "<|message_sep|>\n\n", "function call<|role_sep|>\n", "<|function_call|>"

GIGACHAT3 = [
    Case("one_call", (G_SEP, G_HEADER, G_WEATHER)),
    Case("text_then_call", ("Let me check the weather.", G_SEP, G_HEADER, G_WEATHER)),
    Case("call_then_eos", (G_SEP, G_HEADER, G_WEATHER, "</s>")),
    Case("v31_call", (G_31, G_WEATHER)),
    Case("v31_text_then_call", ("I will check.", G_31, '{"name": "get_time", "arguments": '
                                '{"zone": "UTC"}}')),
    Case("content_only", ("Paris is sunny today.",)),
    Case("content_then_eos", ("Hello! How can I help?", "</s>")),
    Case("tricky_json", (G_SEP, G_HEADER, '{"name": "run", "arguments": {"code": "x = [1]; '
                         'y = {\\"a\\": \\"]}\\"}", "nested": {"l": [1, {"m": []}]}, '
                         '"city": "Zürich 😀"}}')),
    Case("schema_typed", (G_SEP, G_HEADER, '{"name": "get_weather", "arguments": '
                          '{"city": "Paris", "days": "3"}}')),
    Case("empty_arguments", (G_31, '{"name": "b", "arguments": {}}')),
    Case("typed_header_is_text", ("Write: function call", Lit("<|role_sep|>\n"), G_WEATHER)),
    Case("unfinished_call", (G_SEP, G_HEADER, '{"name": "write_file", "arguments": '
                             '{"path": "/tmp/a", "content": "half')),
]


# -- Tencent Hunyuan-A13B: <think>\n...\n</think>\n<answer>\n...\n</answer> ---------------
# with <tool_calls>[{json}, ...]</tool_calls> in the answer, as vLLM's hunyuan_a13b parsers'
# tests and the model's agent/README.md (github.com/Tencent-Hunyuan/Hunyuan-A13B) write it;
# the fast-thinking training sample there closes an empty <think> and writes
# <answer><tool_calls>...</tool_calls></answer> without newlines.

H_THINK, H_ANSWER, H_END = "<think>\n", "\n</think>\n<answer>\n", "\n</answer>"
H_FAST = "<think>\n\n</think>\n<answer>\n"
H_TWO = (f'<tool_calls>[{J_WEATHER}, {{"name": "get_time", "arguments": {{"zone": "UTC"}}}}]'
         '</tool_calls>')

HUNYUAN = [
    Case("reasoning_then_answer", (H_THINK, "The user greets me.", H_ANSWER,
                                   "Hello! How can I help?", H_END, "<|eos|>")),
    Case("reasoning_then_call", (H_THINK, "The user wants the weather in Paris.", H_ANSWER,
                                 f"<tool_calls>[{J_WEATHER}]</tool_calls>", H_END)),
    Case("fast_think_two_calls", ("<think>\n\n</think>\n<answer>", H_TWO, "</answer>")),
    Case("fast_think_answer", (H_FAST, "Paris is sunny today.", H_END)),
    Case("assistant_label", (H_THINK, "No tool fits.", H_ANSWER,
                             "助手：I can only check the weather.", H_END)),
    Case("multiline_unclosed_answer", (H_THINK, "This\nThat", H_ANSWER, "The rest\nThat")),
    # The label opens a reply; inside one (a dialogue the answer quotes) it is text.
    Case("quoted_dialogue", (H_THINK, "Quote it.", H_ANSWER, "用户：hi\n助手：hello", H_END)),
    Case("content_only", ("How can I help you today?",)),
    Case("content_then_calls", ("I will call the tool now. ", H_TWO)),
    Case("text_after_calls", (f"<tool_calls>[{J_WEATHER}]</tool_calls>", "\nThank you!")),
    Case("tricky_json", (H_FAST, '<tool_calls>[{"name": "run", "arguments": {"code": "x = [1]; '
                         'y = {\\"a\\": \\"]}\\"}", "nested": {"l": [1, {"m": []}]}, '
                         '"city": "Zürich 😀"}}]</tool_calls>', H_END)),
    Case("schema_typed", (H_FAST, '<tool_calls>[{"name": "get_weather", "arguments": '
                          '{"city": "Paris", "days": "3"}}]</tool_calls>', H_END)),
    Case("unfinished_call", (H_THINK, "x", H_ANSWER, '<tool_calls>[{"name": "write_file", '
                             '"arguments": {"path": "/tmp/a", "content": "half')),
    Case("reasoning_cut", (H_THINK, "Still thinking about")),
]


# -- IFM K2 Horizon: <ifm|think> reasoning, <ifm|tool_calls> groups ------------------------
# As vLLM's tests write them (tests/tool_parsers/test_k2_horizon_tool_parser.py: _group,
# _xml_call, _json_call; tests/reasoning/test_k2_horizon_reasoning_parser.py): the prompt
# opens the reasoning marker of the request's reasoning_effort, the completion closes it.

def k2_xml(name: str, *args: tuple[str, str]) -> str:
    return (f"<ifm|tool_call>{name}" + "".join(
        f"<ifm|arg_key>{k}</ifm|arg_key><ifm|arg_value>{v}</ifm|arg_value>" for k, v in args)
        + "</ifm|tool_call>")


def k2_json(name: str, arguments: str) -> str:
    return f'<ifm|tool_call>{{"name": "{name}", "arguments": {arguments}}}</ifm|tool_call>'


def k2_group(*calls: str) -> tuple[str, ...]:
    return ("<ifm|tool_calls>", "\n".join(calls), "</ifm|tool_calls>")


def k2_cases(weather: str, time: str, empty: str, cut: str) -> list[Case]:
    """The cases of one tool_call_format, given its calls (and one cut off)."""
    medium = (("reasoning_effort", "medium"),)
    low = (("reasoning_effort", "low"),)
    return [
        Case("reasoning_then_content", ("Let me think.", "</ifm|think>", "Paris is sunny.")),
        Case("reasoning_then_call", ("I should check.", "</ifm|think>", *k2_group(weather))),
        Case("text_around_calls", ("Plan.", "</ifm|think>", "Before ", *k2_group(weather),
                                   " after.")),
        Case("two_calls", ("Two lookups.", "</ifm|think>", *k2_group(weather, time))),
        Case("call_without_arguments", ("Ping.", "</ifm|think>", *k2_group(empty))),
        Case("calls_end_reasoning", ("Calling now", *k2_group(weather))),
        Case("model_repeats_start", ("<ifm|think>", "\nplan", "</ifm|think>", "answer")),
        Case("effort_medium", ("quick plan", "</ifm|think_fast>", "answer"), kwargs=medium),
        Case("effort_low_call", ("plan", "</ifm|think_faster>", *k2_group(weather)),
             kwargs=low),
        Case("unfinished_call", ("Plan.", "</ifm|think>", "<ifm|tool_calls>", cut)),
        Case("reasoning_cut", ("Still thinking about",)),
    ]


K2_XML = k2_cases(
    k2_xml("get_weather", ("city", "Paris"), ("days", "3")),
    k2_xml("get_time", ("zone", "UTC")),
    k2_xml("b"),
    "<ifm|tool_call>write_file<ifm|arg_key>path</ifm|arg_key><ifm|arg_value>/tmp/a")
K2_JSON = k2_cases(
    k2_json("get_weather", '{"city": "Paris", "days": "3"}'),
    k2_json("get_time", '{"zone": "UTC"}'),
    k2_json("b", "{}"),
    '<ifm|tool_call>{"name": "write_file", "arguments": {"path": "/tmp/a", "content": "ha') + [
    # The call's end marker inside a string is the string's text (vLLM's regex ends the
    # call there: the JSON is broken and the group is content).
    Case("end_marker_in_string", ("Write.", "</ifm|think>", *k2_group(
        k2_json("write_file", '{"path": "/tmp/a", "content": "x</ifm|tool_call>y"}')))),
]


# -- Tencent HY 3: <tool_calls>\n<tool_call>NAME<tool_sep>\n<arg_key>K</arg_key>\n<arg_value>V
# </arg_value>\n</tool_call>\n</tool_calls>, as vLLM's hy_v3 tests write calls
# (tests/tool_parsers/test_hy_v3_tool_parser.py); reasoning only with reasoning_effort.

HY_WEATHER = ("<tool_call>", "get_weather", "<tool_sep>", "\n", "<arg_key>", "city", "</arg_key>",
              "\n", "<arg_value>", "Beijing", "</arg_value>", "\n", "<arg_key>", "days",
              "</arg_key>", "\n", "<arg_value>", "3", "</arg_value>", "\n", "</tool_call>")
HY_DATE = ("<tool_call>", "get_time", "<tool_sep>", "\n", "</tool_call>")

HY_V3 = [
    Case("content_only", ("This is a plain response.",), thinking=False),
    Case("one_call", ("<tool_calls>", "\n", *HY_WEATHER, "\n", "</tool_calls>"), thinking=False),
    Case("zero_arg_inline", ("<tool_calls>", *HY_DATE, "</tool_calls>"), thinking=False),
    Case("text_then_call", ("Checking.", "<tool_calls>", "\n", *HY_DATE, "\n", "</tool_calls>"),
         thinking=False),
    Case("two_calls", ("<tool_calls>", "\n", *HY_WEATHER, "\n", *HY_DATE, "\n", "</tool_calls>"),
         thinking=False),
    Case("same_line_args", ("<tool_calls>", "<tool_call>", "search", "<tool_sep>", "<arg_key>",
                            "q", "</arg_key>", "<arg_value>", "HY 3 release", "</arg_value>",
                            "</tool_call>", "</tool_calls>"), thinking=False),
    Case("schema_typed", ("<tool_calls>", "\n", "<tool_call>", "get_weather", "<tool_sep>", "\n",
                          "<arg_key>", "days", "</arg_key>", "\n", "<arg_value>", "07",
                          "</arg_value>", "\n", "</tool_call>", "\n", "</tool_calls>"),
         thinking=False),
    Case("multiline_value", ("<tool_calls>", "\n", "<tool_call>", "write_file", "<tool_sep>",
                             "\n", "<arg_key>", "path", "</arg_key>", "\n", "<arg_value>",
                             "/tmp/a.py", "</arg_value>", "\n", "<arg_key>", "content",
                             "</arg_key>", "\n", "<arg_value>", "def f():\n    return \"x\"\n",
                             "</arg_value>", "\n", "</tool_call>", "\n", "</tool_calls>"),
         thinking=False),
    Case("no_think_keeps_think_text", ("<think>", "hidden", "</think>", "Answer."),
         thinking=False),
    Case("reasoning_then_content", ("Let me think.", "</think>", "The answer is 4.")),
    Case("reasoning_opened", ("<think>", "Let me think.", "</think>", "The answer is 4.")),
    Case("reasoning_then_call", ("Need the weather.", "</think>", "<tool_calls>", "\n",
                                 *HY_WEATHER, "\n", "</tool_calls>")),
    Case("unfinished_reasoning", ("Still thinking",)),
    Case("unfinished_call", ("<tool_calls>", "\n", "<tool_call>", "write_file", "<tool_sep>",
                             "\n", "<arg_key>", "path", "</arg_key>", "\n", "<arg_value>",
                             "/tmp/a"), thinking=False),
]


# -- Tencent HY 4: <tool_calls><tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value>
# </tool_call></tool_calls> (no <tool_sep>), as vLLM's hy_v4 tests write calls
# (tests/tool_parsers/test_hy_v4_tool_parser.py); reasoning unless reasoning_effort is no_think.

def _hy4_arg(key: str, value: str) -> tuple[str, ...]:
    return ("<arg_key>", key, "</arg_key>", "<arg_value>", value, "</arg_value>")


HY4_WEATHER = ("<tool_call>", "get_weather", *_hy4_arg("city", "Beijing"), *_hy4_arg("days", "3"),
               "</tool_call>")
HY4_TIME = ("<tool_call>", "get_time", "</tool_call>")

HY_V4 = [
    Case("content_only", ("A plain response.",), thinking=False),
    Case("one_call", ("sure!", "<tool_calls>", *HY4_WEATHER, "</tool_calls>"), thinking=False),
    Case("zero_arg_call", ("<tool_calls>", *HY4_TIME, "</tool_calls>"), thinking=False),
    Case("two_calls", ("<tool_calls>", *HY4_WEATHER, *HY4_TIME, "</tool_calls>"), thinking=False),
    Case("non_ascii_value", ("<tool_calls>", "<tool_call>", "get_weather", *_hy4_arg("city", "北京"),
                             "</tool_call>", "</tool_calls>"), thinking=False),
    Case("schema_typed", ("<tool_calls>", "<tool_call>", "get_weather", *_hy4_arg("days", "07"),
                          "</tool_call>", "</tool_calls>"), thinking=False),
    Case("no_think_keeps_think_text", ("<think>", "hidden", "</think>", "Answer."),
         thinking=False),
    Case("reasoning_then_content", ("Let me think.", "</think>", "The answer is 4.")),
    Case("reasoning_opened", ("<think>", "Let me think.", "</think>", "The answer is 4.")),
    Case("reasoning_then_call", ("Need the weather.", "</think>", "<tool_calls>", *HY4_WEATHER,
                                 "</tool_calls>")),
    Case("unfinished_reasoning", ("Still thinking",)),
    Case("missing_calls_end", ("<tool_calls>", *HY4_TIME), thinking=False),
    Case("unfinished_call", ("<tool_calls>", "<tool_call>", "write_file", "<arg_key>", "path",
                             "</arg_key>", "<arg_value>", "/tmp/a"), thinking=False),
]


# -- OpenBMB MiniCPM5: <function name="NAME"><param name="K">V</param></function> ---------

M_WEATHER = '<function name="get_weather"><param name="city">Paris</param><param name="days">3</param></function>'

# -- Cohere Command: <|START_ACTION|>[{"tool_call_id", "tool_name", "parameters"}] ------

C_CALL = '{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris", "days": 3}}'
C_TWO = (f'[\n    {C_CALL},\n    {{"tool_call_id": "1", "tool_name": "get_time", '
         '"parameters": {"zone": "UTC"}}\n]')

COHERE = [
    # As cohere_melody (vLLM's cohere_command3/4) and Cohere's chat format have them.
    Case("one_call", ("<|START_ACTION|>", f"[\n    {C_CALL}\n]", "<|END_ACTION|>")),
    Case("thinking_then_two_calls", ("<|START_THINKING|>", "I need the weather and the time.",
                                     "<|END_THINKING|>", "<|START_ACTION|>", C_TWO,
                                     "<|END_ACTION|>")),
    Case("thinking_then_response", ("<|START_THINKING|>", "Simple greeting.", "<|END_THINKING|>",
                                    "<|START_RESPONSE|>", "Hello! How can I help?",
                                    "<|END_RESPONSE|>")),
    Case("response_only", ("<|START_RESPONSE|>", "Paris is sunny today.", "<|END_RESPONSE|>")),
    Case("citations", ("<|START_RESPONSE|>", "The sky is <co>blue</co: 0:[1,2]> and the sea "
                       "<co>green</co: 1:[0]>.", "<|END_RESPONSE|>")),
    Case("citation_cut", ("<|START_RESPONSE|>", "The sky is <co>blue</co: 0:[1",)),
    Case("citation_in_thinking", ("<|START_THINKING|>", "The result says <co>rain</co: 0:[0]>.",
                                  "<|END_THINKING|>", "<|START_RESPONSE|>", "It will rain.",
                                  "<|END_RESPONSE|>")),
    Case("no_markers", ("Hello there, no markers at all.",)),
    Case("text_before_response", ("Sure.", "<|START_RESPONSE|>", "Hi", "<|END_RESPONSE|>")),
    Case("model_call_ids", ("<|START_ACTION|>", '[{"tool_call_id": "call_a", "tool_name": '
                            '"search", "parameters": {"q": "vllm"}}, {"tool_call_id": "7", '
                            '"tool_name": "ping", "parameters": {"host": "x"}}]',
                            "<|END_ACTION|>")),
    Case("empty_parameters", ("<|START_ACTION|>", '[{"tool_call_id": "0", "tool_name": "b", '
                              '"parameters": {}}]', "<|END_ACTION|>")),
    Case("response_unclosed", ("<|START_RESPONSE|>", "Cut off mid-answer",)),
    Case("unfinished_call", ("<|START_ACTION|>", '[{"tool_call_id": "0", "tool_name": '
                             '"get_weather", "parameters": {"city": "Par',)),
]

MINICPM5 = [
    # As OpenBMB's README ("With tool calling") and vLLM's minicpm5 parser have it.
    Case("one_call", (M_WEATHER,)),
    Case("text_then_call", ("I will check the weather.\n", M_WEATHER)),
    Case("two_calls_on_lines", ('<function name="get_weather">\n  <param name="city">Tokyo</param>\n'
                                '  <param name="days">2</param>\n</function>\n'
                                '<function name="get_time">\n  <param name="zone">UTC</param>\n'
                                '</function>',)),
    Case("content_only", ("Paris is sunny today.",)),
    Case("single_quoted", ("<function name='search'><param name='q'>vllm</param></function>",)),
    Case("cdata_markup", ('<function name="write_file"><param name="path">/tmp/a.html</param>'
                          '<param name="content"><![CDATA[<p>Hi & bye</p>\n'
                          'x < y</param> stays]]></param></function>',)),
    Case("cdata_with_newlines_around", ('<function name="write">\n<param name="path">notes.md</param>\n'
                                        '<param name="body">\n<![CDATA[# Title\n\n- a\n- b]]>\n'
                                        '</param>\n</function>',)),
    Case("schema_typed", ('<function name="run"><param name="code">42</param>'
                          '<param name="json">{"a": [1, true]}</param></function>',)),
    Case("unknown_tool_is_content", ('<function name="fly"><param name="to">Mars</param></function>',)),
    Case("call_then_text", (M_WEATHER, "\nIt is sunny in Paris.")),
    Case("unfinished_call", ("Sure.\n", '<function name="write_file"><param name="path">/tmp/a</param>'
                             '<param name="content"><![CDATA[half')),
]


# -- Dots (rednote-hilab): <dots_function_call><invoke name=NAME><parameter name=K>V</parameter>
# </invoke></dots_function_call>, or one JSON object in the wrapper (vLLM's dots tests).

D_WEATHER = ('<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n'
             '<parameter name="days">3</parameter>\n</invoke>')
D_TIME = '<invoke name="get_time">\n<parameter name="zone">UTC</parameter>\n</invoke>'

DOTS = [
    # As vLLM's dots parser documents a block and its tests write one.
    Case("one_call", (f"<dots_function_call>\n{D_WEATHER}\n</dots_function_call>",)),
    Case("text_then_call", ("I will check the weather.",
                            f"<dots_function_call>\n{D_WEATHER}\n</dots_function_call>")),
    Case("two_invokes", (f"<dots_function_call>\n{D_WEATHER}\n{D_TIME}\n</dots_function_call>",)),
    Case("two_blocks", (f"<dots_function_call>{D_WEATHER}</dots_function_call>",
                        f"<dots_function_call>{D_TIME}</dots_function_call>")),
    Case("unquoted_names", ("<dots_function_call><invoke name=search><parameter name=q>chairs"
                            "</parameter></invoke></dots_function_call>",)),
    Case("json_fallback", ('<dots_function_call>{"name": "get_weather", "arguments": '
                           '{"city": "Paris", "days": 3}}</dots_function_call>',)),
    Case("json_fallback_parameters", ('<dots_function_call>\n{"name": "search", "parameters": '
                                      '{"q": "tables"}}\n</dots_function_call>',)),
    Case("xml_then_json_blocks", (f"<dots_function_call>{D_TIME}</dots_function_call>",
                                  '<dots_function_call>{"name":"search","arguments":{"q":"x"}}'
                                  "</dots_function_call>")),
    Case("content_only", ("Paris is sunny today.",)),
    Case("values_stripped", ('<dots_function_call><invoke name="write_file">'
                             '<parameter name="path">\n/tmp/a\n</parameter>'
                             '<parameter name="content">  two words  </parameter>'
                             "</invoke></dots_function_call>",)),
    Case("schema_typed", ('<dots_function_call><invoke name="run"><parameter name="code">42'
                          '</parameter><parameter name="json">{"a": [1, true]}</parameter>'
                          "</invoke></dots_function_call>",)),
    Case("unknown_tool_is_content", ('<dots_function_call><invoke name="fly"><parameter name="to">'
                                     "Mars</parameter></invoke></dots_function_call>",)),
    Case("garbage_block", ("<dots_function_call>garbage</dots_function_call>",)),
    Case("stray_end_marker", ("some text </dots_function_call>",)),
    Case("call_then_text", (f"<dots_function_call>{D_WEATHER}</dots_function_call>",
                            "\nIt is sunny in Paris.")),
    Case("unfinished_call", ("Sure.\n", '<dots_function_call><invoke name="write_file">'
                             '<parameter name="path">/tmp/a</parameter><parameter name="content">half')),
    Case("unfinished_json", ('<dots_function_call>{"name": "write_file", "arguments": '
                             '{"path": "/tmp/a", "content": "half',)),
]


# -- Muse (Spark, Glimmer): <|start|>assistant to=RECIPIENT<|message|>...<|eom|> messages --
# The prompt ends with <|start|>assistant, so the first header is " to=self<|message|>".

def _muse_calls(recipient: str, *invokes: str) -> tuple[str, ...]:
    """One message to a tool: an <atem:function_calls> block of invokes."""
    return ("<|start|>", f"assistant to={recipient}", "<|message|>",
            "<atem:function_calls>\n" + "".join(invokes) + "</atem:function_calls>", "<|eom|>")


MUSE_WEATHER = ('<atem:invoke name="get_weather">\n<atem:parameter name="city">Paris</atem:parameter>\n'
                '<atem:parameter name="days">3</atem:parameter>\n</atem:invoke>\n')
MUSE_TIME = '<atem:invoke name="get_time">\n<atem:parameter name="zone">UTC</atem:parameter>\n</atem:invoke>\n'

MUSE = [
    # As vLLM's muse tool parser documents a turn: reasoning, a call, the answer.
    Case("reasoning_call_answer", (" to=self", "<|message|>", "Need the weather.", "<|eom|>",
                                   *_muse_calls("get_weather.get_weather", MUSE_WEATHER),
                                   "<|start|>", "assistant to=user", "<|message|>",
                                   "It is sunny in Paris.", "<|eot|>")),
    Case("reasoning_then_answer", (" to=self", "<|message|>", "Simple question.", "<|eom|>",
                                   "<|start|>", "assistant to=user", "<|message|>",
                                   "Paris is the capital of France.", "<|eot|>")),
    Case("bare_header", ("<|message|>", "Thinking aloud.", "<|eom|>", "<|start|>",
                         "assistant to=user", "<|message|>", "Hi.", "<|eot|>")),
    Case("commentary_then_call", (" to=commentary", "<|message|>", "Checking now.", "<|eom|>",
                                  *_muse_calls("search", '<atem:invoke name="search">\n'
                                               '<atem:parameter name="q">vllm</atem:parameter>\n'
                                               '</atem:invoke>\n'))),
    Case("two_invokes", (" to=self", "<|message|>", "Two tools.", "<|eom|>",
                         *_muse_calls("get_weather", MUSE_WEATHER, MUSE_TIME))),
    Case("invoke_echoed_in_reasoning", (" to=self", "<|message|>",
                                        'I could write <atem:invoke name="search"> but no.',
                                        "<|eom|>", "<|start|>", "assistant to=user", "<|message|>",
                                        "No call needed.", "<|eot|>")),
    Case("developer_dropped", (" to=developer", "<|message|>", "internal note", "<|eom|>",
                               "<|start|>", "assistant to=user", "<|message|>", "Done.", "<|eot|>")),
    Case("content_only", ("Paris is sunny today.",)),
    Case("schema_typed", (" to=self", "<|message|>", "Run it.", "<|eom|>",
                          *_muse_calls("run", '<atem:invoke name="run">\n'
                                       '<atem:parameter name="code">42</atem:parameter>\n'
                                       '<atem:parameter name="json">{"a": [1, true]}</atem:parameter>\n'
                                       '</atem:invoke>\n'))),
    # vLLM's muse reasoning parser: the model may leave reasoning without <|eom|>.
    Case("reasoning_left_open", (" to=self", "<|message|>", "No end marker",
                                 *_muse_calls("get_time", MUSE_TIME))),
    Case("unfinished_call", (" to=self", "<|message|>", "Write it.", "<|eom|>", "<|start|>",
                             "assistant to=write_file", "<|message|>",
                             '<atem:function_calls>\n<atem:invoke name="write_file">\n'
                             '<atem:parameter name="path">/tmp/a</atem:parameter>\n'
                             '<atem:parameter name="content">ab')),
    # A bare tool name is offered as "get_time.*": the model may write it doubled.
    Case("doubled_name", (" to=self", "<|message|>", "Time.", "<|eom|>",
                          *_muse_calls("get_time.get_time",
                                       MUSE_TIME.replace('"get_time"', '"get_time.get_time"')))),
    # vLLM's Muse Glimmer recipe writes a newline between messages (vllm-project/recipes
    # models/meta-models/Muse-Glimmer-30B.yaml).
    Case("newline_between_messages", (" to=self", "<|message|>", "Hmm.", "<|eom|>", "\n",
                                      "<|start|>", "assistant to=user", "<|message|>", "Hi.",
                                      "<|eot|>")),
    Case("answer_cut", (" to=self", "<|message|>", "Short.", "<|eom|>", "<|start|>",
                        "assistant to=user", "<|message|>", "Paris is")),
]


CORPUS: dict[str, list[Case]] = {
    "qwen3": qwen_like() + [
        Case("turn_tokens_dropped", ("done", "</think>", "\nBye.", "<|im_end|>")),
        Case("typed_turn_token", (
            "a", "</think>", "\nuse ", Lit("<|im_start|>"), " to start", "<|endoftext|>")),
    ],
    "seed_oss": qwen_like("<seed:think>", "</seed:think>", "<seed:tool_call>",
                          "</seed:tool_call>") + [
        Case("budget_reflect_kept", (
            "Thinking.<seed:cot_budget_reflect>used 10</seed:cot_budget_reflect>more",
            "</seed:think>", "ok", "<seed:eos>")),
    ],
    "kimi_k2": KIMI,
    "nemotron_v3": qwen_like(),
    # MiniCPM-V: qwen3's grammar, <|im_end|> and the reserved marker tokens dropped, a
    # <think> block with thinking off still read as reasoning (vLLM's minicpmv_config);
    # a literal backslash-n stays as written (its serving wrapper rewrites it).
    "minicpmv": [
        *qwen_like(),
        Case("im_end_dropped", ("Thought.", "</think>", "\n\nThe answer.", "<|im_end|>")),
        Case("reserved_markers_dropped", ("Thought.", "</think>", "\n\nA<reserved_12>B",
                                          "<|reserved_13|>", "C")),
        Case("thinking_off_think_block", ("<think>", "\nHmm.\n", "</think>", "\n\nAnswer."),
             thinking=False),
        Case("literal_backslash_n", ("Thought.", "</think>", "\n\nLine one\\nLine two; "
                                     "path C:\\new\\report.txt")),
    ],
    "step3p5": qwen_like(thinking_off=False),
    # Step-5: deepseek_r1's reasoning (always on), qwen3's calls.
    "step5": qwen_like(thinking_off=False),
    "mimo": qwen_like(),
    "deepseek_v32": dsml_cases("function_calls", reasoning=False),
    "deepseek_v4": dsml_cases("tool_calls") + [
        Case("wrapper_spelling_variant", ("x", "</think>", "<｜DSML｜toolcalls>", "\n",
                                          '<｜DSML｜invoke name="b">\n</｜DSML｜invoke>\n',
                                          "</｜DSML｜tool_calls>")),
    ],
    "deepseek_v41": dsml_cases("calls", sep=" "),
    "glm47_moe": GLM,
    # Poolside Laguna writes GLM's calls; vLLM parses them with its legacy poolside_v1
    # parsers (thinking off unless the request turns it on).
    "poolside_v1": [*GLM, Case("thinking_off_content_and_call", ("Checking.\n", GLM_CALL),
                               thinking=False)],
    "minimax_m2": MINIMAX,
    "minimax_m3": MINIMAX_M3,
    "kimi_k3": KIMI_K3,
    "gemma4": GEMMA,
    "hermes": hermes_cases(reasoning=False),
    # LongCat-Flash-Chat: hermes' calls in <longcat_tool_call> tags.
    "longcat": retagged(hermes_cases(reasoning=False), {
        "<tool_call>": "<longcat_tool_call>", "</tool_call>": "</longcat_tool_call>"}),
    "mistral": MISTRAL,
    "mistral_pre_v11": MISTRAL_PRE_V11,
    "phi4_mini_json": PHI4_MINI,
    "step3": STEP3,
    "granite": GRANITE,
    "jamba": JAMBA,
    "granite_20b_fc": GRANITE_20B_FC,
    "ernie45": ERNIE45,
    "internlm": INTERNLM,
    "inkling": INKLING,
    "plamo3": PLAMO,
    "openai": HARMONY,
    "llama3_json": LLAMA3,
    "pythonic": PYTHONIC,
    "llama4_pythonic": LLAMA4,
    "lfm2": LFM2,
    "apertus": APERTUS,
    "functiongemma": FUNCTIONGEMMA,
    "olmo3": OLMO3,
    "xlam": XLAM,
    "minicpm5": MINICPM5,
    "dots": DOTS,
    "muse": MUSE,
    "muse_glimmer": MUSE,
    "cohere_command3": COHERE,
    "cohere_command4": COHERE,
    "gigachat3": GIGACHAT3,
    "hunyuan_a13b": HUNYUAN,
    "k2_horizon": K2_XML,
    "k2_horizon_json": K2_JSON,
    "hy_v3": HY_V3,
    "hy_v4": HY_V4,
    "granite_thinking": qwen_like(),
    "deepseek_v3": deepseek_cases(True, (), False),
    "deepseek_r1": deepseek_cases(True, ("Let me think.\n", "</think>", "\n\n"), True)[:-1],
    "deepseek_v31": [
        *deepseek_cases(False, ("Reasoning.", "</think>"), True),
        Case("no_thinking_by_default", ("Plain answer ", "</think>", " kept."), thinking=False),
    ],
    "qwen3_json": hermes_cases(reasoning=True),
}

REFERENCES: dict[str, Reference] = {
    "qwen3": Reference("vllm.parser.qwen3.Qwen3Parser", "qwen3.6"),
    "seed_oss": Reference("vllm.parser.seed_oss.SeedOssParser", "seed_oss"),
    "kimi_k2": Reference("vllm.parser.kimi_k2.KimiK2Parser", "kimi_k2",
                         ("thinking", "enable_thinking")),
    "nemotron_v3": Reference("vllm.parser.nemotron_v3.NemotronV3Parser", "qwen3.6"),
    "minicpmv": Reference("vllm.parser.minicpmv.MiniCPMVParser", "qwen3.6"),
    "step3p5": Reference("vllm.parser.step3p5.Step3p5Parser", "qwen3.6"),
    "mimo": Reference("vllm.parser.mimo.MiMoParser", "qwen3.6"),
    "deepseek_v32": Reference("vllm.parser.deepseek_v32.DeepSeekV32Parser", "deepseek"),
    "deepseek_v4": Reference("vllm.parser.deepseek_v4.DeepSeekV4Parser", "deepseek",
                             ("thinking", "enable_thinking")),
    "deepseek_v41": Reference("vllm.parser.deepseek_v41.DeepSeekV41Parser", "deepseek",
                              ("thinking", "enable_thinking")),
    "kimi_k3": Reference(None, "kimi_k3", ("thinking",), reasoning="kimi_k3", tool="kimi_k3"),
    "minimax_m3": Reference("vllm.parser.minimax_m3.MinimaxM3Parser", "minimax_m3",
                            ("thinking_mode",)),
    "glm47_moe": Reference("vllm.parser.glm47_moe.Glm47MoeParser", "glm",
                           ("thinking", "enable_thinking")),
    "minimax_m2": Reference("vllm.parser.minimax_m2.MinimaxM2Parser", "minimax"),
    "gemma4": Reference("vllm.parser.gemma4.Gemma4Parser", "gemma4"),
    "hermes": Reference(None, "qwen3.6", tool="hermes"),
    "longcat": Reference(None, "longcat", tool="longcat"),
    "phi4_mini_json": Reference(None, "phi4_mini", tool="phi4_mini_json"),
    "step5": Reference(None, "qwen3.6", reasoning="step5", tool="step5"),
    "step3": Reference(None, "step3", reasoning="step3", tool="step3"),
    "poolside_v1": Reference(None, "laguna", ("thinking", "enable_thinking"),
                             reasoning="poolside_v1", tool="poolside_v1"),
    "mistral": Reference("vllm.parser.mistral.MistralParser", "mistral"),
    # No vLLM golden: vLLM parses this syntax only with a pre-v11 mistral-common
    # tokenizer object; parsergen's own reviewed events and hand-written messages.
    "mistral_pre_v11": Reference(None, "mistral"),
    "granite": Reference("vllm.parser.granite.GraniteParser", "granite"),
    "jamba": Reference(None, "jamba", tool="jamba"),
    "granite_20b_fc": Reference(None, "granite_20b", tool="granite-20b-fc"),
    "ernie45": Reference(None, "ernie", reasoning="ernie45", tool="ernie45"),
    "internlm": Reference(None, "internlm", tool="internlm"),
    "inkling": Reference("vllm.parser.inkling.InklingParser", "inkling"),
    "plamo3": Reference("vllm.parser.plamo3.Plamo3Parser", "plamo"),
    # vLLM parses Harmony with openai_harmony, whose vocabulary is a download: no
    # message goldens here, only parsergen's own reviewed events.
    "openai": Reference(None, "harmony"),
    "llama3_json": Reference(None, "llama3", tool="llama3_json"),
    "pythonic": Reference(None, "llama4", tool="pythonic"),
    "llama4_pythonic": Reference(None, "llama4", tool="llama4_pythonic"),
    "lfm2": Reference(None, "lfm2", tool="lfm2"),
    "apertus": Reference(None, "apertus", tool="apertus"),
    "functiongemma": Reference(None, "functiongemma", tool="functiongemma"),
    "olmo3": Reference(None, "olmo3", reasoning="olmo3", tool="olmo3"),
    "xlam": Reference(None, "llama3", tool="xlam"),
    "minicpm5": Reference(None, "qwen3.6", tool="minicpm5"),
    "dots": Reference(None, "qwen3.6", tool="dots"),
    "muse": Reference(None, "muse", reasoning="muse", tool="muse"),
    "muse_glimmer": Reference(None, "muse", reasoning="muse_glimmer", tool="muse_glimmer"),
    "cohere_command3": Reference(None, "cohere", reasoning="cohere_command3",
                                 tool="cohere_command3", composed=True),
    "cohere_command4": Reference(None, "cohere", reasoning="cohere_command4",
                                 tool="cohere_command4", composed=True),
    "gigachat3": Reference(None, "gigachat3", tool="gigachat3"),
    "hunyuan_a13b": Reference(None, "hunyuan", reasoning="hunyuan_a13b", tool="hunyuan_a13b"),
    "k2_horizon": Reference(None, "k2_horizon", (), reasoning="k2_horizon", tool="k2_horizon"),
    "k2_horizon_json": Reference(None, "k2_horizon", (), reasoning="k2_horizon",
                                 tool="k2_horizon", kwargs=(("tool_call_format", "json"),)),
    "hy_v3": Reference(None, "hy_v3", thinking_keys=("reasoning_effort",),
                       thinking_values=("high", "no_think"), reasoning="hy_v3", tool="hy_v3"),
    "hy_v4": Reference(None, "hy_v3", thinking_keys=("reasoning_effort",),
                       thinking_values=("high", "no_think"), reasoning="hy_v4", tool="hy_v4"),
    "granite_thinking": Reference("vllm.parser.granite_thinking.GraniteThinkingParser",
                                  "qwen3.6"),
    "deepseek_v3": Reference(None, "deepseek", tool="deepseek_v3"),
    "deepseek_r1": Reference(None, "deepseek", reasoning="deepseek_r1", tool="deepseek_v3"),
    "deepseek_v31": Reference(None, "deepseek", ("thinking",), reasoning="deepseek_v3",
                              tool="deepseek_v31"),
    "qwen3_json": Reference(None, "qwen3.6", reasoning="qwen3", tool="hermes"),
}
