"""Reading goldens/<format>.messages: vLLM's parse() and streamed messages per case."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Message:
    reasoning: str | None = None
    content: str | None = None
    calls: list[tuple[str, str, str]] = field(default_factory=list)  # (id, name, arguments)
    raised: str | None = None  # vLLM raised instead (its legacy streaming parsers can)


@dataclass
class MessageCase:
    name: str
    thinking: bool = True
    text: str = ""
    ids: list[int] = field(default_factory=list)
    parse: Message = field(default_factory=Message)
    stream: Message | None = None  # vLLM's streamed message, where it was captured
    # The request's chat_template_kwargs besides the thinking switch (request options).
    kwargs: dict = field(default_factory=dict)


@dataclass
class MessageFile:
    tokenizer: str
    tools: list[dict]
    cases: list[MessageCase]


def load(path: Path) -> MessageFile:
    """The tokenizer, the request's tools and the cases of a messages golden file."""
    tokenizer = ""
    tools: list[dict] = []
    cases: list[MessageCase] = []
    current: Message | None = None
    for raw in path.read_text(encoding="utf-8").split("\n"):
        if not raw or raw.startswith("#"):
            continue
        if raw.startswith("tools: "):
            tools = json.loads(raw[7:])
        elif raw.startswith("tokenizer: "):
            tokenizer = raw[11:]
        elif raw.startswith("=== "):
            cases.append(MessageCase(raw[4:-4]))
        elif raw.startswith("--- vllm parse"):
            current = cases[-1].parse
        elif raw.startswith("--- vllm stream"):
            current = cases[-1].stream = Message()
        else:
            key, value = raw.split(": ", 1)
            case = cases[-1]
            if key == "thinking":
                case.thinking = value == "true"
            elif key == "kwargs":
                case.kwargs = json.loads(value)
            elif key == "text":
                case.text = json.loads(value)
            elif key == "ids":
                case.ids = json.loads(value)
            elif key == "call":
                current.calls.append(tuple(json.loads(value)))
            else:
                setattr(current, key, json.loads(value))
    return MessageFile(tokenizer, tools, cases)


def differences(path: Path) -> dict[tuple[str, str, str, str], str]:
    """(format, case, result, field) -> why, from the table of goldens/DIFFERENCES.md."""
    text = path.read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\w+) \| (\w+) \| (parse|stream) \| (\w+) \| ([^|]+) \|$", text,
                      re.M)
    return {(f, c, result, field): why.strip() for f, c, result, field, why in rows}
