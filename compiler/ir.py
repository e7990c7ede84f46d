"""The compiler's model of a format: frozen, sorted, ready for code generation."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from parsergen.index import ModelPattern
from parsergen.runtime.events import STATE_NAMES
from parsergen.runtime.lexicon import relevant_closure

from parsergen.runtime.arguments import SYNTAXES, ArgumentSyntax
from parsergen.runtime.bodies import BODIES, ToolBody

from .lower import TOOL_STATE_NAMES, Lowered, reachable_states, with_implicit_reasoning_ends
from .render import RenderIR, build_render

STATE_IDS = {name: i for i, name in enumerate(STATE_NAMES)}


# -- actions: what a transition does, in order (the generator prints each one) ------


@dataclass(frozen=True)
class LeaveBody:
    """A marker leaves TOOL_ARGS: the tool body flushes and closes (``ToolBody.leave``)."""


@dataclass(frozen=True)
class TakeHeader:
    """MESSAGE_HEADER ends: its text is cleared, and kept first when ``keep`` (rules or a
    TEXT_CHUNK read it)."""

    keep: bool


@dataclass(frozen=True)
class EndFraming:
    """A marker ends a framing state's text (``StreamingParserBase.end_framing``)."""


@dataclass(frozen=True)
class GoTo:
    """The parser moves to state ``target``."""

    target: str


@dataclass(frozen=True)
class NextCall:
    """A call starts: the tool index moves on (before TOOL_CALL_START goes out)."""


@dataclass(frozen=True)
class Emit:
    """Event ``event`` goes out with ``text``: the terminal's ``value``, the ``header``,
    or the header rule's ``name`` group; a TEXT_CHUNK only when the text is not empty."""

    event: str
    text: str


@dataclass(frozen=True)
class EnterBody:
    """TOOL_ARGS is entered: the tool body begins (``ToolBody.enter``); ``in_arguments``:
    the marker's text went out as argument text."""

    in_arguments: bool


Action = LeaveBody | TakeHeader | EndFraming | GoTo | NextCall | Emit | EnterBody


# -- what plain text does in a state ------------------------------------------------


@dataclass(frozen=True)
class EmitText:
    """Plain text is one ``event`` chunk as it is (a state the driver's fast path takes)."""

    event: str


@dataclass(frozen=True)
class FeedBody:
    """Plain TOOL_ARGS text goes to the tool body."""


@dataclass(frozen=True)
class KeepHeader:
    """MESSAGE_HEADER text is kept until a transition reads it."""


@dataclass(frozen=True)
class FramingText:
    """Text of a state with no event: whitespace and ``punctuation`` (the characters the
    format writes between its calls) are framing, any other text is content."""

    punctuation: str


@dataclass(frozen=True)
class DropText:
    """Text the spec drops on purpose (``content_events: {STATE: null}``)."""


TextAction = EmitText | FeedBody | KeepHeader | FramingText | DropText


@dataclass(frozen=True)
class TerminalIR:
    """A marker: its spellings (first is canonical), and how it is matched."""

    name: str
    spellings: tuple[str, ...]
    token_id: bool
    thinking_only: bool
    line: int
    at_start: bool = False
    # followed_by: the follower terminals' names and the follower texts.
    follower_names: tuple[str, ...] = ()
    follower_texts: tuple[str, ...] = ()
    # framing: the text right before and right after the marker that is part of it.
    framing: tuple[str, str] = ("", "")


@dataclass(frozen=True)
class RuleIR:
    """One header rule: when its regex matches the header, go to ``target``."""

    when: str | None
    target: str
    emit: tuple[str, ...]
    actions: tuple[Action, ...] = ()


@dataclass(frozen=True)
class TransitionIR:
    """What a terminal does in one state (``rules``: decided by the message header)."""

    source: str
    terminal: str
    target: str
    emit: tuple[str, ...]
    line: int
    rules: tuple[RuleIR, ...] = ()
    # Done first (before the rules, if any), in order; a rule's own follow.
    actions: tuple[Action, ...] = ()


@dataclass(frozen=True)
class CallStepIR:
    """One step of a call read whole: in state ``source``, text of ``role`` ("between":
    the run state's own text before a call; "name": the call's name ("name, arguments":
    the terminal's text starts the arguments); "arguments": its TOOL_ARGS text; "": none
    but ``framing``, the whitespace the render writes there),
    then terminal ``terminal`` (its transition's line); ``passes``: terminals that stay
    in the state, their text the role's (an element syntax's tags)."""

    source: str
    source_id: int
    role: str
    terminal: str
    line: int
    framing: str = ""
    passes: tuple[str, ...] = ()


