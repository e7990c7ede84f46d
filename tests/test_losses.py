"""``parsergen check`` warns about specs that compile but lose text or make no call.

Each spec below is the smallest case of one loss a new user ran into (issue 13): the
parse shows the loss, and the warning names the field to fix.
"""

from __future__ import annotations

import textwrap
import warnings
from pathlib import Path

import pytest

import parsergen
from parsergen.compiler import cli
from parsergen.compiler.advice import loss_warnings
from parsergen.compiler.build import compile_loaded
from parsergen.compiler.loader import bundled_grammars, load_spec

ENVELOPE = "arguments: {syntax: json_envelope, name_key: name, argument_keys: [arguments]}"
CALL = '{"name": "f", "arguments": {}}'

# name: (spec body, a completion, what parse() makes of it, the warning's location and text)
CASES = {
    "end_without_start": (f"""
        terminals: {{S: "<s>", E: "</s>"}}
        transitions:
          CONTENT: {{S: TOOL_ARGS}}
          TOOL_ARGS: {{E: {{to: CONTENT, emit: [TOOL_CALL_END]}}}}
        {ENVELOPE}
        render: {{call: "x"}}
        """, f"<s>{CALL}</s>after", ("after", []),
        ":4:1: warning: $.transitions: TOOL_CALL_END is emitted but no transition emits "
        "TOOL_CALL_START"),
    "no_way_out": (f"""
        terminals: {{S: "<s>"}}
        transitions:
          CONTENT: {{S: {{to: TOOL_ARGS, emit: [TOOL_CALL_START]}}}}
        {ENVELOPE}
        render: {{call: "x"}}
        """, f"<s>{CALL} and a sentence.", (None, ["f"]),
        ":4:1: warning: $.transitions.TOOL_ARGS: no transition leaves TOOL_ARGS"),
    "no_name": ("""
        terminals: {S: "<s>", E: "</s>"}
        transitions:
          CONTENT: {S: {to: TOOL_ARGS, emit: [TOOL_CALL_START]}}
          TOOL_ARGS: {E: {to: CONTENT, emit: [TOOL_CALL_END]}}
        arguments: {syntax: json}
        render: {call: "x"}
        """, '<s>{"a": 1}</s>', ('<s>{"a": 1}</s>', []),
        ":7:13: warning: $.arguments.syntax: calls start but have nowhere to take a name from"),
    "no_render": (f"""
        terminals: {{S: "<s>", E: "</s>"}}
        transitions:
          CONTENT: {{S: {{to: TOOL_ARGS, emit: [TOOL_CALL_START]}}}}
          TOOL_ARGS: {{E: {{to: CONTENT, emit: [TOOL_CALL_END]}}}}
        {ENVELOPE}
        """, f"<s>{CALL}</s>", (None, ["f"]),
        ":1:1: warning: $.render.call: no render.call"),
}


def _write(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"name: {name}\ndescription: a loss\n" + textwrap.dedent(body).lstrip("\n"),
                    encoding="utf-8")
    return path


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_spec_that_loses_text_is_warned_about(tmp_path, case, capsys) -> None:
    body, text, (content, names), warning = CASES[case]
    path = _write(tmp_path, case, body)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        module = parsergen.load(path)
    message = module.parse(text)
    assert (message.content, [c.name for c in message.tool_calls]) == (content, names)
    assert any(warning.split(": warning: ")[1] in str(w.message) for w in seen)
    # A render.call of "x" writes no call: check's round trip is an error as well, and
    # the warning is still there to say why.
    assert cli.main(["check", str(path)]) == (1 if 'call: "x"' in body else 0)
    assert f"{path}{warning}" in capsys.readouterr().err


def test_bundled_grammars_lose_nothing() -> None:
    for path in sorted(bundled_grammars().glob("*.yaml")):
        loaded = load_spec(path, path.name)
        assert loss_warnings(compile_loaded(loaded, path.name), loaded) == [], path.name
