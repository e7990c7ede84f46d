"""Replay the real-world corpus (tests/corpus/): completions models really wrote, taken
from public bug reports, each checked against the message the model meant.

Every case is parsed whole, one character per delta and in seeded random 1-8 character
pieces (and one token per delta where a real tokenizer reproduces its text); the summed
deltas must equal ``parse()`` and ``expected``.  A case with ``known_wrong`` is a strict
xfail: it must fail until the fix it names lands.  See tests/corpus/README.md.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

import parsergen
from parsergen.runtime import accumulate
from parsergen.runtime.messages import ParsedMessage, without_cut_calls
from support.streams import text_pieces, token_deltas

CORPUS = Path(__file__).resolve().parent / "corpus"
REQUIRED = {"source", "quote", "model", "format", "completion", "expected"}
OPTIONAL = {"thinking", "prompt_text", "tools", "known_wrong", "notes"}
EXPECTED_KEYS = {"reasoning", "content", "tool_calls", "cut_calls"}
CALL_KEYS = {"name", "arguments"}

# The real tokenizer (tests/support/tokenizers.py) of a format, by name prefix: only
# these reproduce a model's own token ids; the others are byte-level stand-ins.
REAL_TOKENIZERS = (("qwen3", "qwen3.6"), ("hermes", "qwen3.6"), ("deepseek", "deepseek"),
                   ("mistral", "tekken"))


class CaseError(ValueError):
    """A case file that does not follow the corpus format."""


@dataclass(frozen=True)
class Case:
    """One corpus case, checked against the schema."""

    path: Path
    data: dict[str, Any]

    @property
    def id(self) -> str:
        """The case's test id: family/slug."""
        return str(self.path.relative_to(CORPUS).with_suffix(""))


def _fail(path: Path, why: str) -> CaseError:
    return CaseError(f"{path.relative_to(CORPUS.parent)}: {why}")


def check_case(path: Path, data: Any) -> Case:
    """``data`` read from ``path`` as a Case; CaseError naming the file if it is not one."""
    if not isinstance(data, dict):
        raise _fail(path, "a case is a YAML mapping")
    missing = REQUIRED - data.keys()
    if missing:
        raise _fail(path, f"missing required keys {sorted(missing)}")
    unknown = data.keys() - REQUIRED - OPTIONAL
    if unknown:
        raise _fail(path, f"unknown keys {sorted(unknown)}")
    for key in ("source", "quote", "model", "format", "completion"):
        if not isinstance(data[key], str) or not data[key]:
            raise _fail(path, f"{key} must be a non-empty string")
    if not data["source"].startswith("https://"):
        raise _fail(path, "source must be a https:// link")
    if data["format"] not in parsergen.formats() and data["format"] not in parsergen.aliases():
        raise _fail(path, f"format {data['format']!r} is not a bundled format")
    for key in ("known_wrong", "notes", "prompt_text"):
        if key in data and not isinstance(data[key], str):
            raise _fail(path, f"{key} must be a string")
    if "thinking" in data and not isinstance(data["thinking"], (bool, type(None))):
        raise _fail(path, "thinking must be true, false or null")
    if "tools" in data and not isinstance(data["tools"], list):
        raise _fail(path, "tools must be a list of OpenAI tools")
    expected = data["expected"]
    if not isinstance(expected, dict):
        raise _fail(path, "expected must be a mapping")
    unknown = expected.keys() - EXPECTED_KEYS
    if unknown:
        raise _fail(path, f"unknown keys in expected: {sorted(unknown)}")
    for key in ("reasoning", "content"):
        if not isinstance(expected.get(key), (str, type(None))):
            raise _fail(path, f"expected.{key} must be a string or null")
    if not isinstance(expected.get("cut_calls", 0), int):
        raise _fail(path, "expected.cut_calls must be an integer")
    calls = expected.get("tool_calls") or []
    if not isinstance(calls, list):
        raise _fail(path, "expected.tool_calls must be a list")
    for i, call in enumerate(calls):
        if not isinstance(call, dict) or call.keys() != CALL_KEYS:
            raise _fail(path, f"expected.tool_calls[{i}] must have exactly {sorted(CALL_KEYS)}")
        if not isinstance(call["name"], str) or not isinstance(call["arguments"], dict):
            raise _fail(path, f"expected.tool_calls[{i}]: name is a string, arguments a mapping")
    return Case(path, data)


