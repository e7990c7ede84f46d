"""Markers inside argument values are argument text (runtime/arguments/values.py).

Every bundled format is classified by its arguments syntax's value scanner (from the
registries, not by name):

- sure strings (JSON strings, delimited strings, element values whose header says
  "text"): a value spelling every marker of the format is read back whole, in every
  cadence, with and without token ids (a marker that the tokenizer spells as its token
  inside a string is string content too);
- ambiguous element values (qwen3-style ``<parameter=x>...</parameter>``): a value that
  holds a call closer and later closes with its tag is read back whole, and a value
  whose close tag is missing before the call's end marker ends there.

Streaming equals ``parse()`` under one-character and random cadences.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import parsergen
from parsergen.runtime import accumulate
from parsergen.runtime.arguments.nested_elements import NestedValues
from parsergen.runtime.arguments.values import ElementValues, ValueScan
from support.streams import encode_pieces, text_pieces, token_deltas, token_groups
from support.strategies import marker_literals, syntax_literals
from support.tokenizers import FORMAT_TOKENIZERS


def _scan(fmt: str) -> ValueScan | None:
    syntax = parsergen.load(fmt).StreamingParser.SYNTAX
    return syntax.values() if syntax is not None else None


def _kind(fmt: str) -> str | None:
    """'sure', 'ambiguous', or None (the syntax hides no markers)."""
    scan = _scan(fmt)
    if scan is None or type(scan) is ValueScan:
        return None
    if isinstance(scan, ElementValues) and scan.text_kind is None or isinstance(
            scan, NestedValues):
        return "ambiguous"
    return "sure"


FORMATS = sorted(parsergen.formats())
SURE = [f for f in FORMATS if _kind(f) == "sure"]
AMBIGUOUS = [f for f in FORMATS if _kind(f) == "ambiguous"]


def _message(module: Any, parsed: Any) -> tuple:
    return (parsed.content, [(c.name, json.loads(c.arguments)) for c in parsed.tool_calls])


def _stream(module: Any, deltas: list[tuple[str, list[int]]], tokenizer: Any = None) -> tuple:
    chat = module.ChatParser(tokenizer, thinking=False)
    out = [chat.feed(text, ids) for text, ids in deltas]
    out.append(chat.finish())
    return _message(module, accumulate(out))


def _cadences(text: str, seed: int) -> dict[str, list[tuple[str, list[int]]]]:
    return {"chars": [(ch, []) for ch in text],
            "random": text_pieces(text, random.Random(seed), 9)}


def _markers(module: Any) -> list[str]:
    """The format's marker texts an argument value may spell (not the syntax's own)."""
    own = syntax_literals(module.ChatParser.ARGUMENTS)
    return [m for m in marker_literals(module) if m not in own and m.strip()]


def _check(module: Any, text: str, expected: tuple, tokenizer: Any = None) -> None:
    """``text`` reads as ``expected`` whole and in pieces; with ``tokenizer``, also with
    the ids it spells the text with (markers inside values as their tokens)."""
    whole = _message(module, module.parse(text, thinking=False))
    assert whole == expected
    for seed in range(3):
        for name, deltas in _cadences(text, seed).items():
            assert _stream(module, deltas) == expected, f"{name} cadence, seed {seed}"
    if tokenizer is None:
        return
    ids = tokenizer.encode(text, add_special_tokens=False)
    per_token = token_deltas(tokenizer, ids)
    if "".join(t for t, _ in per_token) != text:
        return  # this tokenizer does not spell the text back exactly
    got = module.parse(text, tokenizer=tokenizer, token_ids=ids, thinking=False)
    assert _message(module, got) == expected, "with ids"
    cadences = {"tokens": per_token, "groups": token_groups(per_token, random.Random(7))}
    for name, deltas in cadences.items():
        assert _stream(module, deltas, tokenizer) == expected, f"{name}, with ids"


def test_formats_are_classified() -> None:
    """JSON, delimited-string and DSML-style syntaxes are sure; qwen3-style are not."""
    assert {"hermes", "gemma4", "deepseek_v32", "openai", "kimi_k2"} <= set(SURE)
    assert {"qwen3", "glm47_moe", "minimax_m2", "minimax_m3"} <= set(AMBIGUOUS)


def _close_tag(module: Any, key: str) -> str:
    """The close tag of argument ``key``'s value."""
    arguments = module.ChatParser.ARGUMENTS
    return arguments["close"] if "close" in arguments else f"{arguments['prefix']}</{key}>"


