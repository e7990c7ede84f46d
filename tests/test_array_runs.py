"""Runs of calls inside one JSON array of calls (bodies with ``whole_runs``: the
json_array body of Jamba, Granite 3 and Mistral before v11): ``parse()`` reads the
elements whole (the driver's _body_run, ``ToolBody.whole_run``), and gives exactly what
reading the same text one character per delta gives (message, cut calls, warnings,
content offset), with and without a tokenizer, with token ids too."""

from __future__ import annotations

import json
from typing import Any

import pytest

import parsergen
from parsergen.runtime import accumulate, without_cut_calls
from parsergen.runtime.events import CallRun, RawText
from support.streams import recording_parser, token_deltas
from support.tokenizers import FORMAT_TOKENIZERS, TOKENIZERS

FORMATS = sorted(f for f in parsergen.formats()
                 if parsergen.load(f).StreamingParser.BODY.whole_runs)

PROPERTIES = {"n": {"type": "integer"}, "x": {"type": "number"}, "s": {"type": "string"},
              "o": {"type": "object"}, "l": {"type": "array"}, "b": {"type": "boolean"}}
TOOLS = [{"type": "function", "function": {"name": name, "parameters": {
    "type": "object", "properties": PROPERTIES}}} for name in ("f", "g")]
THINKING = False


def _text(parts: Any, fields: dict[str, str] | None = None) -> str:
    """The text of a render section's parts, fields filled in as written."""
    return "".join((fields or {})[value] if kind == "field" else value for kind, value in parts)


def _texts(module: Any) -> dict[str, str]:
    """Completions around arrays of calls: what may join a run and what must end it."""
    renderer = module.RENDERER
    lead, sep, close = (_text(p) for p in (renderer.calls_open, renderer.separator,
                                            renderer.calls_close))
    opener = lead[: lead.index("[")]  # the marker (and what the render writes before "[")

    def call(args: str = '{"n": 1, "s": "x"}', name: str = '"f"') -> str:
        return _text(renderer.call, {"name_json": name, "arguments": args, "name": name})

    c = call()
    key = next(k for k in ("parameters", "arguments") if f'"{k}"' in c)
    other = "arguments" if key == "parameters" else "parameters"
    texts = {
        "three": lead + c + sep + c + sep + c + close,
        "content around": "Sure. " + lead + c + sep + c + close + " Done.",
        "many": lead + sep.join([c] * 40) + close,
        "re-typed member": lead + c + sep + call('{"n": "5"}') + sep + c + close,
        "re-typed, text after": lead + c + sep + call('{"n": "5"}') + sep + c + " oops" + close,
        "untyped member": lead + call('{"zz": [1, {"a": "b"}], "n": 2}') + sep + c + close,
        "empty arguments": lead + call("{}") + sep + c + close,
        "compact": lead + c.replace('": ', '":').replace(', "', ',"') + "," + c + close,
        "newlines inside": lead + c.replace(", ", ",\n  ") + sep + c + close,
        "spaces inside": lead + c.replace('{"n"', '{ "n"').replace("}", " }") + sep + c + close,
        "nested": lead + call('{"o": {"a": {"b": [1, {"c": "}]"}]}}, '
                              '"s": "{\\"name\\": \\"f\\"}]"}') + sep + c + close,
        "unicode": lead + call('{"s": "S\\u00e3o \\ud83c\\udf5c \u6771\u4eac"}') + sep + c + close,
        "other arguments key": lead + c.replace(f'"{key}"', f'"{other}"') + sep + c + close,
        "args key": lead + c.replace(f'"{key}"', '"args"') + sep + c + close,
        "extra member after": lead + c[:-1] + ', "id": 1}' + sep + c + close,
        "extra member between": lead + c.replace(f'"{key}"', f'"id": 1, "{key}"') + sep + c
        + close,
        "arguments as a string": lead + call(json.dumps('{"n": 1}')) + sep + c + close,
        "no arguments": lead + c.replace(f', "{key}": {{"n": 1, "s": "x"}}', "") + sep + c
        + close,
        "empty name": lead + c + sep + call(name='""') + sep + c + close,
        "name with spaces": lead + c + sep + call(name='" f "') + sep + c + close,
        "unknown tool": lead + c + sep + call(name='"zzz"') + sep + c + close,
        "name not a string": lead + c + sep + call(name="1") + sep + c + close,
        "escaped name": lead + call(name='"\\u0066"') + sep + c + close,
        "duplicate key": lead + call('{"n": 1, "n": 2}') + sep + c + close,
        "NaN": lead + call('{"x": NaN}') + sep + c + close,
        "raw newline in a string": lead + call('{"s": "a\nb"}') + sep + c + close,
        "deep": lead + call('{"l": ' + "[" * 3000 + "]" * 3000 + "}") + sep + c + close,
        "brace after": lead + c + "}" + sep + c + close,
        "special token inside": lead + call('{"s": "a<|eot_id|><|end|></s>b"}') + sep + c
        + close,
        "special token between": lead + c + "<|eot_id|><|end|><|endoftext|></s>" + c + close,
        "marker inside": lead + call(json.dumps({"s": opener + "[" + c})) + sep + c + close,
        "marker between": lead + c + sep + opener + c + sep + c + close,
        "whitespace before": " \n " + lead + c + sep + c + close,
        "long value": lead + call(json.dumps({"s": "x" * 5000, "n": 1})) + sep + c + close,
        "not an object": lead + '"x", [1], ' + c + sep + "2" + sep + c + close,
        "object that is no call": lead + c + sep + '{"a": 1}' + sep + c + close,
        "answer object": lead + c + sep + call().replace(f', "{key}": {{"n": 1, "s": "x"}}', "")
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
        "cut after separator": lead + c + sep,
        "cut in separator": lead + c + sep[:1],
        "cut after the opening": lead,
        "no close": lead + c + sep + c,
    }
    for between in ("", ",", ",,", " , \n\t", "\n", ";", " x ", "\u00a0", "\r\n,\t"):
        texts[f"between {between!r}"] = lead + c + between + c + between + c + close
    for cut in range(1, len(c)):
        texts[f"cut at {cut}"] = lead + c + sep + c[:cut]
    for cut in range(1, len(lead)):
        texts[f"opening cut at {cut}"] = "ok " + lead[:cut]
    lexicon = module.StreamingParser.LEXICONS[THINKING]
    for lit, name in lexicon.literals.items():
        texts[f"{name} between calls"] = lead + c + sep + lit + sep + c + close
        texts[f"{name} in a string"] = lead + call(json.dumps({"s": lit})) + sep + c + close
    return texts


