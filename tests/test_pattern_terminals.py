"""Pattern terminals (``pattern:``, issue 37 item 2, issue 38 item 2): a marker spelled by
a regex whose capture ``name`` is the call's name, matched while streaming with no more
held back than its bound; the stream gives what ``parse()`` gives in every cadence, with
and without token ids; a regex a stream cannot decide is refused at compile time.

The spec under test is tests/data/function_tags.yaml, Llama 3.1's custom tool calls
(``<function=NAME>{...}</function>``, Meta's prompt format for Llama 3.1:
llama.com/docs/model-cards-and-prompt-formats/llama3_1/#user-defined-custom-tool-calling).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import parsergen
from parsergen.compiler import SpecError
from parsergen.generated import FORMATS
from parsergen.runtime import accumulate
from parsergen.runtime.accounting import account
from parsergen.runtime.lexicon import Matcher
from parsergen.runtime.patterns import PatternMatcher
from support.specs import build
from support.streams import cadences
from support.tokenizers import llama3

SPEC = Path(__file__).resolve().parent / "data" / "function_tags.yaml"
# The model card's own example call.
CALL = '<function=spotify_trending_songs>{"n": "5"}</function>'


@pytest.fixture(scope="module")
def tags() -> Any:
    return parsergen.load(str(SPEC))


def _message(parsed: Any) -> tuple:
    return (parsed.content, [(c.name, json.loads(c.arguments)) for c in parsed.tool_calls],
            list(parsed.cut_calls))


def _check(module: Any, text: str, tokenizer: Any = None) -> tuple:
    """The message ``text`` gives whole, the same in every cadence."""
    ids = tokenizer.encode(text, add_special_tokens=False) if tokenizer is not None else None
    whole = _message(module.parse(text, tokenizer=tokenizer, token_ids=ids))
    for name, deltas in cadences(text, tokenizer, cuts=tokenizer is None).items():
        chat = module.ChatParser(tokenizer, stream_calls="complete")
        out = [chat.feed(t, i) for t, i in deltas]
        out.append(chat.finish())
        summed = accumulate(out)
        got = (summed.content, [(c.name, json.loads(c.arguments)) for c in summed.tool_calls])
        assert got == whole[:2], name
    return whole


def test_the_model_cards_call(tags: Any) -> None:
    assert _check(tags, CALL) == (None, [("spotify_trending_songs", {"n": "5"})], [])


def test_calls_between_text(tags: Any) -> None:
    text = ('Checking. <function=get_weather>{"city": "Paris", "s": "</function"}</function>'
            '<function=math.add>{"a": 1}</function> done')
    assert _check(tags, text) == (
        "Checking.  done", [("get_weather", {"city": "Paris", "s": "</function"}),
                            ("math.add", {"a": 1})], [])


@pytest.mark.parametrize("text", [
    "use <function=get weather> here",  # a space: not a name the pattern takes
    "<function=>{}",  # no name
    "a <function=" + "n" * 65 + ">{}</function>",  # longer than the bound (64)
    "ends with <function=get_wea",  # cut before its '>': text, not a marker
    "<functio",
])
def test_what_the_pattern_does_not_match_is_text(tags: Any, text: str) -> None:
    assert _check(tags, text) == (text, [], [])


def test_a_call_the_completion_cuts_off(tags: Any) -> None:
    content, calls, cut = _check(tags, 'Hi <function=f>{"a": [1, ')
    # (Trailing whitespace before a call is not content: the assembly's default rule.)
    assert (content, calls, cut) == ("Hi", [], ['<function=f>{"a": [1, '])


def test_a_call_before_a_cut_one_stands(tags: Any) -> None:
    # Both calls are decided only at the end (a pattern is held up to its bound): the
    # first one's end marker is no less its end for coming in the finishing push.
    text = '<function=ab>{}</function><function=cd>{"a'
    assert _check(tags, text) == (None, [("ab", {})], ['<function=cd>{"a'])


def test_token_ids_with_special_tokens(tags: Any) -> None:
    # Llama 3.1 ends the turn with <|eom_id|> after a call: a special token, dropped.
    text = "Sure. " + CALL + "<|eom_id|>"
    assert _check(tags, text, llama3()) == (
        "Sure.", [("spotify_trending_songs", {"n": "5"})], [])


def test_a_stream_holds_back_no_more_than_the_bound(tags: Any) -> None:
    parser = tags.StreamingParser()
    given = ""
    text = "x <function=" + "a" * 100
    for i, ch in enumerate(text):
        for event in parser.feed(ch):
            given += event.value
        # The pattern's bound is 75 characters ('<function=' + 64 + '>').
        assert len(text[: i + 1]) - len(given) <= 75
    assert given + "".join(e.value for e in parser.finish()) == text


def test_every_byte_is_accounted_for(tags: Any) -> None:
    text = "a " + CALL + " b <function=x y>"
    cut = tags.parse(text).cut_calls
    for deltas in ([(text, [])], [(ch, []) for ch in text]):
        accounting = account(tags.StreamingParser(), deltas, cut)
        assert accounting.text == text and accounting.problems == []
        # The name is the call's, the rest of the tag the marker's.
        assert accounting.segments[:4] == [
            ("content", "a "), ("marker CALL_START", "<function="),
            ("tool name", "spotify_trending_songs"), ("marker CALL_START", ">")]
        assert accounting.segments[-1] == ("content", " b <function=x y>")


def test_render_round_trips(tags: Any) -> None:
    calls = [{"name": "get_weather", "arguments": {"city": "Oslo"}}]
    text = tags.render({"content": "Hi", "tool_calls": calls})
    assert text == 'Hi<function=get_weather>{"city": "Oslo"}</function>'
    assert _check(tags, text) == ("Hi", [("get_weather", {"city": "Oslo"})], [])


def test_formats_without_patterns_keep_the_plain_matcher() -> None:
    for name in FORMATS:
        module = parsergen.load(name)
        for matcher in module.StreamingParser().matchers:
            assert type(matcher) is Matcher, name
    assert all(type(m) is PatternMatcher
               for m in parsergen.load(str(SPEC)).StreamingParser().matchers)


def test_a_pattern_is_text_where_its_state_has_no_transition(tmp_path: Path) -> None:
    # Global longest match: in REASONING the pattern is not a marker, but its match is
    # one token of text there, so the '</think>' it swallows ends nothing.
    module = build(tmp_path, """
        name: pattern_reasoning
        description: reasoning, then calls whose tag names them
        initial_state: REASONING
        reasoning: {start: [THINK_START], end: [THINK_END]}
        terminals:
          THINK_START: "<think>"
          THINK_END: "</think>"
          CALL_START: {pattern: '<f (?P<name>[^>]{1,20})>'}
          CALL_END: "</f>"
        transitions:
          REASONING:
            THINK_START: REASONING
            THINK_END: {to: CONTENT, emit: [REASONING_END]}
          CONTENT:
            CALL_START: {to: TOOL_ARGS, emit: [TOOL_CALL_START, TOOL_NAME]}
          TOOL_ARGS:
            CALL_END: {to: CONTENT, emit: [TOOL_CALL_END]}
        arguments: {syntax: json}
        render:
          call: "<f ${name}>${arguments}</f>"
        """, "pattern_reasoning")
    text = "I think <f x</think>y> then</think>ok <f g>{}</f>"
    parsed = module.parse(text)
    assert parsed.reasoning == "I think <f x</think>y> then"
    assert (parsed.content, [(c.name, c.arguments) for c in parsed.tool_calls]) == (
        "ok", [("g", "{}")])
    _check(module, text)


BASE = """
    name: bad_pattern
    description: a pattern terminal a stream cannot decide
    terminals:
      CALL_START: {pattern: %s}
      CALL_END: "</f>"
    transitions:
      CONTENT:
        CALL_START: {to: TOOL_ARGS, emit: %s}
      TOOL_ARGS:
        CALL_END: {to: CONTENT, emit: [TOOL_CALL_END]}
    arguments: {syntax: json}
