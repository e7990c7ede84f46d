"""Runs of whole calls (call programs, runtime/runs.py): where the render's call markers
lead from a state through the machine back to it, ``parse()``/``complete()`` read
consecutive calls at once (``runs.read_run``), each call's name and arguments taken whole
(``ToolCalls.whole_call``) only when reading them piece by piece gives the same.  Every
text here is compared with the same text streamed one character per delta: message,
warnings, cut calls and content offset.  JSON arguments and element syntaxes' fields
(qwen3's ``<parameter=K>``, MiniMax's, DSML, Kimi K3's) alike."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import parsergen
from parsergen.runtime import accumulate, without_cut_calls
from parsergen.runtime.events import CallRun, RawText
from support.streams import recording_parser, token_deltas
from support.programs import programs, run_steps
from support.tokenizers import deepseek, glm, kimi_k2, kimi_k3, minimax, qwen36, seed_oss

PROPERTIES = {"n": {"type": "integer"}, "x": {"type": "number"}, "s": {"type": "string"},
              "o": {"type": "object"}, "l": {"type": "array"}, "b": {"type": "boolean"}}
TOOLS = [{"type": "function", "function": {"name": name, "parameters": {
    "type": "object", "properties": PROPERTIES}}} for name in ("f", "get")]
THINKING = False
NAME, ARGS = "\u2063NAME\u2063", "\u2063ARGS\u2063"

RUNS = sorted(f for f in parsergen.formats() if programs(parsergen.load(f)))
# Formats with a tokenizer the tests can build (support/tokenizers.py).
TOKENIZERS = {"deepseek_r1": deepseek, "deepseek_v3": deepseek, "deepseek_v31": deepseek,
              "deepseek_v32": deepseek, "kimi_k2": kimi_k2, "kimi_k3": kimi_k3,
              "glm47_moe": glm, "minimax_m2": minimax, "qwen3": qwen36, "seed_oss": seed_oss}


def _literal(module: Any, terminal: str) -> str:
    lexicon = module.StreamingParser.LEXICONS[THINKING]
    return next(lit for lit, name in lexicon.literals.items() if name == terminal)


def _steps(module: Any) -> tuple[tuple[int, str, str, str, tuple[str, ...]], ...]:
    return run_steps(next(iter(programs(module).values())))


def _render(module: Any, arguments: dict[str, Any]) -> str:
    """``arguments`` as the format's syntax writes them in a call."""
    return "".join(text for text, _ in module.StreamingParser.SYNTAX.render(arguments))


def _is_json(module: Any) -> bool:
    return _render(module, {"MARK": 0}) == '{"MARK": 0}'


class Calls:
    """One format's calls as its renderer writes them, with the name's and the
    arguments' text replaceable."""

    def __init__(self, module: Any, thinking: bool = THINKING) -> None:
        self.module = module
        named = any(step[1].startswith("name") for step in _steps(module))
        call = {"name": NAME if named else "f", "arguments": {"MARK": 0}}
        text = "".join(t for t, _ in module.RENDERER.pieces(
            {"content": None, "tool_calls": [call, call]}, thinking=thinking))
        text = text.replace(_render(module, {"MARK": 0}), ARGS)
        start = _literal(module, _steps(module)[0][2])
        end = _literal(module, _steps(module)[-1][2])
        first = text.index(start)
        self.lead, self.call = text[:first], text[first:text.index(end, first) + len(end)]
        self.tail = text[text.rindex(end) + len(end):]
        self.named = named

    def one(self, arguments: str | None = None, name: str = "f") -> str:
        """One call to ``name`` (its text as written) with this arguments text (default:
        n 1 and s "x" as the syntax writes them)."""
        if arguments is None:
            arguments = _render(self.module, {"n": 1, "s": "x"})
        text = self.call.replace(ARGS, arguments)
        return text.replace(NAME, name) if self.named else text.replace('"f"', f'"{name}"')

    def markers(self) -> list[tuple[int, int]]:
        """Where each of the call's markers ends in ``one()`` (in order)."""
        text, at, out = self.one(), 0, []
        for _, _, terminal, *_ in _steps(self.module):
            start = text.index(_literal(self.module, terminal), at)
            at = start + len(_literal(self.module, terminal))
            out.append((start, at))
        return out


