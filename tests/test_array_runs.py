"""Runs of calls inside one JSON array of calls (bodies with ``whole_runs``: the
json_array body of Jamba, Granite 3 and Mistral before v11): ``parse()`` reads the
elements whole (``lexing.BodyRuns``, ``ToolBody.whole_run``), and gives exactly what
reading the same text one character per delta gives (message, cut calls, warnings,
content offset), with and without a tokenizer, with token ids too."""

from __future__ import annotations

import json
from typing import Any

import pytest

import parsergen
from parsergen.runtime.events import CallRun
from support.json_calls import (THINKING, TOOLS, call_cases, check_with_tokenizer, read_by_chars,
                                read_whole, render_text)
from support.streams import recording_parser, tapped_text
from support.tokenizers import FORMAT_TOKENIZERS, TOKENIZERS

FORMATS = sorted(f for f in parsergen.formats()
                 if parsergen.load(f).StreamingParser.BODY.whole_runs)


def _texts(module: Any) -> dict[str, str]:
    """Completions around arrays of calls: what may join a run and what must end it."""
    renderer = module.RENDERER
    lead, sep, close = (render_text(p) for p in (renderer.calls_open, renderer.separator,
                                                  renderer.calls_close))
    opener = lead[: lead.index("[")]  # the marker (and what the render writes before "[")

    def call(args: str = '{"n": 1, "s": "x"}', name: str = '"f"') -> str:
        return render_text(renderer.call, {"name_json": name, "arguments": args, "name": name,
                                           "index": "0", "index1": "1"})

    c = call()
    # (None: the call is named by its object's only key, {"f": {...}}: Apertus.)
    key = next((k for k in ("parameters", "arguments") if f'"{k}"' in c), None)
    texts = call_cases(lead, sep, close, call)
    texts.update({
        "compact": lead + c.replace('": ', '":').replace(', "', ',"') + "," + c + close,
        "nested": lead + call('{"o": {"a": {"b": [1, {"c": "}]"}]}}, '
                              '"s": "{\\"name\\": \\"f\\"}]"}') + sep + c + close,
        "special token inside": lead + call('{"s": "a<|eot_id|><|end|></s>b"}') + sep + c
        + close,
        "special token between": lead + c + "<|eot_id|><|end|><|endoftext|></s>" + c + close,
        "marker inside": lead + call(json.dumps({"s": opener + "[" + c})) + sep + c + close,
        "marker between": lead + c + sep + opener + c + sep + c + close,
        "not an object": lead + '"x", [1], ' + c + sep + "2" + sep + c + close,
        "object that is no call": lead + c + sep + '{"a": 1}' + sep + c + close,
        "answer object": lead + c + sep + (
            call().replace(f', "{key}": {{"n": 1, "s": "x"}}', "") if key else '{"f": 1}')
        + close,
        "no array": opener + c + sep + c,
        "space before the array": opener + " \n\t" + lead[len(opener):] + c + sep + c + close,
        "comma before the array": opener + "," + lead[len(opener):] + c + close,
        "comma first": lead + ", ," + c + sep + c + close,
        "empty array": "ok " + lead + close + " then " + lead + c + close,
        "empty array first": lead + close + " then " + lead + c + close,
        "trailing comma": lead + c + sep + c + ", " + close,
        "array, text, array": lead + c + sep + c + close + " and " + lead + c + sep + c + close,
        "text after the array": lead + c + sep + c + "] Done.",
        "text instead of close": lead + c + sep + c + " Done.",
        "close twice": lead + c + "]]" + c,
        "cut after the opening": lead,
        "no close": lead + c + sep + c,
    })
    for between in ("", ",", ",,", " , \n\t", "\n", ";", " x ", "\u00a0", "\r\n,\t"):
        texts[f"between {between!r}"] = lead + c + between + c + between + c + close
    for cut in range(1, len(lead)):
        texts[f"opening cut at {cut}"] = "ok " + lead[:cut]
    lexicon = module.StreamingParser.LEXICONS[THINKING]
    for lit, name in lexicon.literals.items():
        texts[f"{name} between calls"] = lead + c + sep + lit + sep + c + close
        texts[f"{name} in a string"] = lead + call(json.dumps({"s": lit})) + sep + c + close
    return texts


def test_formats_with_array_runs() -> None:
    assert {"granite", "jamba", "mistral_pre_v11"} <= set(FORMATS)


@pytest.mark.parametrize("fmt", FORMATS)
def test_runs_equal_streamed(fmt: str) -> None:
    """With the request's tools, without tools, and under tool_choice "none" (no runs)."""
    module = parsergen.load(fmt)
    for name, text in _texts(module).items():
        assert read_whole(module, text) == read_by_chars(module, text), name
        assert (read_whole(module, text, tools=None)
                == read_by_chars(module, text, tools=None)), name
        if "between" in name or "cut" in name:
            assert (read_whole(module, text, tool_choice="none")
                    == read_by_chars(module, text, tool_choice="none")), name


@pytest.mark.parametrize("fmt", [f for f in FORMATS
                                 if parsergen.load(f).RENDERER.can_render_reasoning(True)])
