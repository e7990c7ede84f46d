"""Nothing a model writes vanishes in framing (issue 16, item 7 and item 5).

Text of a state with no event (TOOL_PREAMBLE, TOOL_BETWEEN) is framing only when it is
whitespace or the format's own punctuation; any other text there is content.  Each
case below once lost its words; each is read whole, one character per delta, in random
splits and one token per delta with ids, and every run must give the same message as
``parse()``, with every byte accounted for and no words left in framing.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

import parsergen
from parsergen.runtime import accumulate
from parsergen.runtime.accounting import account
from parsergen.runtime.messages import without_cut_calls
from support.strategies import marker_literals
from support.streams import encode_pieces, text_pieces, token_deltas
from test_properties import TOKENIZER

QWEN_CALL = ("<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
             "</function>")
EXPLANATION = "And here is my explanation."

# (format, thinking, completion, content, call names): what the model meant.
CASES = {
    "qwen3 text after </function>": (
        "qwen3", False, QWEN_CALL + "\n" + EXPLANATION, "\n" + EXPLANATION, ["get_weather"]),
    "step3p5 text after </function>": (
        "step3p5", False, QWEN_CALL + "\n" + EXPLANATION, "\n" + EXPLANATION, ["get_weather"]),
    "qwen3 text after </function>, then </tool_call>": (
        "qwen3", False, QWEN_CALL + "\nDone.\n</tool_call>", "\nDone.", ["get_weather"]),
    "qwen3 whitespace between calls is framing": (
        "qwen3", False, QWEN_CALL + "\n\n" + QWEN_CALL + "\n</tool_call>", None,
        ["get_weather", "get_weather"]),
    "llama3_json text after a call": (
        "llama3_json", False, '{"name": "get_weather", "parameters": {"city": "Paris"}} '
        + EXPLANATION, " " + EXPLANATION, ["get_weather"]),
    "llama3_json separator between calls is framing": (
        "llama3_json", False, '{"name": "a", "parameters": {}}; {"name": "b", "parameters": {}}',
        None, ["a", "b"]),
    "llama3_json <|eom_id|> after a tagged call": (
        "llama3_json", False, '<|python_tag|>{"name": "a", "parameters": {}}<|eom_id|>', None,
        ["a"]),
    "deepseek_v31 text in a section that starts no call": (
        "deepseek_v31", False, "Hi. <｜tool▁calls▁begin｜>Sorry, no call after all."
        "<｜tool▁calls▁end｜>", "Hi. Sorry, no call after all.", []),
    "deepseek_v3 call type is no content": (
        "deepseek_v3", False, "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f"
        '\n```json\n{"a": 1}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>', None, ["f"]),
    "inkling text before the message header": (
        "inkling", False, "Hello there.<|message_model|><|content_text|>The answer."
        "<|end_message|>", "Hello there.The answer.", []),
    "harmony stray commentary to=assistant header": (
        "openai", True, "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant"
        "<|channel|>commentary to=assistant<|message|>The answer.<|end|>", "The answer.", []),
    "kimi_k2 text after the tool section": (
        "kimi_k2", False, "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
        '<|tool_call_argument_begin|>{"a": 1}<|tool_call_end|><|tool_calls_section_end|>\n'
        + EXPLANATION, "\n" + EXPLANATION, ["f"]),
    "deepseek_v32 text after the tool block": (
        "deepseek_v32", False, '<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n'
        '<｜DSML｜parameter name="a" string="true">x</｜DSML｜parameter>\n</｜DSML｜invoke>\n'
        "</｜DSML｜function_calls>\n" + EXPLANATION, "\n" + EXPLANATION, ["f"]),
    "minimax_m3 text after the tool block": (
        "minimax_m3", False, ']<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name="f">\n'
        "]<]minimax[>[<a>1]<]minimax[>[</a>\n]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>"
        "\n" + EXPLANATION, "\n" + EXPLANATION, ["f"]),
}


def _pieces(module: Any, text: str) -> list[tuple[str, bool]]:
    """The completion as (text, is_marker) pieces: the format's markers are markers."""
    lits = sorted(marker_literals(module), key=len, reverse=True)
    parts = re.split("(" + "|".join(map(re.escape, lits)) + ")", text)
    return [(p, p in lits) for p in parts if p]


