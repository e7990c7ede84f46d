"""One bad call never swallows what follows (issue #36, item 2).

A model that forgets a string's closing quote (or an element value's close tag) leaves
the value open: the markers that follow are then inside it.  A call closer that is one
special token (by id; in text, a spelling the spec or the tokenizer makes one token)
still ends the call where what follows it is what the grammar reads after it, or the
end of the completion; a call opener that is one (Mistral's ``[TOOL_CALLS]``) starts
the next call where a name and the special token that ends it follow
(``runtime/value_gate.py``); a marker that cannot follow there, or more text, is the
string's.  An element value's close tag and a field's or a call's open tag are decided
by what follows them (``arguments/field_openers.py``).  So in every format whose render
writes a special-token marker between one call and the next, a broken call (derived
from the format's own render: the first value's closing quote, delimiter or close tag
left out) written before valid calls and an answer leaves those calls and the answer
as they were, parsed and streamed by characters, and by token ids where a test
tokenizer spells the text back.  (Formats whose calls share one JSON or Python list
have no marker between calls: a string left open there runs to the list's end, as one
that max_tokens cut would.)
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import parsergen
from parsergen.runtime import accumulate
from parsergen.runtime.arguments.values import QuotedStrings
from parsergen.runtime.events import CONTENT, REASONING
from support.streams import token_deltas
from support.tokenizers import FORMAT_TOKENIZERS

BROKEN = "BROKEN-VALUE"
ANSWER = "The answer is 42."


NAMES = ("first_tool", "second_tool", "third_tool")


def _calls() -> list[dict[str, Any]]:
    return [{"name": NAMES[0], "arguments": {"s": BROKEN, "n": "one"}},
            {"name": NAMES[1], "arguments": {"n": "two"}},
            {"name": NAMES[2], "arguments": {"n": "three"}}]


def _rendered(module: Any) -> str:
    return module.render({"content": None, "tool_calls": _calls()}, thinking=False) + ANSWER


def _delimited(fmt: str) -> bool:
    """Whether the format's render writes a special-token marker (one the spec reads by
    token id) between one call's arguments and the next call: the markers a string left
    open may run into.  Formats whose calls share one JSON or Python list (Granite,
    Jamba, Llama 3 JSON, Llama 4 pythonic, Mistral before v11) have none there."""
    module = parsergen.load(fmt)
    parser = module.StreamingParser
    if parser.SYNTAX is None or "call" not in module.SPEC.get("render", {}):
        return False
    lexicon = parser.LEXICONS[False]
    text = _rendered(module)
    between = text[text.index(BROKEN) : text.index(NAMES[1])]
    return any(lit in between for lit, name in lexicon.literals.items()
               if name in lexicon.token_terminals)


FORMATS = [f for f in sorted(parsergen.formats()) if _delimited(f)]


def _value_end(rest: str) -> tuple[int, int]:
    """Where the value's end (its closing quote or delimiter, or its close tag), as the
    render wrote it after the value, starts and ends in ``rest``."""
    i = len(rest) - len(rest.lstrip())
    return (i, rest.index(">", i) + 1) if rest[i] == "<" else (i, i + 1)


def _texts(module: Any) -> tuple[str, str]:
    """(calls then the answer, the same with the first call's value end left out)."""
    text = _rendered(module)
    at = text.index(BROKEN) + len(BROKEN)
    i, j = _value_end(text[at:])
    return text, text[: at + i] + text[at + j :]


def _streamed_thinking(module: Any, deltas: list[tuple[str, list[int]]],
                       tokenizer: Any = None) -> Any:
    chat = module.ChatParser(tokenizer, thinking=True, ids="sequential")
    out = [chat.feed(text, ids) for text, ids in deltas]
    out.append(chat.finish())
    return accumulate(out)


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
    assert {"kimi_k2", "hermes", "deepseek_v3", "qwen3_json", "qwen3", "glm47_moe",
            "gemma4", "mistral", "step3", "openai"} <= set(FORMATS)
    assert not {"jamba", "llama3_json", "llama4_pythonic"} & set(FORMATS)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_broken_call_leaves_the_calls_after_it_and_the_answer(fmt: str, get_tokenizer) -> None:
    module = parsergen.load(fmt)
    good, broken = _texts(module)
    expected = _read(module.parse(good, thinking=False))
    assert expected[1] == [(NAMES[1], {"n": "two"}), (NAMES[2], {"n": "three"})]
    # (Mistral's calls have no end marker: the answer after the last call's object is
    # content all the same.)
    assert expected[0] == ANSWER
    whole = module.parse(broken, thinking=False, ids="sequential")
    assert _read(whole) == expected
    assert whole.tool_calls[0].name == NAMES[0]
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


def _quoted_markers(fmt: str) -> bool:
    """Whether the format quotes its string values and ends or starts calls with a
    special token."""
    parser = parsergen.load(fmt).StreamingParser
    if parser.SYNTAX is None or not isinstance(parser.SYNTAX.values(), QuotedStrings):
        return False
    lexicon = parser.LEXICONS[False]
    return bool({*parser.CALL_CLOSERS, *parser.CALL_OPENERS} & set(lexicon.token_terminals))


@pytest.mark.parametrize("fmt", [f for f in FORMATS if _quoted_markers(f)])
def test_a_marker_quoted_in_a_string_before_more_of_it_stays_text(fmt: str) -> None:
    """The rule's other side: a value that holds a special-token call closer or opener
    followed by more of the string (or by markup that cannot follow it) is read back
    whole."""
    module = parsergen.load(fmt)
    parser = module.StreamingParser
    lexicon = parser.LEXICONS[False]
    markers = {*parser.CALL_CLOSERS, *parser.CALL_OPENERS} & set(lexicon.token_terminals)
    quoted = sorted(lit for lit, name in lexicon.literals.items() if name in markers)
    value = " then ".join(quoted) + " and more"
    for opener, ends in parser.CALL_OPENERS.items():  # (a whole call quoted: escaped)
        spelled = [lit for lit, name in lexicon.literals.items() if name == opener]
        for end in (lit for lit, name in lexicon.literals.items() if name in ends):
            value += f'; {spelled[0]}name{end}{{"a": 1}}'
    call = {"name": "f", "arguments": {"s": value}}
    text = module.render({"content": None, "tool_calls": [call]}, thinking=False) + ANSWER
    parsed = module.parse(text, thinking=False, ids="sequential")
    assert [(c.name, json.loads(c.arguments)) for c in parsed.tool_calls] == [("f", {"s": value})]
    assert _streamed(module, [(ch, []) for ch in text]) == parsed
    assert parsed.content == ANSWER


# -- a call marker typed in prose, with no call after it --------------------------------

PROSE = "The model wraps calls in {} tags."


def _opener(fmt: str) -> str | None:
    """The marker the format's render starts a call with, where the render writes another
    marker right after it (after whitespace: qwen3's ``<tool_call>\\n<function=``), so
    that words after it are no call's name or body; else None."""
    module = parsergen.load(fmt)
    if module.StreamingParser.SYNTAX is None or "call" not in module.SPEC.get("render", {}):
        return None
    parser = module.StreamingParser
    lexicon = parser.LEXICONS[False]
    text = module.render({"content": None, "tool_calls": [{"name": "f", "arguments": {}}]},
                         thinking=False)
    ends = parser.REASONING_RULES.end if parser.REASONING_RULES else ()
    for lit, name in lexicon.literals.items():  # (a reasoning end the render writes first)
        if name in ends and text.startswith(lit):
            text = text[len(lit):].lstrip()
    first = max((lit for lit in lexicon.literals if text.startswith(lit)), key=len, default=None)
    if first is None:
        return None
    rest = text[len(first):].lstrip()
    return first if any(rest.startswith(lit) for lit in lexicon.literals) else None


OPENERS = {f: m for f in sorted(parsergen.formats()) if (m := _opener(f)) is not None}


def _starts_reasoning(module: Any) -> bool:
    """Whether the format reasons from its first word with thinking off too (it has no
    switch: DeepSeek-R1, ERNIE-4.5-Thinking, MiniMax-M2, Step-3)."""
    return module.StreamingParser.INITIAL_STATES[False] == REASONING


def _words_stay(module: Any, parsed: Any, text: str) -> bool:
    """The marker and the words after it stay where the words before it are: content,
    or, in a format that starts reasoning and where no call follows, reasoning (a call
    marker quoted in reasoning is reasoning: compiler/gates.py)."""
    if _starts_reasoning(module):
        return (parsed.reasoning, parsed.content) == (text, None)
    return parsed.content is not None and parsed.content.endswith(" tags.")


def test_opener_formats() -> None:
    assert {"qwen3", "seed_oss", "mimo", "nemotron_v3", "step3p5", "kimi_k2",
            "deepseek_v3"} <= set(OPENERS)
    assert OPENERS["step3p5"] == "<tool_call>"


@pytest.mark.parametrize("fmt", sorted(OPENERS))
def test_a_call_marker_in_prose_keeps_the_words_after_it(fmt: str, get_tokenizer) -> None:
    """A call marker followed by words and no call before the completion ends opens
    nothing: the words are content, never a cut call's text, parsed (text only, as the
    vLLM plugin's non-streaming path) as streamed by characters and by token ids."""
    module = parsergen.load(fmt)
    text = PROSE.format(OPENERS[fmt])
    parsed = module.parse(text, thinking=False, ids="sequential")
    assert parsed.tool_calls == () and parsed.cut_calls == ()
    assert _words_stay(module, parsed, text)
    assert _streamed(module, [(ch, []) for ch in text]) == parsed
    tokenizer = get_tokenizer(FORMAT_TOKENIZERS[fmt])
    ids = tokenizer.encode(text, add_special_tokens=False)
    per_token = token_deltas(tokenizer, ids)
    if "".join(piece for piece, _ in per_token) == text:
        assert _streamed(module, per_token, tokenizer) == module.parse(
            text, thinking=False, tokenizer=tokenizer, token_ids=ids, ids="sequential")


@pytest.mark.parametrize("fmt", ["qwen3", "seed_oss", "nemotron_v3", "step3p5", "mimo"])
def test_qwen_wraps_calls_in_tool_call_tags(fmt: str, get_tokenizer) -> None:
    """The vLLM plugin's case: text only (``ChatParser.complete``, the non-streaming
    path) and a stream whose ids spell ``<tool_call>`` as ordinary tokens (typed in
    prose) give the same content, the marker and the words after it included."""
    module = parsergen.load(fmt)
    opener = OPENERS[fmt]
    text = PROSE.format(opener)
    tokenizer = get_tokenizer(FORMAT_TOKENIZERS[fmt])
    chat = module.ChatParser(tokenizer, thinking=False)
    chat.initialize(start="content")
    whole = chat.complete(text)
    assert (whole.content, whole.tool_calls, whole.cut_calls) == (text, (), ())
    head, tail = text.split(opener)
    ids = [*tokenizer.encode(head + opener[:1], add_special_tokens=False),
           *tokenizer.encode(opener[1:] + tail, add_special_tokens=False)]
    per_token = token_deltas(tokenizer, ids)
    assert "".join(piece for piece, _ in per_token) == text
    chat = module.ChatParser(tokenizer, thinking=False)
    chat.initialize(start="content")
    streamed = accumulate([chat.feed(piece, i) for piece, i in per_token] + [chat.finish()])
    assert streamed.content == text


def test_a_name_no_tool_starts_is_no_call_where_names_are_validated() -> None:
    """GLM validates call names: ``<tool_call>`` then words no offered tool's name starts
    with, then the end, is prose (content); a name an offered tool's starts with is a
    call cut by max_tokens."""
    glm = parsergen.load("glm47_moe")
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]
    text = PROSE.format("<tool_call>")
    parsed = glm.parse(text, thinking=False, tools=tools)
    assert (parsed.content, parsed.cut_calls) == (text, ())
    cut = glm.parse("Checking.<tool_call>get_wea", thinking=False, tools=tools)
    assert (cut.content, cut.cut_calls) == ("Checking.", ("<tool_call>get_wea",))


