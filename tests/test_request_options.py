"""``request_options``: a request setting that chooses the format's variant.

The bundled case is K2 Horizon: vLLM 0.33's k2_horizon tool parser reads
``chat_template_kwargs["tool_call_format"]`` (default ``xml``, values json, xml,
xml_typed) and refuses any other value before generation
(vllm/tool_parsers/k2_horizon_tool_parser.py, ``_request_tool_format``); the spec
language's side is docs/spec.md, "Request options".
"""

from __future__ import annotations

from pathlib import Path

import pytest

import parsergen
from parsergen.compiler import cli

# A call in each K2 Horizon syntax (vLLM's tests/tool_parsers/test_k2_horizon_tool_parser.py
# writes them so: _xml_call, _json_call inside _group).
XML_CALL = ("<ifm|tool_calls><ifm|tool_call>lookup<ifm|arg_key>query</ifm|arg_key>"
            "<ifm|arg_value>weather</ifm|arg_value></ifm|tool_call></ifm|tool_calls>")
JSON_CALL = ('<ifm|tool_calls><ifm|tool_call>{"name": "lookup", "arguments": '
             '{"query": "weather"}}</ifm|tool_call></ifm|tool_calls>')


@pytest.mark.parametrize(("kwargs", "expected"), [
    (None, "k2_horizon"),                              # the template's default: xml
    ({}, "k2_horizon"),
    ({"tool_call_format": "xml"}, "k2_horizon"),
    ({"tool_call_format": "json"}, "k2_horizon_json"),
    ({"enable_thinking": False}, "k2_horizon"),          # another key: not an option
])
def test_the_request_chooses_the_variant_from_any_variant(kwargs, expected) -> None:
    assert parsergen.variant("k2_horizon", kwargs) == expected
    assert parsergen.variant("k2_horizon_json", kwargs) == expected


@pytest.mark.parametrize("value", ["yaml", "python", "", 1])
def test_a_value_the_template_refuses_is_refused(value) -> None:
    with pytest.raises(ValueError, match=r"tool_call_format=.* its values: xml, json"):
        parsergen.variant("k2_horizon", {"tool_call_format": value})


def test_a_format_without_options_is_itself() -> None:
    assert parsergen.variant("qwen3", {"tool_call_format": "json"}) == "qwen3"
    assert parsergen.entry("qwen3").request_options == ()


def test_the_chosen_variant_parses_its_syntax_only() -> None:
    """Each variant is its own module: the xml one reads the xml call, the json one the
    json call; the other syntax is not a call (as vLLM's mismatched formats fail
    closed)."""
    xml = parsergen.load(parsergen.variant("k2_horizon", {"tool_call_format": "xml"}))
    json_ = parsergen.load(parsergen.variant("k2_horizon", {"tool_call_format": "json"}))
    for module, text in ((xml, "plan</ifm|think>" + XML_CALL),
                         (json_, "plan</ifm|think>" + JSON_CALL)):
        message = module.parse(text)
        assert message.reasoning == "plan"
        assert [(c.name, c.arguments) for c in message.tool_calls] == [
            ("lookup", '{"query": "weather"}')]
    assert not json_.parse("plan</ifm|think>" + XML_CALL).tool_calls


def test_a_route_follows_the_request() -> None:
    route = parsergen.route("IFM/K2-Horizon-7B")
    assert route is not None and route.format == "k2_horizon"
    assert route.variant(None) is route
    chosen = route.variant({"tool_call_format": "json"})
    assert chosen.format == "k2_horizon_json" and chosen.module.FORMAT == "k2_horizon_json"
    qwen = parsergen.route("Qwen/Qwen3-8B")   # (no options: the same route)
    assert qwen.variant({"tool_call_format": "json"}) is qwen


# -- a user's specs ------------------------------------------------------------------

BASE = """\
name: my_calls
description: calls as JSON objects, or as lines by the request's call_style
request_options:
  - key: call_style
    default: object
    formats: {object: my_calls, lines: my_calls_lines}
terminals:
  TOOL_START: "<call>"
  TOOL_END: "</call>"
transitions:
  CONTENT:
    TOOL_START: {to: TOOL_ARGS, emit: [TOOL_CALL_START]}
  TOOL_ARGS:
    TOOL_END: {to: CONTENT, emit: [TOOL_CALL_END]}
arguments: {syntax: json_envelope, name_key: name, argument_keys: [arguments]}
render:
  call: '${TOOL_START}{"name": ${name_json}, "arguments": ${arguments}}${TOOL_END}'
"""

LINES = """\
extends: my_calls
name: my_calls_lines
description: calls as a python call in the same markers
arguments: {syntax: python_kwargs, name_key: null, argument_keys: null}
tool_body: python_list
render:
  call: '${TOOL_START}[${name}(${arguments})]${TOOL_END}'
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_users_variants_are_found_next_to_the_spec(tmp_path: Path) -> None:
    base = write(tmp_path, "my_calls", BASE)
    lines = write(tmp_path, "my_calls_lines", LINES)
    assert parsergen.variant(base, None) == str(base)
    chosen = parsergen.variant(base, {"call_style": "lines"})
    assert Path(chosen) == lines.resolve()
    assert parsergen.variant(lines, {"call_style": "object"}) == str(base.resolve())
    message = parsergen.load(chosen).parse('<call>[f(a=1)]</call>')
    assert [(c.name, c.arguments) for c in message.tool_calls] == [("f", '{"a": 1}')]


@pytest.mark.parametrize(("edit", "where", "message"), [
    (("default: object", "default: dict"), "my_calls.yaml:5:5: $.request_options[0].default",
     "'dict' is not one of formats' values (object, lines)"),
    (("lines: my_calls_lines", "lines: my_lines"),
     "my_calls.yaml:6:33: $.request_options[0].formats.lines",
     "no spec named 'my_lines' next to this file or among the bundled grammars"),
    (("object: my_calls,", "object: my_calls_lines,"),
     "my_calls.yaml:6:5: $.request_options[0].formats",
     "no value chooses this spec ('my_calls') itself"),
    (("    default: object\n", ""), "my_calls.yaml:4:5: $.request_options[0]",
     "'default' is required"),
])
def test_bad_options_name_file_line_and_field(tmp_path: Path, capsys, edit, where,
                                              message) -> None:
    base = write(tmp_path, "my_calls", BASE.replace(*edit))
    write(tmp_path, "my_calls_lines", LINES)
    assert cli.main(["check", str(base)]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path}/{where}: " in err and message in err, err


def test_a_variant_that_would_not_keep_the_request_is_an_error(tmp_path: Path,
                                                               capsys) -> None:
    base = write(tmp_path, "my_calls", BASE)
    write(tmp_path, "my_calls_lines", LINES + "request_options: null\n")
    assert cli.main(["check", str(base)]) == 1
    err = capsys.readouterr().err
    assert (f"{tmp_path}/my_calls.yaml:6:33: $.request_options[0].formats.lines: "
            "'my_calls_lines' declares no request option 'call_style'") in err, err


def test_the_server_plugins_take_the_requests_module() -> None:
    """What the vLLM plugin calls per request (parsergen.integrations.variant)."""
    from parsergen import integrations

    xml = parsergen.load("k2_horizon")
    assert integrations.variant(xml, None) is xml
    assert integrations.variant(xml, {"tool_call_format": "json"}) is parsergen.load(
        "k2_horizon_json")
    qwen = parsergen.load("qwen3")
    assert integrations.variant(qwen, {"tool_call_format": "json"}) is qwen
    with pytest.raises(ValueError, match="tool_call_format='python'"):
        integrations.variant(xml, {"tool_call_format": "python"})
