"""Check a loaded spec: first against the JSON Schema, then for meaning."""

from __future__ import annotations

import json
import keyword
import re
from functools import lru_cache
from typing import Any

from parsergen.runtime.bodies import BODIES

from .lower import (
    allowed_bodies,
    as_mapping,
    reachable_states,
    spellings,
    syntax,
)
from .diagnostics import Diagnostic, Path, Position, json_path
from .loader import Positions, bundled_grammars
from .patterns import NAME_CAPTURE
from .schema_errors import schema_problems
from .tokenizer_values import problems as tokenizer_value_problems



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
        """Schema errors, then semantic errors of every part whose shape is right."""
        self.check_schema()
        self.check_meaning()
        return sorted(set(self.diagnostics))

    def check_schema(self) -> None:
        for path, message in schema_problems(self.spec, schema()):
            self.error(path, message)

    # -- meaning -------------------------------------------------------------

    def check_meaning(self) -> None:
        """Checks that need the whole spec; parts the schema rejected are skipped."""
        spec = self.spec
        name = spec.get("name")
        if isinstance(name, str) and (keyword.iskeyword(name) or name.startswith("__")):
            self.error(("name",), f"{name!r} cannot be a module name")
        terminals = as_mapping(spec.get("terminals"))
        transitions = {k: as_mapping(v) for k, v in as_mapping(spec.get("transitions")).items()}
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
        self._check_followers(terminals)
        self._check_patterns(terminals, transitions)
        self._check_reachable(transitions)
        self._check_tool_name()
        self._check_cut_header()
        self._check_tool_body()
        self._check_header_rules(transitions, terminals)
        reasoning = as_mapping(spec.get("reasoning"))
        for key in ("start", "end"):
            names = reasoning.get(key)
            for i, term in enumerate(names if isinstance(names, list) else []):
                if isinstance(term, str) and term not in terminals:
                    self.error(("reasoning", key, i), f"unknown terminal {term!r}")
                elif isinstance(term, str) and "pattern" in as_mapping(terminals[term]):
                    self.error(("reasoning", key, i), f"{term!r} is a pattern terminal: "
                               "reasoning markers are literals (render writes them)")
        if "REASONING" in reachable_states(spec) and not reasoning:
            self.error(("transitions",), "the spec reaches REASONING: declare reasoning.start "
                       "and reasoning.end (its markers)")
        self._check_render(terminals)
        self._check_models()
        for path, message in tokenizer_value_problems(spec):
            self.error(path, message)
        if reasoning.get("calls_are_text") is True and reasoning.get("ended_by_tool_calls") is True:
            self.error(("reasoning", "calls_are_text"), "calls_are_text and ended_by_tool_calls "
                       "contradict each other: a call marker in reasoning is either text or a call")
        if reasoning.get("confirmed_by_end") is True:
            self._check_confirmed(reasoning)
        if reasoning.get("wait") == "thinking" and not isinstance(spec.get("initial_state"), dict):
            self.error(("reasoning", "wait"), "'thinking' needs an initial_state that depends "
                       "on thinking")

    def _check_confirmed(self, reasoning: Any) -> None:
        """A reasoning confirmed by its end is where the completion starts, and no marker
        opens it (text held from a start marker on could not be read again as content)."""
        initial = self.spec.get("initial_state")
        states = initial.values() if isinstance(initial, dict) else [initial]
        if any(s != "REASONING" for s in states):
            self.error(("reasoning", "confirmed_by_end"), "needs initial_state REASONING: "
                       "the completion's first text is what an end marker confirms")
        if reasoning.get("start"):
            self.error(("reasoning", "confirmed_by_end"), "needs reasoning.start []: a "
                       "reasoning that a marker opens is not confirmed by its end")
        for state, row in as_mapping(self.spec.get("transitions")).items():
            for name, go in as_mapping(row).items():
                target = go.get("to") if isinstance(go, dict) else go
                if target == "REASONING" and state != "REASONING":
                    self.error(("transitions", state, name), "leads into REASONING, which "
                               "reasoning.confirmed_by_end holds for the completion's start "
                               "only (text held after a marker could not be read again)")

    def _check_models(self) -> None:
        from parsergen.routing import pattern_errors

        models = self.spec.get("models")
        seen: dict[str, int] = {}
        for i, item in enumerate(models if isinstance(models, list) else []):
            path: Path = ("models", i) if isinstance(item, str) else ("models", i, "pattern")
            pattern = item if isinstance(item, str) else as_mapping(item).get("pattern")
            if not isinstance(pattern, str):
                continue  # the schema reported it
            for message in pattern_errors(pattern):
                self.error(path, f"pattern {pattern!r}: {message}")
            if pattern.lower() in seen:
                self.error(path, f"pattern {pattern!r} is listed twice (also entry "
                           f"{seen[pattern.lower()]})")
            seen.setdefault(pattern.lower(), i)

    def _check_render(self, terminals: dict[str, Any]) -> None:
        from .render import FIELDS, template_errors

        render = as_mapping(self.spec.get("render"))
        for key, template in render.items():
            if isinstance(template, str) and key in FIELDS:
                for message in template_errors(key, template, terminals):
                    self.error(("render", key), message)

    def _check_header_rules(self, transitions: dict[str, dict[str, Any]],
                            terminals: dict[str, Any]) -> None:
        for state, table in transitions.items():
            for term, value in table.items():
                if not isinstance(value, list):
                    continue
                path = ("transitions", state, term)
                if "pattern" in as_mapping(terminals.get(term)):
                    self._check_pattern_rules(state, term, value, terminals[term])
                    continue
                if state != "MESSAGE_HEADER":
                    self.error(path, "rules read the message header (only MESSAGE_HEADER "
                               "has one) or a pattern terminal's captures")
                for i, rule in enumerate(value):
                    if not isinstance(rule, dict):
                        continue
                    when = rule.get("when")
                    if when is None and i != len(value) - 1:
                        self.error((*path, i), "only the last rule may apply without 'when'")
                    if isinstance(when, dict):
                        self.error((*path, i, "when"), "a header rule's 'when' is a regular "
                                   "expression ({CAPTURE: REGEX} reads a pattern terminal)")
                        continue
                    if "name" in rule:
                        self.error((*path, i, "name"), "names a capture: only on a pattern "
                                   "terminal (a header rule's name is its group 'name')")
                    groups: set[str] = set()
                    if isinstance(when, str):
                        try:
                            groups = set(re.compile(when).groupindex)
                        except re.error as exc:
                            self.error((*path, i, "when"), f"not a regular expression: {exc}")
                            continue
                    if "TOOL_NAME" in rule.get("emit", []) and "name" not in groups:
                        self.error((*path, i, "when"), "TOOL_NAME needs a group (?P<name>...)")

    def _check_pattern_rules(self, state: str, term: str, rules: list[Any],
                             terminal: Any) -> None:
        """Rules on a pattern terminal: each reads captures the pattern has, and the
        capture a rule's TOOL_NAME gives out is one of them."""
        path = ("transitions", state, term)
        if state == "MESSAGE_HEADER":
            self.error(path, "in MESSAGE_HEADER rules read the header: a pattern "
                       "terminal's rules belong to another state")
            return
        captures = self._captures(terminal)
        for i, rule in enumerate(rules):
            if not isinstance(rule, dict):
                continue
            when = rule.get("when")
            if when is None and i != len(rules) - 1:
                self.error((*path, i), "only the last rule may apply without 'when'")
            if isinstance(when, str):
                self.error((*path, i, "when"), f"on pattern terminal {term!r}, 'when' "
                           "maps its captures to regexes: {CAPTURE: REGEX}")
                continue
            for group, regex in as_mapping(when).items():
                if captures is not None and group not in captures:
                    self.error((*path, i, "when", group), f"pattern terminal {term!r} has "
                               f"no capture {group!r} (it has: {_listing(captures)})")
                try:
                    re.compile(regex)
                except (re.error, TypeError) as exc:
                    self.error((*path, i, "when", group), f"not a regular expression: {exc}")
            self._check_capture_name(path + (i,), term, rule, captures)

    def _check_capture_name(self, path: Path, term: str, rule: dict[str, Any],
                            captures: set[str] | None) -> None:
        """TOOL_NAME from a pattern terminal needs the capture it names."""
        emits = "TOOL_NAME" in as_list(rule.get("emit"))
        group = rule.get("name", NAME_CAPTURE)
        if "name" in rule and not emits:
            self.error((*path, "name"), "names the call's capture, but this transition "
                       "does not emit TOOL_NAME")
        elif emits and captures is not None and group not in captures:
            self.error((*path, "name" if "name" in rule else "emit"),
                       f"TOOL_NAME from pattern terminal {term!r} needs a capture "
                       f"(?P<{group}>...) in its pattern")

    @staticmethod
    def _captures(terminal: Any) -> set[str] | None:
        """A pattern terminal's named captures (None: its regex is broken, reported)."""
        try:
            return set(re.compile(as_mapping(terminal).get("pattern", "")).groupindex)
        except (re.error, TypeError):
            return None

    def _check_tool_body(self) -> None:
        body = self.spec.get("tool_body")
        allowed = allowed_bodies(syntax(self.spec))
        if body not in BODIES or allowed is None or body in allowed:
            return  # absent (the syntax's default), or the schema's error already
        name = syntax(self.spec)
        where = (f"arguments.syntax {name!r} (line {self.where(('arguments', 'syntax')).line})"
                 if "arguments" in self.spec else f"the default arguments.syntax {name!r}")
        self.error(("tool_body",), f"{body!r} does not fit {where}, which allows: "
                   f"{', '.join(allowed)}")

    def _check_cut_header(self) -> None:
        pattern = self.spec.get("cut_header")
        if not isinstance(pattern, str):
            return
        try:
            re.compile(pattern)
        except re.error as exc:
            self.error(("cut_header",), f"not a regular expression: {exc}")

    def _check_tool_name(self) -> None:
        pattern = as_mapping(self.spec.get("tool_name")).get("pattern")
        if not isinstance(pattern, str):
            return
        path = ("tool_name", "pattern")
        try:
            groups = set(re.compile(pattern).groupindex)
        except re.error as exc:
            self.error(path, f"not a regular expression: {exc}")
            return
        if "name" not in groups:
            self.error(path, "needs a group (?P<name>...)")
        for extra in sorted(groups - {"name", "id"}):
            self.error(path, f"unknown group {extra!r} (only 'name' and 'id' are read)")

    def _check_literals(self, terminals: dict[str, Any]) -> None:
        # (A start-only terminal may share its text with one matched anywhere: they are
        # looked for in different places, the first text and the rest.)
        seen: dict[tuple[str, bool], str] = {}
        for term, value in terminals.items():
            start = isinstance(value, dict) and value.get("at_start") is True
            for i, lit in enumerate(spellings(value)):
                path: Path = ("terminals", term)
                if isinstance(value, dict):
                    many = isinstance(value.get("text"), list)
                    path = (*path, "text", i) if many else (*path, "text")
                other = seen.get((lit, start))
                if not _is_text(lit):
                    self.error(path, f"literal {lit!r} is not valid Unicode text (lone surrogates)")
                elif other is not None:
                    self.error(path, f"literal {lit!r} is already the text of terminal {other!r}")
                else:
                    seen[(lit, start)] = term

    def _check_followers(self, terminals: dict[str, Any]) -> None:
        """``followed_by`` names terminals of the spec, on a marker lexed anywhere;
        ``framing`` is not on a start-only marker."""
        for term, value in terminals.items():
            if (isinstance(value, dict) and value.get("at_start") is True
                    and isinstance(value.get("framing"), dict)):
                self.error(("terminals", term, "framing"),
                           "framing is read only where a state lexes the marker, "
                           "never for an at_start marker")
            followers = value.get("followed_by") if isinstance(value, dict) else None
            if not isinstance(followers, list):
                continue
            if value.get("at_start") is True:
                self.error(("terminals", term, "followed_by"),
                           "an at_start marker cannot also wait for a follower")
            if isinstance(value.get("framing"), dict) and "after" in value["framing"]:
                self.error(("terminals", term, "framing", "after"),
                           "a marker with followed_by has its follower right after it, "
                           "not framing")
            for i, other in enumerate(followers):
                if isinstance(other, str) and other not in terminals:
                    self.error(("terminals", term, "followed_by", i),
                               f"unknown terminal {other!r} (a text follower is {{text: ...}})")

    def _check_patterns(self, terminals: dict[str, Any],
                        transitions: dict[str, dict[str, Any]]) -> None:
        """A pattern terminal's regex can be matched while streaming, and its captures
        go where a transition hands them on."""
        from .patterns import pattern_shape

        for term, value in terminals.items():
            source = as_mapping(value).get("pattern")
            if not isinstance(source, str):
                continue  # (not a pattern, or the schema reported it)
            bound = as_mapping(value).get("max_length")
            try:
                shape = pattern_shape(source, bound if isinstance(bound, int) else None)
            except ValueError as exc:
                self.error(("terminals", term, "pattern"), f"pattern {source!r}: {exc}")
                continue
            named = NAME_CAPTURE in shape.captures
            for state, table in transitions.items():
                rule = table.get(term)
                if not isinstance(rule, (dict, str)):
                    continue  # (rules: _check_pattern_rules)
                emits = isinstance(rule, dict) and "TOOL_NAME" in as_list(rule.get("emit"))
                if named and not emits:
                    self.error(("transitions", state, term),
                               f"pattern terminal {term!r} captures a name, but this "
                               "transition does not emit TOOL_NAME: the name would be lost")
                elif isinstance(rule, dict):
                    self._check_capture_name(("transitions", state, term), term, rule,
                                             set(shape.captures))
        for state, table in transitions.items():
            for term, rule in table.items():
                if isinstance(rule, dict) and "name" in rule \
                        and "pattern" not in as_mapping(terminals.get(term)):
                    self.error(("transitions", state, term, "name"), "names a capture: "
                               f"only on a pattern terminal ({term!r} is a literal)")
        for term, value in terminals.items():
            for i, other in enumerate(as_list(as_mapping(value).get("followed_by"))):
                if isinstance(other, str) and "pattern" in as_mapping(terminals.get(other)):
                    self.error(("terminals", term, "followed_by", i),
                               f"{other!r} is a pattern terminal: a follower is a literal")

    def _check_thinking(self, terminals: dict[str, Any]) -> None:
        toggles = isinstance(self.spec.get("initial_state"), dict)
        for key in ("thinking_default", "thinking_switch"):
            if key in self.spec and not toggles:
                self.error((key,), "needs an initial_state that depends on thinking")
        for term, value in terminals.items():
            if isinstance(value, dict) and value.get("thinking_only") is True and not toggles:
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


def as_list(value: Any) -> list[Any]:
    """``value`` if it is a list, else an empty one (for specs that may be broken)."""
    return value if isinstance(value, list) else []


def _listing(names: set[str]) -> str:
    """Names for a message, sorted; "none" for no name."""
    return ", ".join(sorted(names)) or "none"


def _is_text(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def validate(spec: dict[str, Any], positions: Positions) -> list[Diagnostic]:
    """Every problem in ``spec``, sorted by position."""
    return SpecValidator(spec, positions).run()
