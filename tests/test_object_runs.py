"""Runs of calls that are a marker and one JSON object each (call programs whose last
step is the object: Llama 3's JSON calls, granite-20b-fc's tagged objects, Phi-4-mini's
list): ``parse()`` reads them whole, and gives exactly what reading the same text one
character per delta gives (message, warnings, content offset), with and without a
tokenizer, with token ids too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import parsergen
from parsergen.runtime.events import CallRun
from support.programs import programs
from support.specs import build
from support.json_calls import (PROPERTIES, THINKING, TOOLS, call_cases, check_with_tokenizer,
                                read_by_chars, read_whole, render_text)
from support.streams import recording_parser, tapped_text
from support.tokenizers import FORMAT_TOKENIZERS, TOKENIZERS

FORMATS = sorted(f for f in parsergen.formats() if programs(parsergen.load(f), objects=True))


def _literal(module: Any, terminal: str) -> str:
    lexicon = module.StreamingParser.LEXICONS[THINKING]
    return next(lit for lit, name in lexicon.literals.items() if name == terminal)


def _texts(module: Any) -> dict[str, str]:
    """Completions around runs of calls: what may join a run and what must end it."""
    renderer = module.RENDERER
    lead, sep, close = (render_text(p) for p in (renderer.calls_open, renderer.separator,
                                                  renderer.calls_close))

    def call(args: str = '{"n": 1, "s": "x"}', name: str = '"f"') -> str:
        return render_text(renderer.call, {"name_json": name, "arguments": args, "name": name})

    c = call()
    runs = programs(module, objects=True)
    after = next(iter(runs.values())).after
    starts = {name: name in runs[after].opens for name in runs[after].starts}
    texts = call_cases(lead, sep, close, call)
    texts.update({
        "text, framing after": lead + c + " x " + c + sep + c + sep + close,
        "text, text after": lead + c + " x " + c + sep + c + sep + "y" + close,
        "compact": lead + c.replace('": ', '":').replace(', "', ',"') + sep + c + close,
        "nested": lead + call('{"o": {"a": {"b": [1, {"c": "}"}]}}, '
                              '"s": "{\\"name\\": \\"f\\"}"}') + sep + c + close,
        "special token inside": lead + call('{"s": "a<|eot_id|><|end|>b"}') + sep + c + close,
        "special token between": lead + c + "<|eot_id|><|end|><|endoftext|>" + c + close,
        "marker quoted in content": 'He wrote {"name" and { "name" and ' + lead[:3] + ". "
        + lead + c + close,
        "answer object": '{"name": "f"} ' + lead + c + close,
        "content then object": "x" + lead + c + sep + c + close,
        "after close": lead + c + close + " and " + lead + c + close,
    })
    framing = " " + module.StreamingParser.FRAMING_PUNCTUATION + "\n\t"
    texts["framing between"] = lead + c + framing + c + framing + c + close
    for between in ("", ";", "; ", "\n", " ;\n\t", ";;", ", ", " then ", "\u00a0", "\n\n;"):
        texts[f"between {between!r}"] = lead + c + between + c + between + c + close
    for name, opens in starts.items():
        lit = _literal(module, name)
        if not opens and not c.startswith(lit):  # a marker before the object (python_tag)
            texts[f"{name} first"] = lead + lit + c + sep + c + close
            texts[f"{name} between"] = lead + c + sep + lit + c + sep + lit + " " + c + close
            texts[f"{name} then space"] = lead + lit + "\n " + c + close
            texts[f"{name} then text"] = lead + c + sep + lit + "x" + c + close
            texts[f"{name} cut"] = lead + c + sep + lit
        if not opens and c.startswith(lit):
            texts[f"{name} then text"] = lead + c + sep + lit + " x" + c[len(lit):] + close
            texts[f"{name} newlines"] = lead + c + sep + lit + "\n\n" + c[len(lit):] + close
    lexicon = module.StreamingParser.LEXICONS[THINKING]
    for name in lexicon.live.get(after, ()):
        if name not in starts:  # another marker between calls ends the run
            texts[f"{name} between calls"] = lead + c + _literal(module, name) + c + close
    return texts


def _tokenizer(fmt: str) -> Any:
    return TOKENIZERS[FORMAT_TOKENIZERS[fmt]]()


def test_formats_with_object_runs() -> None:
    assert {"llama3_json", "granite_20b_fc", "phi4_mini_json"} <= set(FORMATS)


@pytest.mark.parametrize("tool_choice", [None, "none"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_runs_equal_streamed(fmt: str, tool_choice: str | None) -> None:
    module = parsergen.load(fmt)
    for name, text in _texts(module).items():
        assert read_whole(module, text, tool_choice=tool_choice) == read_by_chars(
            module, text, tool_choice=tool_choice), name


@pytest.mark.parametrize("fmt", FORMATS)
def test_runs_without_tools_equal_streamed(fmt: str) -> None:
    module = parsergen.load(fmt)
    for name, text in _texts(module).items():
        assert (read_whole(module, text, tools=None)
                == read_by_chars(module, text, tools=None)), name


@pytest.mark.parametrize("fmt", FORMATS)
def test_runs_with_a_tokenizer_equal_streamed(fmt: str) -> None:
    """Text mode (special tokens the format does not name are dropped, inside an object
    too), and token ids (a marker counts only as its token): as streamed."""
    module = parsergen.load(fmt)
    tokenizer = _tokenizer(fmt)
    for name, text in _texts(module).items():
        check_with_tokenizer(module, name, text, tokenizer)


@pytest.mark.parametrize("fmt", FORMATS)
def test_runs_read_calls_whole(fmt: str) -> None:
    """Calls in a row go out as one CallRun, not as pieces and events; every character
    is in it or in the pieces around it."""
    module = parsergen.load(fmt)
    texts = _texts(module)
    for name, count in (("three", 3), ("many", 40), ("content around", 2),
                        ("framing between", 3)):
        seen: list[Any] = []
        parser = recording_parser(module, seen, tools=TOOLS, thinking=THINKING)
        message = parser.complete(texts[name])
        runs = [item for item in seen if type(item) is CallRun]
        assert [len(run.calls) for run in runs] == [count], name
        assert len(message.tool_calls) == count
        assert tapped_text(seen) == texts[name]


LLAMA_LIKE = """
    name: objects
    description: calls as JSON objects, names validated
    terminals:
      JSON_CALL: {text: '{"name"'}
      EOT: "<eot>"
    transitions:
      CONTENT:
        JSON_CALL: {to: TOOL_ARGS, emit: [TOOL_CALL_START, ARG_VALUE_CHUNK]}
        EOT: CONTENT
      TOOL_BETWEEN:
        JSON_CALL: {to: TOOL_ARGS, emit: [TOOL_CALL_START, ARG_VALUE_CHUNK]}
    %s
    tool_body: json_object
    arguments: {syntax: json_envelope, argument_keys: [parameters]}
    assembly: {validate_tool_names: %s}
    render:
      call: '{"name": ${name_json}, "parameters": ${arguments}}'
      separator: "; "
