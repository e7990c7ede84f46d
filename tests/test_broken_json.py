"""Broken arguments are never rewritten into something else (README, "Broken output"):

(a) a quote a model left unescaped inside a JSON string is text where what follows it
    is more of the string (a colon after a key; a comma, ``}`` or ``]`` after a value
    end it);
(b) what a call's end leaves open in its arguments is closed there with closers only
    (a string's quote, brackets, the call's own ``}`` or ``)``), a key whose value never
    began is left out, and every repair is in ``warnings``;
(c) a value JSON cannot hold (NaN, Infinity, 1e400, a Python value that is no literal)
    is kept as its text, and the call and its siblings stand.

Each case runs in every format whose argument syntax has it, rendered by the format's
own renderer, and is read whole, streamed one character per delta and streamed one
token per delta with ids: all three give the same calls and the same warnings.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import parsergen
from parsergen.runtime.arguments import syntax
from parsergen.runtime.arguments.scanning import escape_stray_quotes, py_closers
from support.json_calls import read_by_chars, read_by_ids, read_whole
from support.tokenizers import FORMAT_TOKENIZERS

ALL = sorted(f for f in parsergen.formats() if parsergen.load(f).RENDERER.call is not None)


def _syntax(fmt: str) -> str:
    return str(parsergen.load(fmt).ChatParser.ARGUMENTS["syntax"])


def _ends_at_marker(fmt: str) -> bool:
    """Whether the format's call template ends a call with a marker after its arguments."""
    parts = list(parsergen.load(fmt).RENDERER.call)
    after = parts[parts.index(("field", "arguments")) + 1 :]
    return any(kind == "marker" for kind, _ in after)


JSON = [f for f in ALL if _syntax(f) in ("json", "json_envelope")]
JSON_ENDED = [f for f in JSON if _ends_at_marker(f)]
PYTHON = [f for f in ALL if _syntax(f) == "python_kwargs"]
NOTATION = [f for f in ALL if _syntax(f) == "notation"]
MARK = "\u2063ARGS\u2063"


def _render(module: Any, arguments: str) -> str:
    """Two calls to ``f`` whose arguments' text is ``arguments``, in the format's syntax
    (written by the format's renderer around a placeholder)."""
    call = {"name": "f", "arguments": {"MARK": 0}}
    text = "".join(t for t, _ in module.RENDERER.pieces(
        {"content": None, "tool_calls": [call, call]}, thinking=False))
    rendered = "".join(t for t, _ in module.ChatParser.SYNTAX.render({"MARK": 0}))
    return text.replace(rendered, MARK).replace(MARK, arguments)


def _read(fmt: str, text: str, get_tokenizer: Any) -> tuple[list[tuple[str, Any]], list[str]]:
    """``text`` read whole, by characters and by tokens (with ids): the same calls, cut
    calls and warnings each way; the calls (name, parsed arguments) and warnings."""
    module = parsergen.load(fmt)
    tokenizer = get_tokenizer(FORMAT_TOKENIZERS[fmt])
    whole = read_whole(module, text)
    assert read_by_chars(module, text) == whole
    with_ids, by_tokens = read_by_ids(module, text, tokenizer)
    assert by_tokens == with_ids
    assert with_ids[0] == whole[0] and with_ids[2] == whole[2]
    message, cut, warnings, _ = whole
    assert cut == []
    return [(c.name, json.loads(c.arguments)) for c in message.tool_calls], warnings


def _expect(fmt: str, text: str, get_tokenizer: Any, calls: list[tuple[str, Any]],
            warnings: list[str], indices: tuple[int, ...] = (0, 1)) -> None:
    """``text`` gives these calls, and each warning for each call of ``indices``."""
    got, got_warnings = _read(fmt, text, get_tokenizer)
    assert got == calls
    assert got_warnings == [f"tool call {i}: {w}" for i in indices for w in warnings]


def _quote_kept(key: str) -> str:
    return f"a quote in the value of {key!r} does not end its string (more of the string " \
           "follows it): kept as text"


