"""The prompt decides where a completion starts, when it is given (initialize).

Walking back from the prompt's end to its last reasoning marker: a start marker means
reasoning, an end marker content, neither content too, where a start marker that
begins the completion opens reasoning.  Only a format whose models reason without
writing the start marker (``reasoning.start_optional``) keeps its initial state.
Without a prompt the format's default stays (the goldens run that way).
"""

from __future__ import annotations

from typing import Any

import pytest

import parsergen
from parsergen.runtime import STATE_NAMES, accumulate
from parsergen.runtime.accounting import account
from parsergen.runtime.events import CONTENT, REASONING
from support.tokenizers import TOKENIZERS, byte_token_ids
from test_properties import TOKENIZER

REASONING_FORMATS = sorted(f for f in parsergen.formats()
                           if parsergen.load(f).StreamingParser.REASONING_RULES is not None)


def _markers(module: Any, thinking: bool) -> tuple[str | None, str | None, str]:
    """The format's first start and end marker texts (None: it has none) and a turn
    boundary to end an earlier turn with ("" when it names none)."""
    rules = module.StreamingParser.REASONING_RULES
    lexicon = module.StreamingParser.LEXICONS[thinking]
    starts, ends = lexicon.texts(rules.start), lexicon.texts(rules.end)
    boundary = lexicon.turn_boundary_tokens[0] if lexicon.turn_boundary_tokens else ""
    return (starts[0] if starts else None), (ends[0] if ends else None), boundary


def _ids(tokenizer: Any, text: str) -> list[int]:
    """``text``'s token ids, markers as their tokens."""
    return tokenizer.encode(text, add_special_tokens=False)


def _parse(module: Any, text: str, prompt: str, thinking: bool, tokenizer: Any = None) -> tuple:
    """(reasoning, content) of ``text`` after ``prompt``, by text or (with a tokenizer) ids."""
    if tokenizer is None:
        message = module.parse(text, thinking=thinking, prompt_text=prompt)
    else:
        message = module.parse(text, thinking=thinking, tokenizer=tokenizer,
                               token_ids=_ids(tokenizer, text),
                               prompt_token_ids=_ids(tokenizer, prompt))
    return message.reasoning, message.content


def _start_state(module: Any, prompt: str, thinking: bool, tokenizer: Any = None) -> str:
    parser = module.StreamingParser(tokenizer, thinking=thinking)
    if tokenizer is None:
        parser.initialize(prompt_text=prompt)
    else:
        parser.initialize(_ids(tokenizer, prompt))
    return parser.state


@pytest.mark.parametrize("thinking", [True, False])
@pytest.mark.parametrize("fmt", REASONING_FORMATS)
def test_every_format_starts_where_the_prompt_leaves_it(fmt: str, thinking: bool) -> None:
    module = parsergen.load(fmt)
    parser = module.StreamingParser
    start, end, boundary = _markers(module, thinking)
    initial = STATE_NAMES[parser.INITIAL_STATES[thinking]]
    # Neither marker: content, unless the models may reason unmarked or a message header
    # decides (Harmony, Inkling).
    neither = (initial if parser.REASONING_RULES.start_optional
               or initial not in ("REASONING", "CONTENT") else "CONTENT")
    tails = {"": neither}
    if start is not None:
        tails[start] = "REASONING"
        tails[boundary + start] = "REASONING"
        # A start marker of an earlier turn is behind the turn boundary.
        if boundary:
            tails[start + "x" + boundary] = neither
    if end is not None and start is not None:
        tails[start + "x" + end] = "CONTENT"
    tokenizer = TOKENIZERS[TOKENIZER[fmt]]()
    for tail, expected in tails.items():
        prompt = "Hi" + boundary + "assistant\n" + tail
        assert _start_state(module, prompt, thinking) == expected, (tail, "text")
        assert _start_state(module, prompt, thinking, tokenizer) == expected, (tail, "ids")


@pytest.mark.parametrize("thinking", [True, False])
@pytest.mark.parametrize("fmt", REASONING_FORMATS)
def test_every_format_reads_a_completion_after_the_prompt(fmt: str, thinking: bool) -> None:
    module = parsergen.load(fmt)
    start, end, boundary = _markers(module, thinking)
    if start is None or end is None:
        pytest.skip(f"{fmt} has no start marker with thinking={thinking}")
    rules = module.StreamingParser.REASONING_RULES
    at = "Hi" + boundary + "assistant\n"
    cases = [
        (at, start + "Plan." + end + "Answer.", ("Plan.", "Answer.")),  # the model opens it
        (at + start, "Plan." + end + "Answer.", ("Plan.", "Answer.")),  # the prompt did
        (at + start + "x" + end, "Answer.", (None, "Answer.")),        # and closed it
    ]
    if not rules.start_optional:
        cases.append((at, "Answer.", (None, "Answer.")))  # a model that does not think
    tokenizer = TOKENIZERS[TOKENIZER[fmt]]()
    for prompt, text, expected in cases:
        assert _parse(module, text, prompt, thinking) == expected, (prompt, text, "text")
        assert _parse(module, text, prompt, thinking, tokenizer) == expected, (prompt, text, "ids")


