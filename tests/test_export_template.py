"""parsergen's formats exported as Hugging Face response_templates (issue 37, item 5).

``parsergen.export_response_template(name)`` (``compiler/export_template.py``) writes the
template from the compiled IR.  Each exported template is run by transformers'
``parse_response`` on the format's real-world corpus (tests/corpus/) and on the whole
texts of its goldens (goldens/*.golden), and compared field by field with the format's
own ``parse()`` (HF's ``thinking`` is our reasoning; text compared stripped, as the
template's text parser strips each region).  Where they differ on purpose or by a limit
of the template language, ``DEPARTURES`` says why (strict xfails, so a fix shows).  The
template is also imported back (``parsergen.load(dict)``) and must give the format's
messages.  README's list of formats that cannot be exported is checked against
``export_response_template``'s refusals.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

import parsergen
from parsergen.runtime.events import STATE_NAMES
from support.goldens import load as load_goldens

chat_parsing = pytest.importorskip("transformers.utils.chat_parsing")
ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
REASONING = STATE_NAMES.index("REASONING")


def _exports() -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """Every bundled format's template, or the reason it has none."""
    done, refused = {}, {}
    for name in parsergen.formats():
        try:
            done[name] = parsergen.export_response_template(name)
        except parsergen.SpecError as exc:
            refused[name] = str(exc).split("cannot be exported as a response_template: ", 1)[1]
    return done, refused


EXPORTED, REFUSED = _exports()


