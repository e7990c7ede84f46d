"""The OpenAI-style layer: vLLM's messages, and streaming equal to non-streaming."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from tokenizers.decoders import DecodeStream

import parsergen
from parsergen.runtime.messages import without_cut_calls
from parsergen.runtime import accumulate
from support import goldens as event_goldens
from support.messages import MessageCase, differences, load

GOLDENS = Path(__file__).resolve().parent.parent / "goldens"
FORMATS = sorted(p.stem for p in GOLDENS.glob("*.messages"))


DIFFERENCES = differences(GOLDENS / "DIFFERENCES.md")


def _arguments(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return ("invalid JSON", text)


def _fields(reasoning, content, calls, with_ids: bool) -> dict:
    return {
        "reasoning": reasoning,
        "content": content,
        "calls": [((call_id if with_ids else None), name, _arguments(args))
                  for call_id, name, args in calls],
    }


def _message_cases():
    for fmt in FORMATS:
        file = load(GOLDENS / f"{fmt}.messages")
        for case in file.cases:
            yield pytest.param(fmt, file, case, id=f"{fmt}: {case.name}")


def _with_ids(module) -> bool:
    """Whether call ids are compared: only where the format writes them (Kimi's name
    pattern, Cohere's json_envelope id_key)."""
    pattern = module.ChatParser.TOOL_NAME_PATTERN
    return (pattern is not None and "id" in pattern.groupindex
            or bool(module.ChatParser.ARGUMENTS.get("id_key")))


def _assert_listed_differences(fmt: str, case: str, result: str, got: dict, want: dict) -> None:
    """Each field equals vLLM's, except where DIFFERENCES.md lists it (then it must differ)."""
    # An id vLLM made up (masked in the file, "*********") is compared by shape only:
    # a format that may write ids (Mistral's [CALL_ID]) makes its own when it does not.
    got["calls"] = [(w[0] if w[0] and "*" in w[0] and g[0] and len(g[0]) == len(w[0]) else g[0],
                     *g[1:]) if w is not None else g
                    for g, w in zip(got["calls"], [*want["calls"], *[None] * len(got["calls"])])]
    for field in ("reasoning", "content", "calls"):
        if (fmt, case, result, field) in DIFFERENCES:
            assert got[field] != want[field], f"{result} {field} now matches vLLM: drop the row"
        else:
            assert got[field] == want[field], (
                f"{result} {field} differs from vLLM: fix it, or list it in DIFFERENCES.md")


@pytest.mark.parametrize("fmt, file, case", list(_message_cases()))
def test_parse_matches_vllm_except_listed(fmt: str, file, case: MessageCase,
                                          get_tokenizer) -> None:
    # The format the case's request chooses (request_options: vLLM was given the same).
    module = parsergen.load(parsergen.variant(fmt, case.kwargs))
    ours = module.parse(case.text, tools=file.tools, tokenizer=get_tokenizer(file.tokenizer),
                        token_ids=case.ids, thinking=case.thinking)
    with_ids = _with_ids(module)
    got = _fields(ours.reasoning, ours.content,
                  [(c.id, c.name, c.arguments) for c in ours.tool_calls], with_ids)
    want = _fields(case.parse.reasoning, case.parse.content, case.parse.calls, with_ids)
    _assert_listed_differences(fmt, case.name, "parse", got, want)
    for call in ours.tool_calls:
        assert isinstance(json.loads(call.arguments), dict)


def _streamed_cases():
    for param in _message_cases():
        if param.values[2].stream is not None:
            yield param


@pytest.mark.parametrize("fmt, file, case", list(_streamed_cases()))
def test_stream_matches_vllm_except_listed(fmt: str, file, case: MessageCase,
                                           get_tokenizer) -> None:
    # vLLM's stream was captured one token per delta, with the detokenizer's text.
    module = parsergen.load(parsergen.variant(fmt, case.kwargs))
    tokenizer = get_tokenizer(file.tokenizer)
    decoder = DecodeStream(skip_special_tokens=False)
    chat = module.ChatParser(tokenizer, tools=file.tools, thinking=case.thinking)
    deltas = [chat.feed(decoder.step(tokenizer.backend_tokenizer, i) or "", [i])
              for i in case.ids]
    # Calls the completion cut off stay in the stream, as in vLLM's.
    ours = accumulate(deltas + [chat.finish()])
    with_ids = _with_ids(module)
    got = _fields(ours.reasoning, ours.content,
                  [(c.id, c.name, c.arguments) for c in ours.tool_calls], with_ids)
    want = _fields(case.stream.reasoning, case.stream.content, case.stream.calls, with_ids)
    _assert_listed_differences(fmt, case.name, "stream", got, want)


def _event_sections():
    for fmt in FORMATS:
        for golden in event_goldens.load(GOLDENS / f"{fmt}.golden"):
            yield pytest.param(fmt, golden, id=f"{fmt}: {golden.title}")


@pytest.mark.parametrize("fmt, golden", list(_event_sections()))
def test_stream_equals_parse(fmt: str, golden, get_tokenizer) -> None:
    tools = load(GOLDENS / f"{fmt}.messages").tools
    module = parsergen.load(fmt)
    tokenizer = None if golden.mode == "notok" else get_tokenizer(golden.tokenizer)
    all_ids = [t for ids, _ in golden.deltas for t in ids] if golden.mode == "ids" else None
    whole = module.parse("".join(t for _, t in golden.deltas), tools=tools, tokenizer=tokenizer,
                         token_ids=all_ids, thinking=golden.thinking, ids="sequential")
    for stream_calls in ("incremental", "complete"):
        parser = module.ChatParser(tokenizer, tools=tools, thinking=golden.thinking,
                                   ids="sequential", stream_calls=stream_calls)
        deltas = [parser.feed(text, ids) for ids, text in golden.deltas] + [parser.finish()]
        summed = accumulate(deltas)
        if stream_calls == "complete":  # a cut call is never sent: the deltas are parse()
            assert summed == dataclasses.replace(whole, cut_calls=())
        # Calls the completion cut off: sent in part or not at all; parse() has their text.
        streamed = without_cut_calls(summed, parser.cut_calls)
        assert streamed == whole, stream_calls
    for call in streamed.tool_calls:
        assert isinstance(json.loads(call.arguments), dict)


def test_differences_name_real_cases() -> None:
    known = {(fmt, case.name) for fmt in FORMATS
             for case in load(GOLDENS / f"{fmt}.messages").cases}
    assert DIFFERENCES, "goldens/DIFFERENCES.md lists no rows"
    for fmt, case, _, _ in DIFFERENCES:
        assert (fmt, case) in known


def test_differences_rows_are_read_and_reasons_explained() -> None:
    text = (GOLDENS / "DIFFERENCES.md").read_text(encoding="utf-8")
    table = text.partition("\n## Event departures\n")[0]  # the message table comes first
    rows = [line for line in table.splitlines() if line.startswith("| ")]
    assert len(rows) - 2 == len(DIFFERENCES), "a table row the test does not read"
    explained = set(re.findall(r"^- \*\*([^*]+)\*\*", text, re.M))
    assert set(DIFFERENCES.values()) <= explained, "a reason with no paragraph under 'The reasons'"