"""


@pytest.mark.parametrize("pattern, emit, where, message", [
    ("'<f (?P<name>[^>]+)>'", "[TOOL_CALL_START, TOOL_NAME]", ":4:",
     "its longest match is unbounded"),
    ("'[<[](?P<name>\\w{1,9})>'", "[TOOL_CALL_START, TOOL_NAME]", ":4:",
     "must start with a literal character"),
    ("'<f (?P<name>\\w{1,9})(?=>)'", "[TOOL_CALL_START, TOOL_NAME]", ":4:",
     "lookarounds"),
    ("'<f (?P<name>\\w{1,9})$'", "[TOOL_CALL_START, TOOL_NAME]", ":4:", "anchors"),
    ("'<f (?P<tool>\\w{1,9})>'", "[TOOL_CALL_START, TOOL_NAME]", ":8:",
     "needs a capture (?P<name>...)"),
    ("'<f (\\w{1,9})>'", "[TOOL_CALL_START, TOOL_NAME]", ":8:", "needs a capture"),
    ("'<f (?P<name>\\w{1,9})>'", "[TOOL_CALL_START]", ":8:", "the name would be lost"),
    ("'<f ('", "[TOOL_CALL_START]", ":4:", "not a regular expression"),
])
def test_a_pattern_a_stream_cannot_decide_is_refused(tmp_path: Path, pattern: str,
                                                       emit: str, where: str,
                                                       message: str) -> None:
    with pytest.raises(SpecError) as info:
        build(tmp_path, BASE % (pattern, emit), "bad_pattern")
    text = str(info.value)
    assert "bad_pattern.yaml" + where in text and message in text, text


def test_max_length_bounds_an_unbounded_pattern(tmp_path: Path) -> None:
    spec = (BASE % ("'<f (?P<name>[^>]+)>'", "[TOOL_CALL_START, TOOL_NAME]")).replace(
        "CALL_START: {pattern:", "CALL_START: {max_length: 12, pattern:")
    module = build(tmp_path, spec + '    render: {call: "<f ${name}>${arguments}</f>"}\n',
                   "bounded")
    assert _check(module, "<f get>{}</f>") == (None, [("get", {})], [])
    long = "<f " + "n" * 9 + ">{}</f>"  # 13 characters: past max_length, text
    assert _check(module, long) == (long, [], [])


def test_a_pattern_terminal_cannot_be_rendered_by_name(tmp_path: Path) -> None:
    spec = BASE % ("'<f (?P<name>\\w{1,9})>'", "[TOOL_CALL_START, TOOL_NAME]")
    spec += '    render: {call: "${CALL_START}${arguments}${CALL_END}"}\n'
    with pytest.raises(SpecError) as info:
        build(tmp_path, spec, "rendered")
    assert "${CALL_START} is a pattern terminal" in str(info.value)


def test_reasoning_markers_are_literals(tmp_path: Path) -> None:
    spec = """
        name: pattern_think
        description: a reasoning end spelled by a pattern
        initial_state: REASONING
        reasoning: {start: [THINK_START], end: [THINK_END]}
        terminals:
          THINK_START: "<think>"
          THINK_END: {pattern: '</think \\d{1,3}>'}
        transitions:
          REASONING:
            THINK_START: REASONING
            THINK_END: {to: CONTENT, emit: [REASONING_END]}
        """
    with pytest.raises(SpecError) as info:
        build(tmp_path, spec, "pattern_think")
    assert "pattern_think.yaml:4:" in str(info.value)
    assert "'THINK_END' is a pattern terminal" in str(info.value)


def test_the_rust_backend_refuses_a_pattern_terminal(tmp_path: Path) -> None:
    from parsergen.compiler import compile_spec
    from parsergen.compiler.rust import RustGenerator

    spec = tmp_path / "pattern_rust.yaml"
    spec.write_text((Path(__file__).parent / "data" / "function_tags.yaml").read_text()
                    .replace("name: function_tags", "name: pattern_rust\n"
                             "initial_state: REASONING\n"
                             "reasoning: {start: [THINK_START], end: [THINK_END]}")
                    .replace("terminals:\n", 'terminals:\n  THINK_START: "<think>"\n'
                             '  THINK_END: "</think>"\n')
                    .replace("transitions:\n", "transitions:\n  REASONING:\n"
                             "    THINK_START: REASONING\n"
                             "    THINK_END: {to: CONTENT, emit: [REASONING_END]}\n"))
    fmt = compile_spec(spec, spec.name)
    with pytest.raises(SpecError) as info:
        RustGenerator().module(fmt)
    assert "pattern_rust.yaml:14:1: $.terminals.CALL_START.pattern: the Rust backend" in str(
        info.value)


# --- captures beyond name: a Harmony header as one pattern terminal ---------------------
# gpt-oss's message header (OpenAI's harmony format, github.com/openai/harmony,
# docs/format.md; grammars/openai.yaml reads the same header with literal terminals and
# header rules): the recipient, before or after the channel, decides whether the message
# is a call (to=functions.NAME), reasoning (the analysis channel) or content.
HARMONY = r"""
    name: harmony_captures
    description: Harmony headers read by one pattern terminal whose captures decide
    initial_state: TOOL_BETWEEN
    terminals:
      HEADER: {pattern: '<\|start\|>assistant(?: to=(?P<recipient>[^\s<]{1,64}))?<\|channel\|>(?P<channel>\w{1,16})(?: to=(?P<to>[^\s<]{1,64}))?(?: (?:<\|constrain\|>)?\w{1,16})?<\|message\|>'}
      END: {text: "<|end|>"}
      CALL: {text: "<|call|>"}
      RETURN: {text: "<|return|>"}
    reasoning: {start: [], end: [END, RETURN]}
    transitions:
      TOOL_BETWEEN:
        HEADER:
          - {when: {to: '^functions\.'}, to: TOOL_ARGS, emit: [TOOL_CALL_START, TOOL_NAME], name: to}
          - {when: {recipient: '^functions\.'}, to: TOOL_ARGS, emit: [TOOL_CALL_START, TOOL_NAME], name: recipient}
          - {when: {channel: '^analysis$'}, to: REASONING, emit: [REASONING_START]}
          - {to: CONTENT}
      REASONING:
        END: {to: TOOL_BETWEEN, emit: [REASONING_END]}
      CONTENT:
        END: TOOL_BETWEEN
        RETURN: TOOL_BETWEEN
      TOOL_ARGS:
        CALL: {to: TOOL_BETWEEN, emit: [TOOL_CALL_END]}
    content_events: {TOOL_BETWEEN: null, CONTENT: TEXT_CHUNK, REASONING: REASONING_CHUNK}
    arguments: {syntax: json}
    tool_name: {pattern: '(?:functions\.)?(?P<name>.+)'}
    render:
      call: "<|start|>assistant<|channel|>commentary to=functions.${name} <|constrain|>json<|message|>${arguments}${CALL}"