@dataclass(frozen=True)
class CallRunIR:
    """Calls that may be read whole, one after another, in ``state``: the render's call
    markers walked through the machine, the first starting a call (TOOL_CALL_START, and
    nothing else), the last ending it (TOOL_CALL_END) back in ``state``, those between
    only moving on; the text between markers is the name, the arguments, or none.  Or,
    from a framing state a section of calls opens into, one call ending in ``ends``, a
    framing state whose own run reads the calls after it."""

    state: str
    state_id: int
    steps: tuple[CallStepIR, ...]
    ends: str
    ends_id: int

    @property
    def moves(self) -> bool:
        """Whether its call ends in another state."""
        return self.ends != self.state


@dataclass(frozen=True)
class ObjectRunIR:
    """Calls that are one JSON object each and may be read whole, one after another:
    from ``state``, each of ``starts`` (terminal, its text opens the object, its line)
    enters TOOL_ARGS with a TOOL_CALL_START, the object's closing brace ends the call
    (the body's ``exits_to``: ``after``, a framing state, line ``after_line``) and the
    next call starts from there."""

    state: str
    state_id: int
    starts: tuple[tuple[str, bool, int], ...]
    after: str
    after_id: int
    after_line: int | None


@dataclass(frozen=True)
class StateIR:
    """One state: its plain-text event and its transitions, sorted by terminal."""

    name: str
    id: int
    content_event: str | None
    content_line: int | None
    transitions: tuple[TransitionIR, ...]
    line: int | None
    text_action: TextAction | None = None  # what its plain text does (None: nothing)


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
    start_optional: bool  # a prompt without a marker keeps the initial state
    calls_are_text: bool  # REASONING has no transitions into tool states
    line: int | None  # the spec's reasoning section


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
    body_class: str | None  # the runtime class of tool_body (None: no TOOL_ARGS)
    syntax_class: str  # the runtime class of arguments.syntax
    # Terminals whose transition from TOOL_ARGS ends the call (and starts none): inside
    # an ambiguous argument value, what follows one decides (runtime/arguments/values.py).
    call_closers: tuple[str, ...]
    # Terminals the render's call template writes after the marker that ends the call
    # (Step-3's <｜tool_call_end｜> after </steptml:invoke>): read with no call open,
    # they close the call before, never lead into the next (runtime: ToolCalls.settle).
    call_trailers: tuple[str, ...]
    # Where a parse may read a run of whole calls at once (runtime: the driver's
    # CALL_RUNS): per state, the steps of one call.
    call_runs: tuple[CallRunIR, ...]
    # Where a parse may read a run of calls that are one JSON object each (runtime: the
    # driver's OBJECT_RUNS).
    object_runs: tuple[ObjectRunIR, ...]
    preserve_tokens: tuple[str, ...]
    reachable: tuple[str, ...]  # states some variant can be in, in state order
    arguments: dict[str, Any]
    assembly: dict[str, bool]  # every flag, defaults filled in
    tool_name_pattern: str | None
    tool_name_entities: str | None  # character references decoded in names ("xml")
    tool_name_glued_prefix: str | None  # a name's prefix when its separators were lost
    reasoning: ReasoningIR | None
    turn_boundary_tokens: tuple[str, ...]
    cut_header: str | None  # regex: a MESSAGE_HEADER the completion ends in that is framing
    aliases: tuple[str, ...]
    models: tuple[ModelPattern, ...]
    models_line: int
    model_lines: tuple[int, ...]  # the spec line of each models entry
    render: RenderIR
    thinking_switch: tuple[tuple[str, Any], ...]  # (key, value that means on; None: truthy)
    # Where derived values come from: a name (``arguments``, ``assembly.<flag>``,
    # ``initial_state``, ...) -> its spec line, None for a default.
    lines: dict[str, int | None]
    framing_punctuation: str = ""  # framing besides whitespace in framing states
    # States whose text the spec gives no event on purpose (an explicit null content
    # event, a header that rules read): not framing.
    spec_dropped: tuple[str, ...] = ()

    def cite(self, key: str) -> str:
        """``line N`` of a derived value, or ``default`` (for generated comments)."""
        line = self.lines.get(key)
        return "default" if line is None else f"line {line}"


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
        )
        for name, value in sorted(spec["terminals"].items())
    )
    body = BODIES[spec["tool_body"]]
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
    for name in STATE_NAMES:
        table = spec["transitions"].get(name, {})
        transitions = []
        action = _text_action(name, spec["content_events"].get(name), body,
                              name in written_events, punctuation)
        framing = isinstance(action, FramingText)
        for term, value in table.items():  # spec order, as the reader wrote it
            where = line("transitions", name, term) or 0
            if isinstance(value, list):
                rules = tuple(RuleIR(r["when"], r["to"], tuple(r["emit"]),
                                     _entering(name, r["to"], tuple(r["emit"]), body,
                                               "name" if r["when"] is not None else None))
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
                         *_entering(name, value["to"], emit, body, None))))
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
    closers = _call_closers(states)
    lines.update({f"assembly.{flag}": line("assembly", flag)
                  for flag in spec["assembly"]
                  if flag in lowered.source.get("assembly", {})})
    lines.update({f"reasoning.{key}": line("reasoning", key)
                  for key in spec.get("reasoning", ())
                  if key in lowered.source.get("reasoning", {})})
    lines["tool_body"] = line("tool_body") or line("arguments", "syntax")
    syntax = SYNTAXES[spec["arguments"]["syntax"]](spec["arguments"])
    return FormatIR(
        name=spec["name"],
        description=spec["description"],
        source=source,
        sha256=hashlib.sha256(sources_bytes).hexdigest(),
        spec=with_implicit_reasoning_ends(lowered.source),
        states=tuple(states),
        variants=variants,
        thinking_default=spec["thinking_default"],
        tool_body=spec["tool_body"],
        tool_body_line=lines["tool_body"],
        tool_body_defaulted="tool_body" not in lowered.written,
        body_class=body.__name__ if "TOOL_ARGS" in reachable else None,
        syntax_class=type(syntax).__name__,
        call_closers=closers,
        call_trailers=_call_trailers(render, terminals, closers),
        call_runs=_call_runs(states, body, syntax, render, terminals),
        object_runs=_object_runs(states, body, syntax.names_call,
                                 line("tool_body")),
        preserve_tokens=tuple(sorted(spec["preserve_tokens"])),
        reachable=reachable,
        arguments=dict(spec["arguments"]),
        assembly=dict(spec["assembly"]),
        tool_name_pattern=spec["tool_name"].get("pattern"),
        tool_name_entities=spec["tool_name"].get("entities"),
        tool_name_glued_prefix=spec["tool_name"].get("glued_prefix"),
        reasoning=_reasoning(spec, states, variants, line("reasoning")),
        turn_boundary_tokens=tuple(sorted(spec["turn_boundary_tokens"])),
        cut_header=spec["cut_header"],
        aliases=tuple(sorted(spec["aliases"])),
        models=tuple(ModelPattern(m["pattern"], m["thinking"]) for m in spec["models"]),
        models_line=line("models") or 1,
        model_lines=tuple(line("models", i) or line("models") or 1
                          for i in range(len(spec["models"]))),
        render=render,
        thinking_switch=tuple((e["key"], e["on"]) for e in spec["thinking_switch"]),
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


def _entering(source: str, target: str, emit: tuple[str, ...], body: type[ToolBody],
              name_group: str | None) -> tuple[Action, ...]:
    """Move to ``target`` and emit ``emit``; ``name_group``: TOOL_NAME comes from the
    header rule's match."""
    out: list[Action] = []
    if target != source:
        out.append(GoTo(target))
    for event in emit:
        if event == "TOOL_CALL_START":
            out.append(NextCall())
        if event == "TEXT_CHUNK":
            out.append(Emit(event, "header" if source == "MESSAGE_HEADER" else "value"))
        elif event == "TOOL_NAME" and name_group is not None:
            out.append(Emit(event, name_group))
        else:
            out.append(Emit(event, "value"))
    if target == "TOOL_ARGS" and _acts(body, "enter"):
        out.append(EnterBody("ARG_VALUE_CHUNK" in emit))
    return tuple(out)


def _call_runs(states: list[StateIR], body: type[ToolBody], syntax: ArgumentSyntax,
               render: RenderIR, terminals: tuple[TerminalIR, ...]) -> tuple[CallRunIR, ...]:
    """Where the driver may read a run of calls at once (its body taking whole calls,
    its syntax reading them whole): from a state whose text is content or framing, the
    markers of the render's call template, in order, lead through tool states back to
    it, with no effect on the way but the call's start and end; the name (unless the
    arguments name the call) and the arguments are the text of one state each, every
    other state's text is empty or the whitespace the render writes there.  Arguments
    that open with a marker of their own (GLM's ``<arg_key>``) may end the name."""
    if not body.whole_calls or render.call is None or not _reads_whole(type(syntax)):
        return ()
    by_spelling = _by_spelling(terminals)
    # (terminal, the render's text before it, whether it opens the arguments)
    markers: list[tuple[str, str | None, bool]] = []
    before: str | None = ""  # (None: a field comes before)
    opening = syntax.render({"k": 0})[:1]  # (the arguments' first piece, as written)
    for kind, text in render.call:
        opens = kind == "field" and text == "arguments" and bool(opening) and opening[0][1]
        if opens:
            kind, text = "marker", opening[0][0]  # (its marker: whose text is argument text)
        if kind != "marker":
            before = None if kind == "field" else before if before is None else before + text
            continue
        named = by_spelling.get(text, [])
        if opens and len(named) != 1:
            before = None  # (no terminal: the arguments' text)
            continue
        # (A marker matched in several ways or only in some places is left to the lexer.)
        if len(named) != 1 or named[0].at_start or named[0].follower_names \
                or named[0].follower_texts or named[0].framing != ("", ""):
            return ()
        markers.append((named[0].name, before, opens))
        before = None if opens else ""
    by_name = {s.name: s for s in states}
    paths = {}
    for state in states:
        if not (state.text_action == EmitText("TEXT_CHUNK")
                or isinstance(state.text_action, FramingText)):
            continue
        found = _call_path(state, markers, by_name, syntax.names_call)
        if found is not None:
            paths[state.name] = found
    out = []
    for state in states:
        steps, ends = paths.get(state.name, ((), ""))
        # (A run that ends elsewhere goes on in that state's own run: framing both.)
        if steps and (ends == state.name or paths.get(ends, ((), ""))[1] == ends
                      and isinstance(state.text_action, FramingText)
                      and isinstance(by_name[ends].text_action, FramingText)):
            out.append(CallRunIR(state.name, state.id, steps, ends, by_name[ends].id))
    return tuple(out)


def _reads_whole(syntax: type[ArgumentSyntax]) -> bool:
    """Whether ``syntax`` reads a whole call at once (its own ``whole_call``, or
    ``whole_arguments`` where the name is apart): else a run could take no call."""
    method = "whole_call" if syntax.names_call else "whole_arguments"
    own = syntax.__mro__[: syntax.__mro__.index(ArgumentSyntax)]
    return any(method in vars(cls) for cls in own)


# What a transition that starts a call whose object ends it may emit: the call's start,
# and the marker's text as the object's first argument text (Llama's ``{"name"``).
_OBJECT_STARTS = (("TOOL_CALL_START",), ("TOOL_CALL_START", "ARG_VALUE_CHUNK"))


def _object_runs(states: list[StateIR], body: type[ToolBody], names_call: bool,
                 body_line: int | None) -> tuple[ObjectRunIR, ...]:
    """States a call whose JSON object ends it (``ToolBody.whole_objects``) starts from:
    content states and the framing state the body exits to, each start terminal going to
    TOOL_ARGS with only TOOL_CALL_START (and the marker's text as argument text), TOOL_ARGS
    with no terminal of its own (only the object's close ends the call) and the syntax
    naming the call: the driver may read a run of such calls at once, the framing
    between them dropped, when the syntax can take a whole call."""
    if not body.whole_objects or len(body.exits_to) != 1 or not names_call:
        return ()
    by_name = {s.name: s for s in states}
    args, after = by_name.get("TOOL_ARGS"), by_name.get(body.exits_to[0])
    if args is None or args.transitions or after is None:
        return ()
    if not isinstance(after.text_action, FramingText):
        return ()

    def starts(state: StateIR) -> tuple[tuple[str, bool, int], ...]:
        return tuple((t.terminal, "ARG_VALUE_CHUNK" in t.emit, t.line)
                     for t in state.transitions
                     if not t.rules and t.target == "TOOL_ARGS" and t.emit in _OBJECT_STARTS)

    if not starts(after):
        return ()  # no call follows another: no run
    return tuple(ObjectRunIR(s.name, s.id, starts(s), after.name, after.id, body_line)
                 for s in states
                 if (s is after or s.text_action == EmitText("TEXT_CHUNK")) and starts(s))


def _call_path(home: StateIR, markers: list[tuple[str, str | None, bool]],
               by_name: dict[str, StateIR], names_call: bool
               ) -> tuple[tuple[CallStepIR, ...], str] | None:
    """The steps of one call from ``home`` along ``markers`` and the state it ends in,
    or None: the first starts the call (and, from content, may end reasoning, already
    over there), the one that leaves the arguments or the last ends it, the others only
    move on; the arguments' own opening marker ends the name, or is passed over inside
    them."""
    steps: list[CallStepIR] = []
    state = home
    ended = False
    for i, (terminal, before, opens) in enumerate(markers):
        if opens and state.name == "TOOL_ARGS":
            continue  # (already in the arguments: one of the tags they pass over)
        found = [t for t in state.transitions if t.terminal == terminal]
        if len(found) != 1 or found[0].rules:
            return None
        tr = found[0]
        last = i == len(markers) - 1
        if i == 0:
            starts: list[tuple[str, ...]] = [("TOOL_CALL_START",)]
            if home.text_action == EmitText("TEXT_CHUNK"):
                starts.append(("REASONING_END", "TOOL_CALL_START"))
            if tr.emit not in starts:
                return None
        elif tr.emit == ("TOOL_CALL_END",) and not ended and (last or state.name == "TOOL_ARGS"):
            ended = True
        elif (opens and tr.emit == ("ARG_VALUE_CHUNK",) and tr.target == "TOOL_ARGS"
              and state.text_action == EmitText("TOOL_NAME")):
            pass  # (the arguments' own opening marker: its text is theirs)
        elif tr.emit:
            return None
        if last and not ended:
            return None
        framing = ""
        passes: tuple[str, ...] = ()
        if i == 0:
            role = "between"
        elif state.name == "TOOL_ARGS":
            role = "arguments"
            passes = tuple(sorted(t.terminal for t in state.transitions
                                  if t.target == state.name and not t.rules
                                  and t.emit == ("ARG_VALUE_CHUNK",)))
        elif state.text_action == EmitText("TOOL_NAME"):
            role = "name, arguments" if opens else "name"
        elif state.name in TOOL_STATE_NAMES and (
                not before or isinstance(state.text_action, FramingText) and before.isspace()):
            role, framing = "", before or ""
        else:
            return None
        if ended and role in ("name", "arguments") and tr.emit != ("TOOL_CALL_END",):
            return None  # (nothing of the call's own after its end)
        steps.append(CallStepIR(state.name, state.id, role, terminal, tr.line, framing, passes))
        state = by_name[tr.target]
    roles = [step.role.split(", ")[0] for step in steps]
    if roles.count("arguments") != 1 or roles.count("name") != (0 if names_call else 1):
        return None
    return tuple(steps), state.name


def _by_spelling(terminals: tuple[TerminalIR, ...]) -> dict[str, list[TerminalIR]]:
    """The terminals by the spelling the render writes them in (their first)."""
    out: dict[str, list[TerminalIR]] = {}
    for term in terminals:
        for spelling in term.spellings[:1]:
            out.setdefault(spelling, []).append(term)
    return out


def _call_trailers(render: RenderIR, terminals: tuple[TerminalIR, ...],
                   closers: tuple[str, ...]) -> tuple[str, ...]:
    """The terminals of the markers the render's call template writes after the call's
    arguments and the first marker after them that ends the call from TOOL_ARGS (a
    marker with several terminals is none: the lexer tells which it was)."""
    named = _by_spelling(terminals)
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


def _call_closers(states: list[StateIR]) -> tuple[str, ...]:
    """Terminals that end the open call from TOOL_ARGS without starting another."""
    out = []
    for state in states:
        if state.name != "TOOL_ARGS":
            continue
        for tr in state.transitions:
            ways = [(r.target, r.emit) for r in tr.rules] if tr.rules else [(tr.target, tr.emit)]
            if all(target != "TOOL_ARGS" and "TOOL_CALL_END" in emit
                   and "TOOL_CALL_START" not in emit for target, emit in ways):
                out.append(tr.terminal)
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
                       declared["start_optional"], declared["calls_are_text"], line)


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
