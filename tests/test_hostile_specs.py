"""Specs drawn from the JSON Schema: each one compiles, imports and parses any text
without raising, or is rejected with a positioned error.

The strategy reads its vocabulary (states, events, argument syntaxes, tool bodies,
assembly flags) from grammars/schema.json, so it follows the schema as it grows, and it
fills every string slot with hostile text: quotes, backslashes, newlines, Jinja, Python
keywords, dunder names, unicode.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parsergen.compiler import SpecError, compile_spec
from parsergen.compiler.generator import generate_module

SCHEMA = json.loads((Path(__file__).resolve().parent.parent / "grammars" / "schema.json")
                    .read_text(encoding="utf-8"))
DEFS = SCHEMA["$defs"]
STATES = DEFS["state"]["enum"]
EVENTS = DEFS["event"]["enum"]
FLAGS = sorted(k for k, v in SCHEMA["properties"]["assembly"]["properties"].items()
               if v.get("type") == "boolean")
SYNTAXES = [b["properties"]["syntax"]["const"] for b in DEFS["arguments"]["oneOf"]]
BODIES = SCHEMA["properties"]["tool_body"]["enum"]

HOSTILE = ['"""', "'''", "\\", "a\nb", "{{ x }}", "{% if x %}", "${name}", "#", "é😀",
           "\r\n", "\t", "__import__('os')", "class", "None", "<", ">", "|", "}", "\u2028"]
LITERAL = st.one_of(st.sampled_from(HOSTILE), st.text(min_size=1, max_size=6)).filter(
    lambda s: all(not 0xD800 <= ord(c) < 0xE000 for c in s))
TERMINAL_NAME = st.one_of(st.sampled_from(["CLASS", "NONE", "SPEC", "STATE", "T", "IF"]),
                          st.from_regex(r"[A-Z][A-Z0-9_]{0,5}", fullmatch=True))
# Mostly valid names, some that no module may have (keywords, dunders).
FORMAT_NAME = st.one_of(st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True),
                        st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True),
                        st.sampled_from(["class", "__init__", "import", "_x"]))
EXAMPLES = int(os.environ.get("PARSERGEN_EXAMPLES", "0"))


@st.composite
def specs(draw: Any) -> dict:
    """A spec in the schema's shape, mostly meaningful, with hostile strings."""
    names = draw(st.lists(TERMINAL_NAME, min_size=1, max_size=5, unique=True))
    terminals: dict[str, Any] = {}
    for name in names:
        text = draw(LITERAL)
        if draw(st.booleans()):
            terminals[name] = text
        else:
            terminals[name] = {"text": text, "token_id": draw(st.booleans())}
            if draw(st.booleans()):
                terminals[name]["at_start"] = draw(st.booleans())
    initial = draw(st.sampled_from(STATES) | st.fixed_dictionaries(
        {"thinking": st.sampled_from(STATES), "otherwise": st.sampled_from(STATES)}))
    # Transitions grow from the initial states, so most drawn machines are reachable;
    # every terminal is used somewhere.
    reached = sorted({initial} if isinstance(initial, str) else set(initial.values()))
    transitions: dict[str, dict] = {}
    for name in names:
        source = draw(st.sampled_from(reached))
        target = draw(st.sampled_from(STATES))
        if target not in reached:
            reached.append(target)
        emit = draw(st.lists(st.sampled_from(EVENTS), max_size=2))
        transitions.setdefault(source, {})[name] = {"to": target, "emit": emit} if emit else target
    spec: dict[str, Any] = {
        "name": draw(FORMAT_NAME),
        "description": draw(LITERAL),
        "terminals": terminals,
        "transitions": transitions,
        "initial_state": initial,
        "arguments": _arguments(draw),
        "assembly": draw(st.fixed_dictionaries({}, optional={f: st.booleans() for f in FLAGS})),
    }
    if "REASONING" in reached or draw(st.booleans()):
        spec["reasoning"] = {"start": draw(st.lists(st.sampled_from(names), max_size=1)),
                             "end": draw(st.lists(st.sampled_from(names), min_size=1,
                                                  max_size=1))}
    if draw(st.booleans()):
        spec["render"] = {"call": draw(st.sampled_from(
            ["${name}(${arguments})", "${%s}${name}${arguments}" % names[0], '"""${name}',
             "${nope}", "{{ ${name} }}"]))}
    if draw(st.integers(0, 3)) == 0:  # mostly the syntax's default; some do not fit it
        spec["tool_body"] = draw(st.sampled_from(BODIES))
    if draw(st.booleans()):
        spec["tool_name"] = {"pattern": draw(st.sampled_from(
            ["(?P<name>.+)", "(?P<name>[^:]+):(?P<id>\\d+)", "(", "no group"]))}
    return spec


