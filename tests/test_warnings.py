"""What went wrong reading a completion is reported where the user looks: ``parse()``'s
``ParsedMessage.warnings`` (and ``ChatParser.warnings`` while streaming), each saying
what the model wrote and what became of it.  Expected texts from real runs."""

from __future__ import annotations

from dataclasses import replace

import pytest

import parsergen
from parsergen.runtime.messages import ParsedMessage

TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {
    "type": "object", "properties": {"a": {"type": "integer"}}}}}]
KIMI = ("<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
        "<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>")

# (format, completion, its calls as (name, arguments JSON), the warnings)
CASES = [
    ("hermes", '<tool_call>{"name": "f"}</tool_call>', [],
     ["tool call 0 names 'f' but has no arguments object; kept as content"]),
    ("llama3_json", '{"name": "f"}', [],
     ["tool call 0 names 'f' but has no arguments object; kept as content"]),
    ("hermes", '<tool_call>{"name": "f", "arguments": 3}</tool_call>', [],
     ["tool call 0 names 'f' but has no arguments object; kept as content"]),
    ("hermes", '<tool_call>{"arguments": {"a": 1}}</tool_call>', [],
     ["tool call 0 has arguments but no name; kept as content"]),
    ("hermes", '<tool_call>{"id": 1}</tool_call>', [],
     ["tool call 0 has no name and no arguments object; kept as content"]),
    ("hermes", '<tool_call>{"name": "", "arguments": {}}</tool_call>', [],
     ["tool call 0 has an empty name; kept as content"]),
    ("hermes", "<tool_call>[1, 2]</tool_call>", [],
     ["tool call 0 is not a JSON object: it begins with '['; kept as content"]),
    ("hermes", '<tool_call>{"name": "f" "arguments": {"a": 1}}</tool_call>', [],
     ["tool call 0 is not valid JSON: '\"' where ',' or '}' belongs; the rest of its "
      "object is not read; kept as content"]),
    # A call that stands, whose object breaks after its arguments: said, not silent.
    ("hermes", '<tool_call>{"name": "f", "arguments": {"a": 1}, junk}</tool_call>',
     [("f", '{"a": 1}')],
     ["tool call 0 is not valid JSON: 'j' where a member name belongs; the rest of its "
      "object is not read"]),
    ("kimi_k2", KIMI.format("[1, 2]"), [("f", "{}")],
     ["tool call 0: arguments are not a JSON object: they begin with '[' and are dropped"]),
    # A key's quote that ':' does not follow is text (README, "Broken output"), so the key
    # runs to the call's end and, with no value, is left out.
    ("kimi_k2", KIMI.format('{"a": 1, "b" 2}'), [("f", '{"a": 1}')],
     ["tool call 0: a quote in the key 'b' does not end its string (more of the string "
      "follows it): kept as text",
      "tool call 0: the key 'b\" 2}' has no value at the call's end: left out",
      "tool call 0: the call ended before its arguments closed: '}' added"]),
    # The end marker inside the nested value (not in a string): the value is closed.
    ("kimi_k2", KIMI.format('{"a": 1, "o": [1, {"b": 2'), [("f", '{"a": 1, "o": [1, {"b": 2}]}')],
     ["tool call 0: the call ended before its arguments closed: '}]}' added"]),
    # Text after the arguments' object, before the call's end marker: no part of the
    # call, and said.
    ("kimi_k2", KIMI.format('{"a": 1} Done, the answer is 4.'), [("f", '{"a": 1}')],
     ["tool call 0: 22 characters after its arguments closed are no part of the call and "
      "are dropped: 'Done, the answer is 4.'"]),
    # Mistral's calls have no end marker (the render writes nothing after [ARGS]{...}):
    # the text after the object is content, nothing to warn of (test_model_writes).
    ("mistral", '[TOOL_CALLS]f[ARGS]{"a": 1} Done, the answer is 4.', [("f", '{"a": 1}')], []),
    ("hermes", '<tool_call>{"name": "f", "arguments": {"a": 1', [],
     ["tool call 0 (f) was cut off before its end: its arguments are incomplete and not "
      "completed; its text is in cut_calls"]),
]


def _calls(message: ParsedMessage) -> list[tuple[str, str]]:
    return [(c.name, c.arguments) for c in message.tool_calls]


@pytest.mark.parametrize("fmt,text,calls,warnings", CASES,
                         ids=[f"{c[0]}:{c[1][:40]}" for c in CASES])
def test_parse_returns_what_happened(fmt: str, text: str, calls: list, warnings: list) -> None:
    message = parsergen.load(fmt).parse(text, tools=TOOLS, thinking=False)
    assert _calls(message) == calls
    assert message.warnings == tuple(warnings)


@pytest.mark.parametrize("fmt,text,calls,warnings", CASES,
                         ids=[f"{c[0]}:{c[1][:40]}" for c in CASES])
@pytest.mark.parametrize("stream_calls", ["incremental", "complete"])
def test_a_stream_reports_the_same_by_characters(fmt: str, text: str, calls: list,
                                                 warnings: list, stream_calls: str) -> None:
    chat = parsergen.load(fmt).ChatParser(tools=TOOLS, thinking=False, stream_calls=stream_calls)
    for ch in text:
        chat.feed(ch)
    chat.finish()
    assert chat.warnings == warnings


def test_a_cut_call_comes_with_its_warning_in_every_format_that_calls() -> None:
    # README: a call cut by max_tokens is in cut_calls "with a warning".
    for fmt in parsergen.formats():
        module = parsergen.load(fmt)
        if module.RENDERER.call is None:
            continue
        text = module.render({"tool_calls": [{"name": "f", "arguments": {"a": 12345}}]})
        message = module.parse(text[: text.index("12345") + 3], tools=TOOLS)
        assert message.cut_calls, fmt
        assert any("cut off" in w for w in message.warnings), (fmt, message.warnings)


def test_a_clean_parse_has_no_warnings() -> None:
    message = parsergen.load("hermes").parse(
        '<tool_call>{"name": "f", "arguments": {"a": 1}}</tool_call>', tools=TOOLS)
    assert message.warnings == ()


def test_warnings_do_not_change_what_a_message_says() -> None:
    # A client's summed stream has no warnings; it still equals parse()'s message.
    plain = ParsedMessage(content="x")
    warned = replace(plain, warnings=("w",))
    assert warned == plain and hash(warned) == hash(plain)
    assert warned.warnings == ("w",) and warned.to_openai() == plain.to_openai()
    assert ParsedMessage("r", "c", (), ("cut",)).warnings == ()  # positional use unchanged


def test_complete_reports_every_warning_made_so_far() -> None:
    chat = parsergen.load("hermes").ChatParser(tools=TOOLS)
    message = chat.complete("<tool_call>[1]</tool_call>")
    assert message.warnings == tuple(chat.warnings) == (
        "tool call 0 is not a JSON object: it begins with '['; kept as content",)


def test_the_command_line_prints_them_beside_the_message(tmp_path, capsys) -> None:
    from parsergen.compiler.cli import main

    source = tmp_path / "answer.txt"
    source.write_text('<tool_call>{"name": "f"}</tool_call>')
    for extra in ([], ["--stream"]):
        assert main(["parse", "--format", "hermes", "--openai", str(source), *extra]) == 0
        assert capsys.readouterr().err == (
            "warning: tool call 0 names 'f' but has no arguments object; kept as content\n")