"""


def test_validated_names(tmp_path: Path) -> None:
    """Where names are validated, a call to a tool not requested is content: the run
    ends before it, and goes on after it."""
    module = build(tmp_path, LLAMA_LIKE % ("", "true"))
    assert programs(module, objects=True)
    c = '{"name": "f", "parameters": {"n": 1}}'
    for text in (c + "; " + c.replace('"f"', '"zzz"') + "; " + c + "; " + c,
                 c + "; " + c.replace('"f"', '"g"') + "; " + c):
        assert read_whole(module, text) == read_by_chars(module, text)
        assert (read_whole(module, text, tools=TOOLS[:1])
                == read_by_chars(module, text, tools=TOOLS[:1]))


def test_only_where_the_object_alone_ends_the_call(tmp_path: Path) -> None:
    """A terminal of TOOL_ARGS could end a call inside its object: no runs there."""
    ended = LLAMA_LIKE % ("  TOOL_ARGS:\n        EOT: {to: CONTENT, emit: [TOOL_CALL_END]}",
                          "false")
    assert not programs(build(tmp_path, ended, "ended"), objects=True)
    assert programs(build(tmp_path, LLAMA_LIKE % ("", "false"), "open"), objects=True)


def test_whole_object_reads_as_whole_call() -> None:
    """The envelope's whole_object (its end from its own reading) answers as the default
    does (the object's end found by decoding it, then whole_call)."""
    from parsergen.runtime.arguments import ArgumentSyntax

    syntax = parsergen.load("llama3_json").ChatParser.SYNTAX
    properties = {"f": PROPERTIES}.get
    c = '{"name": "f", "parameters": {"n": 1, "s": "x"}}'
    for text in ("; " + c + "; " + c, c, c + "x", c[:-1] + " }", c[:-1] + ', "id": 1}',
                 c.replace('"n": 1', '"n": "1"'), c.replace('"f"', '" f"'), c[:-1],
                 '{"name": "f"}', c.replace("parameters", "arguments")):
        pos = text.find("{")
        want = ArgumentSyntax.whole_object(syntax, text, pos, properties)
        assert syntax.whole_object(text, pos, properties) == want, text