def _name_marker(fmt: str) -> tuple[str, str] | None:
    """(the marker a call starts with, the render's text between it and the name) where
    the render writes the name right after that marker (and plain text), the marker
    opens a call from content, and the format does not validate names; else None."""
    module = parsergen.load(fmt)
    parser = module.StreamingParser
    parts = module.RENDERER.call
    if (parser.SYNTAX is None or not parts or parts[0][0] != "marker"
            or ("field", "name") not in parts
            or module.ChatParser.ASSEMBLY["validate_tool_names"]):
        return None
    lexicon = parser.LEXICONS[False]
    lead = parts[1 : parts.index(("field", "name"))]
    if any(kind != "text" or any(lit in text for lit in lexicon.literals)
           for kind, text in lead):
        return None  # (a header the format's own header rules read: Harmony's)
    marker = parts[0][1]
    if lexicon.literals.get(marker) not in lexicon.live[CONTENT]:
        return None  # (the marker opens a call only inside a tool section)
    move = module.SPEC["transitions"]["CONTENT"].get(lexicon.literals[marker])
    if (move if isinstance(move, str) else (move or {}).get("to")) == "MESSAGE_HEADER":
        return None  # (it opens a message whose header says what follows: Muse's)
    return marker, "".join(text for _, text in lead)


