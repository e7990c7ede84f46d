"""Pass: how each state's text is lexed, chosen once per format (runtime/lexing.py).

Input: the IR's states, variants and call programs, the tool body, the argument syntax
and the reasoning rules.  Output: a ``LexingIR`` per state id, while streaming and in a
parse of a whole text.  Every state gets the plain lexer (text up to the next marker,
with the fast path where its text is one chunk event) unless the spec gives it more to
do; only then does its lexer do more:

- REASONING, where an end marker CONTENT has no transition for may come again right
  after reasoning closed: ``ClosingReasoning``; where a call marker ends reasoning and
  the render writes markup after it, that marker waits for it (``gates``; a quoted
  marker is reasoning): ``GatedReasoning``, or ``ClosingReasoning`` with its gates;
  where its text is reasoning only once an end marker comes
  (``reasoning.confirmed_by_end``): ``ConfirmedReasoning`` (it holds everything, so a
  call marker's gate has nothing to add);
- TOOL_ARGS, by its body and syntax: the syntax's strings or values hide markers, and
  TOOL_ARGS has terminals (``ValueArgs``; ``PlainValueArgs`` for a plain body); the body
  can end its call inside its text (``WindowedArgs``, ``WindowedValueArgs``); a body that
  is not plain text (``BodyArgs``);
- in a parse: a state with a call program (``whole_calls``): calls start there at a
  marker (``CallRuns``), or in TOOL_ARGS after the body's own markup (``BodyRuns``).
"""

from __future__ import annotations

from parsergen.runtime.arguments import ArgumentSyntax
from parsergen.runtime.arguments.values import ValueScan
from parsergen.runtime.bodies import ToolBody
from parsergen.runtime.events import STATE_NAMES
from parsergen.runtime.lexing import LEXERS

from .gates import Gates
from .ir import CallProgramIR, EmitText, LexingIR, ReasoningIR, StateIR, VariantIR


def reads_values(syntax: ArgumentSyntax, has_terminals: bool) -> bool:
    """Whether TOOL_ARGS text goes through the syntax's value scanner: its strings or
    values hide markers, and some terminal does something in TOOL_ARGS
    (``has_terminals``)."""
    return type(syntax.values()) is not ValueScan and has_terminals


def state_lexers(states: tuple[StateIR, ...], reachable: tuple[str, ...],
                 variants: tuple[VariantIR, ...], reasoning: ReasoningIR | None,
                 body: type[ToolBody], values: bool,
                 programs: tuple[CallProgramIR, ...], gates: Gates = ()
                 ) -> tuple[tuple[LexingIR, ...], tuple[LexingIR, ...]]:
    """(streaming, parse) lexers, one per state id (``gates``: REASONING's call markers
    that wait for the render's markup after them)."""
    by_name = {s.name: s for s in states}
    stream = tuple(_lexer(by_name[name], name in reachable, variants, reasoning, body, values,
                          gates)
                   for name in STATE_NAMES)
    homes = {p.state: p for p in programs if p.state in reachable}
    if not homes:
        return stream, stream
    parse = []
    for name, lexing in zip(STATE_NAMES, stream):
        program = homes.get(name)
        if program is None or lexing.gates:  # (a marker that waits: read as streamed)
            parse.append(lexing)
        elif not program.starts:
            assert lexing.lexer == "WindowedArgs", lexing  # (a body that ends its calls)
            parse.append(LexingIR("BodyRuns", None, f"{lexing.why}; the {body.name} body's "
                                  "calls in a row read at once", program))
        else:
            shape = ("a marker and one JSON object" if program.steps[-1].role == "object"
                     else "the render's call markers")
            parse.append(LexingIR("CallRuns", lexing.event,
                                  f"{lexing.why}; runs of whole calls ({shape}) read at once",
                                  program))
    for lexing in (*stream, *parse):
        assert lexing.lexer in LEXERS, lexing.lexer  # (the runtime names every one)
    return stream, tuple(parse)


def _lexer(state: StateIR, reachable: bool, variants: tuple[VariantIR, ...],
           reasoning: ReasoningIR | None, body: type[ToolBody], values: bool,
           gates: Gates) -> LexingIR:
    """The streaming lexer of one state."""
    if not reachable:
        return LexingIR("StateLexer", None, "never reached")
    action = state.text_action
    event = action.event if isinstance(action, EmitText) else None
    plain = ("markers and the text between" if event is None else
             f"markers and the text between; a delta no marker can start in is one {event}")
    if state.name == "REASONING" and reasoning is not None and reasoning.confirmed_by_end:
        return LexingIR("ConfirmedReasoning", None,
                        "markers and the text between, held until a marker leaves REASONING "
                        "(then reasoning) or the completion ends (then read from CONTENT); an "
                        "end marker written again right after reasoning closed is that marker")
    if state.name == "REASONING" and gates:
        names = ", ".join(name for name, _ in gates)
        plain = (f"{plain}; {names} typed as text counts only before the markup the "
                 "render writes after it (else it is reasoning)")
    if state.name == "REASONING" and reasoning is not None and _recloses(variants, reasoning):
        return LexingIR("ClosingReasoning", event,
                        f"{plain}; an end marker written again right after reasoning "
                        "closed is that marker", gates=gates)
    if state.name == "REASONING" and gates:
        return LexingIR("GatedReasoning", event, plain, gates=gates)
    if state.name != "TOOL_ARGS":
        return LexingIR("StateLexer", event, plain)
    what = f"the {body.name} body's text"
    if values:
        if body.exits_to:
            return LexingIR("WindowedValueArgs", None,
                            f"{what}, in windows, through the syntax's value scanner")
        if event is not None:
            return LexingIR("PlainValueArgs", event,
                            f"{what} (one {event} as it is) through the syntax's value scanner")
        return LexingIR("ValueArgs", None, f"{what} through the syntax's value scanner")
    if body.exits_to:
        return LexingIR("WindowedArgs", None, f"{what}, in windows (it ends its calls)")
    if event is not None:
        return LexingIR("StateLexer", event, f"{what}: one {event} as it is")
    return LexingIR("BodyArgs", None, what)


def _recloses(variants: tuple[VariantIR, ...], reasoning: ReasoningIR) -> bool:
    """Whether, in some variant, an end marker of reasoning has no transition in CONTENT
    (so one written again right after reasoning closed is that marker)."""
    for variant in variants:
        content = set(dict(variant.live).get(STATE_NAMES.index("CONTENT"), ()))
        if any(end not in content for end in reasoning.end):
            return True
    return False
