"""Replay vLLM's goldens through the generated parsers: same events, never later."""

from __future__ import annotations

from pathlib import Path

import pytest

import parsergen
from parsergen.runtime import SemanticEvent, merge_chunks
from support.goldens import Golden, load

GOLDENS = Path(__file__).resolve().parent.parent / "goldens"
FILES = sorted(GOLDENS.glob("*.golden"))


def _sections() -> list:
    params = []
    for path in FILES:
        fmt = path.stem
        for g in load(path):
            params.append(pytest.param(fmt, g, id=f"{fmt}: {g.title}"))
    return params


def _as_tuples(events: list[SemanticEvent]) -> list[tuple[str, int, str]]:
    return [(e.type.name, e.tool_index, e.value) for e in merge_chunks(events)]


def _covers(ours: list[tuple[str, int, str]], ref: list[tuple[str, int, str]]) -> bool:
    """True if ``ours`` has emitted at least what ``ref`` had (a chunk may be longer)."""
    if len(ours) < len(ref):
        return False
    for i, (a, b) in enumerate(zip(ours, ref)):
        if a == b:
            continue
        last = i == len(ref) - 1
        if not (last and a[:2] == b[:2] and a[2].startswith(b[2])):
            return False
    return True


def test_golden_files_exist():
    assert {p.stem for p in FILES} >= {"qwen3", "seed_oss", "kimi_k2"}


@pytest.mark.parametrize("fmt, golden", _sections())
def test_replay(fmt: str, golden: Golden, get_tokenizer, tokenizer_fingerprint) -> None:
    tokenizer = get_tokenizer(golden.tokenizer)
    assert tokenizer_fingerprint(golden.tokenizer) == golden.fingerprint, "tokenizer drifted"
    module = parsergen.load(fmt)
    parser = module.StreamingParser(
        None if golden.mode == "notok" else tokenizer, thinking=golden.thinking
    )
    ours: list[SemanticEvent] = []
    ref: list[tuple[str, int, str]] = []
    for i, (ids, text) in enumerate(golden.deltas):
        ours += parser.feed(text, ids)
        ref += [(kind, index, value) for at, kind, index, value in golden.events if at == i]
        so_far = _as_tuples(ours)
        assert _covers(so_far, _merge_ref(ref)), (
            f"after delta {i} we hold back more than vLLM:\nours {so_far}\nvLLM {_merge_ref(ref)}"
        )
    ours += parser.finish()
    ref += [(kind, index, value) for at, kind, index, value in golden.events if at < 0]
    assert _as_tuples(ours) == _merge_ref(ref)


def _merge_ref(ref: list[tuple[str, int, str]]) -> list[tuple[str, int, str]]:
    from parsergen.runtime import EventType

    return _as_tuples([SemanticEvent(EventType[k], v, i) for k, i, v in ref])
