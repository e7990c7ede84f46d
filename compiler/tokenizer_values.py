"""``tokenizer_values``: named values a spec's marker spellings use (``<think${suffix}>``),
chosen from the served tokenizer at load time by a declared rule.

The spec is compiled with each value's ``default``; ``parsergen.load(name,
tokenizer=...)`` reads the tokenizer's values (``parsergen.tokenizer_values``) and,
where they differ, compiles the spec again with them (``substitute`` before validation,
so every check and every derived table sees the spellings the parser will match).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .render import FIELDS

KEY = "tokenizer_values"
# ${name}: a use of a value (lower case; upper case names a terminal in render templates).
USE = re.compile(r"\$\{([a-z][a-z0-9_]*)\}")
# Render's own fields: a value of one of these names would be read as the field.
RESERVED = frozenset(f for fields in FIELDS.values() for f in fields)


def declared(spec: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The well-formed declarations of ``spec`` (name -> declaration); validation
    reports the others."""
    table = spec.get(KEY)
    if not isinstance(table, dict):
        return {}
    return {name: value for name, value in table.items()
            if isinstance(value, dict) and isinstance(value.get("default"), str)}


def defaults(spec: Mapping[str, Any]) -> dict[str, str]:
    """Each declared value's default: what a parser without a tokenizer uses."""
    return {name: value["default"] for name, value in declared(spec).items()}


def substitute(spec: dict[str, Any], values: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``spec`` with every ``${name}`` of a declared value replaced in its strings (the
    declaration itself kept as written); ``values`` override the defaults."""
    chosen = {**defaults(spec), **(values or {})}
    if not chosen:
        return spec

    def replace(match: re.Match[str]) -> str:
        return chosen.get(match.group(1), match.group(0))

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return USE.sub(replace, value) if "${" in value else value
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value

    return {k: (v if k == KEY else walk(v)) for k, v in spec.items()}


def problems(spec: Mapping[str, Any]) -> list[tuple[tuple[Any, ...], str]]:
    """(path, message) for each declaration the schema cannot judge: its name, its
    pattern, and uses of undeclared values left in terminals and arguments."""
    out: list[tuple[tuple[Any, ...], str]] = []
    table = spec.get(KEY)
    names = set(table) if isinstance(table, dict) else set()
    for name, value in (table.items() if isinstance(table, dict) else ()):
        if name in RESERVED:
            out.append(((KEY, name), f"{name!r} is a render field (${{{name}}}); name the "
                        "value otherwise"))
        if isinstance(value, dict) and "init_kwarg" not in value and "vocabulary" not in value:
            out.append(((KEY, name), "needs init_kwarg or vocabulary: where a tokenizer holds "
                        "the value"))
        pattern = value.get("vocabulary") if isinstance(value, dict) else None
        if isinstance(pattern, str):
            try:
                groups = re.compile(pattern).groups
            except re.error as exc:
                out.append(((KEY, name, "vocabulary"), f"not a regular expression: {exc}"))
                continue
            if groups < 1:
                out.append(((KEY, name, "vocabulary"), "needs a group: the value is what "
                            "its first group matches in the token"))
    terminals = spec.get("terminals")
    for term, value in (terminals.items() if isinstance(terminals, dict) else ()):
        for path, text in _strings(value, ("terminals", term)):
            out += _undeclared(path, text, names)
    for path, text in _strings(spec.get("arguments"), ("arguments",)):
        out += _undeclared(path, text, names)
    return out


def _strings(value: Any, path: tuple[Any, ...]) -> list[tuple[tuple[Any, ...], str]]:
    if isinstance(value, str):
        return [(path, value)]
    if isinstance(value, list):
        return [s for i, v in enumerate(value) for s in _strings(v, (*path, i))]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(v, (*path, k))]
    return []


def _undeclared(path: tuple[Any, ...], text: str, names: set[str]) -> list[tuple[tuple[Any, ...], str]]:
    shown = ", ".join(sorted(names)) or "none"
    return [(path, f"${{{m.group(1)}}} names no tokenizer value (tokenizer_values declares: "
             f"{shown})") for m in USE.finditer(text) if m.group(1) not in names]


def entries(spec: Mapping[str, Any]) -> tuple[tuple[str, str | None, str | None, str], ...]:
    """The declarations as the format index holds them: (name, init_kwarg, vocabulary,
    default), in order."""
    return tuple((name, value.get("init_kwarg"), value.get("vocabulary"), value["default"])
                 for name, value in declared(spec).items())
