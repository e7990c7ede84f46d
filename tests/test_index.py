"""The format index (generated/__init__.py): what routing and integrations read.

Each entry is derived by the compiler from the IR; these tests hold it to what each
generated module's own ``SPEC`` says, so the two cannot drift apart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import parsergen
from parsergen import integrations
from parsergen.compiler import cli
from parsergen.generated import ALIASES, FORMATS, INDEX
from parsergen.index import FormatEntry, ModelPattern


def _first_spelling(terminal: Any) -> str:
    """A terminal's canonical spelling, read from the raw spec (the first text)."""
    text = terminal["text"] if isinstance(terminal, dict) else terminal
    return text if isinstance(text, str) else text[0]


def test_the_index_lists_every_format_once_sorted() -> None:
    assert tuple(e.name for e in INDEX) == FORMATS == tuple(sorted(FORMATS))
    assert all(isinstance(e, FormatEntry) for e in INDEX)
    assert ALIASES == {a: e.name for e in INDEX for a in e.aliases}


@pytest.mark.parametrize("name", FORMATS)
def test_the_index_agrees_with_the_module(name: str) -> None:
    spec = parsergen.load(name).SPEC
    entry = parsergen.entry(name)
    assert entry.name == spec["name"] == name
    assert entry.description == spec["description"]
    assert sorted(entry.aliases) == sorted(spec.get("aliases", ()))
    assert entry.models == tuple(ModelPattern(m) if isinstance(m, str) else ModelPattern(**m)
                                 for m in spec.get("models", ()))
    switch = [(e, None, None) if isinstance(e, str) else (e["key"], e.get("on"), e.get("off"))
              for e in spec.get("thinking_switch", ())]
    assert list(entry.thinking_switch) == switch
    terminals = spec["terminals"]
    token_ids = {n for n, t in terminals.items() if isinstance(t, dict) and t.get("token_id")}
    assert sorted(entry.token_markers) == sorted(
        _first_spelling(terminals[n]) for n in token_ids)
    assert sorted(entry.text_markers) == sorted(
        _first_spelling(t) for n, t in terminals.items() if n not in token_ids)
    assert sorted(entry.preserve_tokens) == sorted(spec.get("preserve_tokens", ()))
    reasoning = spec.get("reasoning")
    assert entry.has_reasoning == bool(reasoning)
    for marker, which in ((entry.reasoning_start, "start"), (entry.reasoning_end, "end")):
        names = (reasoning or {}).get(which) or ()
        assert marker == (_first_spelling(terminals[names[0]]) if names else None)


def test_tool_calls_and_thinking_defaults_per_format() -> None:
    # Reasoning-only formats have no tool calls; granite's array body has no start marker.
    no_tools = {e.name for e in INDEX if not e.has_tool_calls}
    assert no_tools == {n for n in FORMATS if n.endswith("_reasoning")}
    assert parsergen.entry("granite").has_tool_calls
    assert not parsergen.entry("hermes").has_reasoning
    assert parsergen.entry("qwen3").thinking_default is True
    assert parsergen.entry("deepseek_r1").thinking_default is False  # no thinking switch


def test_entry_by_alias_and_unknown_names() -> None:
    assert parsergen.entry("harmony") is parsergen.entry("openai")
    # vLLM's registry names may hold hyphens: an alias may too (a format name may not).
    assert parsergen.entry("granite-20b-fc") is parsergen.entry("granite_20b_fc")
    assert parsergen.load("granite-20b-fc").FORMAT == "granite_20b_fc"
    with pytest.raises(KeyError):
        parsergen.entry("nope")
    with pytest.raises(KeyError):
        parsergen.thinking("nope", {"enable_thinking": True})


def test_switches_with_a_value_that_means_on() -> None:
    assert parsergen.entry("minimax_m3").thinking_switch == (("thinking_mode", "enabled", None),)
    assert parsergen.thinking("minimax_m3", {"thinking_mode": "enabled"}) is True
    assert parsergen.thinking("minimax_m3", {"thinking_mode": "disabled"}) is False
    # The first key the request sets wins.
    kwargs = {"enable_thinking": True, "thinking": False}
    assert parsergen.thinking("deepseek_v31", kwargs) is False
    assert parsergen.thinking("hermes", kwargs) is None  # no switch


SHADOW = """\
name: qwen3
description: a user's own qwen3, switched by its own key
aliases: [my_qwen]
initial_state: {thinking: REASONING, otherwise: CONTENT}
thinking_switch: [{key: mode, on: deep}]
reasoning: {start: [], end: [END]}
terminals:
  END: {text: ["</r>", "</R>"]}
transitions:
  REASONING: {END: {to: CONTENT, emit: [REASONING_END]}}
"""


def test_a_user_format_has_its_own_entry(tmp_path: Path) -> None:
    # Named like a bundled format: integrations read its entry, not the bundled one.
    spec = tmp_path / "qwen3.yaml"
    spec.write_text(SHADOW)
    with pytest.warns(parsergen.SpecWarning, match="'qwen3' is also a bundled format's name"):
        module = integrations.compile_module(spec)
    entry = integrations.entry(module)
    assert entry.description == "a user's own qwen3, switched by its own key"
    assert (entry.aliases, entry.reasoning_start, entry.reasoning_end) == (("my_qwen",), None,
                                                                          "</r>")
    assert integrations.thinking(module, {"mode": "deep", "enable_thinking": False}) is True
    assert integrations.thinking(module, {"enable_thinking": False}) is None
    bundled = parsergen.load("qwen3")
    assert integrations.entry(bundled) is parsergen.entry("qwen3")
    assert integrations.thinking(bundled, {"enable_thinking": False}) is False


def test_cli_list_prints_each_description(capsys) -> None:
    assert cli.main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"{e.name:<20} {e.description}" for e in INDEX]