QWEN = parsergen.load("qwen3")
AT = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"


@pytest.mark.parametrize("step", [1, 2, 3, 7, 100])
def test_qwen3_answer_after_a_generation_prompt_is_content(get_tokenizer, step: int) -> None:
    # Qwen3-*-Instruct-2507 and Qwen3-Coder never think; thinking is on by default.
    text = "The answer is 4."
    tokenizer = get_tokenizer("qwen3.6")
    for parser, prompt in ((QWEN.ChatParser(), {"prompt_text": AT}),
                           (QWEN.ChatParser(tokenizer), {"prompt_token_ids": _ids(tokenizer, AT)})):
        parser.initialize(**prompt)
        assert not parser.reasoning_ended  # the model may still open <think>
        deltas = [parser.feed(text[i : i + step]) for i in range(0, len(text), step)]
        message = accumulate([*deltas, parser.finish()])
        assert (message.reasoning, message.content) == (None, text)
        assert parser.reasoning_ended
    assert QWEN.parse(text).reasoning == text  # no prompt: the format's default


@pytest.mark.parametrize("step", [1, 2, 3, 5, 100])
def test_qwen3_think_written_first_opens_reasoning(get_tokenizer, step: int) -> None:
    tokenizer = get_tokenizer("qwen3.6")
    text = "<think>\nPlan.\n</think>\n\nAnswer."
    expected = ("\nPlan.\n", "\n\nAnswer.")
    parser = QWEN.ChatParser()
    parser.initialize(prompt_text=AT)
    deltas = [parser.feed(text[i : i + step]) for i in range(0, len(text), step)]
    message = accumulate([*deltas, parser.finish()])
    assert (message.reasoning, message.content) == expected
    ids = _ids(tokenizer, text)
    parser = QWEN.ChatParser(tokenizer)
    parser.initialize(_ids(tokenizer, AT))
    groups = [ids[i : i + step] for i in range(0, len(ids), step)]
    deltas = [parser.feed(tokenizer.decode(group), group) for group in groups]
    message = accumulate([*deltas, parser.finish()])
    assert (message.reasoning, message.content) == expected


@pytest.mark.parametrize("text", [
    "Answer <think>x</think>y",   # not where the completion begins: the grammar decides
    " <think>x",                  # not even after a space
])
def test_only_a_start_marker_that_begins_the_completion_opens_reasoning(text: str) -> None:
    reasoning, content = _parse(QWEN, text, AT, True)
    assert reasoning is None and content.startswith(text[:3])


def test_a_start_marker_typed_as_prose_does_not_open_reasoning(get_tokenizer) -> None:
    tokenizer = get_tokenizer("qwen3.6")
    ids = byte_token_ids(tokenizer, "<think>") + _ids(tokenizer, "x")
    message = QWEN.parse("<think>x", tokenizer=tokenizer, token_ids=ids,
                         prompt_token_ids=_ids(tokenizer, AT))
    assert (message.reasoning, message.content) == (None, "<think>x")
    real = _ids(tokenizer, "<think>x")
    message = QWEN.parse("<think>x", tokenizer=tokenizer, token_ids=real,
                         prompt_token_ids=_ids(tokenizer, AT))
    assert (message.reasoning, message.content) == ("x", None)


@pytest.mark.parametrize("fmt, tail", [
    ("deepseek_r1", "<｜User｜>Hi<｜Assistant｜>"),
    ("deepseek_r1_reasoning", "<｜User｜>Hi<｜Assistant｜>"),
    ("step3_reasoning", "<|im_start|>assistant\n"),
])
def test_formats_whose_models_may_omit_the_start_marker_keep_reasoning(
        get_tokenizer, fmt: str, tail: str) -> None:
    module = parsergen.load(fmt)
    assert module.StreamingParser.REASONING_RULES.start_optional
    text = "Plan.</think>Answer."
    assert _parse(module, text, tail, True) == ("Plan.", "Answer.")
    tokenizer = get_tokenizer(TOKENIZER[fmt])
    assert _parse(module, text, tail, True, tokenizer) == ("Plan.", "Answer.")


