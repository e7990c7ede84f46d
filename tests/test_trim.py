"""Value trimming modes (``trim: none | one_newline | strip``): any split gives what the
whole value gives, and a spec's streamed message equals its parse in every cadence."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parsergen.compiler.validate import schema
from parsergen.runtime import accumulate
from parsergen.runtime.arguments.trim import TRIM_MODES, ValueTrim, trim_mode
from parsergen.runtime.arguments.writer import ArgumentsWriter
from parsergen.runtime.arguments.xml_parameters_reader import TaggedArguments
from support.specs import build
from support.streams import text_pieces

WHOLE = {"none": lambda v: v, "strip": str.strip}
QWEN = {"open": "<parameter=", "name_end": ">", "close": "</parameter>"}
TEXT = st.text(st.sampled_from("ab \n\t\u3000x"), max_size=12)


def _pieces(text: str, cuts: list[int]) -> list[str]:
    bounds = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


def _trimmed(mode: str, pieces: list[str]) -> str:
    trim = ValueTrim(mode)
    out = [trim(p, final=False) for p in pieces]
    out.append(trim("", final=True))
    return "".join(out)


@settings(max_examples=300, deadline=None)
@given(text=TEXT, cuts=st.lists(st.integers(0, 100), max_size=6),
       mode=st.sampled_from(TRIM_MODES))
def test_any_split_trims_as_the_whole(text: str, cuts: list[int], mode: str) -> None:
    whole = ValueTrim(mode)(text, final=True)
    assert _trimmed(mode, _pieces(text, cuts)) == whole
    if mode in WHOLE:
        assert whole == WHOLE[mode](text)


def test_modes() -> None:
    assert ValueTrim("one_newline")("\n\n a \n\n", final=True) == "\n a \n"
    assert ValueTrim("strip")("\n\n a b\t\n", final=True) == "a b"
    assert ValueTrim("none")("\n a \n", final=True) == "\n a \n"
    # Strip holds a trailing whitespace run until the value goes on or ends.
    trim = ValueTrim("strip")
    assert [trim(p, final=False) for p in (" \n", "a ", " \n", "b", "  ")] == [
        "", "a", "", "  \nb", ""]
    assert trim("", final=True) == ""
    trim.reset()
    assert trim("  c", final=True) == "c"


def test_the_old_spellings_still_work() -> None:
    assert (trim_mode(True), trim_mode(False), trim_mode(None)) == (
        "one_newline", "none", "none")
    with pytest.raises(ValueError, match="unknown trim mode"):
        trim_mode("all")


def test_schema_lists_the_modes() -> None:
    choices = schema()["$defs"]["arguments"]["oneOf"]
    tagged = next(c for c in choices if c["properties"]["syntax"]["const"] == "xml_parameters")
    assert tagged["properties"]["trim"]["enum"] == list(TRIM_MODES)


@settings(max_examples=200, deadline=None)
@given(values=st.lists(TEXT.filter(lambda v: "<" not in v), min_size=1, max_size=3),
       cuts=st.lists(st.integers(0, 10_000), max_size=10))
def test_tagged_strip_any_split(values: list[str], cuts: list[int]) -> None:
    body = "".join(f"<parameter=k{i}> {v}\n</parameter>\n" for i, v in enumerate(values))

    def run(pieces: list[str]) -> str:
        reader = TaggedArguments(ArgumentsWriter({}), **QWEN, trim="strip")
        return "".join([reader.feed(p) for p in pieces] + [reader.finish()])

    whole = run([body])
    assert run(_pieces(body, cuts)) == whole
    assert json.loads(whole) == {f"k{i}": v.strip() for i, v in enumerate(values)}


SPEC = """\
    $schema: parsergen://schema.json
    name: trim_{mode}
    description: qwen3 with trim {mode}
    extends: qwen3
    models: [trim-{mode}-test]
    arguments: {{trim: {mode}}}
    """
CALL = ("Hi<tool_call>\n<function=f>\n<parameter=city>\n  Paris, \n FR \n\n</parameter>\n"
        "<parameter=days>\n 3 \n</parameter>\n<parameter=note>\n\n</parameter>\n"
        "</function>\n</tool_call>")
EXPECTED = {
    "none": {"city": "\n  Paris, \n FR \n\n", "days": 3, "note": "\n\n"},
    "one_newline": {"city": "  Paris, \n FR \n", "days": 3, "note": ""},
    "strip": {"city": "Paris, \n FR", "days": 3, "note": ""},
}


def _message(parsed: Any) -> tuple:
    return (parsed.content, [(c.name, json.loads(c.arguments)) for c in parsed.tool_calls])


@pytest.mark.parametrize("mode", TRIM_MODES)
def test_spec_stream_equals_parse_in_every_cadence(tmp_path: Path, mode: str) -> None:
    module = build(tmp_path, SPEC.format(mode=mode), f"trim_{mode}")
    tools = [{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"},
                                         "days": {"type": "integer"},
                                         "note": {"type": "string"}}}}}]
    whole = _message(module.parse(CALL, tools=tools, thinking=False))
    assert whole == ("Hi", [("f", EXPECTED[mode])])
    cadences = {"whole": [CALL], "chars": list(CALL)}
    for seed in range(4):
        cadences[f"random {seed}"] = [t for t, _ in text_pieces(CALL, random.Random(seed), 9)]
    for name, deltas in cadences.items():
        chat = module.ChatParser(tools=tools, thinking=False)
        out = [chat.feed(d) for d in deltas]
        out.append(chat.finish())
        assert _message(accumulate(out)) == whole, name


ELEMENTS_SPEC = """\
    $schema: parsergen://schema.json
    name: elements_{mode}
    description: MiniMax M3 with trim {mode}
    extends: minimax_m3
    models: [elements-{mode}-test]
    arguments: {{trim: {mode}}}
    """
P = "]<]minimax[>["
ELEMENTS_CALL = (f'Hi{P}<tool_call>\n{P}<invoke name="f">\n{P}<city>\n  Paris, \n FR \n\n{P}</city>\n'
                 f"{P}<days> 3\n{P}</days>\n{P}<tags>{P}<item>\n a \n{P}</item>{P}<item>b {P}</item>"
                 f"{P}</tags>{P}<o> x {P}<k>\nv\n{P}</k>\n{P}</o>{P}<note>\n\n{P}</note>\n"
                 f"{P}</invoke>\n{P}</tool_call>")
ELEMENTS_EXPECTED = {
    "none": {"city": "\n  Paris, \n FR \n\n", "days": 3, "tags": ["\n a \n", "b "],
             "o": {"k": "\nv\n", "$text": " x \n"}, "note": "\n\n"},
    "one_newline": {"city": "  Paris, \n FR \n", "days": 3, "tags": [" a ", "b "],
                    "o": {"k": "v", "$text": " x "}, "note": ""},
    "strip": {"city": "Paris, \n FR", "days": 3, "tags": ["a", "b"],
              "o": {"k": "v", "$text": "x"}, "note": ""},
}
ELEMENTS_TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
                                     "tags": {"type": "array", "items": {"type": "string"}},
                                     "o": {"type": "object"}, "note": {"type": "string"}}}}}]


@pytest.mark.parametrize("mode", TRIM_MODES)
def test_nested_elements_trim_streams_as_parse(tmp_path: Path, mode: str) -> None:
    """``trim`` for nested_elements values (leaves and the text beside children): the
    stream gives what ``parse()`` gives, in every cadence; rendered arguments read back."""
    module = build(tmp_path, ELEMENTS_SPEC.format(mode=mode), f"elements_{mode}")
    whole = _message(module.parse(ELEMENTS_CALL, tools=ELEMENTS_TOOLS, thinking=False))
    assert whole == ("Hi", [("f", ELEMENTS_EXPECTED[mode])])
    cadences = {"whole": [ELEMENTS_CALL], "chars": list(ELEMENTS_CALL)}
    for seed in range(4):
        cadences[f"random {seed}"] = [t for t, _ in text_pieces(ELEMENTS_CALL,
                                                                 random.Random(seed), 9)]
    for name, deltas in cadences.items():
        chat = module.ChatParser(tools=ELEMENTS_TOOLS, thinking=False)
        out = [chat.feed(d) for d in deltas]
        out.append(chat.finish())
        assert _message(accumulate(out)) == whole, name
    # What a mode keeps, rendering writes so that reading it back gives it again.
    args = {"city": "Paris", "days": 3, "tags": ["a", "b"]}
    text = module.render({"role": "assistant", "content": None, "tool_calls": [
        {"type": "function", "function": {"name": "f", "arguments": json.dumps(args)}}]})
    assert _message(module.parse(text, tools=ELEMENTS_TOOLS, thinking=False)) == (
        None, [("f", args)])


def test_nested_elements_schema_lists_the_modes() -> None:
    choices = schema()["$defs"]["arguments"]["oneOf"]
    nested = next(c for c in choices if c["properties"]["syntax"]["const"] == "nested_elements")
    assert nested["properties"]["trim"]["enum"] == list(TRIM_MODES)