NAME_MARKERS = {f: m for f in sorted(parsergen.formats()) if (m := _name_marker(f))}


def test_name_marker_formats() -> None:
    assert {"mistral", "magistral_2506", "kimi_k2", "poolside_v1", "deepseek_v32",
            "deepseek_v4"} <= set(NAME_MARKERS)
    assert NAME_MARKERS["kimi_k2"] == ("<|tool_call_begin|>", "functions.")


@pytest.mark.parametrize("fmt", sorted(NAME_MARKERS))
def test_words_after_a_name_marker_are_no_name(fmt: str, get_tokenizer) -> None:
    """Where a call's name follows its marker and names are not validated (Mistral,
    Poolside, Kimi), ``<marker> tags.`` and then the end is prose: no name holds
    whitespace or ends a sentence (README, Broken output).  Content, no cut call, no
    warning, parsed as streamed by characters and by token ids; a name cut by the end
    (``get_wea``, after the render's ``functions.``) stays a cut call."""
    module = parsergen.load(fmt)
    marker, lead = NAME_MARKERS[fmt]
    for text in (PROSE.format(marker), f"See {marker} tags and markers"):
        parsed = module.parse(text, thinking=False, ids="sequential")
        assert (parsed.content, parsed.tool_calls, parsed.cut_calls, parsed.warnings) == (
            text, (), (), ())
        assert _streamed(module, [(ch, []) for ch in text]) == parsed
        tokenizer = get_tokenizer(FORMAT_TOKENIZERS[fmt])
        ids = tokenizer.encode(text, add_special_tokens=False)
        per_token = token_deltas(tokenizer, ids)
        if "".join(piece for piece, _ in per_token) == text:
            with_ids = module.parse(text, thinking=False, tokenizer=tokenizer, token_ids=ids,
                                    ids="sequential")
            assert with_ids.cut_calls == () and with_ids.content == text
            assert _streamed(module, per_token, tokenizer) == with_ids
    cut = module.parse(f"Checking.{marker}{lead}get_wea", thinking=False)
    assert (cut.content, cut.cut_calls) == ("Checking.", (f"{marker}{lead}get_wea",))