def test_counted_reasoning_tokens_follow_the_prompt(get_tokenizer) -> None:
    tokenizer = get_tokenizer("qwen3.6")
    plan = _ids(tokenizer, "Plan it.")
    ids = [*_ids(tokenizer, "<think>"), *plan, *_ids(tokenizer, "</think>Answer.")]
    for prompt, counted in ((AT, len(plan)), (AT + "<think>\n\n</think>\n\n", 0)):
        parser = QWEN.ChatParser(tokenizer)
        parser.initialize(_ids(tokenizer, prompt))
        assert parser.count_reasoning_tokens(ids) == counted
    parser = QWEN.ChatParser(tokenizer)
    parser.initialize(_ids(tokenizer, AT))
    assert parser.count_reasoning_tokens(_ids(tokenizer, "Answer.")) == 0


def test_start_and_no_prompt_are_unchanged(get_tokenizer) -> None:
    parser = QWEN.StreamingParser()
    parser.initialize()
    assert parser.state_id == REASONING  # nothing to read: the default
    parser = QWEN.StreamingParser(thinking=False)
    parser.initialize(start="reasoning")
    assert parser.state_id == REASONING
    parser = QWEN.StreamingParser()
    parser.initialize(prompt_text=AT, start="content")
    assert parser.state_id == CONTENT and parser.starts_past_reasoning
    # Ids without a tokenizer cannot be read: the default stays.
    parser = QWEN.StreamingParser()
    parser.initialize(_ids(get_tokenizer("qwen3.6"), AT))
    assert parser.state_id == REASONING


def _reclosed(module: Any, text: str, thinking: bool, prompt: str | None,
              tokenizer: Any = None) -> list[tuple]:
    """``text``'s (reasoning, content) parsed whole and streamed (per character, or per
    token with a tokenizer), each after ``prompt`` (None: no prompt)."""
    ids = _ids(tokenizer, text) if tokenizer is not None else None
    start: dict[str, Any] = {}
    if prompt is not None:
        start = ({"prompt_text": prompt} if tokenizer is None
                 else {"prompt_token_ids": _ids(tokenizer, prompt)})
    whole = module.parse(text, thinking=thinking, tokenizer=tokenizer, token_ids=ids, **start)
    chat = module.ChatParser(tokenizer, thinking=thinking)
    if prompt is not None:
        chat.initialize(**({"prompt_text": prompt} if tokenizer is None
                           else {"prompt_token_ids": start["prompt_token_ids"]}))
    deltas = ([(ch, ()) for ch in text] if tokenizer is None
              else [(tokenizer.decode([i]), [i]) for i in ids or ()])
    streamed = accumulate([*(chat.feed(t, i) for t, i in deltas), chat.finish()])
    return [(m.reasoning, m.content) for m in (whole, streamed)]


@pytest.mark.parametrize("thinking", [True, False])
@pytest.mark.parametrize("fmt", REASONING_FORMATS)
def test_an_end_marker_again_after_reasoning_closed_is_a_marker(fmt: str, thinking: bool) -> None:
    # The prompt closed reasoning (an empty think block) and the model closes it again
    # before answering (tests/corpus/qwen/qwen3-stray-think-end-after-prefill.yaml): the
    # repeated end marker, after whitespace at most, is a marker, never content; so after
    # the completion's own end marker. Later in content the format decides, as before.
    module = parsergen.load(fmt)
    start, end, boundary = _markers(module, thinking)
    if start is None or end is None:
        pytest.skip(f"{fmt} has no start marker with thinking={thinking}")
    closed = "Hi" + boundary + "assistant\n" + start + "\n" + end + "\n"
    tokenizer = TOKENIZERS[TOKENIZER[fmt]]()
    for tok in (None, tokenizer):
        for lead in ("", "\n", " \n "):
            plain = _reclosed(module, lead + "\n\nAnswer.", thinking, closed, tok)
            assert plain[0] == plain[1] and plain[0][1].strip() == "Answer.", (lead, tok)
            again = _reclosed(module, lead + end + "\n\nAnswer.", thinking, closed, tok)
            assert again == plain, (lead, tok)
            # The prompt opened reasoning, the completion closes it, then again.
            own = _reclosed(module, "Plan." + end + lead + end + "Answer.", thinking,
                            "Hi" + boundary + "assistant\n" + start, tok)
            assert own == [("Plan.", own[0][1])] * 2 and own[0][1].strip() == "Answer.", (
                lead, tok)


