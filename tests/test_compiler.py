"""The compiler: every error with file, line and path; extends; hostile specs; the CLI."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from parsergen.compiler import SpecError, compile_spec
from parsergen.compiler.generator import generate_module
from parsergen.runtime import merge_chunks

ROOT = Path(__file__).resolve().parent.parent


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def errors(path: Path) -> list[str]:
    with pytest.raises(SpecError) as info:
        compile_spec(path, path.name)
    return [str(d) for d in info.value.diagnostics]


def test_every_error_is_reported_with_position(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.yaml", """
        name: bad
        description: every kind of mistake
        bogus: 1
        terminals:
          A: "<a>"
          B: {text: "<a>", token_id: true}
          UNUSED: "<u>"
        transitions:
          CONTENT:
            A: TOOL_NAME
            MISSING: CONTENT
          TOOL_NAME:
            B: {to: CONTENT, emit: [NOPE]}
          TOOL_ARGS:
            A: CONTENT
            A: TOOL_NAME
        """)
    got = errors(path)
    expected_prefixes = [
        "bad.yaml:3:1: $.bogus: unknown key 'bogus'",
        "bad.yaml:6:7: $.terminals.B.text: literal '<a>' is already the text of terminal 'A'",
        "bad.yaml:7:3: $.terminals.UNUSED: terminal 'UNUSED' is declared but no transition",
        "bad.yaml:11:5: $.transitions.CONTENT.MISSING: unknown terminal 'MISSING'",
        "bad.yaml:13:29: $.transitions.TOOL_NAME.B.emit[0]: 'NOPE' is not one of",
        "bad.yaml:14:3: $.transitions.TOOL_ARGS: state TOOL_ARGS is unreachable",
        "bad.yaml:16:5: $.transitions.TOOL_ARGS.A: two transitions for (TOOL_ARGS, A); "
        "the first is at line 15",
    ]
    assert len(got) == len(expected_prefixes), got
    for line, prefix in zip(got, expected_prefixes):
        assert line.startswith(prefix), (line, prefix)


def test_a_start_only_terminal_may_share_a_text_with_one_matched_anywhere(tmp_path: Path) -> None:
    """They are looked for in different places; two of one kind still clash."""
    spec = """
        name: starts
        description: a redundant opener only at the start
        initial_state: REASONING
        reasoning: {start: [OPEN], end: [CLOSE]}
        terminals:
          OPEN: "<think>"
          OPEN_AT_START: {text: "<think>", at_start: true}
          CLOSE: "</think>"
        transitions:
          CONTENT:
            OPEN: {to: REASONING, emit: [REASONING_START]}
          REASONING:
            OPEN_AT_START: REASONING
            CLOSE: {to: CONTENT, emit: [REASONING_END]}
        """
    compile_spec(write(tmp_path, "starts.yaml", spec), "starts.yaml")
    clash = spec.replace('OPEN: "<think>"', 'OPEN: {text: "<think>", at_start: true}')
    assert any("literal '<think>' is already the text of terminal 'OPEN'" in e
               for e in errors(write(tmp_path, "clash.yaml", clash)))


@pytest.mark.parametrize(
    "body, expected",
    [
        ("terminals: {A: ''}", "$.terminals.A: '' should be non-empty"),
        ("terminals: {A: 5}", "$.terminals.A: 5 is not valid here: expected object or string"),
        ("terminals: {a: '<a>'}", "$.terminals.a: key 'a' is not allowed here: 'a' does not match"),
        ("terminals: {A: {text: '<a>', tokenid: true}}", "$.terminals.A.tokenid: unknown key"),
        ("initial_state: WHERE", "$.initial_state: 'WHERE' is not one of"),
        ("transitions: {CONTENT: {A: {to: REASONING, emit: TEXT_CHUNK}}}",
         "$.transitions.CONTENT.A.emit: 'TEXT_CHUNK' is not of type 'array'"),
        ("thinking_default: false", "$.thinking_default: needs an initial_state"),
        ("name: class", "$.name: 'class' cannot be a module name"),
    ],
)
def test_schema_and_meaning_messages(tmp_path: Path, body: str, expected: str) -> None:
    base = {"name": "x", "description": "y", "terminals": "{A: '<a>'}",
            "transitions": "{CONTENT: {A: CONTENT}}"}
    key = body.split(":", 1)[0]
    base[key] = body.split(":", 1)[1].strip()
    text = "".join(f"{k}: {v}\n" for k, v in base.items())
    path = tmp_path / "x.yaml"
    path.write_text(text, encoding="utf-8")
    got = errors(path)
    assert any(expected in line for line in got), got


def test_lone_surrogates_in_a_literal_are_rejected(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", '''
        name: s
        description: d
        terminals: {A: "\\ud83d\\ude00"}
        transitions: {CONTENT: {A: CONTENT}}
        ''')
    assert errors(path) == ["s.yaml:3:13: $.terminals.A: literal '\\ud83d\\ude00' is not "
                            "valid Unicode text (lone surrogates)"]


def test_invalid_yaml_has_a_position(tmp_path: Path) -> None:
    path = write(tmp_path, "broken.yaml", "name: x\n  - bad: [\n")
    assert errors(path) == ["broken.yaml:2:8: $: invalid YAML: mapping values are not allowed here"]


# Six lines; a test appends its own from line 7 on.
TOOL_SPEC = textwrap.dedent("""
    name: t
    description: d
    terminals: {OPEN: "<call>", CLOSE: "</call>"}
    transitions:
      CONTENT: {OPEN: {to: TOOL_ARGS, emit: [TOOL_CALL_START]}}
      TOOL_ARGS: {CLOSE: {to: CONTENT, emit: [TOOL_CALL_END]}}
    """).lstrip()


def test_a_tool_body_that_does_not_fit_the_argument_syntax_is_rejected(tmp_path: Path) -> None:
    path = write(tmp_path, "t.yaml", TOOL_SPEC
                 + 'arguments: {syntax: xml_parameters, open: "<p=", name_end: ">", close: "</p>"}\n'
                 + "tool_body: json_array\n")
    assert errors(path) == ["t.yaml:8:1: $.tool_body: 'json_array' does not fit "
                            "arguments.syntax 'xml_parameters' (line 7), which allows: text"]


def test_a_tool_body_is_checked_against_the_default_syntax(tmp_path: Path) -> None:
    path = write(tmp_path, "t.yaml", TOOL_SPEC + "tool_body: python_list\n")
    assert errors(path) == ["t.yaml:7:1: $.tool_body: 'python_list' does not fit the default "
                            "arguments.syntax 'json', which allows: json, text, json_object"]


def test_an_unknown_tool_body_is_rejected_by_the_schema(tmp_path: Path) -> None:
    path = write(tmp_path, "t.yaml", TOOL_SPEC + "tool_body: raw\n")
    got = errors(path)
    assert len(got) == 1 and got[0].startswith("t.yaml:7:1: $.tool_body: 'raw' is not one of "
                                               "['text', 'json', 'json_object'"), got


@pytest.mark.parametrize("key", ["tool_args_json", "tool_call_body_array",
                                 "tool_call_body_object", "tool_call_body_python"])
def test_the_old_body_flags_are_rejected_by_the_schema(tmp_path: Path, key: str) -> None:
    path = write(tmp_path, "t.yaml", TOOL_SPEC + f"{key}: true\n")
    got = errors(path)
    assert len(got) == 1 and got[0].startswith(f"t.yaml:7:1: $.{key}: unknown key {key!r}"), got
    assert "tool_body" in got[0]  # the hint names the key that replaced them


@pytest.mark.parametrize("body", ["json", "text", "json_object"])
def test_every_body_the_syntax_allows_compiles(tmp_path: Path, body: str) -> None:
    ir = compile_spec(write(tmp_path, "t.yaml", TOOL_SPEC + f"tool_body: {body}\n"), "t.yaml")
    assert (ir.tool_body, ir.tool_body_line, ir.tool_body_defaulted) == (body, 7, False)
    assert "# (tool_body, line 7).\n    BODY = " in generate_module(ir)


def test_the_default_body_comes_from_the_argument_syntax(tmp_path: Path) -> None:
    path = write(tmp_path, "t.yaml", TOOL_SPEC + "arguments: {syntax: python_kwargs}\n")
    ir = compile_spec(path, "t.yaml")
    assert (ir.tool_body, ir.tool_body_line, ir.tool_body_defaulted) == ("python_list", 7, True)
    assert "# (default for arguments.syntax python_kwargs, line 7).\n    BODY = PythonListBody" \
        in generate_module(ir)


def test_extends_merges_and_keeps_each_files_positions() -> None:
    seed = compile_spec(ROOT / "grammars" / "seed_oss.yaml", "grammars/seed_oss.yaml")
    qwen = compile_spec(ROOT / "grammars" / "qwen3.yaml", "grammars/qwen3.yaml")
    texts = {t.name: t.spellings for t in seed.variants[0].terminals}
    assert texts["TOOL_START"] == ("<seed:tool_call>",)
    assert texts["FUNC_PREFIX"] == ("<function=",)
    # token_id comes from qwen3.yaml even though seed_oss.yaml overrides the text.
    assert {t.name for t in seed.variants[0].terminals if t.token_id} == {
        t.name for t in qwen.variants[0].terminals if t.token_id}
    assert [s.transitions for s in seed.states] == [s.transitions for s in qwen.states]
    assert seed.spec["turn_boundary_tokens"] == ["<seed:bos>", "<seed:eos>"]


def test_errors_in_a_base_spec_name_the_base_file(tmp_path: Path) -> None:
    write(tmp_path, "base.yaml", """
        name: base
        description: d
        terminals: {A: "<a>", B: "<b>"}
        transitions: {CONTENT: {A: CONTENT}}
        """)
    child = write(tmp_path, "child.yaml", "extends: base\nname: child\ndescription: c\n")
    got = errors(child)
    assert len(got) == 1 and got[0].startswith("base.yaml:3:23: $.terminals.B: terminal 'B'")


@pytest.mark.parametrize(
    "files, expected",
    [
        ({"a.yaml": "extends: nowhere\nname: a\n"}, "no spec named 'nowhere'"),
        ({"a.yaml": "extends: b\nname: a\n", "b.yaml": "extends: a\nname: b\n"},
         "circular extends: a -> b -> a"),
    ],
)
def test_extends_errors(tmp_path: Path, files: dict[str, str], expected: str) -> None:
    for name, text in files.items():
        write(tmp_path, name, text)
    got = errors(tmp_path / "a.yaml")
    assert any(expected in line for line in got), got


def load_module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HOSTILE = ['"""', "'''", "\\", "a\nb", "{{ x }}", "{% if %}", "#", "\u2028", "é😀", "\r"]