# (a) Quotes a model left unescaped in a JSON string: (arguments, what they mean, key).
STRAY_QUOTES = {
    # vLLM 0.33's hermes gives this call as content; its Kimi, Mistral and DeepSeek
    # parsers pass the broken JSON on as the arguments (goldens/DIFFERENCES.md).
    "command": ('{"s": "say "hi"", "n": 1}', {"s": 'say "hi"', "n": 1}, "s"),
    "code": ('{"s": "print("a, b")"}', {"s": 'print("a, b")'}, "s"),
    "nested": ('{"o": {"cmd": "grep "x" f"}, "n": 1}', {"o": {"cmd": 'grep "x" f'}, "n": 1},
               "o"),
    "in a list": ('{"l": ["a", "b "c" d"]}', {"l": ["a", 'b "c" d']}, "l"),
    # No comma between two members: the rest up to the object's end is the value's
    # text, as a missing comma after a number keeps the rest (never a shorter value).
    "missing comma": ('{"s": "x" "b": "y"}', {"s": 'x" "b": "y'}, "s"),
}


@pytest.mark.parametrize("case", sorted(STRAY_QUOTES))
@pytest.mark.parametrize("fmt", JSON)
def test_a_quote_that_does_not_end_a_string_is_its_text(fmt: str, case: str,
                                                        get_tokenizer: Any) -> None:
    arguments, meant, key = STRAY_QUOTES[case]
    text = _render(parsergen.load(fmt), arguments)
    _expect(fmt, text, get_tokenizer, [("f", meant)] * 2, [_quote_kept(key)])


def test_a_quote_before_a_closer_ends_the_string() -> None:
    # The rule's other side: a quote that a comma, a bracket or a colon follows is the
    # string's end, as in valid JSON, whitespace between or not.
    module = parsergen.load("hermes")
    text = _render(module, '{"l": ["a" , "b"\n], "s": "c"  }')
    calls, warnings = read_whole(module, text)[0].tool_calls, read_whole(module, text)[2]
    assert [json.loads(c.arguments) for c in calls] == [{"l": ["a", "b"], "s": "c"}] * 2
    assert warnings == []


def _closed(added: str, what: str = "its arguments") -> str:
    return f"the call ended before {what} closed: {added!r} added"


# (b) A call whose end marker comes before its arguments close: (arguments, what they
# become, warnings).  Only closers are added; a key with no value is left out.
UNCLOSED = {
    "object": ('{"o": {"l": [1, 2]}, "s": "x"', {"o": {"l": [1, 2]}, "s": "x"},
               [_closed("}")]),
    "list": ('{"s": "x", "l": [1, 2', {"s": "x", "l": [1, 2]}, [_closed("]}")]),
    "nested": ('{"o": {"l": [1, {"b": true', {"o": {"l": [1, {"b": True}]}},
               [_closed("}]}}")]),
    "trailing comma": ('{"n": 1,', {"n": 1}, [_closed("}")]),
    "key without value": ('{"n": 1, "s"', {"n": 1}, [
        "the key 's' has no value at the call's end: left out", _closed("}")]),
    "colon without value": ('{"n": 1, "s": ', {"n": 1}, [
        "the key 's' has no value at the call's end: left out", _closed("}")]),
}


@pytest.mark.parametrize("case", sorted(UNCLOSED))
@pytest.mark.parametrize("fmt", [f for f in JSON_ENDED if _syntax(f) == "json"])
def test_a_call_ended_before_its_arguments_closed(fmt: str, case: str,
                                                  get_tokenizer: Any) -> None:
    arguments, meant, warnings = UNCLOSED[case]
    text = _render(parsergen.load(fmt), arguments)
    _expect(fmt, text, get_tokenizer, [("f", meant)] * 2, warnings)


@pytest.mark.parametrize("fmt", [f for f in JSON_ENDED if _syntax(f) == "json_envelope"])
def test_an_envelope_ended_before_it_closed(fmt: str, get_tokenizer: Any) -> None:
    """The call's object around its arguments lacks its brace: the arguments (whose own
    brace the model did write) stand, and the repair is reported."""
    text = _render(parsergen.load(fmt), '{"o": {"l": [1, 2]}, "s": "x"')
    _expect(fmt, text, get_tokenizer, [("f", {"o": {"l": [1, 2]}, "s": "x"})] * 2,
            [_closed("}", "the object around its arguments")])


