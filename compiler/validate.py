"""Check a loaded spec: first against the JSON Schema, then for meaning."""

from __future__ import annotations

import json
import keyword
from functools import lru_cache
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match

from .diagnostics import Diagnostic, Path, Position, json_path
from .loader import Positions, bundled_grammars

DEFAULT_CONTENT_EVENTS = {
    "CONTENT": "TEXT_CHUNK",
    "REASONING": "REASONING_CHUNK",
    "TOOL_NAME": "TOOL_NAME",
}


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The JSON Schema every spec obeys."""
    return json.loads((bundled_grammars() / "schema.json").read_text(encoding="utf-8"))


class SpecValidator:
    """Collects every problem of one spec, each tied to its file position."""

    def __init__(self, spec: dict[str, Any], positions: Positions) -> None:
        self.spec = spec
        self.positions = positions
        self.diagnostics: list[Diagnostic] = []

    def where(self, path: Path) -> Position:
        """Position of ``path``, or of its nearest ancestor that has one."""
        while path not in self.positions and path:
            path = path[:-1]
        return self.positions[path]

    def error(self, path: Path, message: str) -> None:
        self.diagnostics.append(Diagnostic(self.where(path), json_path(path), message))

    def run(self) -> list[Diagnostic]:
        """Schema errors; semantic checks only when the shape is right."""
        self.check_schema()
        if not self.diagnostics:
            self.check_meaning()
        return sorted(set(self.diagnostics))

    def check_schema(self) -> None:
        validator = Draft202012Validator(schema())
        for err in validator.iter_errors(self.spec):
            self._report(err)

    def _report(self, err: ValidationError) -> None:
        if err.context:
            leaf = best_match(err.context)
            if leaf is not None:
                err = leaf
        path = tuple(err.absolute_path)
        if err.validator == "additionalProperties" and isinstance(err.instance, dict):
            allowed = set(err.schema.get("properties", {}))
            for key in sorted(k for k in err.instance if k not in allowed):
                hint = f" (expected one of: {', '.join(sorted(allowed))})" if allowed else ""
                self.error((*path, key), f"unknown key {key!r}{hint}")
            return
        if err.validator == "required":
            self.error(path, err.message.replace("is a required property", "is required"))
            return
        if err.validator == "propertyNames":
            # jsonschema reports the mapping; point at the offending key instead.
            bad = err.instance if isinstance(err.instance, str) else None
            if bad is not None:
                self.error((*path, bad), f"{bad!r} is not allowed here: {err.message}")
                return
        self.error(path, err.message)

    # -- meaning -------------------------------------------------------------

    def check_meaning(self) -> None:
        spec = self.spec
        name = spec["name"]
        if keyword.iskeyword(name) or name.startswith("__"):
            self.error(("name",), f"{name!r} cannot be a module name")
        terminals: dict[str, Any] = spec["terminals"]
        transitions: dict[str, dict[str, Any]] = spec["transitions"]
        self._check_literals(terminals)
        used: set[str] = set()
        for state, table in transitions.items():
            for term in table:
                used.add(term)
                if term not in terminals:
                    self.error(("transitions", state, term), f"unknown terminal {term!r}")
        for term in terminals:
            if term not in used:
                self.error(("terminals", term), f"terminal {term!r} is declared but no "
                           "transition uses it")
        self._check_thinking(terminals)
        self._check_reachable(transitions)

    def _check_literals(self, terminals: dict[str, Any]) -> None:
        seen: dict[str, str] = {}
        for term, value in terminals.items():
            for i, lit in enumerate(spellings(value)):
                path: Path = ("terminals", term)
                if isinstance(value, dict):
                    path = (*path, "text", i) if isinstance(value["text"], list) else (*path, "text")
                other = seen.get(lit)
                if other is not None:
                    self.error(path, f"literal {lit!r} is already the text of terminal {other!r}")
                else:
                    seen[lit] = term

    def _check_thinking(self, terminals: dict[str, Any]) -> None:
        toggles = isinstance(self.spec.get("initial_state"), dict)
        if "thinking_default" in self.spec and not toggles:
            self.error(("thinking_default",), "needs an initial_state that depends on thinking")
        for term, value in terminals.items():
            if isinstance(value, dict) and value.get("thinking_only") and not toggles:
                self.error(("terminals", term, "thinking_only"),
                           "needs an initial_state that depends on thinking")

    def _check_reachable(self, transitions: dict[str, dict[str, Any]]) -> None:
        reached = reachable_states(self.spec)
        for state in transitions:
            if state not in reached:
                self.error(("transitions", state), f"state {state} is unreachable from the "
                           "initial state")
        for state in self.spec.get("content_events", {}):
            if state not in reached:
                self.error(("content_events", state), f"state {state} is unreachable from the "
                           "initial state")


def initial_states(spec: dict[str, Any]) -> tuple[str, str]:
    """Initial state with thinking on, and with thinking off."""
    init = spec.get("initial_state", "CONTENT")
    return (init["thinking"], init["otherwise"]) if isinstance(init, dict) else (init, init)


def reachable_states(spec: dict[str, Any]) -> set[str]:
    """States reachable from either initial state through the transitions."""
    reached = set(initial_states(spec))
    frontier = list(reached)
    while frontier:
        for target in spec["transitions"].get(frontier.pop(), {}).values():
            nxt = target if isinstance(target, str) else target["to"]
            if nxt not in reached:
                reached.add(nxt)
                frontier.append(nxt)
    return reached


def spellings(value: Any) -> list[str]:
    """All literal spellings of a terminal declaration."""
    if isinstance(value, str):
        return [value]
    text = value["text"]
    return list(text) if isinstance(text, list) else [text]


def validate(spec: dict[str, Any], positions: Positions) -> list[Diagnostic]:
    """Every problem in ``spec``, sorted by position."""
    return SpecValidator(spec, positions).run()
