"""Where a completion starts (from the prompt), when reasoning ends, and its framing."""

from __future__ import annotations

import pytest

import parsergen
from parsergen.runtime import accumulate
from parsergen.runtime.events import REASONING as REASONING_STATE
from support.specs import build
from support.tokenizers import TOKENIZERS, byte_token_ids
from test_properties import TOKENIZER

QWEN = parsergen.load("qwen3")


def qwen_ids(tokenizer, text: str) -> list[int]:
    return tokenizer.encode(text, add_special_tokens=False)


@pytest.mark.parametrize(
    "prompt_tail, thinking, expected",
    [
        ("<|im_start|>assistant\n<think>\n", False, "REASONING"),  # the template opened it
        ("<|im_start|>assistant\n<think>\n\n</think>\n\n", True, "CONTENT"),  # closed it
        # No marker: the prompt is final, the model is in content (where a <think> it
        # writes first opens reasoning), thinking or not.
        ("<|im_start|>assistant\n", True, "CONTENT"),
        ("<|im_start|>assistant\n", False, "CONTENT"),
        # A marker from an earlier turn is behind a boundary: no marker either.
        ("<think>x</think><|im_end|>\n<|im_start|>assistant\n", True, "CONTENT"),
        ("<think>x<|im_end|>\n<|im_start|>assistant\n", True, "CONTENT"),
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


# Formats with reasoning markers the tokenizer spells with ordinary tokens only (or
# added tokens that are not special): a quote has the marker's very ids, so typed as
# prose inside reasoning they still act as markers.  Markers spelled over special
# tokens are matched as id sequences (runtime/sequences.py) and are not listed.
TEXT_MARKERS = {
    "deepseek_v32": "DSML call markers are text (several tokens in the test vocabulary)",
    "deepseek_v4": "DSML call markers are text (several tokens in the test vocabulary)",
    "deepseek_v41": "DSML call markers are text (several tokens in the test vocabulary)",
    "glm47_moe": "Ling 3's <|role_end|> (ling3 is an alias) is not in GLM's vocabulary: "
                 "matched as text",
    "granite33": "<think> and </think> are text in the test Granite vocabulary (only "
                 "its role and <|tool_call|> tokens are special)",
    "magistral_2506": "<think> and </think> are ordinary text in the tekken vocabulary "
                      "(the model writes them as words, as its system prompt asks)",
    "minicpmv": "its dropped <reserved_12..15> and <|reserved_12..15|> are not in the Qwen "
                "test vocabulary it is tested with: matched as text",
    "minimax_m3": "markers are added tokens that are not special; generated text may split them",
    "olmo3": "<think> and </think> are ordinary vocabulary pieces in OLMo 3 (vLLM's olmo3 "
             "reasoning parser reads them in the text)",
    "hunyuan_a13b": "<think> and </think> are several ordinary pieces in Hunyuan-A13B's "
                    "vocabulary (<th ink >: vLLM's hunyuan_a13b reasoning parser lists them)",
}


def _prose_ids(tokenizer, text: str, marker_ids: set[int]) -> list[int]:
    """Ids of ``text`` typed as prose: no marker token among them."""
    ids = tokenizer(text, add_special_tokens=False, split_special_tokens=True)["input_ids"]
    if any(i in marker_ids for i in ids) or tokenizer.decode(ids) != text:
        ids = byte_token_ids(tokenizer, text)
    assert not marker_ids & set(ids) and tokenizer.decode(ids) == text
    return ids


@pytest.mark.parametrize("fmt", sorted(f for f in parsergen.formats()
                                       if parsergen.load(f).StreamingParser.REASONING_RULES))
def test_a_marker_quoted_in_reasoning_with_token_ids_stays_reasoning(fmt: str) -> None:
    module = parsergen.load(fmt)
    rules = module.StreamingParser.REASONING_RULES
    tokenizer = TOKENIZERS[TOKENIZER[fmt]]()
    as_text = set()
    for thinking in (True, False):
        lexicon = module.StreamingParser.LEXICONS[thinking]
        info = lexicon.info(tokenizer)
        names = lexicon.live.get(REASONING_STATE, frozenset()) | rules.start | rules.end
        for name in sorted(names):
            for marker in lexicon.texts([name]):
                if name not in info.resolved:
                    as_text.add(name)
                    continue
                text = f"a {marker} b"
                ids = [*tokenizer.encode("a ", add_special_tokens=False),
                       *_prose_ids(tokenizer, marker, set(info.id_to_name)),
                       *tokenizer.encode(" b", add_special_tokens=False)]
                message = module.parse(text, tokenizer=tokenizer, token_ids=ids,
                                       thinking=thinking, start="reasoning")
                assert (message.reasoning, message.content) == (text, None), (thinking, marker)
    assert bool(as_text) == (fmt in TEXT_MARKERS), sorted(as_text)


@pytest.mark.parametrize("text, reasoning, content", [
    ("<|channel>thought\n<channel|>Answer.", None, "Answer."),  # an empty thought channel
    ("<|channel>thought<channel|>Answer.", None, "Answer."),
    ("<|channel>thought\n", None, None),                        # cut right after its header
    ("<|channel>thought\nPlan.<channel|>Answer.", "Plan.", "Answer."),
    ("<|channel>thoughtful\n<channel|>A", "thoughtful", "A"),   # not the header line
])
@pytest.mark.parametrize("step", [1, 3, 100])
@pytest.mark.parametrize("thinking", [True, False])
def test_gemma4_empty_thought_channel_is_no_reasoning(text, reasoning, content, step,
                                                     thinking) -> None:
    module = parsergen.load("gemma4")
    parser = module.ChatParser(thinking=thinking)
    deltas = [parser.feed(text[i : i + step]) for i in range(0, len(text), step)]
    message = accumulate([*deltas, parser.finish()])
    assert (message.reasoning, message.content) == (reasoning, content)
    whole = module.parse(text, thinking=thinking)
    assert (whole.reasoning, whole.content) == (reasoning, content)
    call = module.parse("<|channel>thought\n<channel|><|tool_call>call:f{a:1}<tool_call|>")
    assert (call.reasoning, [c.name for c in call.tool_calls]) == (None, ["f"])


MISTRAL = parsergen.load("mistral")
# A [TOOL_CALLS] quoted inside Magistral's [THINK] block, then a call after it.
THINK_QUOTES_CALL = ('[THINK]I could write [TOOL_CALLS]get_time[ARGS]{}.[/THINK]'
                     '[TOOL_CALLS]f[ARGS]{"a": 1}')


def test_calls_are_text_keeps_call_markers_in_reasoning(tmp_path, get_tokenizer) -> None:
    # Magistral never calls a tool inside its [THINK] block: mistral.yaml says so with
    # reasoning.calls_are_text, the opposite of ended_by_tool_calls.
    assert "TOOL_CALLS" not in MISTRAL.SPEC["transitions"]["REASONING"]
    rules = MISTRAL.StreamingParser.REASONING_RULES
    # A [TOOL_CALLS] in content still ends the wait for reasoning (as in vLLM).
    assert rules.calls_are_text and rules.implicit_end == frozenset({"TOOL_CALLS"})
    text = THINK_QUOTES_CALL
    tokenizer = get_tokenizer("mistral")
    ids = tokenizer.encode(text, add_special_tokens=False)
    assert ids.count(ids[ids.index(35) + 1]) == 2  # both [TOOL_CALLS] are the token
    expected = ("I could write [TOOL_CALLS]get_time[ARGS]{}.", None, [("f", '{"a": 1}')])
    for kwargs in ({}, {"tokenizer": tokenizer, "token_ids": ids}):
        message = MISTRAL.parse(text, **kwargs)
        assert (message.reasoning, message.content,
                [(c.name, c.arguments) for c in message.tool_calls]) == expected
    # Streamed per character, per token: the same message.
    pieces = [[(c, ()) for c in text],
              [(tokenizer.decode([i]), [i]) for i in ids]]
    for deltas in pieces:
        chat = MISTRAL.ChatParser(tokenizer if deltas[0][1] else None)
        streamed = accumulate([*(chat.feed(t, i) for t, i in deltas), chat.finish()])
        assert (streamed.reasoning, streamed.content,
                [(c.name, c.arguments) for c in streamed.tool_calls]) == expected
    # Reasoning to the end of the completion: the call marker is reasoning text.
    cut = "[THINK]Just call.[TOOL_CALLS]get_time[ARGS]{}"
    message = MISTRAL.parse(cut, tokenizer=tokenizer,
                            token_ids=tokenizer.encode(cut, add_special_tokens=False))
    assert (message.reasoning, message.tool_calls) == ("Just call.[TOOL_CALLS]get_time[ARGS]{}",
                                                       ())
    # A format that lets calls end reasoning (as vLLM's mistral does) calls there.
    ending = build(tmp_path, """
        extends: mistral
        name: calling_mistral
        description: mistral whose models call tools while reasoning
        reasoning: {calls_are_text: false, ended_by_tool_calls: true}
        """)
    message = ending.parse(text)
    assert message.reasoning == "I could write"


def test_calls_are_text_removes_a_base_formats_calls_from_reasoning(tmp_path) -> None:
    # qwen3 calls from reasoning (its REASONING has a <tool_call> transition); a format
    # extending it with calls_are_text drops that transition (schema.json: "every
    # transition from REASONING into a tool state is removed"), not only implied ones.
    text = ("Maybe <tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>"
            "\n</tool_call> no.</think>Done.")
    assert [c.name for c in parsergen.load("qwen3").parse(text, thinking=True).tool_calls] \
        == ["f"]
    quiet = build(tmp_path, """
        extends: qwen3
        name: quiet_qwen3
        description: qwen3 whose models never call tools while reasoning
        reasoning: {start: [THINK_START], end: [THINK_END], calls_are_text: true}
        """)
    message = quiet.parse(text, thinking=True)
    assert (message.reasoning, message.content, message.tool_calls) == (
        text.removesuffix("</think>Done."), "Done.", ())


def test_calls_are_text_reasoning_ids(get_tokenizer) -> None:
    # Where the wait for reasoning ends, by ids: at [/THINK], or at a [TOOL_CALLS] that
    # no open [THINK] holds (vLLM ends it at every [TOOL_CALLS]).
    tokenizer = get_tokenizer("mistral")

    def ids(text: str) -> list[int]:
        return tokenizer.encode(text, add_special_tokens=False)

    parser = MISTRAL.ChatParser(tokenizer)
    call = ids('[TOOL_CALLS]f[ARGS]{"a": 1}')
    think, thought, end = ids("[THINK]"), ids("I could write "), ids("[/THINK]")
    quoted = think + thought + call  # no [/THINK]: all of it is reasoning
    assert not parser.is_reasoning_end(quoted)
    assert parser.is_reasoning_open(quoted)
    assert parser.is_reasoning_end(quoted + end)
    assert parser.is_reasoning_end(quoted + end + ids("ok") + call)
    assert parser.is_reasoning_end(ids("Sure.") + call)  # no [THINK]: a call in content
    assert not parser.is_reasoning_end(ids("Sure."))  # mistral waits for a reasoning end
    assert parser.is_reasoning_end(quoted + end + think + thought) is False  # open again
    # Read forward, batch by batch, carrying whether a [THINK] is open.
    assert parser.find_reasoning_end(call) == (0, True, False)
    assert parser.find_reasoning_end(ids("Sure.") + call) == (len(ids("Sure.")), True, False)
    assert parser.find_reasoning_end(quoted) == (None, False, True)
    assert parser.find_reasoning_end(call, inside=True) == (None, False, True)
    assert parser.find_reasoning_end(quoted + end + call) == (len(quoted), False, False)
    # The content ids: after [/THINK], or from a call that ended the wait.
    assert parser.extract_content_ids(quoted + end + call) == call
    assert parser.extract_content_ids(ids("Sure.") + call) == call
    assert parser.extract_content_ids(quoted) == quoted
    # A prompt that opened [THINK]: a call marker in the output is reasoning text.
    opened = MISTRAL.ChatParser(tokenizer)
    opened.initialize(ids("[INST]Hi[/INST]") + think)
    assert opened.extract_content_ids(thought + call) == thought + call
    assert opened.count_reasoning_tokens(thought + call) == len(thought + call)


def test_granite33_thinks_then_responds() -> None:
    """Granite 3.3 with its template's thinking on writes <think>...</think> and then
    <response>...</response> (issue 16 item 8): reasoning, then content without the tags;
    thinking is off unless asked, and its calls are granite's."""
    from parsergen.runtime.accounting import account
    from parsergen.runtime.messages import without_cut_calls

    route = parsergen.route("ibm-granite/granite-3.3-8b-instruct")
    assert route is not None and (route.format, dict(route.defaults)) == (
        "granite33", {"thinking": False})
    granite = parsergen.load("granite33")
    call = '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]'
    cases = [
        (True, "<think>The user greets me.</think><response>Hello! How can I help?</response>",
         "The user greets me.", "Hello! How can I help?", []),
        (True, "<think>Need the weather.</think>" + call, "Need the weather.", None,
         ["get_weather"]),
        # An answer with no thoughts, or a call (with tools the template asks for none).
        (True, "<response>Hello!</response>", None, "Hello!", []),
        (True, call, None, None, ["get_weather"]),
        (True, "<think>Hi.</think>\n<response>Hello!</response>", "Hi.", "Hello!", []),
        (False, "Hello!", None, "Hello!", []),
        (False, call, None, None, ["get_weather"]),
    ]
    for thinking, text, reasoning, content, calls in cases:
        whole = granite.parse(text, thinking=thinking, ids="sequential")
        assert (whole.reasoning, whole.content, [c.name for c in whole.tool_calls]) == (
            reasoning, content, calls), text
        for deltas in ([text], list(text)):
            chat = granite.ChatParser(thinking=thinking, ids="sequential")
            streamed = accumulate([chat.feed(d) for d in deltas] + [chat.finish()])
            assert without_cut_calls(streamed, chat.cut_calls) == whole
            accounting = account(granite.StreamingParser(thinking=thinking),
                                 [(d, []) for d in deltas])
            assert accounting.problems == [] and accounting.text == text


# MiniMax M3 may repeat </mm:think> (vLLM's minimax_m3 reasoning parser drops a stray
# closer that starts the response): every copy right after reasoning closed, whitespace
# between them aside, is that marker, in any format, streamed or parsed.
@pytest.mark.parametrize("fmt, end, thinking", [
    ("minimax_m3", "</mm:think>", True), ("minimax_m3", "</mm:think>", False),
    ("qwen3", "</think>", False), ("deepseek_v4", "</think>", True),
])
def test_end_marker_repeated_after_reasoning_closed(fmt: str, end: str,
                                                    thinking: bool) -> None:
    module = parsergen.load(fmt)
    reasoning = "Short." + end if thinking else ""
    text = f"{reasoning}{end}\n{end}{end}\n\nThe answer."
    whole = module.parse(text, thinking=thinking)
    parser = module.ChatParser(thinking=thinking)
    streamed = accumulate([parser.feed(ch) for ch in text] + [parser.finish()])
    assert (streamed.reasoning, streamed.content) == (whole.reasoning, whole.content)
    assert whole.reasoning == ("Short." if thinking else None)
    assert (whole.content or "").strip() == "The answer."
