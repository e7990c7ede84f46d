"""Python-literal arguments always give strict JSON, and no literal is silently shortened.

The rule (``python_kwargs``, the pythonic formats' argument syntax):

- a Python literal becomes its JSON value: ``None`` null, ``1_000`` 1000, tuples lists,
  sets lists (JSON has no set: written order, repeats dropped as the set drops them),
  dict keys ``str()`` of the key;
- a value in it that JSON cannot hold (a float too large to be finite such as ``1e400``,
  a complex number, bytes, ``...``) becomes its own text as the model wrote it, with a
  warning; the rest of the literal keeps its values;
- text that is no Python literal (``inf``, ``nan``, ``float('nan')``) stays whole as a
  string, with a warning;
- adjacent strings are one string (Python's implicit concatenation); a closing quote
  followed by other text was text after all: the value keeps it, with a warning.

Every result is strict JSON: ``json.loads(arguments, parse_constant=raise)`` works.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parsergen
from parsergen.runtime import accumulate
from parsergen.runtime.arguments.python_kwargs import PythonArguments
from parsergen.runtime.arguments.writer import ArgumentsWriter

FORMATS = ("pythonic", "llama4_pythonic")
NUMBER = [{"type": "function", "function": {"name": "f", "parameters": {
    "type": "object", "properties": {"x": {"type": "number"}}}}}]


def _reject(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def strict(arguments: str) -> Any:
    """The arguments as strict JSON: NaN and Infinity raise."""
    return json.loads(arguments, parse_constant=_reject)


def _both(fmt: str, text: str, tools: Any = None) -> tuple[list[str], list[str]]:
    """The calls' arguments and the warnings, from parse() and streamed per character
    (asserted equal)."""
    module = parsergen.load(fmt)
    whole = module.ChatParser(tools=tools, ids="sequential")
    message = whole.complete(text)
    streamed = module.ChatParser(tools=tools, ids="sequential")
    deltas = [streamed.feed(ch) for ch in text] + [streamed.finish()]
    per_char = accumulate(deltas)
    args = [c.arguments for c in message.tool_calls]
    assert [c.arguments for c in per_char.tool_calls] == args
    assert streamed.warnings == whole.warnings
    return args, whole.warnings


# (value as written, its JSON value, whether a warning says a value became text)
CASES = [
    ("inf", "inf", True),
    ("-inf", "-inf", True),
    ("nan", "nan", True),
    ("float('nan')", "float('nan')", True),
    ("1e400", "1e400", True),
    ("-1e400", "-1e400", True),
    ("1j", "1j", True),
    ("1+2j", "1+2j", True),
    ("b'bytes'", "b'bytes'", True),
    ("...", "...", True),
    ("'x 'y''", "x 'y'", True),
    ("'a' + 'b'", "a' + 'b", True),
    ('"a" "b"', "ab", False),
    ("'a'  \"b\" 'c'", "abc", False),
    ("{1, 2, 1}", [1, 2], False),
    ("(1, 2)", [1, 2], False),
    ("(1,)", [1], False),
    ("None", None, False),
    ("1_000", 1000, False),
    ("-2.5", -2.5, False),
    ("[1, 1e400, {'a': -1e400, 'b': (2, 3j)}]", [1, "1e400", {"a": "-1e400", "b": [2, "3j"]}],
     True),
    ("{'k': [b'x', {4}], 1: ..., (1, 2): None}", {"k": ["b'x'", [4]], "1": "...", "(1, 2)": None},
     True),
    ("[1, inf]", "[1, inf]", True),
    ("[\"a\" 'b', ('c' \"d\")]", ["ab", "cd"], False),
]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(("written", "expected", "warned"), CASES)
def test_literal_gives_strict_json(fmt: str, written: str, expected: Any, warned: bool) -> None:
    (args,), warnings = _both(fmt, f"[f(x={written}, y=1)]")
    assert strict(args) == {"x": expected, "y": 1}
    assert bool(warnings) == warned, warnings


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("written", ["inf", "-inf", "nan", "1e400", "-1e400", "float('inf')"])
def test_non_finite_typed_as_number_stays_text(fmt: str, written: str) -> None:
    (args,), warnings = _both(fmt, f"[f(x={written})]", NUMBER)
    assert strict(args) == {"x": written} and warnings


@pytest.mark.parametrize("fmt", FORMATS)
def test_valid_values_keep_their_results(fmt: str) -> None:
    (args,), warnings = _both(fmt, "[f(a=1, b='s', c=[1.5, {'k': True}], d=(1, 'a'), e=None)]")
    assert args == '{"a": 1, "b": "s", "c": [1.5, {"k": true}], "d": [1, "a"], "e": null}'
    assert warnings == []


def test_quote_inside_a_string_is_not_cut() -> None:
    """``'x 'y'`` is no literal: if it makes a call, the value holds everything after the
    opening quote; it is never cut to ``"x "``."""
    for fmt in FORMATS:
        module = parsergen.load(fmt)
        parser = module.ChatParser(ids="sequential")
        deltas = [parser.feed(ch) for ch in "[f(x='x 'y')]"] + [parser.finish()]
        for call in accumulate(deltas).tool_calls:
            assert call.arguments != '{"x": "x "}'
            assert "x 'y" in call.arguments


# -- any literal -----------------------------------------------------------------------

_UNREPRESENTABLE = ["1e400", "-1e400", "2e308", "1j", "-3.5j", "1+2j", "b'x'", 'b""', "..."]
Literal = tuple[str, Any, bool]  # as written, its JSON value, whether a value became text


def _leaf() -> st.SearchStrategy[Literal]:
    finite = st.floats(allow_nan=False, allow_infinity=False)
    return st.one_of(
        st.integers(-10**30, 10**30).map(lambda i: (repr(i), i, False)),
        finite.map(lambda f: (repr(f), f, False)),
        st.booleans().map(lambda b: (repr(b), b, False)),
        st.none().map(lambda n: ("None", None, False)),
        st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=6)
        .map(lambda s: (repr(s), s, False)),
        st.sampled_from(_UNREPRESENTABLE).map(lambda t: (t, t, True)),
    )


def _seq(parts: list[Literal], open_: str, close: str) -> Literal:
    return (open_ + ", ".join(t for t, _, _ in parts) + close, [v for _, v, _ in parts],
            any(b for _, _, b in parts))


def _dict(items: dict[str, Literal]) -> Literal:
    return ("{" + ", ".join(f"{k!r}: {t}" for k, (t, _, _) in items.items()) + "}",
            {k: v for k, (_, v, _) in items.items()}, any(b for _, _, b in items.values()))


def _containers(inner: st.SearchStrategy[Literal]) -> st.SearchStrategy[Literal]:
    return st.one_of(
        st.lists(inner, max_size=3).map(lambda p: _seq(p, "[", "]")),
        st.lists(inner, min_size=1, max_size=3).map(lambda p: _seq(p, "(", ",)")),
        st.dictionaries(st.text(alphabet="abc", max_size=3), inner, max_size=3).map(_dict),
    )


LITERALS = st.recursive(_leaf(), _containers, max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(literal=LITERALS, cuts=st.lists(st.integers(0, 10_000), max_size=6))
def test_any_literal_gives_strict_json(literal: Literal, cuts: list[int]) -> None:
    written, expected, made_text = literal
    body = f"x={written}, y=0"

    def run_with(cuts: list[int]) -> tuple[str, list[str]]:
        writer = ArgumentsWriter(None)
        reader = PythonArguments(writer)
        bounds = sorted({0, len(body), *(c % (len(body) + 1) for c in cuts)})
        out = "".join(reader.feed(body[a:b]) for a, b in zip(bounds, bounds[1:]))
        return out + reader.finish(), writer.warnings

    whole, warnings = run_with([])
    assert run_with(cuts) == (whole, warnings)
    assert strict(whole) == json.loads(json.dumps({"x": expected, "y": 0}))
    assert bool(warnings) == made_text, warnings


NON_FINITE = st.recursive(
    st.one_of(st.floats(), st.integers(), st.none(), st.text(max_size=4)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.tuples(inner, inner),
                            st.dictionaries(st.text(max_size=3), inner, max_size=3)),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(value=NON_FINITE)
def test_repr_of_any_value_gives_strict_json(value: Any) -> None:
    """repr() of values with inf and nan in them (``inf`` is no literal) still gives JSON."""
    for fmt in FORMATS:
        (args,), _ = _both(fmt, f"[f(x={value!r})]")
        got = strict(args)["x"]
        if not _has_non_finite(value):
            assert got == json.loads(json.dumps(value))


def _has_non_finite(value: Any) -> bool:
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return any(map(_has_non_finite, value))
    if isinstance(value, dict):
        return any(map(_has_non_finite, value.values()))
    return False


# -- the other argument syntaxes --------------------------------------------------------

_NUMBER_X = [{"type": "function", "function": {"name": "f", "parameters": {
    "type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "array"}}}}}]
OTHER_SYNTAXES = [
    ("hermes", '<tool_call>\n{"name": "f", "arguments": {"x": Infinity, "y": [NaN]}}\n</tool_call>',
     {"x": "Infinity", "y": "[NaN]"}),
    ("gemma4", "<|tool_call>call:f{x:inf,y:[nan,-Infinity]}<tool_call|>",
     {"x": "inf", "y": ["nan", "-Infinity"]}),
    ("qwen3", "</think><tool_call>\n<function=f>\n<parameter=x>\n-inf\n</parameter>\n"
     "<parameter=y>\n[1, NaN]\n</parameter>\n</function>\n</tool_call>",
     {"x": "-inf", "y": "[1, NaN]"}),
    ("minimax_m2", '<minimax:tool_call><invoke name="f"><parameter name="x">nan</parameter>'
     "</invoke></minimax:tool_call>", {"x": "nan"}),
]


@pytest.mark.parametrize(("fmt", "text", "expected"), OTHER_SYNTAXES)
@pytest.mark.parametrize("tools", [None, _NUMBER_X])
def test_other_syntaxes_never_write_non_finite_numbers(fmt: str, text: str, expected: Any,
                                                      tools: Any) -> None:
    """JSON readers, notation and typed element values: NaN and Infinity stay text, even
    where the schema says number (schema typing never makes a non-finite float)."""
    (args,), _ = _both(fmt, text, tools)
    assert strict(args) == expected
