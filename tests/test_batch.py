"""Batch parsing: parse_record, parse_jsonl on several processes, and `parsergen parse --jsonl`."""

from __future__ import annotations

import io
import json

import pytest

import parsergen
from parsergen.batch import RecordError, parse_jsonl, parse_record
from parsergen.compiler.cli import main

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"days": {"type": "integer"}}}}}]
CALL = ("<tool_call>\n<function=get_weather>\n<parameter=days>\n3\n</parameter>\n</function>\n"
        "</tool_call>")


def _record(i: int) -> dict:
    return {"completion": f"step {i}</think>answer {i}", "model": "Qwen/Qwen3.6-35B-A3B"}


def test_parse_record_is_parse_as_openai() -> None:
    record = {"completion": "hm</think>Hi " + CALL, "tools": TOOLS}
    got = parse_record(record, format="qwen3")
    expected = parsergen.load("qwen3").parse(record["completion"], tools=TOOLS).to_openai()
    assert {**got, "tool_calls": None} == {**expected, "tool_calls": None}  # ids are random
    assert got["tool_calls"][0]["function"] == {"name": "get_weather", "arguments": '{"days": 3}'}


def test_parse_record_picks_the_format_by_model_and_starts_from_the_prompt() -> None:
    got = parse_record({"completion": "a</think>b", "model": "Qwen/Qwen3.6-35B-A3B",
                        "prompt": "<|im_start|>assistant\n<think>\n\n</think>\n\n"})
    # The prompt closed reasoning: all of it is content (a stray </think> dropped).
    assert got == {"role": "assistant", "content": "ab"}


def test_parse_record_names_the_reasoning_field() -> None:
    got = parse_record({"completion": "a</think>b"}, format="qwen3", reasoning_key="reasoning")
    assert got == {"role": "assistant", "content": "b", "reasoning": "a"}


def test_bad_records_raise_record_error() -> None:
    for record, why in [([], "JSON object"), ({"completion": 3}, "completion"),
                        ({"completion": "x", "prompt": 3}, "prompt"),
                        ({"completion": "x", "tools": {}}, "tools"),
                        ({"completion": "x", "model": "no-such-model-anywhere"}, "no format")]:
        try:
            parse_record(record, format=None if "model" in record else "qwen3")
        except RecordError as exc:
            assert why in str(exc)
        else:
            raise AssertionError(f"{record!r} was accepted")


def test_parse_jsonl_keeps_order_on_several_processes_and_reports_bad_lines() -> None:
    lines = [json.dumps(_record(i)) for i in range(300)]
    lines[7] = "{not json"
    lines[200] = json.dumps({"completion": None})
    out, errors = io.StringIO(), io.StringIO()
    total, bad = parse_jsonl(io.StringIO("\n".join(lines) + "\n"), out, workers=2,
                             errors=errors, progress=False)
    assert (total, bad) == (300, 2)
    results = [json.loads(line) for line in out.getvalue().splitlines()]
    assert len(results) == 300
    for i, result in enumerate(results):
        if i in (7, 200):
            assert "error" in result
        else:
            assert result == {"role": "assistant", "content": f"answer {i}",
                              "reasoning_content": f"step {i}"}
    assert errors.getvalue().splitlines()[0].startswith("line 8: not JSON")
    assert errors.getvalue().splitlines()[1].startswith("line 201: ")


def test_progress_bar_on_request() -> None:
    errors = io.StringIO()
    parse_jsonl(io.StringIO(json.dumps(_record(0)) + "\n"), io.StringIO(), workers=1,
                errors=errors, progress=True)
    assert errors.getvalue().endswith("1/1 lines, 0 bad\n")


def test_cli_parse_jsonl(tmp_path, capsys) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(json.dumps(_record(i)) for i in range(3)) + "\nnope\n")
    target = tmp_path / "out.jsonl"
    assert main(["parse", "--jsonl", str(source), "-o", str(target), "--workers", "1"]) == 1
    results = [json.loads(line) for line in target.read_text().splitlines()]
    assert [r.get("content") for r in results] == ["answer 0", "answer 1", "answer 2", None]
    assert "1 of 4 lines could not be parsed" in capsys.readouterr().err