"""


@pytest.fixture(scope="module")
def harmony(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return build(tmp_path_factory.mktemp("harmony"), HARMONY, "harmony_captures")


def test_captures_decide_what_a_message_is(harmony: Any) -> None:
    text = ("<|start|>assistant<|channel|>analysis<|message|>Think.<|end|>"
            "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json"
            '<|message|>{"city": "Paris"}<|call|>'
            "<|start|>assistant to=functions.get_time<|channel|>commentary json<|message|>{}<|call|>"
            "<|start|>assistant<|channel|>final<|message|>Done.<|return|>")
    parsed = harmony.parse(text)
    assert parsed.reasoning == "Think."
    assert _check(harmony, text) == ("Done.", [("get_weather", {"city": "Paris"}),
                                               ("get_time", {})], [])


def test_a_header_no_rule_claims_is_content(harmony: Any) -> None:
    # channel commentary to the user (no recipient): the last rule, content
    text = "<|start|>assistant<|channel|>commentary<|message|>Working on it.<|end|>"
    assert _check(harmony, text) == ("Working on it.", [], [])


RULES = """
    name: bad_rules
    description: rules on a pattern terminal
    terminals:
      HEAD: {pattern: '<h (?P<kind>\\w{1,9}) (?P<fn>\\w{1,9})>'}
      END: "</h>"
    transitions:
      CONTENT:
        HEAD: %s
      TOOL_ARGS:
        END: {to: CONTENT, emit: [TOOL_CALL_END]}
    arguments: {syntax: json}
    render:
      call: "<h call ${name}>${arguments}</h>"