# Gemma 4's notation: the call's own brace, a list, a string's delimiter, a key.
NOTATION_UNCLOSED = {
    "brace": ('o:{l:[1,2]},s:<|"|>x<|"|>', {"o": {"l": [1, 2]}, "s": "x"}, [_closed("}")]),
    "list": ('s:<|"|>x<|"|>,l:[1,2', {"s": "x", "l": [1, 2]}, [_closed("]}")]),
    "key without value": ("n:1,s:", {"n": 1}, [
        "the key 's' has no value at the call's end: left out", _closed("}")]),
}


@pytest.mark.parametrize("case", sorted(NOTATION_UNCLOSED))
@pytest.mark.parametrize("fmt", NOTATION)
def test_a_notation_call_ended_before_it_closed(fmt: str, case: str,
                                               get_tokenizer: Any) -> None:
    arguments, meant, warnings = NOTATION_UNCLOSED[case]
    module = parsergen.load(fmt)
    # Written with Gemma 4's delimiter: the format's own (FunctionGemma: <escape>) instead.
    arguments = arguments.replace('<|"|>', module.ChatParser.ARGUMENTS["string_delimiter"])
    # The template writes the call's closing brace as text after the arguments.
    text = _render(module, "\u2063").replace("\u2063}", arguments)
    _expect(fmt, text, get_tokenizer, [("f", meant)] * 2, warnings)


# Python calls: (the call's text, its arguments, warnings); ``g(n=1)`` follows each.
PYTHON_UNCLOSED = {
    # The call's ) came, a dict and a list inside it did not close: they close there.
    "brace": ('f(o={"l": [1, 2]), g(n=1)', {"o": {"l": [1, 2]}}, [_closed("}")]),
    "list": ("f(l=[1, 2), g(n=1)", {"l": [1, 2]}, [_closed("]")]),
    "both": ('f(o={"l": [1, 2), g(n=1)', {"o": {"l": [1, 2]}}, [_closed("]}")]),
}


@pytest.mark.parametrize("case", sorted(PYTHON_UNCLOSED))
@pytest.mark.parametrize("fmt", PYTHON)
def test_a_python_call_closed_around_open_brackets(fmt: str, case: str,
                                                   get_tokenizer: Any) -> None:
    calls_text, meant, warnings = PYTHON_UNCLOSED[case]
    text = parsergen.load(fmt).render({"tool_calls": [{"name": "f", "arguments": {"n": 1}}]})
    _expect(fmt, text.replace("f(n=1)", calls_text), get_tokenizer,
            [("f", meant), ("g", {"n": 1})], warnings, (0,))


@pytest.mark.parametrize("fmt", [f for f in PYTHON if any(
    kind == "marker" for kind, _ in parsergen.load(f).RENDERER.calls_close or ())])
def test_a_python_call_its_end_marker_ended(fmt: str, get_tokenizer: Any) -> None:
    """``[f(n=1<|python_end|>``: the marker ended the call before its ``)``."""
    text = parsergen.load(fmt).render({"tool_calls": [{"name": "f", "arguments": {"n": 1}}]})
    # A list's ] goes with the ); calls one per line (OLMo 3) lose the ) and the newline.
    cut = "f(n=1)]" if "f(n=1)]" in text else "f(n=1)\n"
    _expect(fmt, text.replace(cut, "f(n=1"), get_tokenizer, [("f", {"n": 1})],
            [_closed(")")], (0,))