def _texts(module: Any) -> dict[str, str]:
    """Completions around runs of calls: what may join a run and what must end it."""
    c = Calls(module)
    one, end = c.one(), _literal(module, _steps(module)[-1][2])
    texts = {
        "content, runs, text": "Sure." + c.lead + one + "\n" + one + "\n\n" + one + c.tail
                               + " done.",
        "spaces between": c.lead + one + " \t\n " + one + c.tail,
        "adjacent": c.lead + one + one + one + c.tail,
        "no tail": c.lead + one + one,
        "text between": c.lead + one + "then" + one + c.tail,
        "text after": c.lead + one + one + c.tail + "\nAnd more.\n" + one,
        "markers quoted in a value": c.lead + c.one(_render(module, {
            "s": " ".join(_literal(module, step[2]) for step in _steps(module))})) + one + c.tail,
        "end marker in a value": c.lead + c.one(_render(module, {"s": f"a {end} b"})) + one
                                 + c.tail,
        "two start markers": c.lead + one + _literal(module, _steps(module)[0][2]) + one,
    }
    arguments = _json_arguments() if _is_json(module) else _field_arguments(module)
    for name, args in arguments.items():
        texts[f"arguments {name}"] = c.lead + one + c.one(args) + one + c.tail
    names = {"spaces": " f ", "newlines": "\nf\n", "empty": "", "blank": "  ",
             "unknown": "g", "other tool": "get", "inner space": "f g", "tab": "\tget"}
    for name, text in names.items():
        texts[f"name {name}"] = c.lead + one + c.one(name=text) + one + c.tail
    for i, (start, end) in enumerate(c.markers()):
        for extra in (" ", "x", "\n"):
            texts[f"{extra!r} after marker {i}"] = (c.lead + one + one[:end] + extra
                                                    + one[end:] + one + c.tail)
        texts[f"marker {i} left out"] = c.lead + one + one[:start] + one[end:] + one + c.tail
    return texts


def _json_arguments() -> dict[str, str]:
    """Arguments texts of a JSON syntax: taken whole, or read piece by piece."""
    return {
        "typed": '{"n": 3, "s": "S\\u00e3o \\"q\\"", "o": {"k": [1, 2.5, null]}, "b": true}',
        "non-ascii": '{"s": "São"}',
        "untyped member": '{"zz": [1, {"a": "b"}]}',
        "retyped": '{"n": "5"}',
        "string as number": '{"s": 5}',
        "compact": '{"n":3}',
        "spaced": '{ "n": 3 }',
        "whitespace around": ' \n {"n": 3} \n',
        "empty": "{}",
        "duplicate key": '{"n": 1, "n": 2}',
        "not JSON": '{"x": NaN}',
        "raw newline": '{"s": "a\nb"}',
        "a JSON string": '"{\\"n\\": 1}"',
        "an array": "[1, 2]",
        "text after": '{"n": 1} and',
        "unclosed": '{"n": 1',
        "nothing": "",
    }


def _field_arguments(module: Any) -> dict[str, str]:
    """Arguments texts of an element syntax: fields as it writes them, typed, retyped or
    not, and each of its tags left out, doubled or followed by other text."""
    syntax = module.StreamingParser.SYNTAX
    out = {
        "typed": _render(module, {"n": 3, "s": 'São "q"', "o": {"k": [1, 2.5, None]},
                                  "b": True}),
        "untyped member": _render(module, {"zz": [1, {"a": "b"}]}),
        "retyped": _render(module, {"n": "5"}),
        "not a number": _render(module, {"n": "five", "x": "1e400"}),
        "string as number": _render(module, {"s": 5}),
        "empty": _render(module, {}),
        "duplicate key": _render(module, {"n": 1}) + _render(module, {"n": 2}),
        "an open tag in a value": _render(module, {"s": f"a {syntax.opens[0]} b"}),
        "a close tag in a value": _render(module, {"s": f"a {syntax.closes[0]} b"}),
        "a close tag ending a value": _render(module, {"s": f"a {syntax.closes[0]}"}),
        "text around": "text " + _render(module, {"n": 1}) + " text",
        "whitespace around": " \n " + _render(module, {"n": 1}) + " \n ",
        "nothing": "",
    }
    pieces = syntax.render({"n": 1, "s": "x"})
    for i, (text, marker) in enumerate(pieces):
        if not marker:
            continue
        before, after = "".join(t for t, _ in pieces[:i]), "".join(t for t, _ in pieces[i + 1:])
        out[f"tag {i} left out"] = before + after
        out[f"tag {i} doubled"] = before + text + text + after
        out[f"text after tag {i}"] = before + text + "x" + after
    return out