def test_hostile_strings_reach_code_only_as_literals(tmp_path: Path) -> None:
    terminals = "".join(f"  T{i}: {{text: {_yaml_str(s)}}}\n" for i, s in enumerate(HOSTILE))
    transitions = "".join(f"    T{i}: {{to: CONTENT, emit: [TOOL_CALL_START]}}\n"
                          for i in range(len(HOSTILE)))
    description = _yaml_str('""" __import__("os") {{ x }}')
    path = tmp_path / "evil.yaml"
    path.write_text(
        f"name: evil\ndescription: {description}\n"
        f"terminals:\n{terminals}transitions:\n  CONTENT:\n{transitions}", encoding="utf-8")
    source = generate_module(compile_spec(path, "evil\n.yaml"))
    out = tmp_path / "evil.py"
    out.write_text(source, encoding="utf-8")
    module = load_module(out, "evil_generated")
    assert module.SPEC["description"].startswith('"""')
    text = "x".join(HOSTILE)
    parser = module.StreamingParser()
    events = merge_chunks(parser.feed(text) + parser.finish())
    starts = [e.value for e in events if e.type.name == "TOOL_CALL_START"]
    assert starts == HOSTILE
    assert [e.value for e in events if e.type.name == "TEXT_CHUNK"] == ["x"] * (len(HOSTILE) - 1)


