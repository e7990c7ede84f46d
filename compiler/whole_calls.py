"""Pass: where a parse may read runs of whole calls at once, and what one call is.

Input: the IR's states, terminals and render, the tool body and the argument syntax.
Output: a ``CallProgramIR`` per state a call starts in at a marker (runtime/runs.py
follows it).  Two shapes, both from what the spec already says:

- markers around text (the render's call template walked through the machine): from a
  state whose text is content or framing, the call's markers lead through tool states
  back to it, starting and ending a call and doing nothing else; between them the name
  (unless the arguments name the call), the arguments, or no text but the whitespace
  the render writes in a framing state; the body takes whole calls and the syntax
  reads them whole.  From a framing state a section of calls opens into, one call may
  end in another framing state, whose own program reads the calls after it.
- a marker then one JSON object whose closing brace ends the call (``ToolBody.
  whole_objects``): from content states and the framing state the body exits to;
- in TOOL_ARGS, one JSON object after the body's own markup (``ToolBody.whole_runs``:
  a JSON array's elements), where its text goes through no value scanner.
"""

from __future__ import annotations

from parsergen.runtime.arguments import ArgumentSyntax
from parsergen.runtime.bodies import ToolBody

from .ir import CallProgramIR, CallStepIR, EmitText, FramingText, StateIR, TerminalIR
from .lower import TOOL_STATE_NAMES
from .render import RenderIR

# What a transition that starts a call whose object ends it may emit: the call's start,
# and the marker's text as the object's first argument text (Llama's ``{"name"``).
_OBJECT_STARTS = (("TOOL_CALL_START",), ("TOOL_CALL_START", "ARG_VALUE_CHUNK"))


def call_programs(states: tuple[StateIR, ...], body: type[ToolBody], syntax: ArgumentSyntax,
                  render: RenderIR, terminals: tuple[TerminalIR, ...],
                  body_line: int | None, values: bool) -> tuple[CallProgramIR, ...]:
    """Every state's program, in state order (a state has at most one shape);
    ``values``: TOOL_ARGS text goes through the value scanner (which must see it all)."""
    found = {p.state: p for p in (*_marked_calls(states, body, syntax, render, terminals),
                                  *_object_calls(states, body, syntax.names_call, body_line),
                                  *_body_calls(states, body, syntax.names_call, body_line,
                                               values))}
    return tuple(found[s.name] for s in states if s.name in found)


def by_spelling(terminals: tuple[TerminalIR, ...]) -> dict[str, list[TerminalIR]]:
    """The terminals by the spelling the render writes them in (their first)."""
    out: dict[str, list[TerminalIR]] = {}
    for term in terminals:
        for spelling in term.spellings[:1]:
            out.setdefault(spelling, []).append(term)
    return out


def _is_home(state: StateIR) -> bool:
    """Whether calls read whole may start from ``state``: its text is content or framing."""
    return (state.text_action == EmitText("TEXT_CHUNK")
            or isinstance(state.text_action, FramingText))


def _marked_calls(states: tuple[StateIR, ...], body: type[ToolBody], syntax: ArgumentSyntax,
                  render: RenderIR, terminals: tuple[TerminalIR, ...]
                  ) -> tuple[CallProgramIR, ...]:
    """Programs of calls read between their markers (the first shape above); the
    arguments' own opening marker (GLM's ``<arg_key>``) may end the name."""
    if not body.whole_calls or render.call is None or not _reads_whole(type(syntax)):
        return ()
    named = by_spelling(terminals)
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
        spelled = named.get(text, [])
        if opens and len(spelled) != 1:
            before = None  # (no terminal: the arguments' text)
            continue
        # (A marker matched in several ways or only in some places is left to the lexer.)
        if len(spelled) != 1 or spelled[0].at_start or spelled[0].follower_names \
                or spelled[0].follower_texts or spelled[0].framing != ("", ""):
            return ()
        markers.append((spelled[0].name, before, opens))
        before = None if opens else ""
    by_name = {s.name: s for s in states}
    paths = {s.name: found for s in states if _is_home(s)
             for found in [_call_path(s, markers, by_name, syntax.names_call)] if found}
    out = []
    for state in states:
        steps, ends = paths.get(state.name, ((), ""))
        # (A run that ends elsewhere goes on in that state's own run: framing both.)
        if steps and (ends == state.name or paths.get(ends, ((), ""))[1] == ends
                      and isinstance(state.text_action, FramingText)
                      and isinstance(by_name[ends].text_action, FramingText)):
            first = steps[0]
            out.append(CallProgramIR(
                state.name, state.id, ((first.terminal, False, first.line or 0),),
                steps[1:], ends, by_name[ends].id,
                isinstance(state.text_action, FramingText), "render.call"))
    return tuple(out)


def _reads_whole(syntax: type[ArgumentSyntax]) -> bool:
    """Whether ``syntax`` reads a whole call at once (its own ``whole_call``, or
    ``whole_arguments`` where the name is apart): else a run could take no call."""
    method = "whole_call" if syntax.names_call else "whole_arguments"
    own = syntax.__mro__[: syntax.__mro__.index(ArgumentSyntax)]
    return any(method in vars(cls) for cls in own)


def _object_calls(states: tuple[StateIR, ...], body: type[ToolBody], names_call: bool,
                  body_line: int | None) -> tuple[CallProgramIR, ...]:
    """Programs of calls that are a marker and one JSON object (the second shape
    above): each start terminal goes to TOOL_ARGS with only TOOL_CALL_START (and the
    marker's text as argument text), TOOL_ARGS has no terminal of its own (only the
    object's close ends the call) and the syntax names the call."""
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
    step = CallStepIR("TOOL_ARGS", args.id, "object", "", body_line)
    return tuple(CallProgramIR(s.name, s.id, starts(s), (step,), after.name, after.id,
                               s is after, "tool_body")
                 for s in states
                 if (s is after or s.text_action == EmitText("TEXT_CHUNK")) and starts(s))


def _body_calls(states: tuple[StateIR, ...], body: type[ToolBody], names_call: bool,
                body_line: int | None, values: bool) -> tuple[CallProgramIR, ...]:
    """The program of calls that are one JSON object each after the body's own markup
    in TOOL_ARGS (the third shape above)."""
    args = next((s for s in states if s.name == "TOOL_ARGS"), None)
    if not body.whole_runs or not names_call or values or args is None:
        return ()
    step = CallStepIR("TOOL_ARGS", args.id, "object", "", body_line)
    return (CallProgramIR("TOOL_ARGS", args.id, (), (step,), "TOOL_ARGS", args.id, True,
                          "tool_body"),)


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
            begins: list[tuple[str, ...]] = [("TOOL_CALL_START",)]
            if home.text_action == EmitText("TEXT_CHUNK"):
                begins.append(("REASONING_END", "TOOL_CALL_START"))
            if tr.emit not in begins:
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