"""


@pytest.mark.parametrize("rule, message", [
    ("[{when: {kind: call}, to: TOOL_ARGS, emit: [TOOL_CALL_START, TOOL_NAME]}, {to: CONTENT}]",
     "needs a capture (?P<name>...)"),
    ("[{when: {knd: call}, to: TOOL_ARGS, emit: [TOOL_CALL_START, TOOL_NAME], name: fn}, "
     "{to: CONTENT}]", "has no capture 'knd' (it has: fn, kind)"),
    ("[{when: 'call', to: TOOL_ARGS, emit: [TOOL_CALL_START, TOOL_NAME], name: fn}, {to: CONTENT}]",
     "maps its captures to regexes"),
    ("[{when: {kind: '('}, to: TOOL_ARGS, emit: [TOOL_CALL_START, TOOL_NAME], name: fn}, "
     "{to: CONTENT}]", "not a regular expression"),
    ("{to: TOOL_ARGS, emit: [TOOL_CALL_START], name: fn}", "does not emit TOOL_NAME"),
    ("{to: TOOL_ARGS, emit: [TOOL_CALL_START, TOOL_NAME], name: fun}",
     "needs a capture (?P<fun>...)"),
])
def test_rules_on_captures_are_checked(tmp_path: Path, rule: str, message: str) -> None:
    with pytest.raises(SpecError) as info:
        build(tmp_path, RULES % rule, "bad_rules")
    assert "bad_rules.yaml:8:" in str(info.value) and message in str(info.value), str(info.value)


def test_a_capture_other_than_name_names_the_call(tmp_path: Path) -> None:
    module = build(tmp_path, RULES % "[{when: {kind: '^call$'}, to: TOOL_ARGS, emit: "
                   "[TOOL_CALL_START, TOOL_NAME], name: fn}, {to: CONTENT}]", "rules")
    text = 'a <h call f>{"x": 1}</h> b <h note g> c'
    assert _check(module, text) == ("a  b  c", [("f", {"x": 1})], [])