def _yaml_str(s: str) -> str:
    import json

    # JSON strings are YAML double-quoted strings; YAML reads U+2028 as a line break,
    # and a \\u escape of an astral character as two lone surrogates.
    return json.dumps(s, ensure_ascii=False).replace("\u2028", "\\u2028")


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "parsergen.compiler.cli", *args], cwd=cwd,
                          capture_output=True, text=True)


def test_cli_build_check_reports_stale_and_orphans(tmp_path: Path) -> None:
    write(tmp_path, "mine.yaml", """
        name: mine
        description: d
        terminals: {A: "<a>"}
        transitions: {CONTENT: {A: {to: CONTENT, emit: [TOOL_CALL_START]}}}
        """)
    assert run_cli("build", "mine.yaml", "-o", "out", cwd=tmp_path).returncode == 0
    assert run_cli("build", "mine.yaml", "-o", "out", "--check", cwd=tmp_path).returncode == 0
    generated = tmp_path / "out" / "mine.py"
    generated.write_text(generated.read_text() + "# edited\n")
    (tmp_path / "out" / "gone.py").write_text("# @generated by parsergen from gone.yaml\n")
    res = run_cli("build", "mine.yaml", "-o", "out", "--check", cwd=tmp_path)
    assert res.returncode == 1
    assert "stale: out/mine.py" in res.stderr and "orphan: out/gone.py" in res.stderr


