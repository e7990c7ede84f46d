"""Reading goldens/expected/<format>.expected: hand-written messages per corpus case.

One section per case::

    === content_then_call ===
    thinking: true
    source: https://huggingface.co/Qwen/Qwen2.5-7B-Instruct/blob/main/tokenizer_config.json
    why: the template asks for each call as {"name", "arguments"} JSON in <tool_call>
    reasoning: null
    content: "Let me check."
    call: ["get_weather", {"city": "Paris", "days": 3}]

``reasoning`` and ``content`` are JSON strings or null; each ``call`` is a JSON array
of the tool's name and its arguments as a JSON object; each ``cut_call`` is the text of
a call the completion cut off (a JSON string), which is neither a call nor content. ``schema_typed: true`` marks a
message that needs the request's tool schemas (a value typed by them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Expected:
    """The message a model meant by one corpus case, and where that comes from."""

    case: str
    thinking: bool = True
    schema_typed: bool = False  # the message needs the request's tool schemas
    source: str = ""
    why: str = ""
    reasoning: str | None = None
    content: str | None = None
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    cut_calls: list[str] = field(default_factory=list)

    def message(self) -> dict[str, Any]:
        """Reasoning, content, calls (name, arguments) and cut calls as plain data."""
        return {"reasoning": self.reasoning, "content": self.content,
                "calls": [list(call) for call in self.calls], "cut_calls": self.cut_calls}


def load(path: Path) -> list[Expected]:
    """The cases of an expected-messages file, in file order."""
    cases: list[Expected] = []
    for raw in path.read_text(encoding="utf-8").split("\n"):
        if not raw or raw.startswith("#") or raw.startswith("format: "):
            continue
        if raw.startswith("=== ") and raw.endswith(" ==="):
            cases.append(Expected(raw[4:-4]))
            continue
        key, value = raw.split(": ", 1)
        case = cases[-1]
        if key in ("thinking", "schema_typed"):
            setattr(case, key, value == "true")
        elif key in ("source", "why"):
            setattr(case, key, value)
        elif key in ("reasoning", "content"):
            setattr(case, key, json.loads(value))
        elif key == "call":
            name, arguments = json.loads(value)
            case.calls.append((name, arguments))
        elif key == "cut_call":
            case.cut_calls.append(json.loads(value))
        else:
            raise ValueError(f"{path.name}: unknown key {key!r} in {case.case}")
    return cases