def _runs(module: Any, text: str, tokenizer: Any, seed: int) -> dict[str, tuple[Any, list]]:
    splits = text_pieces(text, random.Random(seed), 7)
    ids = encode_pieces(tokenizer, _pieces(module, text))
    per_token = token_deltas(tokenizer, ids)
    assert "".join(t for t, _ in per_token) == text
    return {"whole": (None, [(text, [])]), "per character": (None, [(c, []) for c in text]),
            "random": (None, splits), "per token, ids": (tokenizer, per_token),
            "whole, ids": (tokenizer, [(text, ids)])}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_nothing_vanishes(name: str, seed: int, get_tokenizer) -> None:
    fmt, thinking, text, content, calls = CASES[name]
    module = parsergen.load(fmt)
    tokenizer = get_tokenizer(TOKENIZER[fmt])
    for run, (tok, deltas) in _runs(module, text, tokenizer, seed).items():
        accounting = account(module.StreamingParser(tok, thinking=thinking), deltas)
        assert accounting.text == text, run
        assert accounting.problems == [], (run, accounting.problems)
        chat = module.ChatParser(tok, thinking=thinking, ids="sequential")
        streamed = without_cut_calls(
            accumulate([chat.feed(t, i) for t, i in deltas] + [chat.finish()]), chat.cut_calls)
        ids = [i for _, ids in deltas for i in ids] or None
        whole = module.parse(text, tokenizer=tok, token_ids=ids, thinking=thinking,
                             ids="sequential")
        assert streamed == whole, run
        assert whole.content == content, run
        assert [c.name for c in whole.tool_calls] == calls, run


def test_accounting_flags_words_in_framing() -> None:
    """A spec that drops TOOL_BETWEEN text (as vLLM's qwen3 did) fails the accounting."""
    module = parsergen.load("qwen3")

    class Dropping(module.StreamingParser):  # type: ignore[name-defined,misc]
        def on_text(self, text: str, out: list, may_hold: bool = False) -> int | None:
            if self.state_id == 6:  # TOOL_BETWEEN: text reaches no event
                return None
            return super().on_text(text, out, may_hold)

    accounting = account(Dropping(thinking=False), [(QWEN_CALL + "\n" + EXPLANATION, [])])
    assert accounting.problems == [
        f"{chr(10) + EXPLANATION!r} in TOOL_BETWEEN is words in framing: lost"]
    # Whitespace there is framing, and no problem.
    assert account(Dropping(thinking=False), [(QWEN_CALL + "\n", [])]).problems == []


def test_harmony_stray_header_keeps_reasoning_and_builtin_tools_stay_out() -> None:
    harmony = parsergen.load("openai")
    stray = harmony.parse("<|channel|>analysis to=assistant<|message|>Thinking.<|end|>"
                          "<|start|>assistant<|channel|>final<|message|>Answer.<|return|>")
    assert (stray.reasoning, stray.content) == ("Thinking.", "Answer.")
    text = ('<|channel|>analysis to=browser.search<|message|>{"query": "x"}<|call|>'
            "<|start|>assistant<|channel|>final<|message|>Done.<|return|>")
    builtin = harmony.parse(text)
    assert (builtin.reasoning, builtin.content, builtin.tool_calls) == (None, "Done.", ())
    segments = account(harmony.StreamingParser(), [(text, [])])
    assert segments.problems == []
    assert segments.by_category()["dropped TOOL_PREAMBLE"] == '{"query": "x"}'


def test_words_inside_an_open_call_are_its_text_and_reported() -> None:
    """Between a call's markers, text is the call's: content if the call is no call,
    the cut call's text if the completion cuts it, and reported (never content twice)
    when the call stands."""
    qwen = parsergen.load("qwen3")
    text = "<tool_call>Let me<function=f>\n<parameter=a>\nx\n</parameter>\n</function>\n</tool_call>"
    for deltas in ([text], list(text)):
        chat = qwen.ChatParser(thinking=False, ids="sequential")
        message = accumulate([chat.feed(d) for d in deltas] + [chat.finish()])
        assert (message.content, [c.name for c in message.tool_calls]) == (None, ["f"])
        assert "tool call 0: text between its markers is the call's text, not content" in (
            chat.warnings)
    cut = text[: text.index("\nx") + 2]
    for deltas in ([cut], list(cut)):
        chat = qwen.ChatParser(thinking=False, ids="sequential")
        streamed = without_cut_calls(accumulate([chat.feed(d) for d in deltas] + [chat.finish()]),
                                     chat.cut_calls)
        whole = qwen.parse(cut, thinking=False, ids="sequential")
        assert streamed == whole
        assert whole.content is None and whole.tool_calls == () and whole.cut_calls == (cut,)