def _complete(module: Any, text: str, **kwargs: Any) -> Any:
    parser = module.ChatParser(ids="sequential", **kwargs)
    got = parser.complete(text)
    return got, parser.warnings, parser.cut_calls, parser.content_offset


def _streamed(module: Any, text: str, **kwargs: Any) -> Any:
    parser = module.ChatParser(ids="sequential", **kwargs)
    got = accumulate([parser.feed(ch) for ch in text] + [parser.finish()])
    return (without_cut_calls(got, parser.cut_calls), parser.warnings, parser.cut_calls,
            parser.content_offset)


@pytest.mark.parametrize("tool_choice", [None, "none"])
@pytest.mark.parametrize("fmt", RUNS)
def test_runs_equal_streamed(fmt: str, tool_choice: str | None) -> None:
    module = parsergen.load(fmt)
    for name, text in _texts(module).items():
        kwargs = {"tools": TOOLS, "thinking": THINKING, "tool_choice": tool_choice}
        assert _complete(module, text, **kwargs) == _streamed(module, text, **kwargs), name


@pytest.mark.parametrize("fmt", RUNS)
def test_cut_anywhere_equals_streamed(fmt: str) -> None:
    """A completion cut at every point of its last call (max_tokens)."""
    module = parsergen.load(fmt)
    c = Calls(module)
    one = c.one()
    for cut in range(len(one) + 1):
        text = c.lead + one + one + one[:cut]
        kwargs = {"tools": TOOLS, "thinking": THINKING}
        assert _complete(module, text, **kwargs) == _streamed(module, text, **kwargs), cut


@pytest.mark.parametrize("fmt", sorted(TOKENIZERS))
def test_runs_with_a_tokenizer_equal_streamed(fmt: str) -> None:
    """With the tokenizer (text only, as a benchmark's parse), the same."""
    module = parsergen.load(fmt)
    tokenizer = TOKENIZERS[fmt]()
    for name, text in _texts(module).items():
        kwargs = {"tools": TOOLS, "thinking": THINKING}
        want = _streamed(module, text, **kwargs)
        parser = module.ChatParser(tokenizer, ids="sequential", **kwargs)
        got = parser.complete(text)
        assert (got, parser.warnings, parser.cut_calls, parser.content_offset) == want, name


@pytest.mark.parametrize("fmt", sorted(TOKENIZERS))
def test_runs_with_token_ids_equal_streamed(fmt: str) -> None:
    """With token ids (markers are tokens, not text), the same as token by token."""
    module = parsergen.load(fmt)
    tokenizer = TOKENIZERS[fmt]()
    for name in ("content, runs, text", "adjacent", "name spaces", "arguments retyped",
                 "end marker in a value", "'x' after marker 1"):
        text = _texts(module)[name]
        deltas = token_deltas(tokenizer, tokenizer.encode(text, add_special_tokens=False))
        kwargs = {"tools": TOOLS, "thinking": THINKING, "ids": "sequential"}
        whole = module.ChatParser(tokenizer, **kwargs)
        got = whole.complete("".join(t for t, _ in deltas), [i for _, ids in deltas for i in ids])
        streamed = module.ChatParser(tokenizer, **kwargs)
        want = accumulate([streamed.feed(t, ids) for t, ids in deltas] + [streamed.finish()])
        assert (got, whole.warnings) == (without_cut_calls(want, streamed.cut_calls),
                                         streamed.warnings), name


REASONING = [f for f in RUNS if parsergen.load(f).StreamingParser.REASONING_RULES]


