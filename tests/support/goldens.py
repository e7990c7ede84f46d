"""Reading and writing golden files: sectioned text a reviewer can read.

One section per (case, cadence)::

    === reasoning_then_call | tokens | ids ===
    thinking: true
    tokenizer: qwen3.6 0123456789abcdef
    text: "<think>\\nLet me...</tool_call>"
    0: [248068] "<think>"
    1: [198, 785] "\\nThe"
    ---
    1: REASONING_CHUNK -1 "\\nThe"
    end: REASONING_END -1 ""

Above ``---`` are the deltas (token ids, then the delta text as JSON); below are the
events the reference emitted, each tagged with the delta that produced it (``end``
for ``finish()``).  Chunk events of one delta are merged and empty chunks left out.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Golden:
    """One case replayed under one cadence."""

    case: str
    cadence: str
    mode: str  # "ids" (token ids with the text), "text" (no ids), "notok" (no tokenizer)
    thinking: bool
    tokenizer: str  # name in tests.support.tokenizers.TOKENIZERS
    fingerprint: str
    text: str
    deltas: list[tuple[list[int], str]] = field(default_factory=list)
    # (delta index, or -1 for finish) -> events as (type name, tool index, value)
    events: list[tuple[int, str, int, str]] = field(default_factory=list)

    @property
    def title(self) -> str:
        return f"{self.case} | {self.cadence} | {self.mode}"


def dump(goldens: list[Golden], header: str) -> str:
    """Render golden sections to text."""
    lines = [f"# {line}" if line else "#" for line in header.splitlines()]
    for g in goldens:
        lines += ["", f"=== {g.title} ===", f"thinking: {str(g.thinking).lower()}",
                  f"tokenizer: {g.tokenizer} {g.fingerprint}",
                  f"text: {json.dumps(g.text, ensure_ascii=False)}"]
        for i, (ids, text) in enumerate(g.deltas):
            lines.append(f"{i}: {json.dumps(ids)} {json.dumps(text, ensure_ascii=False)}")
        lines.append("---")
        for at, kind, index, value in g.events:
            where = "end" if at < 0 else str(at)
            lines.append(f"{where}: {kind} {index} {json.dumps(value, ensure_ascii=False)}")
    return "\n".join(lines) + "\n"


def load(path: Path) -> list[Golden]:
    """Parse a golden file written by ``dump``."""
    goldens: list[Golden] = []
    current: Golden | None = None
    in_events = False
    for raw in path.read_text(encoding="utf-8").split("\n"):
        if not raw or raw.startswith("#"):
            continue
        if raw.startswith("=== ") and raw.endswith(" ==="):
            case, cadence, mode = (part.strip() for part in raw[4:-4].split("|"))
            current = Golden(case, cadence, mode, True, "", "", "")
            goldens.append(current)
            in_events = False
            continue
        assert current is not None, f"{path}: text before the first section: {raw!r}"
        if raw == "---":
            in_events = True
        elif raw.startswith("thinking: "):
            current.thinking = raw.split(": ", 1)[1] == "true"
        elif raw.startswith("tokenizer: "):
            current.tokenizer, current.fingerprint = raw.split(": ", 1)[1].split(" ")
        elif raw.startswith("text: "):
            current.text = json.loads(raw.split(": ", 1)[1])
        elif in_events:
            where, rest = raw.split(": ", 1)
            kind, index, value = rest.split(" ", 2)
            current.events.append((-1 if where == "end" else int(where), kind, int(index),
                                   json.loads(value)))
        else:
            _, rest = raw.split(": ", 1)
            ids_end = rest.index("]") + 1
            current.deltas.append((json.loads(rest[:ids_end]), json.loads(rest[ids_end + 1 :])))
    return goldens


# A row of DIFFERENCES.md's "Event departures" table: format, case, cadence/mode, why.
_DEPARTURE = re.compile(r"^\| (\w+) \| (\w+) \| (\*|[\w*]+/[\w*]+) \| ([^|]+) \|$", re.M)


def event_departures(path: Path) -> dict[tuple[str, str, str], str]:
    """(format, case, "cadence/mode" or "*") -> why, from the "Event departures" table of
    goldens/DIFFERENCES.md (a ``*`` for the cadence or the mode matches any)."""
    text = path.read_text(encoding="utf-8")
    _, _, section = text.partition("\n## Event departures\n")
    section = section.split("\n## ", 1)[0]
    return {(f, c, where): why.strip() for f, c, where, why in _DEPARTURE.findall(section)
            if f != "format"}  # not the header


def departs(rows: dict[tuple[str, str, str], str], fmt: str, golden: Golden) -> str | None:
    """Why the section ``golden`` of ``fmt`` departs from vLLM's events, or None."""
    for (f, case, where), why in rows.items():
        if f != fmt or case != golden.case:
            continue
        cadence, _, mode = where.partition("/")
        if where == "*" or cadence in ("*", golden.cadence) and mode in ("*", golden.mode):
            return why
    return None
