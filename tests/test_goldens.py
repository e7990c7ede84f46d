"""Replay vLLM's goldens through the generated parsers: same events, never later.

Where parsergen departs from vLLM's events on purpose, goldens/DIFFERENCES.md lists the
section in its "Event departures" table (the goldens stay vLLM's, never edited): such
a section must still differ from vLLM's events, so the table stays true, and its
streamed ChatParser deltas must add up to parse().
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import parsergen
from parsergen.runtime import SemanticEvent, accumulate, merge_chunks
from parsergen.runtime.messages import without_cut_calls
from support.goldens import Golden, departs, event_departures, load
from support.messages import load as load_messages

GOLDENS = Path(__file__).resolve().parent.parent / "goldens"
FILES = sorted(GOLDENS.glob("*.golden"))
DEPARTURES = event_departures(GOLDENS / "DIFFERENCES.md")
# A departure in time only: vLLM's events, some of them later (a call marker typed in
# reasoning waits for what follows it: compiler/gates.py).
HELD = "call marker in reasoning waits"


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
    why = departs(DEPARTURES, fmt, golden)
    if why == HELD:
        _replay_held(module, golden, tokenizer)
        return
    if why is not None:
        _check_departure(module, fmt, golden, tokenizer)
        return
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


def _replay_held(module, golden: Golden, tokenizer) -> bool:
    """A section listed as held: vLLM's events in the end, exactly; returns whether some
    came later than vLLM's."""
    parser = module.StreamingParser(None if golden.mode == "notok" else tokenizer,
                                    thinking=golden.thinking)
    ours: list[SemanticEvent] = []
    ref: list[tuple[str, int, str]] = []
    late = False
    for i, (ids, text) in enumerate(golden.deltas):
        ours += parser.feed(text, ids)
        ref += [(kind, index, value) for at, kind, index, value in golden.events if at == i]
        late = late or not _covers(_as_tuples(ours), _merge_ref(ref))
    ours += parser.finish()
    ref += [(kind, index, value) for at, kind, index, value in golden.events if at < 0]
    assert _as_tuples(ours) == _merge_ref(ref)
    return late


def test_held_departures_are_late(get_tokenizer) -> None:
    """Every held row names sections where some event does come later than vLLM's."""
    rows = [(f, case, where) for (f, case, where), why in DEPARTURES.items() if why == HELD]
    assert rows
    for fmt, case, where in rows:
        module = parsergen.load(fmt)
        sections = [g for g in load(GOLDENS / f"{fmt}.golden")
                    if departs({(fmt, case, where): HELD}, fmt, g) is not None]
        assert any(_replay_held(module, g, get_tokenizer(g.tokenizer)) for g in sections), (
            f"{fmt} {case} {where}: no event comes later: drop its row")


def _merge_ref(ref: list[tuple[str, int, str]]) -> list[tuple[str, int, str]]:
    from parsergen.runtime import EventType

    return _as_tuples([SemanticEvent(EventType[k], v, i) for k, i, v in ref])


def _check_departure(module, fmt: str, golden: Golden, tokenizer) -> None:
    """A listed section: still not vLLM's events, and parsergen's stream equals its parse()."""
    parser = module.StreamingParser(None if golden.mode == "notok" else tokenizer,
                                    thinking=golden.thinking)
    ours: list[SemanticEvent] = []
    for ids, text in golden.deltas:
        ours += parser.feed(text, ids)
    ours += parser.finish()
    ref = _merge_ref([(kind, index, value) for _, kind, index, value in golden.events])
    assert _as_tuples(ours) != ref, "now replays vLLM's events: drop its Event departures row"
    messages = GOLDENS / f"{fmt}.messages"
    tools = load_messages(messages).tools if messages.is_file() else None
    tok = None if golden.mode == "notok" else tokenizer
    chat = module.ChatParser(tok, tools=tools, thinking=golden.thinking, ids="sequential")
    deltas = [chat.feed(text, ids) for ids, text in golden.deltas] + [chat.finish()]
    streamed = without_cut_calls(accumulate(deltas), chat.cut_calls)
    all_ids = [t for ids, _ in golden.deltas for t in ids] if golden.mode == "ids" else None
    whole = module.parse("".join(t for _, t in golden.deltas), tools=tools, tokenizer=tok,
                         token_ids=all_ids, thinking=golden.thinking, ids="sequential")
    assert streamed == whole


def test_event_departures_name_real_sections() -> None:
    """Every row of the table matches a golden section, and its reason is explained."""
    sections = {(path.stem, g.case, g.cadence, g.mode) for path in FILES for g in load(path)}
    for (fmt, case, where), why in DEPARTURES.items():
        cadence, _, mode = where.partition("/")
        assert any(f == fmt and c == case and (where == "*" or cadence in ("*", cd)
                                                and mode in ("*", md))
                   for f, c, cd, md in sections), f"no golden section {fmt} {case} {where}"
    text = (GOLDENS / "DIFFERENCES.md").read_text(encoding="utf-8")
    explained = set(re.findall(r"^- \*\*([^*]+)\*\*", text, re.M))
    assert set(DEPARTURES.values()) <= explained, "a reason with no paragraph under 'The reasons'"
    table = text.partition("\n## Event departures\n")[2].split("\n## ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| ")]
    assert DEPARTURES and len(rows) - 2 == len(DEPARTURES), "a table row the test does not read"
