"""Pass: a lowered spec into the IR - states, transitions with their actions, terminals
and variants, reasoning, and every derived value with the spec line it comes from; the
passes ``whole_calls`` (runs of whole calls), ``lexers`` (how each state's text is
lexed) and ``whole_text`` (a parse's one pass) add theirs."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

from parsergen.index import ModelPattern
from parsergen.runtime.arguments import SYNTAXES
from parsergen.runtime.bodies import BODIES, ToolBody
from parsergen.runtime.events import STATE_NAMES
from parsergen.runtime.lexicon import relevant_closure

from .ir import (
    Action,
    DropText,
    Emit,
    EmitCapture,
    EmitText,
    EndFraming,
    EnterBody,
    EnterValues,
    FeedBody,
    FormatIR,
    FramingText,
    GoTo,
    KeepHeader,
    LeaveBody,
    NextCall,
    STATE_IDS,
    ReasoningIR,
    RuleIR,
    StateIR,
    TakeHeader,
    TerminalIR,
    TextAction,
    TransitionIR,
    VariantIR,
)
from . import tokenizer_values
from .diagnostics import json_path
from .gates import reasoning_gates
from .lexers import reads_values, state_lexers
from .lower import TOOL_STATE_NAMES, Lowered, reachable_states, with_implicit_reasoning_ends
from .patterns import NAME_CAPTURE, pattern_shape
from .render import RenderIR, build_render
from .whole_calls import by_spelling, call_programs
from .whole_text import whole_text


def build_ir(lowered: Lowered, source: str, sources_bytes: bytes) -> FormatIR:
    """Turn a lowered spec into the IR: every value explicit, every transition's actions."""
    spec, line = lowered.spec, lowered.line
    terminals = tuple(
        TerminalIR(
            name=name,
            spellings=tuple(value["text"]),
            token_id=value["token_id"],
            thinking_only=value["thinking_only"],
            line=line("terminals", name) or 0,
            at_start=value["at_start"],
            follower_names=tuple(f for f in value["followed_by"] if isinstance(f, str)),
            follower_texts=tuple(f["text"] for f in value["followed_by"]
                                 if not isinstance(f, str)),
            framing=(value["framing"]["before"], value["framing"]["after"]),
            pattern=(pattern_shape(value["pattern"]["source"], value["pattern"]["max_length"])
                     if value["pattern"] else None),
        )
        for name, value in sorted(spec["terminals"].items())
    )
    patterns = frozenset(t.name for t in terminals if t.pattern is not None)
    body = BODIES[spec["tool_body"]]
    syntax = SYNTAXES[spec["arguments"]["syntax"]](spec["arguments"])
    # (Whether TOOL_ARGS text goes through the value scanner: the entering transitions
    # start it, EnterValues.)
    values = reads_values(syntax, any(
        not spec["terminals"][term]["at_start"]
        for term in spec["transitions"].get("TOOL_ARGS", {})))
    on_names, off_names = (
        frozenset(n for n, v in spec["terminals"].items() if on or not v["thinking_only"])
        for on in (True, False))
    render = build_render(spec, (spec["initial_state"]["thinking"],
                                 spec["initial_state"]["otherwise"]), (on_names, off_names))
    punctuation = _framing_punctuation(render)
    written_events = lowered.source.get("content_events", {})
    header_read = any(isinstance(v, list)
                      for v in spec["transitions"].get("MESSAGE_HEADER", {}).values())
    states = []
    rule_lines: dict[str, int | None] = {}
    for name in STATE_NAMES:
        table = spec["transitions"].get(name, {})
        transitions = []
        action = _text_action(name, spec["content_events"].get(name), body,
                              name in written_events, punctuation)
        framing = isinstance(action, FramingText)
        for term, value in table.items():  # spec order, as the reader wrote it
            where = line("transitions", name, term) or 0
            if isinstance(value, list):
                # (Where each rule's regex is written, for the Rust backend's errors.)
                rule_lines.update({json_path(("transitions", name, term, i, "when")):
                                   line("transitions", name, term, i, "when")
                                   for i in range(len(value))})
                rules = tuple(_rule(name, term, r, body, values, term in patterns)
                              for r in value)
                targets = [r.target for r in rules]
                transitions.append(TransitionIR(
                    source=name, terminal=term, target=rules[0].target, emit=(), line=where,
                    rules=rules, actions=_leaving(name, targets, True, body, framing)))
                continue
            emit = tuple(value["emit"])
            if name == "MESSAGE_HEADER" and "TEXT_CHUNK" not in emit:
                # No rule reads the header here: its text was text after all.
                emit = ("TEXT_CHUNK", *emit)
            transitions.append(TransitionIR(
                source=name, terminal=term, target=value["to"], emit=emit, line=where,
                actions=(*_leaving(name, [value["to"]], "TEXT_CHUNK" in emit, body, framing),
                         *_entering(name, value["to"], emit, body, values,
                                    term if term in patterns else None,
                                    value.get("name", NAME_CAPTURE)))))
        event = spec["content_events"].get(name)
        states.append(
            StateIR(
                name=name,
                id=STATE_IDS[name],
                content_event=event,
                content_line=(line("content_events", name)
                              if name in lowered.source.get("content_events", {}) else None),
                transitions=tuple(transitions),
                line=line("transitions", name) if table else None,
                text_action=action,
            )
        )
    on, off = spec["initial_state"]["thinking"], spec["initial_state"]["otherwise"]
    reachable = tuple(n for n in STATE_NAMES if n in reachable_states(spec))
    variants = (_variant(True, on, terminals, states), _variant(False, off, terminals, states))
    lines: dict[str, int | None] = {
        key: line(key) for key in ("arguments", "initial_state", "thinking_default",
                                   "preserve_tokens", "turn_boundary_tokens", "tool_name",
                                   "cut_header",
                                   "thinking_switch", "reasoning", "render")
    }
    lines["render.call"] = line("render", "call")
    lines.update(rule_lines)
    closers = _call_closers(states)
    openers = _call_openers(states)
    lines.update({f"assembly.{flag}": line("assembly", flag)
                  for flag in spec["assembly"]
                  if flag in lowered.source.get("assembly", {})})
    lines.update({f"reasoning.{key}": line("reasoning", key)
                  for key in spec.get("reasoning", ())
                  if key in lowered.source.get("reasoning", {})})
    lines["tool_body"] = line("tool_body") or line("arguments", "syntax")
    states_ir = tuple(states)
    reasoning = _reasoning(spec, states, variants, line("reasoning"))
    # (A run of whole calls is read with literal markers: where a pattern may be a
    # marker, every state is lexed as while streaming.)
    programs = () if patterns else call_programs(states_ir, body, syntax, render, terminals,
                                                 line("tool_body"), values)
    lexing, parse_lexing = state_lexers(states_ir, reachable, variants, reasoning, body,
                                        values, programs,
                                        reasoning_gates(states_ir, terminals, render))
    return FormatIR(
        name=spec["name"],
        description=spec["description"],
        source=source,
        sha256=hashlib.sha256(sources_bytes).hexdigest(),
        spec=with_implicit_reasoning_ends(lowered.source),
        states=states_ir,
        variants=variants,
        thinking_default=spec["thinking_default"],
        tool_body=spec["tool_body"],
        tool_body_line=lines["tool_body"],
        tool_body_defaulted="tool_body" not in lowered.written,
        body_class=body.__name__ if "TOOL_ARGS" in reachable else None,
        syntax_class=type(syntax).__name__,
        call_closers=closers,
        call_openers=openers,
        call_trailers=_call_trailers(render, terminals, tuple(c[0] for c in closers)),
        name_lead=_name_lead(render),
        name_tail=_name_tail(render),
        arguments_end_call=(render.call or ((),))[-1] == ("field", "arguments"),
        call_programs=programs,
        lexing=lexing,
        parse_lexing=parse_lexing,
        whole_text=whole_text(tuple(variants), states_ir, parse_lexing),
        preserve_tokens=tuple(sorted(spec["preserve_tokens"])),
        reachable=reachable,
        arguments=dict(spec["arguments"]),
        assembly=dict(spec["assembly"]),
        tool_name_pattern=spec["tool_name"].get("pattern"),
        tool_name_entities=spec["tool_name"].get("entities"),
        tool_name_glued_prefix=spec["tool_name"].get("glued_prefix"),
        reasoning=reasoning,
        turn_boundary_tokens=tuple(sorted(spec["turn_boundary_tokens"])),
        cut_header=spec["cut_header"],
        aliases=tuple(sorted(spec["aliases"])),
        models=tuple(ModelPattern(m["pattern"], m["thinking"]) for m in spec["models"]),
        models_line=line("models") or 1,
        model_lines=tuple(line("models", i) or line("models") or 1
                          for i in range(len(spec["models"]))),
        render=render,
        thinking_switch=tuple((e["key"], e["on"], e["off"]) for e in spec["thinking_switch"]),
        tokenizer_values=tokenizer_values.entries(spec),
        lines=lines,
        framing_punctuation=punctuation,
        spec_dropped=tuple(s.name for s in states if s.name in reachable and (
            isinstance(s.text_action, DropText)
            or s.name == "MESSAGE_HEADER" and header_read)),
    )


