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


def test_mistral_call_ids_are_what_mistral_accepts() -> None:
    """Random Mistral call ids pass mistral-common's own validator (nine alphanumerics)."""
    from mistral_common.protocol.instruct.validator import _TOOL_CALL_ID_REGEX

    module = parsergen.load("mistral")
    text = module.render({"tool_calls": [{"name": "f", "arguments": {"a": 1}},
                                         {"name": "g", "arguments": {}}]})
    chat = module.ChatParser()  # ids="random", as a server runs it
    deltas = [chat.feed(ch) for ch in text] + [chat.finish()]
    ids = [call.id for d in deltas if d is not None for call in d.tool_calls if call.id]
    streamed = [call.id for call in module.parse(text).tool_calls]
    assert len(ids) == 2 and len(streamed) == 2 and len(set(ids + streamed)) == 4
    assert all(_TOOL_CALL_ID_REGEX.match(i) for i in ids + streamed)


def test_dsml_render_marks_which_values_are_strings() -> None:
    """DeepSeek V3.2's DSML: string="true" for a string value, "false" for JSON ones."""
    module = parsergen.load("deepseek_v32")
    text = module.render({"tool_calls": [{"name": "f", "arguments": {
        "n": 3, "s": "x", "o": {"a": [1]}}}]})
    assert '<｜DSML｜parameter name="n" string="false">3</｜DSML｜parameter>' in text
    assert '<｜DSML｜parameter name="s" string="true">x</｜DSML｜parameter>' in text
    assert '<｜DSML｜parameter name="o" string="false">{"a": [1]}</｜DSML｜parameter>' in text
    # And it reads back: "3" with string="false" is the number, not the text.
    call = module.parse(text).tool_calls[0]
    assert call.arguments == '{"n": 3, "s": "x", "o": {"a": [1]}}'