@pytest.mark.parametrize("fmt", SURE)
def test_markers_inside_strings_are_text(fmt: str) -> None:
    module = parsergen.load(fmt)
    value = "Use " + " and ".join(_markers(module)) + " tags"
    call = {"name": "f", "arguments": {"text": value, "other": "x"}}
    text = module.RENDERER.render({"content": None, "tool_calls": [call]}, thinking=False)
    _check(module, text, (None, [("f", {"text": value, "other": "x"})]))


@pytest.mark.parametrize("fmt", SURE)
def test_marker_tokens_inside_strings_are_text(fmt: str, get_tokenizer) -> None:
    """With ids: a terminal's text inside a string, typed or as the tokenizer spells it
    (its token), is string content.  (A special token the format does not name, such
    as an end of turn, is dropped wherever it is.)"""
    module = parsergen.load(fmt)
    tokenizer = get_tokenizer(FORMAT_TOKENIZERS[fmt])
    lexicon = module.StreamingParser.LEXICONS[False]
    terminals = {*lexicon.literals, *lexicon.token_terminals.values()}
    value = "Use " + " and ".join(m for m in _markers(module) if m in terminals) + " tags"
    call = {"name": "f", "arguments": {"text": value}}
    expected = (None, [("f", {"text": value})])
    pieces = module.RENDERER.pieces({"content": None, "tool_calls": [call]}, thinking=False)
    text = "".join(t for t, _ in pieces)
    for spelled in (False, True):
        ids = (tokenizer.encode(text, add_special_tokens=False) if spelled
               else encode_pieces(tokenizer, pieces))
        per_token = token_deltas(tokenizer, ids)
        if "".join(t for t, _ in per_token) != text:
            continue  # this tokenizer does not spell the text back exactly
        got = module.parse(text, tokenizer=tokenizer, token_ids=ids, thinking=False)
        assert _message(module, got) == expected, f"spelled={spelled}"
        cadences = {"tokens": per_token, "groups": token_groups(per_token, random.Random(7))}
        for name, deltas in cadences.items():
            assert _stream(module, deltas, tokenizer) == expected, f"{name}, spelled={spelled}"


def _closers(module: Any) -> list[str]:
    """Texts of the terminals that end a call from TOOL_ARGS."""
    parser = module.StreamingParser
    literals = parser.LEXICONS[False].literals
    return sorted(t for t, name in literals.items() if name in parser.CALL_CLOSERS)


@pytest.mark.parametrize("fmt", AMBIGUOUS)
def test_closer_inside_a_value_that_closes_later(fmt: str, get_tokenizer) -> None:
    """``<parameter=x>Use </function> tags</parameter>``: one call, the closer is text
    (with ids too, where the closer is a token)."""
    module = parsergen.load(fmt)
    tokenizer = get_tokenizer(FORMAT_TOKENIZERS[fmt])
    closers = _closers(module)
    assert closers
    value = "Use " + " then ".join(closers) + " tags"
    call = {"name": "f", "arguments": {"text": value}}
    text = module.RENDERER.render({"content": None, "tool_calls": [call]}, thinking=False)
    _check(module, text, (None, [("f", {"text": value})]), tokenizer)


@pytest.mark.parametrize("fmt", AMBIGUOUS)
def test_value_whose_close_tag_is_missing(fmt: str, get_tokenizer) -> None:
    """``<parameter=x>hello</function></tool_call>``: the value ends at the call's end."""
    module = parsergen.load(fmt)
    tokenizer = get_tokenizer(FORMAT_TOKENIZERS[fmt])
    close = _close_tag(module, "text")
    call = {"name": "f", "arguments": {"text": "hello"}}
    text = module.RENDERER.render({"content": None, "tool_calls": [call]}, thinking=False)
    assert text.count(close) == 1
    # What the render writes between the close tag and the call's end marker (HY 3's
    # newline) is then the value's last text: the model wrote it before the call ended.
    after = text.split(close, 1)[1]
    tail = after[:min(after.find(m) for m in _markers(module) if m in after)]
    text = text.replace(close, "")
    _check(module, text, (None, [("f", {"text": "hello" + tail})]), tokenizer)
    # The same call followed by a second, complete one.
    second = module.RENDERER.render(
        {"content": None, "tool_calls": [call, {"name": "g", "arguments": {"k": "v"}}]},
        thinking=False)
    second = second.replace(close, "", 1)
    _check(module, second, (None, [("f", {"text": "hello" + tail}), ("g", {"k": "v"})]),
           tokenizer)


