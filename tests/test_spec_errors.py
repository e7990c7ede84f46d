"""Errors that point at the mistake (issue 38 item 4), tried as a new user would:
``parsergen check FILE`` on the specs in tests/data/spec_errors/.

- an argument syntax's option misspelled or left out names the option, the syntax and
  the options it allows (the closest one for a typo), from the registry's declarations;
- every schema error of a file is reported, in line order, however many one value has;
- a spec whose calls do not come back from its own ``render()`` output is an error.
"""

from __future__ import annotations

import importlib
import textwrap
from pathlib import Path

import pytest

import parsergen
from parsergen.compiler.build import compile_loaded
from parsergen.compiler.cli import main
from parsergen.compiler.loader import load_spec
from parsergen.compiler.roundtrip import roundtrip_errors
from parsergen.generated import FORMATS
from parsergen.runtime.arguments import SYNTAXES

SPECS = Path(__file__).resolve().parent / "data" / "spec_errors"
GRAMMARS = Path(__file__).resolve().parent.parent / "grammars"


def check(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
          where: Path, *names: str) -> tuple[int, list[str]]:
    """``parsergen check NAMES`` run in ``where``: the exit status and stderr's lines."""
    monkeypatch.chdir(where)
    status = main(["check", *names])
    return status, capsys.readouterr().err.splitlines()


