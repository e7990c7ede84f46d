"""Where a completion starts (from the prompt), when reasoning ends, and its framing."""

from __future__ import annotations

import pytest

import parsergen
from parsergen.runtime import accumulate

QWEN = parsergen.load("qwen3")


def qwen_ids(tokenizer, text: str) -> list[int]:
    return tokenizer.encode(text, add_special_tokens=False)


@pytest.mark.parametrize(
    "prompt_tail, thinking, expected",
    [
        ("<|im_start|>assistant\n<think>\n", False, "REASONING"),  # the template opened it
        ("<|im_start|>assistant\n<think>\n\n</think>\n\n", True, "CONTENT"),  # closed it
        ("<|im_start|>assistant\n", True, "REASONING"),  # no marker: the default
        ("<|im_start|>assistant\n", False, "CONTENT"),
        # A marker from an earlier turn is behind a boundary: the default again.
        ("<think>x</think><|im_end|>\n<|im_start|>assistant\n", True, "REASONING"),
    ],
)
def test_initial_state_from_the_prompt(get_tokenizer, prompt_tail, thinking, expected) -> None:
    tokenizer = get_tokenizer("qwen3.6")
    prompt = "<|im_start|>user\nHi<|im_end|>\n" + prompt_tail
    by_ids = QWEN.StreamingParser(tokenizer, thinking=thinking)
    by_ids.initialize(qwen_ids(tokenizer, prompt))
    by_text = QWEN.StreamingParser(thinking=thinking)
    by_text.initialize(prompt_text=prompt)
    assert by_ids.state == by_text.state == expected


def test_parse_with_a_prompt_that_closed_reasoning(get_tokenizer) -> None:
    tokenizer = get_tokenizer("qwen3.6")
    prompt = "<|im_start|>assistant\n<think>\n\n</think>\n\n"
    message = QWEN.parse("The answer.", tokenizer=tokenizer,
                         prompt_token_ids=qwen_ids(tokenizer, prompt))
    assert (message.reasoning, message.content) == (None, "The answer.")
    assert QWEN.parse("The answer.").reasoning == "The answer."  # default: thinking


def test_is_reasoning_end_and_content_ids(get_tokenizer) -> None:
    tokenizer = get_tokenizer("qwen3.6")
    parser = QWEN.StreamingParser(tokenizer)
    prompt = qwen_ids(tokenizer, "<|im_start|>assistant\n<think>\n")
    thought = qwen_ids(tokenizer, "hmm")
    answer = qwen_ids(tokenizer, "\n\nYes.")
    end = qwen_ids(tokenizer, "</think>")
    call = qwen_ids(tokenizer, "<tool_call>")
    assert not parser.is_reasoning_end(prompt + thought)
    assert parser.is_reasoning_end(prompt + thought + end + answer)
    assert parser.extract_content_ids(thought + end + answer) == answer
    # A tool call ends reasoning too; its marker is part of the content.
    assert parser.is_reasoning_end(prompt + thought + call)
    assert parser.extract_content_ids(thought + call + answer) == call + answer
    # Thinking off: nothing to wait for.
    off = QWEN.StreamingParser(tokenizer, thinking=False)
    assert off.is_reasoning_end(prompt)
    assert off.extract_content_ids(thought) == thought


FRAMED = "a\n</think>\nb"


@pytest.mark.parametrize("module", ["step3p5_reasoning", "step3p5"])
@pytest.mark.parametrize("cut", range(len(FRAMED) + 1))
@pytest.mark.parametrize("second_cut", [None, 2, 4])
def test_newline_framing_at_every_split(module: str, cut: int, second_cut) -> None:
    cuts = sorted({0, cut, len(FRAMED)} | ({second_cut} if second_cut else set()))
    parser = parsergen.load(module).ChatParser()
    deltas = [parser.feed(FRAMED[a:b]) for a, b in zip(cuts, cuts[1:])] + [parser.finish()]
    message = accumulate(deltas)
    assert (message.reasoning, message.content) == ("a", "b")


@pytest.mark.parametrize("text, reasoning, content", [
    ("a\n\n</think>\nb", "a\n", "b"),     # only the newline right before the marker goes
    ("a\n</think>\n\nb", "a", "\nb"),     # and only one newline after it
    ("a\nb</think>c", "a\nb", "c"),       # a newline inside reasoning is text
    ("a\n", "a\n", None),                 # no end marker: the newline is reasoning
])
def test_newline_framing_drops_only_the_framing(text, reasoning, content) -> None:
    message = parsergen.load("step3p5_reasoning").parse(text)
    assert (message.reasoning, message.content) == (reasoning, content)