def _acts(body: type[ToolBody], method: str) -> bool:
    """Whether the body class acts in ``method`` (ToolBody's own does nothing)."""
    return getattr(body, method) is not getattr(ToolBody, method)


def _leaving(source: str, targets: list[str], keep_header: bool,
             body: type[ToolBody], framing: bool) -> tuple[Action, ...]:
    """What a transition does first, before it enters anything: close the state it leaves."""
    out: list[Action] = [EndFraming()] if framing else []
    if source == "TOOL_ARGS" and any(t != "TOOL_ARGS" for t in targets) and _acts(body, "leave"):
        out.append(LeaveBody())
    if source == "MESSAGE_HEADER":
        # The header text is read by header rules and given out as TEXT_CHUNK.
        out.append(TakeHeader(keep=keep_header))
    return tuple(out)


def _rule(source: str, term: str, rule: dict[str, Any], body: type[ToolBody], values: bool,
          pattern: bool) -> RuleIR:
    """One rule of a header (its ``when`` a regex) or of a pattern terminal (its
    ``when`` a regex per capture)."""
    emit = tuple(rule["emit"])
    if pattern:
        when = rule["when"] or {}
        return RuleIR(None, rule["to"], emit,
                      _entering(source, rule["to"], emit, body, values, term,
                                rule.get("name", NAME_CAPTURE)),
                      tuple(when.items()))
    return RuleIR(rule["when"], rule["to"], emit,
                  _entering(source, rule["to"], emit, body, values,
                            "name" if rule["when"] is not None else None))


