"""Every byte of every golden completion is accounted for: nothing lost, nothing added."""

from __future__ import annotations

from pathlib import Path

import pytest
from tokenizers.decoders import DecodeStream

import parsergen
from parsergen.runtime.accounting import account
from support.messages import load

GOLDENS = Path(__file__).resolve().parent.parent / "goldens"


def _cases() -> list:
    params = []
    for path in sorted(GOLDENS.glob("*.messages")):
        file = load(path)
        for case in file.cases:
            params.append(pytest.param(path.stem, file.tokenizer, case, id=f"{path.stem}: {case.name}"))
    return params


@pytest.mark.parametrize("fmt, tokenizer_name, case", _cases())
def test_golden_completions_account_for_every_byte(fmt, tokenizer_name, case, get_tokenizer) -> None:
    module = parsergen.load(fmt)
    tokenizer = get_tokenizer(tokenizer_name)
    stream = DecodeStream(skip_special_tokens=False)
    per_token = [(stream.step(tokenizer.backend_tokenizer, i) or "", [i]) for i in case.ids]
    for tok, deltas in ((tokenizer, per_token), (None, [(ch, []) for ch in case.text])):
        accounting = account(module.StreamingParser(tok, thinking=case.thinking), deltas)
        assert accounting.text == case.text
        assert accounting.problems == []


def test_categories_follow_the_spec() -> None:
    qwen = parsergen.load("qwen3")
    text = ("Plan.</think>Hi.<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n"
            "</function>\n</tool_call>")
    parts = account(qwen.StreamingParser(), [(text, [])]).by_category()
    assert parts["reasoning"] == "Plan."
    assert parts["content"] == "Hi."
    assert parts["tool name"] == "f"
    # qwen3's PARAM_START/PARAM_END transitions emit their text as arguments.
    assert parts["arguments"] == "\n<parameter=a>\n1\n</parameter>\n"
    assert parts["marker THINK_END"] == "</think>"
    # TOOL_PREAMBLE and TOOL_BETWEEN have no content event: their newlines are framing.
    assert parts["framing TOOL_PREAMBLE"] == "\n"
    assert parts["framing TOOL_BETWEEN"] == "\n"