# -- text after the arguments of a call they end --------------------------------------

END_CALL = [f for f in sorted(parsergen.formats())
            if getattr(parsergen.load(f).ChatParser, "ARGUMENTS_END_CALL", False)]


def test_end_call_formats() -> None:
    assert {"mistral", "magistral_2506"} <= set(END_CALL)


@pytest.mark.parametrize("fmt", END_CALL)
def test_text_after_the_arguments_of_a_call_they_end_is_content(fmt: str,
                                                                get_tokenizer) -> None:
    """Mistral's render writes nothing after a call's arguments (``[TOOL_CALLS]NAME[ARGS]
    {...}``): no end marker, so text after the object, before the next call or the
    end, is content (it was dropped with a warning), parsed as streamed by characters
    and by token ids; a marker's start at the very end is that marker, cut."""
    module = parsergen.load(fmt)
    first, second = _calls()[1:]
    calls = [module.render({"content": None, "tool_calls": [c]}, thinking=False)
             for c in (first, second)]
    text = f"{calls[0]} Let me also check. {calls[1]}\n\n{ANSWER}"
    parsed = module.parse(text, thinking=False, ids="sequential")
    assert [(c.name, json.loads(c.arguments)) for c in parsed.tool_calls] == [
        (NAMES[1], {"n": "two"}), (NAMES[2], {"n": "three"})]
    assert (parsed.content, parsed.warnings) == (f" Let me also check. \n\n{ANSWER}", ())
    assert _streamed(module, [(ch, []) for ch in text]) == parsed
    complete = module.ChatParser(None, thinking=False, ids="sequential",
                                 stream_calls="complete")
    assert accumulate([complete.feed(ch) for ch in text] + [complete.finish()]) == parsed
    tokenizer = get_tokenizer(FORMAT_TOKENIZERS[fmt])
    ids = tokenizer.encode(text, add_special_tokens=False)
    per_token = token_deltas(tokenizer, ids)
    assert "".join(piece for piece, _ in per_token) == text
    with_ids = module.parse(text, thinking=False, tokenizer=tokenizer, token_ids=ids,
                            ids="sequential")
    assert (with_ids.content, with_ids.tool_calls) == (parsed.content, parsed.tool_calls)
    assert _streamed(module, per_token, tokenizer) == with_ids
    marker = calls[1][: calls[1].index(NAMES[2])]
    cut = module.parse(f"{calls[0]} Done. {marker[:3]}", thinking=False)
    assert (cut.content, len(cut.tool_calls), cut.warnings) == (" Done.", 1, ())