def test_a_misspelled_option_names_the_syntax_its_options_and_the_closest(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    status, err = check(capsys, monkeypatch, SPECS, "name_key_typo.yaml")
    assert status == 1
    assert err == [
        "name_key_typo.yaml:13:36: $.arguments.name_keys: unknown option 'name_keys' for "
        "arguments.syntax 'json_envelope' (did you mean 'name_key'?); its options: "
        "name_key, argument_keys, name_is_key, id_key"]


def test_a_missing_option_names_the_syntax_and_what_it_requires(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    status, err = check(capsys, monkeypatch, SPECS, "missing_name_end.yaml")
    assert status == 1
    assert err == [
        "missing_name_end.yaml:21:1: $.arguments: arguments.syntax 'xml_parameters' "
        "requires option 'name_end'; its options: open, name_end, value_open, close, trim, "
        "header, name_attribute, string_attribute, json_values, close_first, cdata, entities, "
        "json_fallback (required: open, name_end, close)"]


@pytest.mark.parametrize("name", sorted(SYNTAXES))
def test_the_options_listed_are_the_registry_s(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        name: str) -> None:
    # Every syntax the same way: its class's schema is where the message comes from.
    schema = SYNTAXES[name].schema
    options = list(schema.get("properties", {}))
    line = f"arguments: {{syntax: {name}, bogus_option: 1}}"
    (tmp_path / "s.yaml").write_text(
        "name: s\ndescription: d\nterminals: {A: \"<a>\"}\n"
        f"transitions: {{CONTENT: {{A: CONTENT}}}}\n{line}\n", encoding="utf-8")
    _, err = check(capsys, monkeypatch, tmp_path, "s.yaml")
    listed = (f"its options: {', '.join(options)}{_required(schema)}" if options
              else f"arguments.syntax {name!r} takes no options")
    unknown = [e for e in err if "$.arguments.bogus_option:" in e]
    assert unknown == [f"s.yaml:5:{line.index('bogus') + 1}: $.arguments.bogus_option: "
                       f"unknown option 'bogus_option' for arguments.syntax {name!r}; "
                       f"{listed}"], err


def _required(schema: dict) -> str:
    required = [o for o in schema.get("properties", {}) if o in schema.get("required", ())]
    return f" (required: {', '.join(required)})" if required else ""


@pytest.mark.parametrize(("arguments", "error"), [
    ("{syntax: json, name_key: n}",
     "5:27: $.arguments.name_key: unknown option 'name_key' for arguments.syntax 'json'; "
     "arguments.syntax 'json' takes no options ('name_key' is an option of "
     "arguments.syntax 'json_envelope')"),
    ("{syntax: json_envelop}",
     "5:13: $.arguments.syntax: unknown arguments.syntax 'json_envelop' (did you mean "
     "'json_envelope'?); one of: json, xml_parameters, notation, nested_elements, "
     "json_envelope, python_kwargs, kv_lines"),
    ("{name_key: n}",
     "5:1: $.arguments: 'syntax' is required (one of: json, xml_parameters, notation, "
     "nested_elements, json_envelope, python_kwargs, kv_lines)"),
    ("{syntax: nested_elements, prefix: '@', trim: strp}",
     "5:51: $.arguments.trim: 'strp' is not one of ['none', 'one_newline', 'strip'] "
     "(did you mean 'strip'?)"),
])
def test_other_argument_mistakes(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch, arguments: str,
                                 error: str) -> None:
    (tmp_path / "s.yaml").write_text(
        "name: s\ndescription: d\nterminals: {A: \"<a>\"}\n"
        f"transitions: {{CONTENT: {{A: CONTENT}}}}\narguments: {arguments}\n",
        encoding="utf-8")
    status, err = check(capsys, monkeypatch, tmp_path, "s.yaml")
    assert status == 1 and err == [f"s.yaml:{error}"]


def test_every_error_of_a_transition_and_of_the_file_in_line_order(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    status, err = check(capsys, monkeypatch, SPECS, "two_errors_one_transition.yaml")
    assert status == 1
    assert err == [
        "two_errors_one_transition.yaml:11:40: $.transitions.CONTENT.TOOL_START.emit[0]: "
        "'TOOL_CALL_STARTT' is not one of ['TEXT_CHUNK', 'REASONING_START', "
        "'REASONING_CHUNK', 'REASONING_END', 'TOOL_CALL_START', 'TOOL_NAME', "
        "'ARG_VALUE_CHUNK', 'TOOL_CALL_END'] (did you mean 'TOOL_CALL_START'?)",
        "two_errors_one_transition.yaml:11:59: $.transitions.CONTENT.TOOL_START.too: "
        "unknown key 'too' (did you mean 'to'?); expected one of: emit, name, to",
        "two_errors_one_transition.yaml:15:1: $.tool_body: 'jsn' is not one of ['text', "
        "'json', 'json_object', 'json_array', 'python_list', 'python_lines'] (did you mean 'json'?)",
    ]


OLMO3 = ("<function_calls>\nget_weather(city=\"Paris\")\nget_time(zone=\"CET\")\n"
         "</function_calls>")


def test_olmo3_with_a_python_list_body_reads_no_call() -> None:
    # What the check is for: the spec loads, and OLMo 3's calls are all content.
    module = parsergen.load(str(SPECS / "olmo3_python_list.yaml"))
    got = module.parse(OLMO3)
    # No call, no warning, and the opening marker gone from the content.
    assert not got.tool_calls and not got.warnings
    assert got.content == OLMO3.removeprefix("<function_calls>")


def test_calls_that_do_not_come_back_from_render_are_a_check_error(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    status, err = check(capsys, monkeypatch, SPECS, "olmo3_python_list.yaml")
    assert status == 1
    assert err == [
        "olmo3_python_list.yaml:22:1: $.tool_body: no call comes back from render()'s own "
        "output: render() wrote 1 call as \"<function_calls>\\nget_weather(city='Paris')\\n"
        "</function_calls>\" and parse() read back 0 calls, content \"\\nget_weather("
        "city='Paris')\\n</function_calls>\". Its markers: CALLS_START: CONTENT -> TOOL_ARGS "
        "(line 19), CALLS_END: TOOL_ARGS -> CONTENT (line 21); TOOL_ARGS text goes to "
        "tool_body 'python_list' (line 22: A Python list of calls, [name(a=1, b=\"x\"), "
        "...]: each call's name, then its arguments), each call's arguments to "
        "arguments.syntax 'python_kwargs' (line 23); render.call (line 26) writes calls "
        "this spec does not read: fix whichever of them is not what the model writes"]


def test_a_second_call_that_does_not_come_back_points_at_the_separator(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bar.yaml").write_text(textwrap.dedent("""\
        name: bar
        description: JSON calls in one block, separated by a bar
        terminals: {TOOL_START: "<tool_call>", TOOL_END: "</tool_call>"}
        transitions:
          CONTENT: {TOOL_START: {to: TOOL_ARGS, emit: [TOOL_CALL_START]}}
          TOOL_ARGS: {TOOL_END: {to: CONTENT, emit: [TOOL_CALL_END]}}
        arguments: {syntax: json_envelope}
        render:
          calls_open: "${TOOL_START}"
          call: '{"name": ${name_json}, "arguments": ${arguments}}'
          separator: " | "
          calls_close: "${TOOL_END}"
        """), encoding="utf-8")
    status, err = check(capsys, monkeypatch, tmp_path, "bar.yaml")
    assert status == 1
    assert err == [
        "bar.yaml:10:3: $.render.call: not every call comes back from render()'s own "
        "output: render() wrote 2 calls as \"<tool_call>{\\\"name\\\": \\\"get_weather\\\", "
        "\\\"arguments\\\": {\\\"city\\\": \\\"Paris\\\"}} | {\\\"name\\\": \\\"get_time\\\", "
        "\\\"arguments\\\": {\\\"zone\\\": \\\"CET\\\"}}</tool_call>\" and parse() read back 1 "
        "call: get_weather({\"city\": \"Paris\"}). Its markers: TOOL_START: CONTENT -> "
        "TOOL_ARGS (line 5), TOOL_END: TOOL_ARGS -> CONTENT (line 6); TOOL_ARGS text goes "
        "to tool_body 'json' (the default: One JSON value per call between markers, its "
        "final closing bracket held back), each call's arguments to arguments.syntax "
        "'json_envelope' (line 7); render.call (line 10) writes calls this spec does not "
        "read (one call alone comes back: see render.separator, line 11): fix whichever of "
        "them is not what the model writes"]


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_bundled_format_reads_back_what_it_renders(name: str) -> None:
    path = GRAMMARS / f"{name}.yaml"
    loaded = load_spec(path, path.name)
    fmt = compile_loaded(loaded, path.name)
    module = importlib.import_module(f"parsergen.generated.{name}")
    assert roundtrip_errors(fmt, loaded, module) == []
