"""Render templates (the ``render`` section): parsed into parts, checked, and the
reasoning block derived from the grammar when the spec does not write it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .lower import spellings

# ${reasoning}, ${TOOL_START}: a field (lower case) or a terminal (upper case).
_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")

FIELDS = {
    "reasoning": ("reasoning",),
    "content": ("content",),
    "call": ("name", "name_json", "arguments", "index", "index1"),
    "calls_open": (),
    "separator": (),
    "calls_close": (),
}

# A template part: ("text", s), ("marker", s) or ("field", name).
Part = tuple[str, str]
Parts = tuple[Part, ...]


def template_errors(key: str, template: str, terminals: dict[str, Any]) -> list[str]:
    """What is wrong with one template of the render section."""
    errors = []
    for m in _PLACEHOLDER.finditer(template):
        name = m.group(1)
        if name.islower():
            if name not in FIELDS[key]:
                allowed = ", ".join("${%s}" % f for f in FIELDS[key]) or "none"
                errors.append(f"unknown field ${{{name}}} here (fields: {allowed})")
        elif name not in terminals:
            errors.append(f"unknown terminal ${{{name}}}")
        elif isinstance(terminals[name], dict) and "pattern" in terminals[name]:
            errors.append(f"${{{name}}} is a pattern terminal: it has no text to write; "
                          "write the text it matches instead")
    return errors


def parse_template(template: str, terminals: dict[str, Any]) -> Parts:
    """A checked template as parts, terminals replaced by their canonical text."""
    parts: list[Part] = []
    pos = 0
    for m in _PLACEHOLDER.finditer(template):
        if m.start() > pos:
            parts.append(("text", template[pos : m.start()]))
        name = m.group(1)
        if name.islower():
            parts.append(("field", name))
        else:
            parts.append(("marker", spellings(terminals[name])[0]))
        pos = m.end()
    if pos < len(template):
        parts.append(("text", template[pos:]))
    return tuple(parts)


@dataclass(frozen=True)
class RenderIR:
    """What render() writes, per part of a message."""

    # Per thinking (on, off): the marker that opens reasoning from the initial state
    # (() when the completion starts inside reasoning; None when it cannot).
    reasoning_open: tuple[Parts | None, Parts | None]
    reasoning_close: Parts | None
    reasoning: Parts | None  # the spec's own reasoning template
    content: Parts
    call: Parts | None
    calls_open: Parts
    separator: Parts
    calls_close: Parts
    calls_first: bool


def build_render(spec: dict[str, Any], initial: tuple[str, str],
                 active: tuple[frozenset[str], frozenset[str]]) -> RenderIR:
    """The render IR of a validated spec; ``initial`` is the initial state and ``active``
    the terminals that exist, per thinking (on, off)."""
    terminals = spec["terminals"]
    declared = spec.get("render", {})

    def tpl(key: str) -> Parts | None:
        value = declared.get(key)
        return None if value is None else parse_template(value, terminals)

    def tpl_or(key: str, default: str = "") -> Parts:
        value = declared.get(key)
        return parse_template(default if value is None else value, terminals)

    transitions = spec["transitions"]
    reasoning = spec.get("reasoning")
    opens: list[Parts | None] = []
    close: Parts | None = None
    if reasoning:
        for state, names in zip(initial, active):
            if state == "REASONING":
                opens.append(())
                continue
            table = transitions.get(state, {})
            found = next((t for t in reasoning["start"]
                          if t in names and _target(table.get(t)) == "REASONING"), None)
            opens.append(None if found is None else (("marker", spellings(terminals[found])[0]),))
        table = transitions.get("REASONING", {})
        # (the end into CONTENT; else one into the state outside every region, where a
        # response_template drops text: ERNIE's TOOL_BETWEEN)
        end = next((t for t in reasoning["end"] if _target(table.get(t)) == "CONTENT"),
                   next((t for t in reasoning["end"] if _target(table.get(t)) == "TOOL_BETWEEN"),
                        None))
        if end is not None:
            close = (("marker", spellings(terminals[end])[0]),)
    else:
        opens = [None, None]
    return RenderIR(
        reasoning_open=(opens[0], opens[1]),
        reasoning_close=close,
        reasoning=tpl("reasoning"),
        content=tpl_or("content", "${content}"),
        call=tpl("call"),
        calls_open=tpl_or("calls_open"),
        separator=tpl_or("separator"),
        calls_close=tpl_or("calls_close"),
        calls_first=bool(declared.get("calls_first", False)),
    )


def _target(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return value.get("to")
    return None