# (c) Values JSON cannot hold: kept as their text; the call and the next one stand.
@pytest.mark.parametrize("fmt", PYTHON)
def test_python_values_json_cannot_hold_are_their_text(fmt: str, get_tokenizer: Any) -> None:
    module = parsergen.load(fmt)
    text = module.render({"tool_calls": [{"name": "f", "arguments": {"n": 1}},
                                         {"name": "g", "arguments": {"n": 2}}]})
    text = text.replace("f(n=1)", 'f(x=1e400, s=float("nan"), l=[1, -1e999], n=inf)')
    _expect(fmt, text, get_tokenizer, [
        ("f", {"x": "1e400", "s": 'float("nan")', "l": [1, "-1e999"], "n": "inf"}),
        ("g", {"n": 2})], [
        "'1e400' in the value of 'x' cannot be JSON: kept as text",
        "the value of 's' is not a Python literal: kept as text",
        "'-1e999' in the value of 'l' cannot be JSON: kept as text",
        "the value of 'n' is not a Python literal: kept as text"], (0,))


@pytest.mark.parametrize("fmt", JSON)
def test_json_values_json_cannot_hold_are_their_text(fmt: str, get_tokenizer: Any) -> None:
    """NaN and Infinity are no JSON: their text.  1e400 is JSON text (as written where
    the schema admits a number, or nothing types it), and re-typed it is its text,
    never the ``Infinity`` its float would write."""
    module = parsergen.load(fmt)
    arguments = '{"x": NaN, "n": 1e400, "s": -Infinity, "l": [1e400], "y": 1e400}'
    text = _render(module, arguments)
    calls, warnings = _read(fmt, text, get_tokenizer)
    assert calls == [("f", {"x": "NaN", "n": "1e400", "s": "-Infinity", "l": [float("inf")],
                            "y": float("inf")})] * 2
    assert all("Infinity" not in c.arguments.replace('"-Infinity"', "")
               for c in read_whole(module, text)[0].tool_calls)
    assert warnings == [f"tool call {i}: the value of {k!r} is not JSON: kept as text"
                        for i in (0, 1) for k in ("x", "s")]


# Whole-call reading (parse()) takes only what it reads exactly as streaming would: every
# broken case above is refused, and streaming's rule decides.
BROKEN_OBJECTS = ['{"s": "say "hi""}', '{"o": {"cmd": "a "b""}}', '{"s": "x", "n": 1',
                  '{"l": [1, 2}', '{"n": 1, "s"', '{"x": NaN}', '{"x": 1e400}']


@pytest.mark.parametrize("text", BROKEN_OBJECTS)
def test_whole_readers_refuse_broken_arguments(text: str) -> None:
    assert syntax({"syntax": "json"}).whole_arguments(text, None) is None
    envelope = syntax({"syntax": "json_envelope"})
    call = '{"name": "f", "arguments": ' + text + "}"
    assert envelope.whole_call(call, lambda name: None) is None
    assert envelope.whole_object(call, 0, lambda name: None) is None


def test_whole_xml_arguments_refuse_a_value_without_its_close_tag() -> None:
    qwen3 = syntax(parsergen.load("qwen3").ChatParser.ARGUMENTS)
    assert qwen3.whole_arguments("\n<parameter=x>\nhello\n", None) is None
    assert qwen3.whole_arguments("\n<parameter=x>\nhello\n</parameter>\n", None) == (
        '{"x": "hello"}')


@pytest.mark.parametrize("text, repaired", [
    ('{"s": "say "hi""}', '{"s": "say \\"hi\\""}'),
    ('{"say "hi"": 1}', '{"say \\"hi\\"": 1}'),  # a key ends at a quote a colon follows
    ('["a" , "b"\n]', None),  # whitespace before a closer: the quotes end their strings
    ('{"a": "x" "b": "y"}', '{"a": "x\\" \\"b\\": \\"y"}'),  # a colon ends no value
    ('{"a": "open', None),  # a string never closed is the rest of the text
])
def test_which_quotes_end_json_strings(text: str, repaired: str | None) -> None:
    assert escape_stray_quotes(text) == repaired


@pytest.mark.parametrize("text, closers", [
    ('{"b": [1', "]}"), ("[1, (2", ")]"), ("'abc", "'"), ('{"a\\"": [', "]}"),
    ("[1]]", ""), ('"x[{"', ""),
])
def test_what_closes_open_python(text: str, closers: str) -> None:
    assert py_closers(text) == closers