@pytest.mark.parametrize("fmt", REASONING)
@pytest.mark.parametrize("thinking", [True, False])
def test_runs_after_reasoning_equal_streamed(fmt: str, thinking: bool) -> None:
    module = parsergen.load(fmt)
    if not module.RENDERER.can_render_reasoning(thinking):
        pytest.skip("no reasoning written with thinking so")
    call = {"name": "f", "arguments": {"n": 1, "s": "x"}}
    for content in (None, "Here."):
        text = "".join(t for t, _ in module.RENDERER.pieces(
            {"reasoning": "Three calls.", "content": content, "tool_calls": [call] * 3},
            thinking=thinking))
        kwargs = {"tools": TOOLS, "thinking": thinking}
        got = _complete(module, text, **kwargs)
        assert got == _streamed(module, text, **kwargs)
        assert got[0].reasoning == "Three calls." and len(got[0].tool_calls) == 3


@pytest.mark.parametrize("fmt", RUNS)
def test_runs_read_calls_whole(fmt: str) -> None:
    """Three calls in a row go out as one CallRun, not as pieces and events; what the
    raw tap and the run hold is the text, in order."""
    module = parsergen.load(fmt)
    text = _texts(module)["adjacent"]
    seen: list[Any] = []
    parser = recording_parser(module, seen, tools=TOOLS, thinking=THINKING)
    message = parser.complete(text)
    runs = [item for item in seen if type(item) is CallRun]
    # (The first call too: from the state a section of calls opens into, whose program
    # ends its call in another state.)
    assert len(runs) == 1 and len(runs[0].calls) == 3
    assert [c.name for c in message.tool_calls] == ["f"] * 3
    at = 0
    for item in seen:  # the raw tap's pieces and the runs' calls are the text, in order
        if type(item) is RawText:
            assert text.startswith(item.text, at)
            at += len(item.text)
        elif type(item) is CallRun:
            for between, start, body, end, _ in item.calls:
                assert text.startswith(between + start + body + end, at)
                assert start.startswith(_literal(module, _steps(module)[0][2]))
                assert end.endswith(_literal(module, _steps(module)[-1][2]))
                at += len(between + start + body + end)
    assert at == len(text)


def test_formats_with_runs() -> None:
    """The call shapes the compiler finds: markers only, a name, then the arguments."""
    assert {"hermes", "qwen3_json", "deepseek_v3", "deepseek_r1", "deepseek_v31",
            "kimi_k2"} <= set(RUNS)
    steps = programs(parsergen.load("deepseek_v3"))
    assert list(steps) == [3] and [step[1] for step in run_steps(steps[3])] == [
        "between", "", "", "name", "arguments", ""]
    assert [step[1] for step in run_steps(programs(parsergen.load("hermes"))[0])] == [
        "between", "arguments"]
    # Element syntaxes: the render's framing whitespace, the tags passed over, the call
    # ended by the marker that leaves its arguments (qwen3's </function>).
    assert {"qwen3", "glm47_moe", "minimax_m2", "deepseek_v32", "kimi_k3"} <= set(RUNS)
    qwen3 = run_steps(programs(parsergen.load("qwen3"))[0])
    assert [(step[1], step[2], step[3]) for step in qwen3] == [
        ("between", "TOOL_START", ""), ("", "FUNC_PREFIX", "\n"), ("name", "CLOSE_ANGLE", ""),
        ("arguments", "FUNC_END", ""), ("", "TOOL_END", "\n")]
    assert qwen3[3][4] == ("PARAM_END", "PARAM_START")
    # A section's first call from the state its opening marker leads to, then the rest
    # from the state between calls.
    for fmt in ("kimi_k2", "kimi_k3", "minimax_m2", "deepseek_v32"):
        found = programs(parsergen.load(fmt))
        assert {s: p.after for s, p in found.items() if p.after != s} == {3: 6}, fmt
        assert set(found) == {3, 6}, fmt
    # No run where the syntax reads no whole arguments (it could take no call).
    for fmt in ("gemma4", "minimax_m3"):
        module = parsergen.load(fmt)
        assert ("whole_arguments" not in vars(type(module.StreamingParser.SYNTAX))
                and not programs(module))
    # GLM: the name runs up to the first <arg_key>, whose text opens the arguments.
    glm = run_steps(programs(parsergen.load("glm47_moe"))[0])
    assert [(step[1], step[2]) for step in glm] == [
        ("between", "TOOL_START"), ("name, arguments", "ARG_KEY_START"), ("arguments", "TOOL_END")]


