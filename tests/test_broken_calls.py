"""One bad call never swallows what follows (issue #36, item 2).

A model that forgets a string's closing quote leaves the string open: the markers that
follow are then inside it.  A call closer that is one special token (by id; in text,
a spelling the spec or the tokenizer makes one token) still ends the call where what
follows it is what the grammar reads after it, or the end of the completion
(``runtime/value_gate.py``); a marker that cannot follow there, or more text, is the
string's.  So in every format whose strings hide markers and whose call closers are
special tokens, a broken call written before valid calls and an answer leaves those
calls and the answer as they were, parsed and streamed, with and without token ids.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import parsergen
from parsergen.runtime import accumulate
from parsergen.runtime.arguments.values import QuotedStrings
from support.streams import token_deltas
from support.tokenizers import FORMAT_TOKENIZERS

BROKEN = "BROKEN-VALUE"
ANSWER = "The answer is 42."


def _breakable(fmt: str) -> bool:
    """Whether the format quotes its string values and ends calls with a special token."""
    parser = parsergen.load(fmt).StreamingParser
    if parser.SYNTAX is None or not isinstance(parser.SYNTAX.values(), QuotedStrings):
        return False
    lexicon = parser.LEXICONS[False]
    return bool(set(parser.CALL_CLOSERS) & set(lexicon.token_terminals))


FORMATS = [f for f in sorted(parsergen.formats()) if _breakable(f)]


def _texts(module: Any) -> tuple[str, str]:
    """(calls then the answer, the same with the first call's string left open)."""
    calls = [{"name": "f", "arguments": {"s": BROKEN, "n": 1}},
             {"name": "g", "arguments": {"n": 2}}, {"name": "g", "arguments": {"n": 3}}]
    text = module.render({"content": None, "tool_calls": calls}, thinking=False) + ANSWER
    at = text.index(BROKEN) + len(BROKEN)
    assert text[at] in "\"'", text  # (the string's closing quote)
    return text, text[:at] + text[at + 1:]


def _read(parsed: Any) -> tuple[str | None, list[tuple[str, Any]]]:
    """The answer and the calls after the first, as read."""
    calls = [(c.name, json.loads(c.arguments)) for c in parsed.tool_calls[1:]]
    return parsed.content, calls


def _streamed(module: Any, deltas: list[tuple[str, list[int]]], tokenizer: Any = None) -> Any:
    chat = module.ChatParser(tokenizer, thinking=False, ids="sequential")
    out = [chat.feed(text, ids) for text, ids in deltas]
    out.append(chat.finish())
    return accumulate(out)


def test_formats() -> None:
    assert {"kimi_k2", "hermes", "deepseek_v3", "qwen3_json"} <= set(FORMATS)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_broken_call_leaves_the_calls_after_it_and_the_answer(fmt: str, get_tokenizer) -> None:
    module = parsergen.load(fmt)
    good, broken = _texts(module)
    expected = (ANSWER, [("g", {"n": 2}), ("g", {"n": 3})])
    assert _read(module.parse(good, thinking=False)) == expected  # (the texts are right)
    whole = module.parse(broken, thinking=False, ids="sequential")
    assert _read(whole) == expected
    assert whole.tool_calls[0].name == "f"
    assert _streamed(module, [(ch, []) for ch in broken]) == whole
    tokenizer = get_tokenizer(FORMAT_TOKENIZERS[fmt])
    ids = tokenizer.encode(broken, add_special_tokens=False)
    per_token = token_deltas(tokenizer, ids)
    if "".join(text for text, _ in per_token) != broken:
        return  # (this tokenizer does not spell the text back exactly)
    with_ids = module.parse(broken, thinking=False, tokenizer=tokenizer, token_ids=ids,
                            ids="sequential")
    assert _read(with_ids) == expected
    assert _streamed(module, per_token, tokenizer) == with_ids


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_closer_quoted_in_a_string_before_more_of_it_stays_text(fmt: str) -> None:
    """The rule's other side: a value that holds a call closer followed by more of the
    string (or by markup that cannot follow a closer) is read back whole."""
    module = parsergen.load(fmt)
    parser = module.StreamingParser
    lexicon = parser.LEXICONS[False]
    closers = sorted(lit for lit, name in lexicon.literals.items()
                     if name in parser.CALL_CLOSERS and name in lexicon.token_terminals)
    value = " then ".join(closers) + " and more"
    call = {"name": "f", "arguments": {"s": value}}
    text = module.render({"content": None, "tool_calls": [call]}, thinking=False) + ANSWER
    parsed = module.parse(text, thinking=False)
    assert [(c.name, json.loads(c.arguments)) for c in parsed.tool_calls] == [("f", {"s": value})]
    assert parsed.content == ANSWER