def test_runs_after_reasoning_equal_streamed(fmt: str) -> None:
    """After reasoning, closed or ended by the calls' marker (where content begins)."""
    module = parsergen.load(fmt)
    calls = [{"name": "f", "arguments": {"n": i, "s": "x"}} for i in range(3)]
    texts = [module.render({"reasoning": "Hmm.", "content": content, "tool_calls": calls},
                           thinking=True) for content in (None, "Sure.")]
    lead = render_text(module.RENDERER.calls_open)
    texts.append("Hmm. " + texts[0][texts[0].index(lead):])  # no end marker: the calls end it
    for text in texts:
        assert (read_whole(module, text, thinking=True)
                == read_by_chars(module, text, thinking=True)), text


@pytest.mark.parametrize("fmt", FORMATS)
def test_runs_with_a_tokenizer_equal_streamed(fmt: str) -> None:
    """Text mode (special tokens the format does not name are dropped, inside an element
    too), and token ids (a marker counts only as its token): as streamed."""
    module = parsergen.load(fmt)
    tokenizer = TOKENIZERS[FORMAT_TOKENIZERS[fmt]]()
    for name, text in _texts(module).items():
        if name.startswith("cut at") and not name.endswith("0"):
            continue  # (a tenth of the cuts: the rest are read without a tokenizer above)
        check_with_tokenizer(module, name, text, tokenizer)


# Formats whose TOOL_ARGS has no value scanner (none of its markers can hide in a string):
# Apertus's <|tools_suffix|> and Cohere's <|END_ACTION|> may close an element the model
# left open, so their elements are read piece by piece, never as runs
# (compiler/whole_calls.py).
RUN_FORMATS = [f for f in FORMATS if parsergen.load(f).StreamingParser.WHOLE_CALLS]


def test_which_formats_read_runs() -> None:
    assert sorted(set(FORMATS) - set(RUN_FORMATS)) == ["apertus", "cohere_command3",
                                                       "cohere_command4"]


@pytest.mark.parametrize("fmt", RUN_FORMATS)
def test_runs_read_calls_whole(fmt: str) -> None:
    """Elements in a row go out as CallRuns, not as pieces and events; every character
    is in them or in the pieces around them."""
    module = parsergen.load(fmt)
    texts = _texts(module)
    for name, counts in (("three", [3]), ("many", [40]), ("content around", [2]),
                         ("between ' , \\n\\t'", [3]), ("re-typed member", [1, 1]),
                         ("array, text, array", [2, 2])):
        seen: list[Any] = []
        parser = recording_parser(module, seen, tools=TOOLS, thinking=THINKING)
        message = parser.complete(texts[name])
        runs = [item for item in seen if type(item) is CallRun]
        assert [len(run.calls) for run in runs] == counts, name
        assert len(message.tool_calls) == len(texts[name].split('"name"')) - 1, name
        assert tapped_text(seen) == texts[name], name


def test_calls_named_by_their_key_read_whole(tmp_path: Any) -> None:
    """json_envelope's name_is_key (Apertus's {NAME: ARGS}) in a body whose elements may be
    read whole: with no marker to scan TOOL_ARGS for, runs of them are CallRuns, and every
    text reads as one character per delta does."""
    spec = tmp_path / "keyed_runs.yaml"
    spec.write_text("extends: apertus\nname: keyed_runs\ndescription: Apertus, runs\n"
                    "transitions: {TOOL_ARGS: null}\n", encoding="utf-8")
    module = parsergen.load(spec)
    assert module.StreamingParser.WHOLE_CALLS
    texts = _texts(module)
    for name, text in texts.items():
        assert read_whole(module, text) == read_by_chars(module, text), name
        assert (read_whole(module, text, tools=None)
                == read_by_chars(module, text, tools=None)), name
    for name, counts in (("three", [3]), ("many", [40]), ("content around", [2])):
        seen: list[Any] = []
        parser = recording_parser(module, seen, tools=TOOLS, thinking=THINKING)
        message = parser.complete(texts[name])
        runs = [item for item in seen if type(item) is CallRun]
        assert [len(run.calls) for run in runs] == counts, name
        assert len(message.tool_calls) == sum(counts), name
        assert tapped_text(seen) == texts[name], name


def test_ids_the_model_writes_are_the_calls_ids() -> None:
    """json_envelope's id_key (Cohere's tool_call_id): the id written before the arguments
    is the call's id, whole and streamed; a call without one, or with it after the
    arguments (the id goes out with the name), gets a generated id."""
    module = parsergen.load("cohere_command3")
    text = ('<|START_ACTION|>[{"tool_call_id": "call_a", "tool_name": "f", '
            '"parameters": {"n": 1}}, {"tool_name": "f", "parameters": {"n": 2}}, '
            '{"tool_name": "f", "parameters": {"n": 3}, "tool_call_id": "late"}, '
            '{"tool_call_id": "7", "tool_name": "g", "parameters": {}}]<|END_ACTION|>')
    whole, streamed = read_whole(module, text), read_by_chars(module, text)
    assert whole == streamed
    ids = [call.id for call in whole[0].tool_calls]
    assert ids[0] == "call_a" and ids[3] == "7"
    assert ids[1].startswith("chatcmpl-tool-") and ids[2].startswith("chatcmpl-tool-")
    assert [json.loads(call.arguments) for call in whole[0].tool_calls] == [
        {"n": 1}, {"n": 2}, {"n": 3}, {}]