@pytest.mark.parametrize("fmt, cut_at", [("deepseek_v3", "\n```js"), ("kimi_k3", '" index=')])
def test_a_name_cut_inside_what_the_render_writes_after_it_is_a_cut_call(
        fmt: str, cut_at: str) -> None:
    """The text after a name (DeepSeek's fence, Kimi K3's ``" index="``) is read with
    it until a marker ends the name: cut inside it, the name is a name, not words."""
    module = parsergen.load(fmt)
    call = {"name": "get_weather", "arguments": {"city": "Paris"}}
    text = module.render({"content": "Checking.", "tool_calls": [call]}, thinking=False)
    head = text[: text.index("get_weather" + cut_at) + len("get_weather" + cut_at)]
    parsed = module.parse(head, thinking=False)
    assert (parsed.content, parsed.tool_calls) == ("Checking.", ())
    assert parsed.cut_calls[0].endswith("get_weather" + cut_at)


def _envelope(fmt: str) -> bool:
    """Whether the format's call is one JSON object naming itself, written right after
    the call's marker (after whitespace)."""
    module = parsergen.load(fmt)
    syntax, parts = module.StreamingParser.SYNTAX, module.RENDERER.call
    return (syntax is not None and syntax.names_call and parts is not None and len(parts) > 1
            and parts[0][0] == "marker" and parts[1][0] == "text"
            and parts[1][1].lstrip().startswith("{"))