ELEMENTS = [f for f in FORMATS if isinstance(_scan(f), (ElementValues, NestedValues))]


# Formats with two call closers, which the value below quotes one after the other
# (Step-3: </steptml:invoke><｜tool_call_end｜>, a real call's end in that order; Dots:
# </dots_function_call>, which ends its JSON fallback's call, then </invoke>): the second
# closer, a marker, shows the first ended the call (the value's close tag was missing),
# so the quote ends it too.
CLOSERS_IN_A_ROW = {"dots", "step3"}


@pytest.mark.parametrize("fmt", [
    pytest.param(f, marks=pytest.mark.xfail(
        strict=True, reason="the value quotes the format's own call end, closers in a row"))
    if f in CLOSERS_IN_A_ROW else f for f in ELEMENTS])
def test_a_value_holding_its_own_close_tag(fmt: str, get_tokenizer) -> None:
    """``<parameter=x>return "</parameter>"</parameter>``: a close tag followed by
    more value text is value text, as is one followed by the real close tag; only
    the next field or the call's end after it closes the value.  A call closer after
    such a close tag is still inside the value."""
    module = parsergen.load(fmt)
    tokenizer = get_tokenizer(FORMAT_TOKENIZERS[fmt])
    close = _close_tag(module, "text")
    value = f'return "{close}" + {" ".join(_closers(module))} x {close}'
    call = {"name": "f", "arguments": {"text": value, "other": "y"}}
    text = module.RENDERER.render({"content": None, "tool_calls": [call]}, thinking=False)
    _check(module, text, (None, [("f", {"text": value, "other": "y"})]), tokenizer)


@pytest.mark.parametrize("fmt", AMBIGUOUS)
def test_closer_waits_no_longer_than_needed(fmt: str) -> None:
    """A closer inside a value is held only until what follows it shows."""
    module = parsergen.load(fmt)
    closer = _closers(module)[0]
    call = {"name": "f", "arguments": {"text": "zzz"}}
    text = module.RENDERER.render({"content": None, "tool_calls": [call]}, thinking=False)
    head = text[: text.index("zzz") + 3]
    parser = module.StreamingParser(thinking=False)
    parser.feed(head)
    held = parser.feed(closer)
    assert all(e.value != closer for e in held)  # not yet decided
    then = parser.feed(" b")
    assert "".join(e.value for e in then if e.type.name == "ARG_VALUE_CHUNK") == closer + " b"


def _state(scan: ValueScan) -> tuple[bool, bool]:
    return scan.quoted, scan.ambiguous


@pytest.mark.parametrize("fmt", SURE + AMBIGUOUS)
def test_scanner_state_does_not_depend_on_the_split(fmt: str) -> None:
    """A value scanner fed a call's argument text in two pieces, at every split (tags
    and escapes cut included), ends in the state it has when fed it whole."""
    module = parsergen.load(fmt)
    value = 'say "hi" \\ there'
    call = {"name": "f", "arguments": {"a": value, "b": ["x", {"c": value}]}}
    try:
        text = module.RENDERER.render({"content": None, "tool_calls": [call]}, thinking=False)
    except ValueError:
        pytest.skip("the syntax cannot write these arguments")
    for cut in range(len(text) + 1):
        whole, split = _scan(fmt), _scan(fmt)
        assert whole is not None and split is not None
        states = []
        for end in (cut, len(text)):
            whole.reset()
            whole.feed(text[:end])
            states.append(_state(whole))
        split.feed(text[:cut])
        assert _state(split) == states[0], f"after {text[:cut]!r}"
        split.feed(text[cut:])
        assert _state(split) == states[1], f"cut at {cut}"


def test_a_raw_newline_breaks_a_json_string() -> None:
    """A JSON string cannot hold a raw newline: after one, markers count again, though
    the string's closing quote is still looked for."""
    from parsergen.runtime.arguments.values import QuotedStrings

    scan = QuotedStrings('"')
    scan.feed('{"q": "it"s"}}')  # a stray quote opens a string
    assert scan.quoted
    assert scan.skip("\n</tool_call>", 0) == 0  # the newline ends what it hides
    assert not scan.quoted
    scan.feed('\n</tool_call> "')
    assert not scan.quoted and not scan.inside  # that quote closed the broken string