def _arguments(draw: Any) -> dict:
    syntax = draw(st.sampled_from(SYNTAXES))
    branch = next(b for b in DEFS["arguments"]["oneOf"]
                  if b["properties"]["syntax"]["const"] == syntax)
    out: dict[str, Any] = {"syntax": syntax}
    for key in branch.get("required", []):
        if key != "syntax":
            out[key] = draw(LITERAL)
    return out


def _import(path: Path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@settings(max_examples=EXAMPLES or 60, derandomize=not EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(spec=specs(), seed=st.integers(0, 999))
def test_specs_from_the_schema_compile_or_are_rejected_cleanly(spec: dict, seed: int,
                                                                tmp_path: Path) -> None:
    path = tmp_path / "drawn.yaml"
    path.write_text(yaml.safe_dump(spec, allow_unicode=True, sort_keys=False), encoding="utf-8")
    try:
        ir = compile_spec(path, "drawn.yaml")
    except SpecError as err:
        # Rejected: every problem is positioned and named.
        assert err.diagnostics
        for d in err.diagnostics:
            assert str(d).startswith("drawn.yaml:") and d.path.startswith("$")
        return
    source = generate_module(ir)
    out = tmp_path / f"drawn_{seed}.py"
    out.write_text(source, encoding="utf-8")
    module = _import(out, f"drawn_{id(spec)}_{seed}")
    texts = [lit if isinstance(lit, str) else lit["text"] for lit in spec["terminals"].values()]
    soup = "".join(texts[i % len(texts)] + "x" * (i % 3) for i in range(seed % 17 + 3))
    for text in (soup, soup[: len(soup) // 2], "".join(reversed(soup))):
        parser = module.StreamingParser()
        for ch in text:
            parser.feed(ch)
        parser.finish()
        module.parse(text)
        chat = module.ChatParser()
        chat.feed(text)
        chat.finish()
    # render() refuses only what the spec cannot write: calls without render.call, or a
    # completion that starts inside reasoning with no end marker to close it.
    renderer = module.RENDERER
    opening = renderer.reasoning_open.get(renderer.thinking_default)
    refuses = renderer.call is None or (
        renderer.reasoning is None and opening == () and renderer.reasoning_close is None)
    message = {"content": "c", "tool_calls": [{"name": "f", "arguments": {"a": 1}}]}
    if refuses:
        with pytest.raises(ValueError, match="no render.call|cannot write reasoning"):
            module.render(message)
    else:
        assert isinstance(module.render(message), str)


def test_a_very_large_spec_compiles(tmp_path: Path) -> None:
    n = 600
    terminals = {f"T{i}": f"<m{i}>" for i in range(n)}
    transitions = {"CONTENT": {f"T{i}": {"to": "CONTENT", "emit": ["TOOL_CALL_START"]}
                               for i in range(n)}}
    spec = {"name": "large", "description": "many markers", "terminals": terminals,
            "transitions": transitions}
    path = tmp_path / "large.yaml"
    path.write_text(yaml.safe_dump(spec), encoding="utf-8")
    out = tmp_path / "large.py"
    out.write_text(generate_module(compile_spec(path, "large.yaml")), encoding="utf-8")
    module = _import(out, "large_generated")
    events = module.StreamingParser().feed("a<m599>b<m0>") + module.StreamingParser().finish()
    starts = [e.value for e in events if e.type.name == "TOOL_CALL_START"]
    assert starts == ["<m599>", "<m0>"]