ENVELOPES = [f for f in sorted(parsergen.formats()) if _envelope(f)]


def test_envelope_formats() -> None:
    assert {"hermes", "granite_20b_fc", "qwen3_json"} <= set(ENVELOPES)


@pytest.mark.parametrize("fmt", ENVELOPES)
def test_words_where_a_calls_object_belongs_are_no_call(fmt: str) -> None:
    """Where the call is one JSON object naming itself (hermes, granite_20b_fc), words
    after the marker cannot start it: no call and no cut call, whatever the body (a
    json_object body said the completion cut it), the words content with the reason."""
    module = parsergen.load(fmt)
    # (after the render's group marker, where calls are only read inside a group: K2 Horizon)
    group = "".join(text for _, text in module.RENDERER.calls_open or ())
    text = PROSE.format(group + module.RENDERER.call[0][1])
    parsed = module.parse(text, thinking=False, ids="sequential")
    assert (parsed.tool_calls, parsed.cut_calls) == ((), ())
    assert _words_stay(module, parsed, text)
    if not _starts_reasoning(module):  # (in reasoning the marker opened nothing)
        assert any("is not a JSON object: it begins with 't'" in w for w in parsed.warnings)
    assert _streamed(module, [(ch, []) for ch in text]) == parsed


# -- a call marker quoted in prose inside reasoning --------------------------------------

QUOTED = "I will wrap calls in {} tags."


def _gated(fmt: str) -> tuple[str, ...]:
    """The call markers (first spellings) the format's REASONING reads only before the
    render's markup after them (``GatedReasoning.gates``, derived by compiler/gates.py)."""
    parser = parsergen.load(fmt).StreamingParser
    gates = getattr(parser.LEXING[REASONING], "gates", {})
    return tuple(parser.LEXICONS[True].texts([name])[0] for name in sorted(gates))


GATED = {f: g for f in sorted(parsergen.formats()) if (g := _gated(f))}


def _reasoned(module: Any, reasoning: str) -> str:
    """``reasoning`` and the answer, as the format's render writes them thinking."""
    return module.render({"reasoning": reasoning, "content": ANSWER}, thinking=True)


def test_gated_formats() -> None:
    assert {"qwen3", "qwen3_json", "ernie45", "seed_oss", "step3p5", "deepseek_r1",
            "granite_thinking"} <= set(GATED)
    assert GATED["qwen3"] == ("<tool_call>",)
    assert not {"glm47_moe", "poolside_v1"} & set(GATED)  # (a name follows: no gate)


@pytest.mark.parametrize("fmt", sorted(GATED))
def test_a_call_marker_quoted_in_reasoning_is_reasoning(fmt: str, get_tokenizer) -> None:
    """``<think>I will wrap calls in <tool_call> tags.</think>Answer.``: the marker is
    followed by words, not by the markup the render writes after it, so it does not end
    reasoning (it did, and the rest, ``</think>`` included, was content): parsed as
    text, streamed by characters, and with token ids that spell the marker as ordinary
    tokens.  The marker as its special token by id is the marker."""
    module = parsergen.load(fmt)
    if not module.RENDERER.can_render_reasoning(True):
        pytest.skip("the render writes no reasoning")
    tokenizer = get_tokenizer(FORMAT_TOKENIZERS[fmt])
    for marker in GATED[fmt]:
        reasoning = QUOTED.format(marker)
        text = _reasoned(module, reasoning)
        parsed = module.parse(text, thinking=True, ids="sequential")
        assert (parsed.reasoning, parsed.content, parsed.tool_calls, parsed.cut_calls) == (
            reasoning, ANSWER, (), ())
        assert _streamed_thinking(module, [(ch, []) for ch in text]) == parsed
        head, tail = text.split(marker)
        typed = [*tokenizer.encode(head + marker[:1], add_special_tokens=False),
                 *tokenizer.encode(marker[1:] + tail, add_special_tokens=False)]
        per_token = token_deltas(tokenizer, typed)
        if "".join(piece for piece, _ in per_token) == text:
            assert _streamed_thinking(module, per_token, tokenizer) == parsed
        special = tokenizer.convert_tokens_to_ids(marker)
        if isinstance(special, int) and special != tokenizer.unk_token_id:
            ids = [*tokenizer.encode(head, add_special_tokens=False), special,
                   *tokenizer.encode(tail, add_special_tokens=False)]
            with_id = module.parse(text, thinking=True, tokenizer=tokenizer, token_ids=ids,
                                   ids="sequential")
            assert marker not in (with_id.reasoning or "")  # (it ended reasoning)