def _cases() -> list[tuple[str, str, str, bool | None, str | None, Any]]:
    """(id, format, completion, thinking, prompt_text, tools) of every exported format."""
    out = []
    for path in sorted(CORPUS.glob("*/*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        fmt = parsergen.aliases().get(data["format"], data["format"])
        if fmt in EXPORTED:
            out.append((f"{fmt}/corpus/{path.stem}", fmt, data["completion"], data.get("thinking"),
                        data.get("prompt_text"), data.get("tools")))
    for path in sorted((ROOT / "goldens").glob("*.golden")):
        fmt = path.stem
        if fmt not in EXPORTED:
            continue
        seen = set()
        for golden in load_goldens(path):
            if (golden.text, golden.thinking) in seen:
                continue
            seen.add((golden.text, golden.thinking))
            out.append((f"{fmt}/golden/{golden.case}-{'think' if golden.thinking else 'nothink'}",
                        fmt, golden.text, golden.thinking, None, None))
    return out


CASES = _cases()


def _prefix(fmt: str, thinking: bool | None, prompt_text: str | None) -> str:
    """What transformers is given as the prompt: the case's prompt, else the reasoning
    marker when the format starts the completion in reasoning (the chat template opens
    it when the model thinks), else nothing; a format that always starts there says so
    in its template."""
    if prompt_text is not None:
        return prompt_text
    parser = parsergen.load(fmt).StreamingParser(thinking=thinking)
    always = set(type(parser).INITIAL_STATES.values()) == {REASONING}
    if parser.state_id != REASONING or always:
        return ""
    return EXPORTED[fmt]["fields"]["thinking"]["open"][0]


def ours(fmt_or_template: Any, text: str, thinking: bool | None, prompt_text: str | None,
         tools: Any) -> dict[str, Any]:
    """parse()'s message in the fields both sides have (a cut call counted)."""
    message = parsergen.load(fmt_or_template).parse(text, tools=tools, thinking=thinking,
                                                   prompt_text=prompt_text)
    return {"reasoning": (message.reasoning or "").strip(),
            "content": (message.content or "").strip(),
            "calls": [[c.name, json.loads(c.arguments)] for c in message.tool_calls],
            "cut": len(message.cut_calls)}


def theirs(template: dict[str, Any], text: str, prefix: str, tools: Any) -> dict[str, Any]:
    """transformers' parse_response in the same fields (or the error it raises)."""
    try:
        message = chat_parsing.parse_response(text, template, prefix=prefix, tools=tools)
    except (ValueError, KeyError) as exc:  # the whole message is lost
        return {"error": type(exc).__name__}
    return {"reasoning": (message.get("thinking") or "").strip(),
            "content": (message.get("content") or "").strip(),
            "calls": [[c["function"]["name"], c["function"]["arguments"]]
                      for c in message.get("tool_calls", [])], "cut": 0}


# Why a message differs, by rule, first rule that holds (goldens/DIFFERENCES.md,
# "Exported response_templates").
REASONS = {
    "raises": "transformers raises on a region it cannot read (JSON that does not parse, a "
              "transform's key the JSON lacks): the whole message is lost",
    "cut": "a call cut off: parsergen lists it as cut, transformers gives its partial text",
    "call-in-reasoning": "a call inside reasoning never closed: it ends reasoning in "
                         "parsergen; the template would need a close that is a lookahead, "
                         "which parsergen's import cannot compile",
    "marker-again": "the reasoning marker written again where reasoning is open: a region "
                    "watches only its close, so it is text",
    "recovered": "a call parsergen reads where the canonical anchors are not all written "
                 "(a missing opener, a bare function, a marker in prose)",
    "arguments": "the arguments: parsergen reads what the content parser does not (another "
                 "argument key, arguments as a JSON string, a value holding its own close "
                 "tag or its whitespace, a missing close tag, schema types)",
    "content": "content: a marker parsergen reads in prose, or drops where the template "
               "keeps it",
}


def reason(fmt: str, text: str, a: dict[str, Any], b: dict[str, Any]) -> str:
    """The first rule of REASONS that explains why ``a`` (the format) and ``b`` differ."""
    if "error" in b:
        return "raises"
    if a["cut"] != b["cut"]:
        return "cut"
    thinking = EXPORTED[fmt]["fields"].get("thinking", {})
    opens = thinking.get("open") or [re.sub(r"\\(.)", r"\1", o) for o in
                                     thinking.get("open_pattern", "").split("|") if o != "^"]
    if a["calls"] and len(b["reasoning"]) > len(a["reasoning"]) and len(b["calls"]) < len(a["calls"]):
        return "call-in-reasoning"
    if any(b["reasoning"].startswith(o) or o in b["reasoning"] for o in opens):
        return "marker-again"
    if [c[0] for c in a["calls"]] != [c[0] for c in b["calls"]]:
        return "recovered"
    if a["calls"] != b["calls"]:
        return "arguments"
    return "content"


def _importable() -> dict[str, str]:
    """Exported templates parsergen's own import refuses, with its reason."""
    out = {}
    for name, template in EXPORTED.items():
        try:
            parsergen.load(template)
        except parsergen.SpecError as exc:
            out[name] = str(exc)
    return out


NOT_IMPORTED = _importable()
DEPARTURES = json.loads((ROOT / "tests" / "support" / "export_departures.json")
                        .read_text(encoding="utf-8"))


def test_every_exported_template_loads_in_transformers() -> None:
    from transformers.utils.chat_parsing.response_templates import load_response_template

    assert EXPORTED and REFUSED
    assert NOT_IMPORTED == {}  # (and in parsergen: kimi_k2's through a pattern terminal)
    for name, template in EXPORTED.items():
        load_response_template(template)
        assert json.loads(json.dumps(template)) == template, name  # (JSON, as tokenizer_config)


# Every case, as the two comparisons below take it.
each_case = pytest.mark.parametrize("case,fmt,text,thinking,prompt_text,tools", CASES,
                                    ids=[c[0] for c in CASES])


@each_case
def test_transformers_reads_the_export_as_parsergen_parses(case: str, fmt: str, text: str,
                                                           thinking: bool | None,
                                                           prompt_text: str | None,
                                                           tools: Any) -> None:
    """parse_response with the exported template == the format's parse(), but the
    departures listed (tests/support/export_departures.json), each for its reason."""
    expected = ours(fmt, text, thinking, prompt_text, tools)
    got = theirs(EXPORTED[fmt], text, _prefix(fmt, thinking, prompt_text), tools)
    listed = DEPARTURES["transformers"].get(case)
    if listed is None:
        assert got == expected
    else:
        assert got != expected and reason(fmt, text, expected, got) == listed, REASONS[listed]


@each_case
def test_the_export_imported_back_parses_as_the_format(case: str, fmt: str, text: str,
                                                       thinking: bool | None,
                                                       prompt_text: str | None,
                                                       tools: Any) -> None:
    """parsergen.load(exported template) gives the format's messages (the prompt's
    reasoning marker as its prompt), but the departures listed, as for transformers."""
    if fmt in NOT_IMPORTED:
        pytest.skip(f"the import refuses {fmt}'s template: {NOT_IMPORTED[fmt]}")
    expected = ours(fmt, text, thinking, prompt_text, tools)
    got = ours(EXPORTED[fmt], text, None, _prefix(fmt, thinking, prompt_text) or None, tools)
    listed = DEPARTURES["import"].get(case)
    if listed is None:
        assert got == expected
    else:
        assert got != expected and reason(fmt, text, expected, got) == listed, REASONS[listed]


def test_the_departures_are_cases_and_reasons() -> None:
    ids = {c[0] for c in CASES}
    for side in ("transformers", "import"):
        assert set(DEPARTURES[side]) <= ids
        assert set(DEPARTURES[side].values()) <= set(REASONS)
    text = (ROOT / "goldens" / "DIFFERENCES.md").read_text(encoding="utf-8")
    assert "## Exported response_templates" in text
    for why in REASONS.values():
        assert why in text.replace("\n", " ")


def readme_lines() -> list[str]:
    """README's list of the formats that cannot be exported, as it must read."""
    return [f"- `{name}`: {why}" for name, why in sorted(REFUSED.items())]


def test_readme_lists_the_formats_that_cannot_be_exported() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("<!-- export-refused -->\n") + len("<!-- export-refused -->\n")
    listed = text[start:text.index("<!-- /export-refused -->")].strip().splitlines()
    assert listed == readme_lines()
    # and its count of the formats that export ("35 formats export")
    assert [int(n) for n in re.findall(r"(\d+) formats export", text)] == [len(EXPORTED)]


def test_a_refusal_names_the_spec_line_and_field() -> None:
    with pytest.raises(parsergen.SpecError) as err:
        parsergen.export_response_template("granite")
    line = next(i for i, s in enumerate((ROOT / "grammars" / "granite.yaml").read_text(
        encoding="utf-8").splitlines(), 1) if s.startswith("tool_body:"))
    assert f"granite.yaml:{line}:1: $.tool_body: cannot be exported" in str(err.value)
    with pytest.raises(KeyError):
        parsergen.export_response_template("no_such_format")


def test_the_command_line_exports(capsys: Any, tmp_path: Path) -> None:
    from parsergen.compiler import cli

    assert cli.main(["export", "--response-template", "qwen3_coder"]) == 0  # (an alias)
    assert json.loads(capsys.readouterr().out) == EXPORTED["qwen3"]
    out = tmp_path / "tokenizer_config.json"
    assert cli.main(["export", "--response-template", "hermes", "-o", str(out)]) == 0
    config = json.loads(out.read_text(encoding="utf-8"))
    assert config == {"response_template": EXPORTED["hermes"]}
    assert parsergen.load(out).parse('<tool_call>{"name": "f", "arguments": {}}</tool_call>') \
        .tool_calls[0].name == "f"
    assert cli.main(["export", "--response-template", "openai"]) == 1
    assert "openai.yaml:" in capsys.readouterr().err


WRITTEN = {"reasoning": "Let me think.", "content": "Here you go.", "tool_calls": [
    {"name": "get_weather", "arguments": {"city": "Paris \"centre\"", "opts": {"days": [1, 2]}}},
    {"name": "get_time", "arguments": {"zone": "UTC"}}]}


@pytest.mark.parametrize("thinking", [True, False], ids=["think", "nothink"])
@pytest.mark.parametrize("fmt", sorted(EXPORTED))
def test_what_the_format_writes_reads_the_same(fmt: str, thinking: bool) -> None:
    """The format's own render() of reasoning, content and two calls (nested arguments,
    quotes): transformers with the exported template, and its import, read the message
    the format reads."""
    module = parsergen.load(fmt)
    message = dict(WRITTEN)
    if not module.RENDERER.can_render_reasoning(thinking):
        message["reasoning"] = None
    if module.RENDERER.call is None:
        message["tool_calls"] = []
    text = module.render(message, thinking=thinking)
    expected = ours(fmt, text, thinking, None, None)
    assert expected["content"] == "Here you go."
    prefix = _prefix(fmt, thinking, None)
    assert theirs(EXPORTED[fmt], text, prefix, None) == expected
    if fmt not in NOT_IMPORTED:
        assert ours(EXPORTED[fmt], text, None, prefix or None, None) == expected