def test_an_end_marker_again_is_accounted_a_marker_and_thinking_off_closes() -> None:
    qwen = parsergen.load("qwen3_json")
    parser = qwen.StreamingParser(thinking=False)  # the template closed reasoning
    accounting = account(parser, [(ch, []) for ch in "\n</think>\n\nAnswer."])
    assert not accounting.problems
    assert accounting.by_category() == {"content": "\n\n\nAnswer.", "marker THINK_END": "</think>"}
    # Thinking on and no prompt: the completion starts in reasoning, nothing was closed.
    assert qwen.parse("</think>Answer.").content == "Answer."
    assert qwen.parse("Answer.</think>", thinking=False).content == "Answer.</think>"
    # A prompt with no marker closed nothing: the end marker is content, as before.
    message = qwen.parse("</think>Answer.", prompt_text="<|im_start|>assistant\n")
    assert message.content == "</think>Answer."


# A format whose every message opens with a header (Harmony, Muse): the prompt ends with
# the assistant's role after an earlier message's end marker, so the completion starts
# in a header, not in content (it used to be read as content, header and all).
@pytest.mark.parametrize("fmt, prompt, text, expected", [
    # openai/harmony's format docs: the prompt ends with <|start|>assistant.
    ("openai", "<|start|>user<|message|>Hi<|end|><|start|>assistant",
     "<|channel|>analysis<|message|>Plan.<|end|><|start|>assistant<|channel|>final"
     "<|message|>Answer.<|return|>", ("Plan.", "Answer.")),
    # vLLM's muse parsers: the completion's first header is " to=self<|message|>".
    ("muse", "<|start|>user<|message|>Hi<|eot|><|start|>assistant",
     " to=self<|message|>Plan.<|eom|><|start|>assistant to=user<|message|>Answer.<|eot|>",
     ("Plan.", "Answer.")),
])
def test_a_header_format_starts_in_a_header_after_an_ended_message(
        fmt: str, prompt: str, text: str, expected: tuple) -> None:
    module = parsergen.load(fmt)
    tokenizer = TOKENIZERS[TOKENIZER[fmt]]()
    assert _start_state(module, prompt, True) == "MESSAGE_HEADER"
    assert _start_state(module, prompt, True, tokenizer) == "MESSAGE_HEADER"
    assert _parse(module, text, prompt, True) == expected
    assert _parse(module, text, prompt, True, tokenizer) == expected


# Hunyuan-A13B's markers are ordinary pieces that merge with their newlines, at the ids
# vLLM's hunyuan_a13b reasoning parser follows (its docstring): "<think>\n" 14023 771 397,
# "\n</think>\n<answer>\n" 198 524 27963 397 27 9399 397; "</think>" alone would be
# 524 27963 29, an id sequence no prompt or output shows.
HY_THINK, HY_ANSWER = [14023, 771, 397], [198, 524, 27963, 397, 27, 9399, 397]


def test_markers_merged_with_their_framing_are_read_by_id() -> None:
    tokenizer = TOKENIZERS["hunyuan"]()
    module = parsergen.load("hunyuan_a13b")
    prompt = tokenizer.encode("<|startoftext|>Hi<|extra_0|>", add_special_tokens=False)
    reasoning = tokenizer.encode("The user greets me.", add_special_tokens=False)
    parser = module.StreamingParser(tokenizer)
    parser.initialize(prompt)
    assert parser.state == "CONTENT"  # the model opens <think> itself
    assert not parser.is_reasoning_end([*prompt, *HY_THINK, *reasoning])
    assert parser.is_reasoning_end([*prompt, *HY_THINK, *reasoning, *HY_ANSWER])
    # The thinking-off template closes the think block in the prompt (its tokenizer_config
    # chat_template: "<think>\n\n</think>\n"): reasoning is over, and a </think> the model
    # writes again is that marker, not content (the newline after it is content's, as
    # after any repeated end marker: test_an_end_marker_again_after_reasoning_closed...).
    closed = [*prompt, 14023, 771, 1363, 524, 27963, 397]
    assert tokenizer.decode(closed[len(prompt):]) == "<think>\n\n</think>\n"
    assert parser.is_reasoning_end(closed)
    again = tokenizer.encode("</think>\nHello.", add_special_tokens=False)
    message = module.parse("</think>\nHello.", tokenizer=tokenizer, token_ids=again,
                           prompt_token_ids=closed)
    assert (message.reasoning, message.content) == (None, "\nHello.")
