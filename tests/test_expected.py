"""parsergen's own-golden formats against hand-written expected messages.

The event goldens of formats vLLM parses by hand (goldens/<format>.golden) are
parsergen's own output: change detectors. goldens/expected/<format>.expected holds, per
corpus case, the message the model meant, written by hand from the format's public
documentation (sources named per case). Here every case is parsed with token ids and
without, and every golden section's deltas (all cadences and modes) are streamed
through ChatParser; each result must be that message. The goldens supply only inputs
(deltas and token ids), never expectations. The expected messages are also
cross-checked with vLLM's legacy parsers (goldens/<format>.messages): they agree but
where goldens/DIFFERENCES.md lists a deliberate difference.

A marker typed byte by byte inside prose (a ``Lit`` part of the case) is prose only
when token ids say so; without ids it is the marker (README: Broken output), and no
source defines what the model meant then, so those cases are checked with ids only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import parsergen
from parsergen.runtime import accumulate
from parsergen.runtime.messages import ParsedMessage, without_cut_calls
from support import expected as expected_files
from support import goldens as event_goldens
from support import messages as vllm_messages

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from golden_corpus import CORPUS, REFERENCES, TOOLS, Lit  # noqa: E402

OWN = sorted(fmt for fmt, ref in REFERENCES.items() if ref.parser is None)
EXPECTED = {fmt: {e.case: e for e in expected_files.load(ROOT / "goldens" / "expected"
                                                        / f"{fmt}.expected")}
            for fmt in OWN}
SECTIONS = {fmt: event_goldens.load(ROOT / "goldens" / f"{fmt}.golden") for fmt in OWN}
# Cases that type a marker as prose: their meaning needs the token ids.
NEEDS_IDS = {(fmt, case.name) for fmt in OWN for case in CORPUS[fmt]
             if any(isinstance(part, Lit) for part in case.parts)}

# Where parsergen's message is not the meant one: (format, case) -> why (strict xfails).
WRONG: dict[tuple[str, str], str] = {
    ("xlam", "answer_object_array"): (
        "issue 38 item 2: a terminal that counts only when what follows parses; until then "
        "xLAM's [ before a brace is the calls' marker and an answer array loses its brackets"),
}


def _param(fmt: str, case: str, value: Any, title: str) -> Any:
    """A test parameter, expected to fail (strictly) where parsergen is known wrong."""
    wrong = WRONG.get((fmt, case))
    marks = [pytest.mark.xfail(strict=True, reason=wrong)] if wrong else []
    return pytest.param(fmt, value, id=f"{fmt}: {title}", marks=marks)


def _arguments(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return ["invalid JSON", text]


def _message(message: ParsedMessage) -> dict[str, Any]:
    """Reasoning, content, calls (name, parsed arguments) and cut calls of a message."""
    return {"reasoning": message.reasoning, "content": message.content,
            "calls": [[call.name, _arguments(call.arguments)] for call in message.tool_calls],
            "cut_calls": list(message.cut_calls)}


def _whole(fmt: str, case: str) -> event_goldens.Golden:
    """The case's one-delta section with token ids: its text and all its ids."""
    return next(g for g in SECTIONS[fmt] if g.case == case and g.title.endswith("| whole | ids"))


def _cases(with_ids: bool, untyped: bool = False):
    for fmt in OWN:
        for case in CORPUS[fmt]:
            if untyped and EXPECTED[fmt][case.name].schema_typed:
                continue
            if with_ids or (fmt, case.name) not in NEEDS_IDS:
                yield _param(fmt, case.name, case.name, case.name)


@pytest.mark.parametrize("fmt", OWN)
def test_expected_file_covers_the_corpus(fmt: str) -> None:
    """One hand-written message per corpus case, in corpus order, each with its source."""
    cases = list(EXPECTED[fmt].values())
    assert [(e.case, e.thinking) for e in cases] == [(c.name, c.thinking) for c in CORPUS[fmt]]
    for e in cases:
        assert e.why, f"{e.case}: no rule given"
        assert e.source.startswith(("https://", "README.md#", "goldens/DIFFERENCES.md")), (
            f"{e.case}: source {e.source!r} is neither a public URL nor a documented policy")


@pytest.mark.parametrize("fmt, case", list(_cases(with_ids=True)))
def test_parse_with_ids(fmt: str, case: str, get_tokenizer) -> None:
    """parse() with the tokenizer and the completion's token ids gives the meant message."""
    golden, want = _whole(fmt, case), EXPECTED[fmt][case]
    ids = [t for delta_ids, _ in golden.deltas for t in delta_ids]
    got = parsergen.load(fmt).parse(golden.text, tools=TOOLS,
                                    tokenizer=get_tokenizer(golden.tokenizer), token_ids=ids,
                                    thinking=want.thinking)
    assert _message(got) == want.message(), want.why