def test_arguments_search_passes_over_tags_only_where_none_hides_a_marker() -> None:
    """The arguments step searches for the state's other literals at once where no tag
    could hide one (else the lexer reads those calls): what passing over tags finds."""
    from parsergen.runtime.lexicon import Matcher
    from parsergen.runtime.searching import search_past as _search_past

    tags = {"<p=": "OPEN", "</p>": "CLOSE"}
    search = _search_past(Matcher({**tags, "</f>": "END"}), ("OPEN", "CLOSE"))
    assert search is not None
    text = "<p=a>1</p><p=b>2</p></f>"
    m = search(text, 0)
    assert m is not None and m.span() == (text.index("</f>"), len(text))
    # A literal that starts inside a tag, or that a tag begins: the lexer's to read.
    assert _search_past(Matcher({**tags, "p>x": "END"}), ("OPEN", "CLOSE")) is None
    assert _search_past(Matcher({**tags, "</p>x": "END"}), ("OPEN", "CLOSE")) is None
    assert _search_past(Matcher({**tags, "</": "END"}), ("OPEN", "CLOSE")) is None


def test_start_marker_compared_in_place_only_where_a_search_takes_it() -> None:
    """Calls right after one another: the next start marker is compared where the last
    call ended, not searched for, where no longer literal of its state begins with it;
    the calls read are the same either way."""
    from parsergen.runtime.lexicon import Matcher
    from parsergen.runtime.runs import CallPath, CallProgram

    run = CallProgram(0, ("S",), ((1, "arguments", "E", "", ()),), 0, False)
    # (Per-state matchers are a tuple, as a parser holds them.)
    plain = CallPath(run, (Matcher({"<s>": "S"}), Matcher({"<e>": "E"})))
    longer = CallPath(run, (Matcher({"<s>": "S", "<s>!": "X"}), Matcher({"<e>": "E"})))
    assert plain.start == "<s>" and longer.start == ""
    text = "<s>a<e><s>b<e> <s>c<e><s>d<e>" + " " * 16
    for path in (plain, longer):
        calls, end = path.read(text, 0, lambda name, body: ("f", body, ""), None, None)
        assert [call[4][1] for call in calls] == ["a", "b", "c", "d"]
        assert [call[0] for call in calls] == ["", "", " ", ""] and end == text.index("d") + 4
    # The longer literal right there is not the start marker: the run ends before it.
    calls, _ = longer.read("<s>a<e><s>!b<e>" + " " * 16, 0, lambda n, b: ("f", b, ""), None,
                           None)
    assert [call[4][1] for call in calls] == ["a"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["\n```", "\n```json\n", "<｜e｜>", "<｜", "\n", "<", "ab", "é",
                                 "東京", "x" * 300]), max_size=12),
       st.integers(min_value=0, max_value=700))
def test_first_char_search_finds_what_the_regex_finds(parts: list[str], pos: int) -> None:
    """An arguments step over literals that begin with different characters searches
    with str.find (``FirstCharSearch``): the same match as the regex of their
    alternation, anywhere in the text, across its doubling windows too."""
    from parsergen.runtime.lexicon import Matcher
    from parsergen.runtime.searching import FirstCharSearch
    from parsergen.runtime.searching import search_for as _search_for

    literals = ["\n```", "\n```json\n", "<｜e｜>"]
    pattern = re.compile("|".join(map(re.escape, sorted(literals, key=lambda s: (-len(s), s)))))
    search = _search_for(Matcher(dict.fromkeys(literals, "END")))
    assert isinstance(getattr(search, "__self__", None), FirstCharSearch)
    text = "".join(parts)
    found, expected = search(text, pos), pattern.search(text, pos)
    assert (found and found.span()) == (expected and expected.span())
