"""The compiler's model of a format: frozen, sorted, ready for code generation."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from parsergen.runtime.events import STATE_NAMES
from parsergen.runtime.lexicon import relevant_closure

from .bodies import tool_body
from .diagnostics import Path
from .loader import Positions
from .render import RenderIR, build_render
from .validate import (
    DEFAULT_CONTENT_EVENTS,
    initial_states,
    reachable_states,
    spellings,
    with_implicit_reasoning_ends,
)

STATE_IDS = {name: i for i, name in enumerate(STATE_NAMES)}

# vLLM's defaults for the assembly flags.
ASSEMBLY_DEFAULTS = {
    "strip_trailing_reasoning_whitespace": True,
    "drop_whitespace_only_content_before_tools": True,
    "strip_content_whitespace_with_tools": True,
    "validate_tool_names": False,
    "stream_arg_deltas": True,
}


@dataclass(frozen=True)
class TerminalIR:
    """A marker: its spellings (first is canonical), and how it is matched."""

    name: str
    spellings: tuple[str, ...]
    token_id: bool
    thinking_only: bool
    line: int
    at_start: bool = False


@dataclass(frozen=True)
class RuleIR:
    """One header rule: when its regex matches the header, go to ``target``."""

    when: str | None
    target: str
    emit: tuple[str, ...]


@dataclass(frozen=True)
class TransitionIR:
    """What a terminal does in one state (``rules``: decided by the message header)."""

    source: str
    terminal: str
    target: str
    emit: tuple[str, ...]
    line: int
    rules: tuple[RuleIR, ...] = ()


@dataclass(frozen=True)
class StateIR:
    """One state: its plain-text event and its transitions, sorted by terminal."""

    name: str
    id: int
    content_event: str | None
    content_line: int | None
    transitions: tuple[TransitionIR, ...]
    line: int | None


@dataclass(frozen=True)
class VariantIR:
    """The machine with thinking on or off: its terminals and initial state."""

    thinking: bool
    initial_state: str
    terminals: tuple[TerminalIR, ...]
    # per state id: names of terminals with a transition that exist in this variant
    live: tuple[tuple[int, tuple[str, ...]], ...]
    # per state id: literals a tokenizer-less scanner looks for (text mode)
    scanned: tuple[tuple[int, tuple[str, ...]], ...]

    @property
    def key(self) -> tuple:
        """Variants with equal keys share one lexicon."""
        return (self.terminals, self.live)


@dataclass(frozen=True)
class ReasoningIR:
    """The reasoning markers, by terminal name, and what depends on thinking."""

    start: tuple[str, ...]
    end: tuple[str, ...]
    implicit_end: tuple[str, ...]  # other terminals that end reasoning (a tool call)
    wait: tuple[bool, bool]  # wait for reasoning to end: thinking on, off
    start_opens: tuple[bool, bool]  # a start marker opens reasoning from the initial state
    newline_framing: bool


@dataclass(frozen=True)
class FormatIR:
    """Everything the generator needs for one format."""

    name: str
    description: str
    source: str
    sha256: str
    spec: Any
    states: tuple[StateIR, ...]
    variants: tuple[VariantIR, ...]  # (thinking on, thinking off)
    thinking_default: bool
    tool_body: str  # a name in runtime/bodies' BODIES
    # Line of the spec's tool_body, or of the arguments.syntax whose default it is
    # (None: neither is written); tool_body_defaulted says which.
    tool_body_line: int | None
    tool_body_defaulted: bool
    preserve_tokens: tuple[str, ...]
    reachable: tuple[str, ...]  # states some variant can be in, in state order
    arguments: dict[str, Any]
    assembly: dict[str, bool]  # every flag, defaults filled in
    tool_name_pattern: str | None
    reasoning: ReasoningIR | None
    turn_boundary_tokens: tuple[str, ...]
    aliases: tuple[str, ...]
    models: tuple[str, ...]
    models_line: int
    render: RenderIR


def _line(positions: Positions, path: Path) -> int:
    while path not in positions and path:
        path = path[:-1]
    return positions[path].line


def _body_line(spec: dict[str, Any], positions: Positions) -> int | None:
    """Where the tool body is chosen: its own line, or its argument syntax's."""
    if "tool_body" in spec:
        return _line(positions, ("tool_body",))
    if "arguments" in spec:
        return _line(positions, ("arguments", "syntax"))
    return None