@pytest.mark.parametrize("fmt, case", list(_cases(with_ids=False)))
def test_parse_without_ids(fmt: str, case: str, get_tokenizer) -> None:
    """parse() of the text alone, with the tokenizer and with none, gives the meant message."""
    golden, want = _whole(fmt, case), EXPECTED[fmt][case]
    module = parsergen.load(fmt)
    for tokenizer in (get_tokenizer(golden.tokenizer), None):
        got = module.parse(golden.text, tools=TOOLS, tokenizer=tokenizer, thinking=want.thinking)
        assert _message(got) == want.message(), f"tokenizer={tokenizer is not None}: {want.why}"


@pytest.mark.parametrize("fmt, case", list(_cases(with_ids=True, untyped=True)))
def test_parse_without_tools(fmt: str, case: str, get_tokenizer) -> None:
    """Without the request's tools, a message no schema types is the same (JSON as written)."""
    golden, want = _whole(fmt, case), EXPECTED[fmt][case]
    ids = [t for delta_ids, _ in golden.deltas for t in delta_ids]
    got = parsergen.load(fmt).parse(golden.text, tokenizer=get_tokenizer(golden.tokenizer),
                                    token_ids=ids, thinking=want.thinking)
    assert _message(got) == want.message(), want.why


def _sections():
    for fmt in OWN:
        for golden in SECTIONS[fmt]:
            if golden.mode == "ids" or (fmt, golden.case) not in NEEDS_IDS:
                yield _param(fmt, golden.case, golden, golden.title)


@pytest.mark.parametrize("fmt, golden", list(_sections()))
def test_stream_gives_expected(fmt: str, golden: event_goldens.Golden, get_tokenizer) -> None:
    """ChatParser's accumulated deltas, over every cadence and mode, give the meant message
    (with the calls the completion cut off, which only stream_calls="incremental" sent)."""
    want = EXPECTED[fmt][golden.case]
    tokenizer = None if golden.mode == "notok" else get_tokenizer(golden.tokenizer)
    for stream_calls in ("incremental", "complete"):
        parser = parsergen.load(fmt).ChatParser(tokenizer, tools=TOOLS, thinking=want.thinking,
                                                stream_calls=stream_calls)
        deltas = [parser.feed(text, ids) for ids, text in golden.deltas] + [parser.finish()]
        summed = accumulate(deltas)
        if stream_calls == "complete":
            assert len(summed.tool_calls) == len(want.calls), "a cut call was sent"
        streamed = without_cut_calls(summed, parser.cut_calls)
        assert _message(streamed) == want.message(), f"{stream_calls}: {want.why}"


def _listed_differences() -> set[tuple[str, str, str]]:
    """(format, case, field) rows of goldens/DIFFERENCES.md: parsergen differs from vLLM."""
    rows = vllm_messages.differences(ROOT / "goldens" / "DIFFERENCES.md")
    return {(fmt, case, field) for fmt, case, result, field in rows if result == "parse"}


@pytest.mark.parametrize("fmt", [f for f in OWN if (ROOT / "goldens" / f"{f}.messages").is_file()])
def test_expected_agrees_with_vllm_except_listed(fmt: str) -> None:
    """The hand-written messages are vLLM's legacy-parser results, but where DIFFERENCES.md
    says parsergen differs on purpose (cases where parsergen is known wrong aside)."""
    listed = _listed_differences()
    file = vllm_messages.load(ROOT / "goldens" / f"{fmt}.messages")
    theirs = {c.name: c.parse for c in file.cases}
    for case, want in EXPECTED[fmt].items():
        if (fmt, case) in WRONG:
            continue  # the row there records parsergen's mistake, not a choice
        vllm = theirs[case]
        got = {"reasoning": vllm.reasoning, "content": vllm.content,
               "calls": [[name, _arguments(arguments)] for _, name, arguments in vllm.calls]}
        mine = want.message()
        for field in ("reasoning", "content", "calls"):
            differs = mine[field] != got[field]
            assert differs == ((fmt, case, field) in listed), (
                f"{case} {field}: the expected message {'differs from' if differs else 'equals'} "
                f"vLLM's, and DIFFERENCES.md {'does not list' if differs else 'lists'} it")