# -- one precedence: the record's own fields, then the command line, then the route ------

CODER = "Qwen/Qwen3-Coder-30B-A3B-Instruct"  # qwen3; its route: thinking false
HYBRID = "Qwen/Qwen3.6-35B-A3B"  # qwen3; no route default: the format's (thinking)
THOUGHT = {"role": "assistant", "content": None, "reasoning_content": "Hello!"}
SAID = {"role": "assistant", "content": "Hello!"}


@pytest.mark.parametrize("fields,options,expected", [
    # The record's model over --model, both ways (flipped, the other model's default).
    ({"model": CODER}, {"model": HYBRID}, SAID),
    ({"model": HYBRID}, {"model": CODER}, THOUGHT),
    ({}, {"model": CODER}, SAID),  # --model where the record has none
    # The record's thinking over --thinking/--no-thinking, both ways.
    ({"thinking": True}, {"model": CODER, "thinking": False}, THOUGHT),
    ({"thinking": False}, {"model": HYBRID, "thinking": True}, SAID),
    # --thinking/--no-thinking over the route's default, both ways.
    ({"model": CODER}, {"thinking": True}, THOUGHT),
    ({"model": HYBRID}, {"thinking": False}, SAID),
    # The record's thinking over its own model's default.
    ({"model": CODER, "thinking": True}, {}, THOUGHT),
    # --format names the format; the model still brings its route's defaults.
    ({"model": CODER}, {"format": "qwen3"}, SAID),
    ({}, {"format": "qwen3", "model": CODER}, SAID),
    ({}, {"format": "qwen3", "thinking": False}, SAID),
    ({}, {"format": "qwen3"}, THOUGHT),  # the format's default
    ({"model": "no-such-model-anywhere"}, {"format": "qwen3"}, THOUGHT),
])
def test_options_come_from_the_record_then_the_command_line_then_the_route(
        fields: dict, options: dict, expected: dict) -> None:
    assert parse_record({"completion": "Hello!", **fields}, **options) == expected


def test_a_records_thinking_must_be_a_boolean() -> None:
    with pytest.raises(RecordError, match="'thinking' must be true, false or null"):
        parse_record({"completion": "x", "thinking": "no"}, format="qwen3")
    with pytest.raises(RecordError, match="'model' must be a string"):
        parse_record({"completion": "x", "model": 3}, format="qwen3")


def test_cli_jsonl_applies_no_thinking_and_the_models_defaults(tmp_path) -> None:
    source = tmp_path / "in.jsonl"
    records = [{"completion": "Hello!"}, {"completion": "Hello!", "model": CODER},
               {"completion": "Hello!", "thinking": True}]
    source.write_text("".join(json.dumps(r) + "\n" for r in records))
    target = tmp_path / "out.jsonl"
    # --no-thinking counts with --jsonl; a record's own thinking still wins.
    assert main(["parse", "--jsonl", str(source), "-o", str(target), "--workers", "1",
                 "--format", "qwen3", "--no-thinking"]) == 0
    assert [json.loads(x) for x in target.read_text().splitlines()] == [SAID, SAID, THOUGHT]
    # Without it: the format's default, and the Coder record's route default under --format.
    assert main(["parse", "--jsonl", str(source), "-o", str(target), "--workers", "1",
                 "--format", "qwen3"]) == 0
    assert [json.loads(x) for x in target.read_text().splitlines()] == [THOUGHT, SAID, THOUGHT]


def test_cli_single_parse_takes_the_models_defaults_under_format(tmp_path, capsys) -> None:
    source = tmp_path / "answer.txt"
    source.write_text("Hello!")
    for extra, expected in [([], SAID), (["--thinking"], THOUGHT)]:
        assert main(["parse", "--format", "qwen3", "--model", CODER, "--openai",
                     str(source), *extra]) == 0
        assert json.loads(capsys.readouterr().out) == expected