@pytest.mark.parametrize("step", [1, 2, 3, 100])
def test_reasoning_only_formats(step: int) -> None:
    text = "<think>plan <think>more</think>answer with </think> and <think>"
    parser = parsergen.load("deepseek_r1_reasoning").ChatParser()
    deltas = [parser.feed(text[i : i + step]) for i in range(0, len(text), step)]
    message = accumulate(deltas + [parser.finish()])
    # A redundant start marker inside reasoning is skipped; after the end everything is
    # content, markers included.
    assert message.reasoning == "plan more"
    assert message.content == "answer with </think> and <think>"


def test_a_partial_marker_is_held_then_flushed() -> None:
    parser = parsergen.load("deepseek_r1_reasoning").ChatParser()
    first = parser.feed("thinking </thi")
    assert first.reasoning == "thinking "  # '</thi' may still be the end marker
    last = parser.finish()
    assert last.reasoning == "</thi"


def test_kimi_reasoning_ends_at_a_tool_section_which_stays_content() -> None:
    message = parsergen.load("kimi_k2_reasoning").parse(
        "thinking<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0")
    assert message.reasoning == "thinking"
    assert message.content == "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"


# vLLM's MiniMaxM3ReasoningParser.extract_reasoning on the same texts (0.33, run by hand:
# thinking_mode "enabled" is thinking=True).  One deliberate difference: vLLM also
# opens reasoning at a <mm:think> in the middle of an answer ("Answer <mm:think> x"
# gives reasoning " x"); parsergen opens it only where the completion begins, so it
# never holds back a "<" of the answer, as the engine's tool part does not.
@pytest.mark.parametrize("thinking, text, reasoning, content", [
    (False, "<mm:think>Plan.</mm:think>Answer", "Plan.", "Answer"),
    (False, "Plan.</mm:think>Answer", None, "Plan.</mm:think>Answer"),
    (False, "<mm:think>Plan. <mm:think>more</mm:think>A", "Plan. <mm:think>more", "A"),
    (True, "<mm:think>Plan.</mm:think>Answer", "Plan.", "Answer"),
    (True, "Plan.</mm:think>Answer", "Plan.", "Answer"),
    (False, "Answer <mm:think> x", None, "Answer <mm:think> x"),
])
@pytest.mark.parametrize("step", [1, 3, 100])
def test_minimax_m3_reasoning(thinking, text, reasoning, content, step) -> None:
    parser = parsergen.load("minimax_m3").ChatParser(thinking=thinking)
    deltas = [parser.feed(text[i : i + step]) for i in range(0, len(text), step)]
    message = accumulate(deltas + [parser.finish()])
    assert (message.reasoning, message.content) == (reasoning, content)


def test_markers_of_several_tokens_work_from_ids(get_tokenizer) -> None:
    # Kimi K3's channel markers are several tokens each (<|open|>, the word, <|sep|>).
    tokenizer = get_tokenizer("kimi_k3")
    k3 = parsergen.load("kimi_k3")

    def ids(text: str) -> list[int]:
        return tokenizer.encode(text, add_special_tokens=False)

    parser = k3.StreamingParser(tokenizer)
    done = ids("hmm<|close|>think<|sep|><|open|>response<|sep|>Hi")
    assert len(ids("<|close|>think<|sep|>")) > 1
    assert parser.is_reasoning_end(done)
    assert parser.extract_content_ids(done) == ids("<|open|>response<|sep|>Hi")
    assert not parser.is_reasoning_end(ids("x<|close|>think<|sep|>y<|open|>think<|sep|>hmm"))
    # A tools channel ends reasoning too; its marker is content.
    tools = ids("hmm<|open|>tools<|sep|>x")
    assert parser.is_reasoning_end(tools)
    assert parser.extract_content_ids(tools) == ids("<|open|>tools<|sep|>x")
    for prompt, thinking, state in [("x<|close|>think<|sep|>", True, "CONTENT"),
                                    ("<|open|>think<|sep|>", False, "REASONING")]:
        by_ids = k3.StreamingParser(tokenizer, thinking=thinking)
        by_ids.initialize(ids(prompt))
        by_text = k3.StreamingParser(thinking=thinking)
        by_text.initialize(prompt_text=prompt)
        assert by_ids.state == by_text.state == state
