"""The specs a new user wrote from docs/spec.md alone (examples/new_formats/): each one
checks, parses its example completion whole and streamed by characters to the same
message, and renders that message back to the completion byte for byte.

Expected values come from each model's public chat template or card, cited in the spec
and in examples/new_formats/README.md."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import parsergen
from parsergen.compiler.cli import main as cli_main
from parsergen.runtime import merge_deltas

HERE = Path(__file__).resolve().parent.parent / "examples" / "new_formats"

# name -> (thinking, reasoning, content, [(tool, arguments)])
EXPECTED: dict[str, tuple[bool, str | None, str | None, list[tuple[str, dict[str, Any]]]]] = {
    "smollm3": (
        True,
        "The user asks for the weather in Copenhagen. I have get_weather, which takes a city.",
        None,
        [("get_weather", {"city": "Copenhagen"})],
    ),
    "exaone4": (
        True,
        "The user wants a six-sided die rolled twice, so I call roll_dice with max_num 6, two times.",
        None,
        [("roll_dice", {"max_num": 6}), ("roll_dice", {"max_num": 6})],
    ),
    "phi4_reasoning": (
        True,
        "Compare 3.12 and 3.9 digit by digit: the integer parts are equal, and 0.9 > 0.12"
        " because 0.90 > 0.12.",
        "3.9 is bigger than 3.12.",
        [],
    ),
}


def _load(name: str) -> Any:
    """The example spec's module, compiled in memory."""
    return parsergen.load(HERE / f"{name}.yaml")


def _completion(name: str) -> str:
    """The example completion next to the spec."""
    return (HERE / f"{name}_completion.txt").read_text(encoding="utf-8")


def _streamed(module: Any, text: str, thinking: bool) -> Any:
    """What a client sums from a ChatParser fed one character at a time."""
    parser = module.ChatParser(thinking=thinking)
    return merge_deltas([*(parser.feed(ch) for ch in text), parser.finish()])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_check_passes(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`parsergen check` accepts the spec (schema, meaning, its own calls come back)."""
    assert cli_main(["check", str(HERE / f"{name}.yaml")]) == 0
    captured = capsys.readouterr()
    assert f"ok ({name})" in captured.out + captured.err
    assert "warning" not in captured.err


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_whole_and_streamed(name: str) -> None:
    """parse() gives the expected message, and so does the character-by-character stream."""
    module = _load(name)
    thinking, reasoning, content, calls = EXPECTED[name]
    text = _completion(name)
    message = module.parse(text, thinking=thinking)
    assert message.reasoning == reasoning
    assert message.content == content
    assert [(c.name, json.loads(c.arguments)) for c in message.tool_calls] == calls
    summed = _streamed(module, text, thinking)
    assert summed.reasoning == reasoning
    assert summed.content == content
    assert [(c.name, json.loads(c.arguments or "")) for c in summed.tool_calls] == calls


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_render_writes_the_completion_back(name: str) -> None:
    """render() of the parsed message is the example completion, byte for byte."""
    module = _load(name)
    thinking = EXPECTED[name][0]
    text = _completion(name)
    assert module.render(module.parse(text, thinking=thinking), thinking=thinking) == text


def test_exaone4_thinking_off_is_content_then_calls() -> None:
    """Thinking off (EXAONE's default), the prompt closed the reasoning: text is content."""
    module = _load("exaone4")
    text = 'Rolling now.\n<tool_call>{"name": "roll_dice", "arguments": {"max_num": 6}}</tool_call>'
    message = module.parse(text)
    assert message.reasoning is None
    assert message.content == "Rolling now."
    assert [(c.name, json.loads(c.arguments)) for c in message.tool_calls] == [
        ("roll_dice", {"max_num": 6})]


def test_exaone4_enable_thinking_switches_it_on() -> None:
    """`enable_thinking` in chat_template_kwargs is the request's switch, as in the
    template; without it thinking is off (the template's default)."""
    route = parsergen.route("LGAI-EXAONE/EXAONE-4.0-32B", specs=[HERE / "exaone4.yaml"])
    assert route is not None
    assert route.thinking({"enable_thinking": True}) is True
    assert route.thinking({"enable_thinking": False}) is False
    assert route.thinking({}) is False
    text = "3.9 > 3.12.\n</think>\n\n3.9 is bigger."
    on = route.chat_parser(thinking=route.thinking({"enable_thinking": True}))
    summed = merge_deltas([on.feed(text), on.finish()])
    assert (summed.reasoning, summed.content) == ("3.9 > 3.12.", "3.9 is bigger.")
    off = route.parse(text, thinking=route.thinking({}))
    assert off.reasoning is None and off.content is not None and "</think>" in off.content


@pytest.mark.parametrize(("model", "name"), [
    ("HuggingFaceTB/SmolLM3-3B", "smollm3"),
    ("LGAI-EXAONE/EXAONE-4.0-32B", "exaone4"),
    ("LGAI-EXAONE/EXAONE-4.0-1.2B", "exaone4"),
    ("microsoft/Phi-4-reasoning", "phi4_reasoning"),
    ("microsoft/Phi-4-reasoning-plus", "phi4_reasoning"),
])
def test_routes_with_the_spec(model: str, name: str) -> None:
    """With the spec added to routing, its models route to it and no bundled format."""
    route = parsergen.route(model, specs=[HERE / f"{name}.yaml"])
    assert route is not None and route.format == name