@pytest.mark.parametrize("fmt", sorted(GATED))
def test_a_call_in_reasoning_still_ends_it(fmt: str) -> None:
    """The gate holds a marker only until the render's markup shows: a call written as
    the render writes it, straight after reasoning text, ends reasoning and is a call,
    parsed as text and streamed by characters."""
    module = parsergen.load(fmt)
    call = {"name": "get_weather", "arguments": {"city": "Paris"}}
    calls = module.render({"content": None, "tool_calls": [call]}, thinking=False)
    lexicon = module.StreamingParser.LEXICONS[True]
    for end in lexicon.texts(module.StreamingParser.REASONING_RULES.end):
        calls = calls.removeprefix(end)  # (a format that always reasons closes it first)
    if not any(calls.lstrip().startswith(m) for m in GATED[fmt]):
        pytest.skip("the render opens calls with another marker")
    opening = _reasoned(module, "SENTINEL")
    text = opening[: opening.index("SENTINEL")] + "I will check." + calls
    parsed = module.parse(text, thinking=True, ids="sequential")
    assert [(c.name, json.loads(c.arguments)) for c in parsed.tool_calls] == [
        ("get_weather", {"city": "Paris"})]
    assert parsed.reasoning is not None and parsed.reasoning.startswith("I will check.")
    assert _streamed_thinking(module, [(ch, []) for ch in text]) == parsed


# -- words where a JSON call's name belongs ----------------------------------------------

def _named_member(fmt: str) -> str | None:
    """The format's call cut where its name's JSON string belongs (``{"name": ``), where
    the render writes the name as a member of the call's JSON object; else None."""
    module = parsergen.load(fmt)
    if module.StreamingParser.SYNTAX is None or "call" not in module.SPEC.get("render", {}):
        return None
    call = {"name": "get_weather", "arguments": {"city": "Paris"}}
    text = module.render({"content": None, "tool_calls": [call]}, thinking=False)
    at = text.find('": "get_weather"')
    return text[: at + 3] if at >= 0 else None


NAMED_MEMBER = {f: head for f in sorted(parsergen.formats()) if (head := _named_member(f))}


def test_named_member_formats() -> None:
    assert {"llama3_json", "hermes", "qwen3_json", "xlam", "cohere_command3"} <= set(NAMED_MEMBER)


@pytest.mark.parametrize("fmt", sorted(NAMED_MEMBER))
def test_words_where_a_calls_name_belongs_are_no_call(fmt: str) -> None:
    """``{"name": tags.``: a call is named by a JSON string only, so words where the
    name's string belongs make no call and no cut call (llama3_json made one): content,
    with the reason, parsed as streamed by characters."""
    module = parsergen.load(fmt)
    text = NAMED_MEMBER[fmt] + "tags and more."
    parsed = module.parse(text, thinking=False, ids="sequential")
    assert (parsed.tool_calls, parsed.cut_calls) == ((), ())
    assert parsed.content is not None and parsed.content.endswith("tags and more.")
    assert any("has 't' where its name's string belongs" in w for w in parsed.warnings)
    assert _streamed(module, [(ch, []) for ch in text]) == parsed