def build_ir(spec: dict[str, Any], positions: Positions, source: str, sources_bytes: bytes) -> FormatIR:
    """Turn a validated spec into the IR."""
    spec = with_implicit_reasoning_ends(spec)
    terminals = tuple(
        TerminalIR(
            name=name,
            spellings=tuple(spellings(value)),
            token_id=isinstance(value, dict) and bool(value.get("token_id")),
            thinking_only=isinstance(value, dict) and bool(value.get("thinking_only")),
            line=_line(positions, ("terminals", name)),
            at_start=isinstance(value, dict) and bool(value.get("at_start")),
        )
        for name, value in sorted(spec["terminals"].items())
    )
    content_events = spec.get("content_events", DEFAULT_CONTENT_EVENTS)
    states = []
    for name in STATE_NAMES:
        table = spec["transitions"].get(name, {})
        transitions = []
        for term, value in table.items():  # spec order, as the reader wrote it
            if isinstance(value, list):
                rules = tuple(RuleIR(r.get("when"), r["to"], tuple(r.get("emit", ())))
                              for r in value)
                transitions.append(TransitionIR(
                    source=name, terminal=term, target=rules[0].target, emit=(),
                    line=_line(positions, ("transitions", name, term)), rules=rules))
                continue
            if isinstance(value, str):
                value = {"to": value}
            transitions.append(
                TransitionIR(
                    source=name,
                    terminal=term,
                    target=value["to"],
                    emit=tuple(value.get("emit", ())),
                    line=_line(positions, ("transitions", name, term)),
                )
            )
        has_events = "content_events" in spec and name in spec["content_events"]
        states.append(
            StateIR(
                name=name,
                id=STATE_IDS[name],
                content_event=content_events.get(name),
                content_line=_line(positions, ("content_events", name)) if has_events else None,
                transitions=tuple(transitions),
                line=_line(positions, ("transitions", name)) if table else None,
            )
        )
    toggles = isinstance(spec.get("initial_state"), dict)
    on, off = initial_states(spec)
    variants = (_variant(True, on, terminals, states), _variant(False, off, terminals, states))
    return FormatIR(
        name=spec["name"],
        description=spec["description"],
        source=source,
        sha256=hashlib.sha256(sources_bytes).hexdigest(),
        spec=spec,
        states=tuple(states),
        variants=variants,
        thinking_default=bool(spec.get("thinking_default", True)) if toggles else False,
        tool_body=tool_body(spec),
        tool_body_line=_body_line(spec, positions),
        tool_body_defaulted="tool_body" not in spec,
        preserve_tokens=tuple(sorted(spec.get("preserve_tokens", ()))),
        reachable=tuple(n for n in STATE_NAMES if n in reachable_states(spec)),
        arguments=dict(spec.get("arguments", {"syntax": "json"})),
        assembly={**ASSEMBLY_DEFAULTS, **spec.get("assembly", {})},
        tool_name_pattern=spec.get("tool_name", {}).get("pattern"),
        reasoning=_reasoning(spec, states, variants),
        turn_boundary_tokens=tuple(sorted(spec.get("turn_boundary_tokens", ()))),
        aliases=tuple(sorted(spec.get("aliases", ()))),
        models=tuple(spec.get("models", ())),
        models_line=_line(positions, ("models",)),
        render=build_render(spec, (on, off), tuple(
            frozenset(t.name for t in v.terminals) for v in variants)),
    )


def _reasoning(spec: dict[str, Any], states: list[StateIR],
               variants: tuple[VariantIR, VariantIR]) -> ReasoningIR | None:
    declared = spec.get("reasoning")
    if not declared:
        return None
    by_name = {s.name: s for s in states}
    end = tuple(declared["end"])
    implicit = tuple(sorted({tr.terminal for tr in by_name["REASONING"].transitions
                             if "REASONING_END" in tr.emit and tr.terminal not in end}))
    wait_spec = declared.get("wait")
    wait = tuple(
        (v.thinking if wait_spec == "thinking" else wait_spec) if wait_spec is not None
        else v.initial_state == "REASONING"
        for v in variants
    )
    start = tuple(declared["start"])
    start_opens = tuple(
        any(tr.terminal in start and tr.target == "REASONING"
            for tr in by_name[v.initial_state].transitions)
        for v in variants
    )
    return ReasoningIR(start, end, implicit, wait, start_opens,
                       bool(declared.get("newline_framing", False)))


def _variant(thinking: bool, initial: str, terminals: tuple[TerminalIR, ...],
             states: list[StateIR]) -> VariantIR:
    active = tuple(t for t in terminals if thinking or not t.thinking_only)
    names = {t.name for t in active if not t.at_start}
    literals = [lit for t in active if not t.at_start for lit in t.spellings]
    by_name = {t.name: t.spellings for t in active}
    live, scanned = [], []
    for state in states:
        if not state.transitions:
            continue
        state_live = tuple(tr.terminal for tr in state.transitions if tr.terminal in names)
        live.append((state.id, state_live))
        seen = relevant_closure([lit for n in state_live for lit in by_name[n]], literals)
        scanned.append((state.id, tuple(sorted(seen, key=lambda s: (-len(s), s)))))
    return VariantIR(thinking, initial, active, tuple(live), tuple(scanned))