def load_case(path: Path) -> Case:
    """Read and check one case file."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise _fail(path, f"not valid YAML: {exc}") from exc
    return check_case(path, data)


def _files() -> list[Path]:
    return sorted(CORPUS.glob("*/*.yaml"))


def _params() -> list[Any]:
    params = []
    for path in _files():
        case_id = str(path.relative_to(CORPUS).with_suffix(""))
        try:
            case = load_case(path)
        except CaseError:
            continue  # test_cases_follow_the_schema names it
        marks = []
        if "known_wrong" in case.data:
            marks.append(pytest.mark.xfail(reason=case.data["known_wrong"], strict=True))
        params.append(pytest.param(case, id=case_id, marks=marks))
    return params


CASES = _params()
CADENCES = ("whole", "char", "random", "tokens")


# -- running a case ---------------------------------------------------------------------

def _parser(case: Case, tokenizer: Any = None) -> Any:
    d = case.data
    parser = parsergen.load(d["format"]).ChatParser(tokenizer, tools=d.get("tools"),
                                                    thinking=d.get("thinking"))
    parser.initialize(prompt_text=d.get("prompt_text"))
    return parser


def _parse(case: Case, tokenizer: Any = None, ids: list[int] | None = None) -> ParsedMessage:
    d = case.data
    return parsergen.load(d["format"]).ChatParser.parse(
        d["completion"], tools=d.get("tools"), thinking=d.get("thinking"),
        prompt_text=d.get("prompt_text"), tokenizer=tokenizer, token_ids=ids)


def _pieces(text: str, cadence: str, seed: str) -> list[tuple[str, list[int]]]:
    if cadence == "whole":
        return [(text, [])]
    if cadence == "char":
        return [(ch, []) for ch in text]
    return text_pieces(text, random.Random(seed))


def _stream(case: Case, deltas: list[tuple[str, list[int]]],
            tokenizer: Any = None) -> tuple[ParsedMessage, int]:
    """The message a client sums from the deltas (cut calls taken out, as parse() does),
    and how many calls were cut."""
    parser = _parser(case, tokenizer)
    out = [parser.feed(text, ids) for text, ids in deltas]
    out.append(parser.finish())
    return without_cut_calls(accumulate(out), parser.cut_calls), len(parser.cut_calls)


def _real_tokenizer(fmt: str) -> str | None:
    fmt = parsergen.aliases().get(fmt, fmt)
    for prefix, name in REAL_TOKENIZERS:
        if fmt.startswith(prefix):
            return name
    return None


def _token_deltas(case: Case, get_tokenizer: Any) -> tuple[Any, list[tuple[str, list[int]]]]:
    """The case as one token per delta, or skip when no real tokenizer spells it back."""
    name = _real_tokenizer(case.data["format"])
    if name is None:
        pytest.skip("no real tokenizer for this format")
    tokenizer = get_tokenizer(name)
    text = case.data["completion"]
    ids = tokenizer.encode(text, add_special_tokens=False)
    deltas = token_deltas(tokenizer, ids)
    if "".join(t for t, _ in deltas) != text:
        pytest.skip(f"{name} does not reproduce the text")
    return tokenizer, deltas


def _shape(msg: ParsedMessage) -> dict[str, Any]:
    """What the corpus compares: stripped texts (empty is null), names and parsed arguments."""
    calls = []
    for call in msg.tool_calls:
        try:
            args: Any = json.loads(call.arguments)
        except ValueError:
            args = f"<not JSON: {call.arguments!r}>"
        calls.append({"name": call.name, "arguments": args})
    return {"reasoning": (msg.reasoning or "").strip() or None,
            "content": (msg.content or "").strip() or None, "tool_calls": calls}


def _expected(case: Case) -> dict[str, Any]:
    e = case.data["expected"]
    return {"reasoning": (e.get("reasoning") or "").strip() or None,
            "content": (e.get("content") or "").strip() or None,
            "tool_calls": [dict(c) for c in e.get("tool_calls") or []]}


def _exact(msg: ParsedMessage) -> tuple:
    """A message without its random call ids: what stream == parse compares."""
    return (msg.reasoning, msg.content, [(c.name, c.arguments) for c in msg.tool_calls])


# -- tests ------------------------------------------------------------------------------

def test_cases_follow_the_schema() -> None:
    errors = []
    for path in _files():
        try:
            load_case(path)
        except CaseError as exc:
            errors.append(str(exc))
    assert not errors, "\n".join(errors)
    stray = [p for p in CORPUS.rglob("*") if p.is_file() and p.suffix != ".yaml"
             and p.name != "README.md"]
    assert not stray, f"files that are not cases: {stray}"


def test_schema_check_names_the_file(tmp_path: Path) -> None:
    path = CORPUS / "x" / "bad.yaml"
    with pytest.raises(CaseError, match=r"corpus/x/bad\.yaml: missing required keys"):
        check_case(path, {"source": "https://example.org"})
    good = {"source": "https://example.org", "quote": "q", "model": "m", "format": "hermes",
            "completion": "hi", "expected": {"content": "hi"}}
    check_case(path, good)
    with pytest.raises(CaseError, match=r"bad\.yaml: unknown keys \['extra'\]"):
        check_case(path, {**good, "extra": 1})
    with pytest.raises(CaseError, match=r"bad\.yaml: unknown keys in expected"):
        check_case(path, {**good, "expected": {"text": "hi"}})
    with pytest.raises(CaseError, match=r"bad\.yaml: format 'nope'"):
        check_case(path, {**good, "format": "nope"})


def test_corpus_is_not_empty() -> None:
    assert len(CASES) >= 250  # (issue 36 item 4)


@pytest.mark.parametrize("cadence", CADENCES)
@pytest.mark.parametrize("case", CASES)
def test_case(case: Case, cadence: str, get_tokenizer: Any) -> None:
    tokenizer, ids = None, None
    if cadence == "tokens":
        tokenizer, deltas = _token_deltas(case, get_tokenizer)
        ids = [i for _, delta_ids in deltas for i in delta_ids]
    else:
        deltas = _pieces(case.data["completion"], cadence, case.id)
    parsed = _parse(case, tokenizer, ids)
    streamed, cut = _stream(case, deltas, tokenizer)
    assert _exact(streamed) == _exact(parsed), "stream != parse"
    assert _shape(parsed) == _expected(case)
    assert cut == case.data["expected"].get("cut_calls", 0), "cut calls"