def _entering(source: str, target: str, emit: tuple[str, ...], body: type[ToolBody],
              values: bool, name_group: str | None,
              capture: str = NAME_CAPTURE) -> tuple[Action, ...]:
    """Move to ``target`` and emit ``emit``; ``values``: TOOL_ARGS text goes through the
    value scanner, which starts with the marker's text; ``name_group``: TOOL_NAME comes
    from the header rule's match ("name") or from pattern terminal ``name_group``'s
    ``capture``."""
    out: list[Action] = []
    if target != source:
        out.append(GoTo(target))
    for event in emit:
        if event == "TOOL_CALL_START":
            out.append(NextCall())
        if event == "TEXT_CHUNK":
            out.append(Emit(event, "header" if source == "MESSAGE_HEADER" else "value"))
        elif event == "TOOL_NAME" and name_group == "name":
            out.append(Emit(event, name_group))
        elif event == "TOOL_NAME" and name_group is not None:
            out.append(EmitCapture(event, name_group, capture))
        else:
            out.append(Emit(event, "value"))
    if target == "TOOL_ARGS" and _acts(body, "enter"):
        out.append(EnterBody("ARG_VALUE_CHUNK" in emit))
    if target == "TOOL_ARGS" and source != "TOOL_ARGS" and values:
        out.append(EnterValues())
    return tuple(out)


def _name_lead(render: RenderIR) -> str:
    """The literal text the render's call template writes right before the name (after
    the call's markers), stripped: part of the name's text as the model writes it."""
    parts = list(render.call or ())
    if ("field", "name") not in parts:
        return ""
    lead: list[str] = []
    for kind, text in reversed(parts[: parts.index(("field", "name"))]):
        if kind != "text":
            break
        lead.insert(0, text)
    return "".join(lead).strip()  # (a name's text is judged stripped)


def _name_tail(render: RenderIR) -> str:
    """The literal text the render's call template writes right after the name, up to
    the next field or with the first marker's spelling (what may follow a name)."""
    parts = list(render.call or ())
    if ("field", "name") not in parts:
        return ""
    tail: list[str] = []
    for kind, text in parts[parts.index(("field", "name")) + 1:]:
        if kind == "field":
            break
        tail.append(text)
        if kind == "marker":
            break
    return "".join(tail)


def _call_trailers(render: RenderIR, terminals: tuple[TerminalIR, ...],
                   closers: tuple[str, ...]) -> tuple[str, ...]:
    """The terminals of the markers the render's call template writes after the call's
    arguments and the first marker after them that ends the call from TOOL_ARGS (a
    marker with several terminals is none: the lexer tells which it was)."""
    named = by_spelling(terminals)
    out: list[str] = []
    stage = "arguments"  # then "end", then "after"
    for kind, text in render.call or ():
        if stage == "arguments":
            stage = "end" if (kind, text) == ("field", "arguments") else stage
        elif kind == "marker" and len(named.get(text, ())) == 1:
            terminal = named[text][0].name
            if stage == "after":
                out.append(terminal)
            elif terminal in closers:
                stage = "after"
    return tuple(sorted(set(out)))


