"""A terminal that counts only when a follower comes next (``followed_by``): held until
what follows shows, else plain text; the stream gives what ``parse()`` gives, with and
without token ids, in every cadence."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

import parsergen
from parsergen.compiler import SpecError, compile_spec
from parsergen.runtime import accumulate
from parsergen.runtime.sequences import FollowHold
from parsergen.runtime.tokens import Marker
from support.specs import build
from support.streams import cadences
from support.tokenizers import internlm

ACTION = """
    name: follow_action
    description: InternLM-style actions, a call only before <|plugin|>
    terminals:
      ACTION_START: {text: "<|action_start|>", token_id: true, followed_by: [PLUGIN]}
      PLUGIN: {text: "<|plugin|>", token_id: true}
      ACTION_END: {text: "<|action_end|>", token_id: true}
    transitions:
      CONTENT:
        ACTION_START: TOOL_PREAMBLE
      TOOL_PREAMBLE:
        PLUGIN: {to: TOOL_ARGS, emit: [TOOL_CALL_START]}
      TOOL_ARGS:
        ACTION_END: {to: CONTENT, emit: [TOOL_CALL_END]}
    arguments: {syntax: json_envelope, name_key: name, argument_keys: [parameters]}
    render:
      call: '${ACTION_START}${PLUGIN}\\n{"name": ${name_json}, "parameters": ${arguments}}${ACTION_END}'
    """
FUNCTOOLS = """
    name: follow_list
    description: Phi-4-mini-style calls, functools[ only before a call's brace
    terminals:
      FUNCTOOLS: {text: "functools[", followed_by: [{text: "{"}]}
      CALL_OPEN: "{"
      CALLS_CLOSE: "]"
    transitions:
      CONTENT:
        FUNCTOOLS: TOOL_BETWEEN
      TOOL_BETWEEN:
        CALL_OPEN: {to: TOOL_ARGS, emit: [TOOL_CALL_START, ARG_VALUE_CHUNK]}
        CALLS_CLOSE: CONTENT
    tool_body: json_object
    arguments: {syntax: json_envelope, name_key: name, argument_keys: [arguments]}
    render:
      calls_open: "${FUNCTOOLS}"
      call: '{"name": ${name_json}, "arguments": ${arguments}}'
      separator: ", "
      calls_close: "${CALLS_CLOSE}"
    """
CALL = '<|action_start|><|plugin|>\n{"name": "f", "parameters": {"a": 1}}<|action_end|>'
F_CALL = [("f", {"a": 1})]


def _message(parsed: Any) -> tuple:
    return (parsed.content, [(c.name, json.loads(c.arguments)) for c in parsed.tool_calls])


def _stream(module: Any, deltas: list[tuple[str, list[int]]], tokenizer: Any = None) -> tuple:
    chat = module.ChatParser(tokenizer)
    out = [chat.feed(text, ids) for text, ids in deltas]
    out.append(chat.finish())
    return _message(accumulate(out))


def _check(module: Any, text: str, tokenizer: Any = None) -> tuple:
    """The message ``text`` gives, the same whole and in every cadence (with the ids
    ``tokenizer`` spells it with, where given)."""
    ids = tokenizer.encode(text, add_special_tokens=False) if tokenizer is not None else None
    whole = _message(module.parse(text, tokenizer=tokenizer, token_ids=ids))
    for name, deltas in cadences(text, tokenizer).items():
        assert _stream(module, deltas, tokenizer) == whole, name
    return whole


@pytest.fixture(scope="module")
def action(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return build(tmp_path_factory.mktemp("action"), ACTION, "follow_action")


@pytest.fixture(scope="module")
def functools(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return build(tmp_path_factory.mktemp("functools"), FUNCTOOLS, "follow_list")


@pytest.mark.parametrize("ids", [False, True])
def test_a_marker_counts_before_its_follower(action: Any, ids: bool) -> None:
    tokenizer = internlm() if ids else None
    assert _check(action, "a" + CALL + "b", tokenizer) == ("ab", F_CALL)
    assert _check(action, CALL, tokenizer) == (None, F_CALL)


@pytest.mark.parametrize("text", [
    "a<|action_start|><|interpreter|>print(1)<|action_end|>c",
    "x<|action_start|>",
    "x<|action_start|> <|plugin|>y",
    "<|action_start|><|action_start|>",
])
def test_anything_else_after_it_makes_it_text(action: Any, text: str) -> None:
    assert _check(action, text) == (text, [])
    content, calls = _check(action, text, internlm())
    assert calls == [] and "<|action_start|>" in content


def test_a_marker_then_its_twin_then_the_follower(action: Any) -> None:
    text = "<|action_start|>" + CALL
    assert _check(action, text) == ("<|action_start|>", F_CALL)
    assert _check(action, text, internlm()) == ("<|action_start|>", F_CALL)


def test_a_text_follower(functools: Any) -> None:
    prose = "use functools[] or functools[0] and functools["
    assert _check(functools, prose) == (prose, [])
    calls = 'functools[{"name": "f", "arguments": {"a": 1}}]'
    assert _check(functools, "Hi " + calls) == ("Hi", F_CALL)


def test_hold_gives_a_token_back_as_text_once_no_follower_can_come() -> None:
    start, plugin = Marker("A", "<a>"), Marker("P", "<p>")
    hold = FollowHold({"A": (frozenset({"P"}), ("<q>",))})
    assert hold.feed([start]) == [] and hold.held
    assert hold.feed([plugin]) == [start, plugin] and not hold.held
    assert hold.feed([start, "<"]) == []
    assert hold.feed(["q>x"]) == [start, "<q>x"]
    assert hold.feed([start, "<r"]) == ["<a>", "<r"]
    assert hold.feed([start, "<", plugin]) == ["<a>", "<", plugin]
    assert hold.feed([start]) == [] and hold.flush() == ["<a>"]
    # An empty text (an empty delta) shows nothing: the marker is still held.
    assert hold.feed([start, ""]) == [] and hold.held
    assert hold.feed([plugin]) == [start, plugin]


def test_unknown_follower_is_an_error(tmp_path: Path) -> None:
    spec = textwrap.dedent(ACTION).replace("followed_by: [PLUGIN]", "followed_by: [PLUGN]")
    path = tmp_path / "bad.yaml"
    path.write_text(spec.lstrip("\n"), encoding="utf-8")
    with pytest.raises(SpecError) as info:
        compile_spec(path, path.name)
    assert any("unknown terminal 'PLUGN'" in str(d) for d in info.value.diagnostics)


# -- the bundled grammars that use it --------------------------------------------------


@pytest.mark.parametrize("ids", [False, True])
def test_internlm_interpreter_block_is_content(ids: bool) -> None:
    """InternLM's <|action_start|> starts a call only before <|plugin|>: a code
    interpreter block (<|action_start|><|interpreter|>) is content, every character of
    it (before, the marker was dropped, and with ids <|interpreter|> too)."""
    internlm_format = parsergen.load("internlm")
    block = "Run it.<|action_start|><|interpreter|>\nprint(1)<|action_end|>Done."
    assert _check(internlm_format, block, internlm() if ids else None) == (block, [])
    call = '<|action_start|><|plugin|>\n{"name": "f", "parameters": {"a": 1}}<|action_end|>'
    assert _check(internlm_format, block + call, internlm() if ids else None) == (
        block, F_CALL)


def test_internlm_marker_typed_in_prose_keeps_its_place() -> None:
    """Without ids, <|action_start|> quoted before other text is that text, in place
    (before, it was dropped and the text after it came out of order)."""
    internlm_format = parsergen.load("internlm")
    text = "Calls start with <|action_start|>. " + CALL
    # (Whitespace right before a call is dropped: README, vLLM's default.)
    assert _check(internlm_format, text) == ("Calls start with <|action_start|>.", F_CALL)


@pytest.mark.parametrize("prose", [
    "Use functools[0] here.",
    "x = functools[] ok",
    "[functools[i] for i in x]",
    "ends with functools[",
])
def test_phi4_mini_functools_index_in_prose_is_content(prose: str) -> None:
    """Phi-4-mini's functools[ opens a list of calls only before a call's brace (or
    the whitespace before one); indexing in prose stays content, with its brackets."""
    phi4 = parsergen.load("phi4_mini_json")
    assert _check(phi4, prose) == (prose, [])
    calls = 'functools[\n  {"name": "f", "arguments": {"a": 1}}\n]'
    if not prose.endswith("["):  # (before a space, functools[ would open the list)
        assert _check(phi4, prose + " " + calls) == (prose, F_CALL)