# A marker the state knows, cut by the end of the completion (max_tokens), is framing.
# Only in text: a marker that is one special token cannot be cut (see the ids test).
CUT_CASES = {
    "kimi_k2 section end cut at the end": (
        "kimi_k2", True, "Plan. <|tool_calls_section_begin|> <|tool_call_begin|> functions.f:0 "
        '<|tool_call_argument_begin|> {"a": 1} <|tool_call_end|> <|tool_calls_section_end|',
        None, ["f"]),
    "qwen3 </tool_call> cut at the end": (
        "qwen3", False, QWEN_CALL + "\n</tool_ca", None, ["get_weather"]),
    "deepseek_v31 text, then a call marker cut at the end": (
        "deepseek_v31", False, "Hi. <｜tool▁calls▁begin｜>Sorry. <｜tool▁call▁be", "Hi. Sorry. ", []),
    "llama3_json second call cut in its opening": (
        "llama3_json", False, '{"name": "a", "parameters": {}}; {"na', None, ["a"]),
}


@pytest.mark.parametrize("name", sorted(CUT_CASES))
def test_a_cut_marker_at_the_end_is_framing(name: str) -> None:
    fmt, thinking, text, content, calls = CUT_CASES[name]
    module = parsergen.load(fmt)
    runs = {"whole": [(text, [])], "per character": [(c, []) for c in text]}
    runs.update({f"random {seed}": text_pieces(text, random.Random(seed), 7) for seed in range(3)})
    for run, deltas in runs.items():
        accounting = account(module.StreamingParser(thinking=thinking), deltas)
        assert accounting.text == text, run
        assert accounting.problems == [], (run, accounting.problems)
        assert accounting.segments[-1][0].startswith("marker "), (run, accounting.segments)
        chat = module.ChatParser(thinking=thinking, ids="sequential")
        streamed = without_cut_calls(
            accumulate([chat.feed(t) for t, _ in deltas] + [chat.finish()]), chat.cut_calls)
        whole = module.parse(text, thinking=thinking, ids="sequential")
        assert streamed == whole, run
        assert whole.content == content, run
        assert [c.name for c in whole.tool_calls] == calls, run


def test_with_ids_a_special_token_prefix_is_text(get_tokenizer) -> None:
    """With token ids, Kimi's markers are single special tokens: their spelling cut short
    was written as text, and stays content."""
    kimi = parsergen.load("kimi_k2")
    tokenizer = get_tokenizer(TOKENIZER["kimi_k2"])
    text = CUT_SECTION + "<|tool_calls_section_end|"
    ids = encode_pieces(tokenizer, _pieces(kimi, text))
    whole = kimi.parse(text, tokenizer=tokenizer, token_ids=ids, thinking=False)
    assert whole.content == "<|tool_calls_section_end|"
    assert account(kimi.StreamingParser(tokenizer, thinking=False),
                   token_deltas(tokenizer, ids)).problems == []


CUT_SECTION = ("<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
               '<|tool_call_argument_begin|>{"a": 1}<|tool_call_end|>')


@pytest.mark.parametrize("tail, content, last", [
    ("<|tool_calls_section_end|", None, ("marker TOOL_SECTION_END", "<|tool_calls_section_end|")),
    ("\n<|tool_call_beg", None, ("marker TOOL_START", "<|tool_call_beg")),
    # Only a proper prefix at the very end is the cut marker: text before it is content.
    ("Done. <|tool_calls_", "Done. ", ("marker TOOL_SECTION_END", "<|tool_calls_")),
    # Not a prefix of a marker TOOL_BETWEEN knows: content, as before.
    ("<|tool_calls_section_end|!", "<|tool_calls_section_end|!", ("content",
                                                                  "<|tool_calls_section_end|!")),
    ("<|im_end", "<|im_end", ("content", "<|im_end")),
])
def test_a_cut_marker_at_the_end_of_a_framing_state_is_framing(tail, content, last) -> None:
    kimi = parsergen.load("kimi_k2")
    text = CUT_SECTION + tail
    for deltas in ([(text, [])], [(c, []) for c in text], text_pieces(text, random.Random(3), 5)):
        accounting = account(kimi.StreamingParser(thinking=False), deltas)
        assert accounting.problems == [] and accounting.text == text
        assert accounting.segments[-1] == last
        chat = kimi.ChatParser(thinking=False, ids="sequential")
        streamed = accumulate([chat.feed(d) for d, _ in deltas] + [chat.finish()])
        whole = kimi.parse(text, thinking=False, ids="sequential")
        assert streamed == whole
        assert (whole.content, [c.name for c in whole.tool_calls]) == (content, ["f"])


def test_a_marker_prefix_in_content_stays_content() -> None:
    """Only framing states read a cut marker as markup: in content it is what was written."""
    kimi = parsergen.load("kimi_k2")
    assert kimi.parse("Use <|tool_calls_sec", thinking=False).content == "Use <|tool_calls_sec"