def _call_closers(states: list[StateIR]) -> tuple[tuple[str, str, int], ...]:
    """Terminals that end the open call from TOOL_ARGS without starting another: (name,
    the state it leads to, its transition's line)."""
    out = []
    for tr, ways in _args_transitions(states):
        if all(target != "TOOL_ARGS" and "TOOL_CALL_END" in emit
               and "TOOL_CALL_START" not in emit for target, emit in ways):
            out.append((tr.terminal, ways[0][0], tr.line))
    return tuple(sorted(out))


def _args_transitions(states: list[StateIR]) -> Iterator[tuple[Any, list[tuple[str, Any]]]]:
    """TOOL_ARGS's transitions, each with its ways out: (target, events) of each rule,
    or of the transition itself."""
    for state in states:
        if state.name != "TOOL_ARGS":
            continue
        for tr in state.transitions:
            yield tr, [(r.target, r.emit) for r in tr.rules] if tr.rules else [(tr.target, tr.emit)]


def _call_openers(states: list[StateIR]) -> tuple[tuple[str, tuple[str, ...], int], ...]:
    """Terminals that end the open call from TOOL_ARGS and start the next one in a state
    that reads its name (qwen3's ``<function=``): (name, the terminals that end the name
    there and lead back to TOOL_ARGS, its transition's line).  Inside a value, what
    follows one decides whether a call starts (runtime/value_gate.py)."""
    by_name = {state.name: state for state in states}
    out = []
    for tr, ways in _args_transitions(states):
        targets = {target for target, emit in ways
                   if "TOOL_CALL_END" in emit and "TOOL_CALL_START" in emit}
        if len(targets) != 1 or len(ways) != 1:
            continue
        named = by_name.get(ways[0][0])
        if named is None or named.name == "TOOL_ARGS":
            continue
        ends = tuple(sorted(
            t.terminal for t in named.transitions if not t.rules
            and t.target == "TOOL_ARGS" and "TOOL_CALL_START" not in t.emit))
        if ends:
            out.append((tr.terminal, ends, tr.line))
    return tuple(sorted(out))


def _text_action(state: str, event: str | None, body: type[ToolBody], written: bool,
                 punctuation: str) -> TextAction:
    if state == "TOOL_ARGS":
        # A plain body's text is argument text as it is: inline, and a fast-path state.
        return EmitText("ARG_VALUE_CHUNK") if body.plain else FeedBody()
    if state == "MESSAGE_HEADER":
        return KeepHeader()
    if event is not None:
        return EmitText(event)
    # Text with no event: dropped only where the spec says so; elsewhere only
    # whitespace and the format's own punctuation may be framing.
    return DropText() if written else FramingText(punctuation)


def _framing_punctuation(render: RenderIR) -> str:
    """The punctuation the format writes around and between its calls (outside markers)."""
    chars = {c for parts in (render.calls_open, render.separator, render.calls_close)
             for kind, text in parts if kind == "text" for c in text
             if not c.isspace() and not c.isalnum()}
    return "".join(sorted(chars))


def _reasoning(spec: dict[str, Any], states: list[StateIR],
               variants: tuple[VariantIR, VariantIR], line: int | None) -> ReasoningIR | None:
    declared = spec.get("reasoning")
    if not declared:
        return None
    by_name = {s.name: s for s in states}
    end = tuple(declared["end"])
    implicit = tuple(sorted({tr.terminal for tr in by_name["REASONING"].transitions
                             if "REASONING_END" in tr.emit and tr.terminal not in end}))
    if declared["calls_are_text"]:
        # No call starts in REASONING, but a call's start in content still ends the
        # wait for reasoning (as in vLLM): the runtime skips those inside reasoning.
        content = by_name["CONTENT"].transitions if "CONTENT" in by_name else ()
        implicit = tuple(sorted({tr.terminal for tr in content
                                 if tr.target in TOOL_STATE_NAMES and tr.terminal not in end}))
    wait_spec = declared.get("wait")
    wait_on, wait_off = (
        bool(v.thinking if wait_spec == "thinking" else wait_spec) if wait_spec is not None
        else v.initial_state == "REASONING"
        for v in variants
    )
    start = tuple(declared["start"])
    opens_on, opens_off = (
        any(tr.terminal in start and tr.target == "REASONING"
            for tr in by_name[v.initial_state].transitions)
        for v in variants
    )
    return ReasoningIR(start, end, implicit, (wait_on, wait_off), (opens_on, opens_off),
                       bool(declared.get("newline_framing", False)),
                       declared["start_optional"], declared["calls_are_text"],
                       declared["confirmed_by_end"], line)


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
