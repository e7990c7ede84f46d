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


def _spellings(module) -> dict[str, tuple[str, ...]]:
    """Each terminal's spellings, from the spec, with the framing it may take along."""
    out = {}
    for name, terminal in module.SPEC["terminals"].items():
        text = terminal if isinstance(terminal, str) else terminal["text"]
        texts = tuple(text) if isinstance(text, list) else (text,)
        framing = {} if isinstance(terminal, str) else terminal.get("framing", {})
        before = ("", "\n") if framing.get("before") == "newline" else ("",)
        after = ("", "\n") if framing.get("after") == "newline" else ("",)
        out[name] = tuple(b + t + a for t in texts for b in before for a in after)
    return out


def _made_of(text: str, spellings: tuple[str, ...]) -> bool:
    """Whether ``text`` is one or more of ``spellings`` back to back."""
    if not text:
        return True
    return any(text.startswith(s) and _made_of(text[len(s):], spellings) for s in spellings if s)


@pytest.mark.parametrize("fmt, tokenizer_name, case", _cases())
def test_golden_completions_account_for_every_byte(fmt, tokenizer_name, case, get_tokenizer) -> None:
    module = parsergen.load(fmt)
    tokenizer = get_tokenizer(tokenizer_name)
    spellings = _spellings(module)
    stream = DecodeStream(skip_special_tokens=False)
    per_token = [(stream.step(tokenizer.backend_tokenizer, i) or "", [i]) for i in case.ids]
    specials = set(tokenizer.all_special_tokens)
    for tok, deltas, whole in ((tokenizer, per_token, [(case.text, case.ids)]),
                               (None, [(ch, []) for ch in case.text], [(case.text, [])])):
        # A call the completion cut off is neither a call nor content: its own destination.
        cut = module.parse(case.text, tokenizer=tok, token_ids=whole[0][1] or None,
                           thinking=case.thinking).cut_calls
        accounting = account(module.StreamingParser(tok, thinking=case.thinking), deltas, cut)
        # The parser consumed exactly the completion, and every byte has a destination.
        assert accounting.text == case.text
        assert accounting.problems == []
        assert accounting.by_category().get("cut call", "") == "".join(cut)
        # Streamed or in one delta, every byte goes to the same place.
        at_once = account(module.StreamingParser(tok, thinking=case.thinking), whole, cut)
        assert accounting.segments == at_once.segments
        for category, text in accounting.segments:
            # A marker is the spec's own spelling of the terminal it is named as.
            if category.startswith("marker "):
                assert _made_of(text, spellings[category[7:]]), (category, text)
            elif category == "special token":
                assert tok is not None and _made_of(text, tuple(specials)), text


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


def test_a_cut_call_is_its_own_destination() -> None:
    hermes = parsergen.load("hermes")
    text = 'Hi.<tool_call>\n{"name": "f", "arguments": {"a": "x'
    cut = hermes.parse(text).cut_calls
    assert cut == ('<tool_call>\n{"name": "f", "arguments": {"a": "x',)
    parts = account(hermes.StreamingParser(), [(text, [])], cut).by_category()
    assert parts == {"content": "Hi.", "cut call": cut[0]}
    # A cut call's text is the end of the completion, or the accounting says so.
    assert account(hermes.StreamingParser(), [(text, [])], ("nope",)).problems == [
        "cut call 'nope' is not the end of the input"]