def test_cli_check_exit_codes(tmp_path: Path) -> None:
    write(tmp_path, "ok.yaml", "name: ok\ndescription: d\nterminals: {A: x}\n"
          "transitions: {CONTENT: {A: CONTENT}}\n")
    write(tmp_path, "bad.yaml", "name: bad\n")
    res = run_cli("check", "ok.yaml", "bad.yaml", cwd=tmp_path)
    assert res.returncode == 1
    assert "ok.yaml: ok (ok)" in res.stdout
    assert "bad.yaml:1:1: $: 'description' is required" in res.stderr


def test_cli_list_and_parse(tmp_path: Path) -> None:
    res = run_cli("list", cwd=tmp_path)
    assert res.returncode == 0 and "qwen3" in res.stdout
    example = ROOT / "examples" / "qwen3_completion.txt"
    res = run_cli("parse", "--format", "qwen3", "--json", "--chunk", "5", str(example),
                  cwd=tmp_path)
    assert res.returncode == 0
    import json

    events = [json.loads(line) for line in res.stdout.splitlines()]
    names = [e["value"] for e in events if e["type"] == "TOOL_NAME"]
    assert names == ["get_weather"]
    assert events[0]["type"] == "REASONING_CHUNK"
    assert run_cli("parse", "--format", "nope", str(example), cwd=tmp_path).returncode == 2


@pytest.mark.parametrize("args", [("list",), ("--version",), ("schema",),
                                  ("parse", "--format", "qwen3", "--json",
                                   str(ROOT / "examples" / "qwen3_completion.txt"))])
def test_cli_into_a_closed_pipe_exits_quietly(args: tuple[str, ...], tmp_path: Path) -> None:
    """`parsergen ... | head`: a reader gone is SIGPIPE's status 141 (as cat's), no traceback."""
    import os

    read_end, write_end = os.pipe()
    os.close(read_end)  # no reader at all: every write is EPIPE, whatever the buffering
    try:
        res = subprocess.run([sys.executable, "-m", "parsergen.compiler.cli", *args],
                             cwd=tmp_path, stdout=write_end, stderr=subprocess.PIPE, text=True)
    finally:
        os.close(write_end)
    assert (res.returncode, res.stderr) == (141, "")


def test_reasoning_options_are_checked(tmp_path: Path) -> None:
    path = write(tmp_path, "r.yaml", """
        extends: mistral
        name: r
        description: mistral whose calls both end reasoning and are reasoning text
        reasoning: {calls_are_text: true, ended_by_tool_calls: true}
        """)
    assert errors(path) == ["r.yaml:4:13: $.reasoning.calls_are_text: calls_are_text and "
                            "ended_by_tool_calls contradict each other: a call marker in "
                            "reasoning is either text or a call"]
    path = write(tmp_path, "s.yaml", """
        extends: qwen3
        name: s
        description: qwen3 with a wrong option
        reasoning: {start_optional: maybe}
        """)
    assert any("$.reasoning.start_optional: 'maybe' is not of type 'boolean'" in e
               for e in errors(path)), errors(path)


@pytest.mark.parametrize("fmt, trailers", [
    ("step3", ("CALL_END",)),  # </steptml:invoke> ends the call, <｜tool_call_end｜> follows
    ("qwen3", ("TOOL_END",)),  # </function> ends it, </tool_call> follows
    ("deepseek_v3", ()),  # <｜tool▁call▁end｜> ends the call itself: nothing follows
    ("hermes", ()),  # </tool_call> ends the call: nothing follows
])
def test_call_trailers_are_the_markers_after_the_calls_end(fmt: str, trailers: tuple) -> None:
    ir = compile_spec(ROOT / "grammars" / f"{fmt}.yaml", f"grammars/{fmt}.yaml")
    assert ir.call_trailers == trailers