def _parser(module: Any, tokenizer: Any, kwargs: dict[str, Any]) -> Any:
    return module.ChatParser(tokenizer, tools=kwargs.get("tools", TOOLS),
                             thinking=kwargs.get("thinking", THINKING), ids="sequential",
                             tool_choice=kwargs.get("tool_choice"))


def _chars(module: Any, text: str, tokenizer: Any = None, **kwargs: Any) -> tuple:
    parser = _parser(module, tokenizer, kwargs)
    message = accumulate([parser.feed(ch) for ch in text] + [parser.finish()])
    return (without_cut_calls(message, parser.cut_calls), parser.cut_calls, parser.warnings,
            parser.content_offset)


def _whole(module: Any, text: str, tokenizer: Any = None, **kwargs: Any) -> tuple:
    parser = _parser(module, tokenizer, kwargs)
    message = parser.complete(text, kwargs.get("token_ids", ()))
    return message, parser.cut_calls, parser.warnings, parser.content_offset


def test_formats_with_array_runs() -> None:
    assert {"granite", "jamba", "mistral_pre_v11"} <= set(FORMATS)


@pytest.mark.parametrize("fmt", FORMATS)
def test_runs_equal_streamed(fmt: str) -> None:
    """With the request's tools, without tools, and under tool_choice "none" (no runs)."""
    module = parsergen.load(fmt)
    for name, text in _texts(module).items():
        assert _whole(module, text) == _chars(module, text), name
        assert _whole(module, text, tools=None) == _chars(module, text, tools=None), name
        if "between" in name or "cut" in name:
            assert (_whole(module, text, tool_choice="none")
                    == _chars(module, text, tool_choice="none")), name


@pytest.mark.parametrize("fmt", [f for f in FORMATS
                                 if parsergen.load(f).RENDERER.can_render_reasoning(True)])
def test_runs_after_reasoning_equal_streamed(fmt: str) -> None:
    """After reasoning, closed or ended by the calls' marker (where content begins)."""
    module = parsergen.load(fmt)
    calls = [{"name": "f", "arguments": {"n": i, "s": "x"}} for i in range(3)]
    texts = [module.render({"reasoning": "Hmm.", "content": content, "tool_calls": calls},
                           thinking=True) for content in (None, "Sure.")]
    lead = _text(module.RENDERER.calls_open)
    texts.append("Hmm. " + texts[0][texts[0].index(lead):])  # no end marker: the calls end it
    for text in texts:
        assert _whole(module, text, thinking=True) == _chars(module, text, thinking=True), text


@pytest.mark.parametrize("fmt", FORMATS)
def test_runs_with_a_tokenizer_equal_streamed(fmt: str) -> None:
    """Text mode (special tokens the format does not name are dropped, inside an element
    too), and token ids (a marker counts only as its token): as streamed."""
    module = parsergen.load(fmt)
    tokenizer = TOKENIZERS[FORMAT_TOKENIZERS[fmt]]()
    for name, text in _texts(module).items():
        if name.startswith("cut at") and not name.endswith("0"):
            continue  # (a tenth of the cuts: the rest are read without a tokenizer above)
        assert _whole(module, text, tokenizer) == _chars(module, text, tokenizer), name
        ids = tokenizer.encode(text, add_special_tokens=False)
        parser = _parser(module, tokenizer, {})
        message = accumulate([parser.feed(t, i) for t, i in token_deltas(tokenizer, ids)]
                             + [parser.finish()])
        streamed = (without_cut_calls(message, parser.cut_calls), parser.cut_calls,
                    parser.warnings, parser.content_offset)
        assert _whole(module, text, tokenizer, token_ids=ids) == streamed, name


@pytest.mark.parametrize("fmt", FORMATS)
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
        text = ""
        for item in seen:
            if type(item) is RawText:
                text += item.text
            elif type(item) is CallRun:
                text += "".join(b + s + t + e for b, s, t, e, _ in item.calls)
        assert text == texts[name], name
