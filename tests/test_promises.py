"""README promises that no other test pins down, each checked where it can break."""

from __future__ import annotations

import parsergen

QWEN = parsergen.load("qwen3")


def test_is_reasoning_end_stops_at_a_turn_boundary(get_tokenizer) -> None:
    """An end marker from an earlier turn does not end this turn's reasoning."""
    tokenizer = get_tokenizer("qwen3.6")

    def ids(text: str) -> list[int]:
        return tokenizer.encode(text, add_special_tokens=False)

    parser = QWEN.StreamingParser(tokenizer)  # thinking by default: reasoning waits
    earlier = ids("<|im_start|>assistant\n<think>x</think>done<|im_end|>\n")
    turn = ids("<|im_start|>assistant\n") + ids("hmm")
    assert not parser.is_reasoning_end(earlier + turn)
    assert parser.is_reasoning_end(earlier + turn + ids("</think>"))
    # Without the boundary the earlier </think> would count.
    assert parser.is_reasoning_end(ids("<think>x</think>") + ids("hmm"))


def test_is_reasoning_end_a_start_marker_reopens_reasoning(get_tokenizer) -> None:
    """Thinking off, DeepSeek V4 may still open reasoning with <think>: not ended."""
    tokenizer = get_tokenizer("deepseek")
    v4 = parsergen.load("deepseek_v4")

    def ids(text: str) -> list[int]:
        return tokenizer.encode(text, add_special_tokens=False)

    parser = v4.StreamingParser(tokenizer, thinking=False)
    assert parser.is_reasoning_end(ids("hmm"))  # nothing opened: nothing to wait for
    assert not parser.is_reasoning_end(ids("<think>hmm"))
    assert parser.is_reasoning_end(ids("<think>hmm</think>ok"))


def test_a_marker_id_whose_text_never_arrives_is_placed_at_the_end(get_tokenizer) -> None:
    """README: token ids whose text comes later are placed when it arrives, or at finish."""
    tokenizer = get_tokenizer("qwen3.6")
    parser = QWEN.StreamingParser(tokenizer)
    events = parser.feed("hmm", tokenizer.encode("hmm", add_special_tokens=False))
    events += parser.feed("", tokenizer.encode("</think>", add_special_tokens=False))
    events += parser.finish()
    assert [(e.type.name, e.value) for e in events] == [
        ("REASONING_CHUNK", "hmm"), ("REASONING_END", "</think>")]
