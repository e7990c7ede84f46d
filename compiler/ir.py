"""The compiler's model of a format: frozen, sorted, ready for code generation.

``to_ir`` builds it from a lowered spec (with the passes ``whole_calls`` and
``lexers``); ``generator`` prints it.  Nothing here decides anything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from parsergen.index import ModelPattern
from parsergen.runtime.events import STATE_NAMES

from .patterns import PatternShape
from .render import RenderIR

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
class EmitCapture:
    """Event ``event`` goes out with capture ``group`` of pattern terminal ``terminal``'s
    text (``runtime/patterns.py``'s ``pattern_group``)."""

    event: str
    terminal: str
    group: str


@dataclass(frozen=True)
class EnterBody:
    """TOOL_ARGS is entered: the tool body begins (``ToolBody.enter``); ``in_arguments``:
    the marker's text went out as argument text."""

    in_arguments: bool


@dataclass(frozen=True)
class EnterValues:
    """TOOL_ARGS is entered and its lexer reads the syntax's values: the value scanner
    starts with the marker's text (``ValueGate.entered``: it may open the arguments)."""


Action = (LeaveBody | TakeHeader | EndFraming | GoTo | NextCall | Emit | EmitCapture | EnterBody
          | EnterValues)


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
    # A marker spelled by a regex (``spellings`` is empty): what the matcher needs.
    pattern: PatternShape | None = None


@dataclass(frozen=True)
class RuleIR:
    """One rule: when its regex matches the header (or each of ``captures``' regexes
    matches its capture of the pattern terminal's text), go to ``target``."""

    when: str | None
    target: str
    emit: tuple[str, ...]
    actions: tuple[Action, ...] = ()
    captures: tuple[tuple[str, str], ...] = ()  # (capture, regex) a pattern rule reads


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
    """One step of a call read whole, after its start marker: in state ``source``, text
    of ``role`` ("name": the call's name ("name, arguments": the terminal's text starts
    the arguments); "arguments": its TOOL_ARGS text; "": none but ``framing``, the
    whitespace the render writes there; "object": one JSON object whose close ends the
    call, no terminal), then terminal ``terminal`` (its transition's line);
    ``passes``: terminals that stay in the state, their text the role's (an element
    syntax's tags)."""

    source: str
    source_id: int
    role: str
    terminal: str
    line: int | None
    framing: str = ""
    passes: tuple[str, ...] = ()


@dataclass(frozen=True)
class CallProgramIR:
    """Calls a parse may read whole, one after another, from ``state``: each begins at
    one of ``starts`` (terminal, whether its text opens the call's object, its line),
    then follows ``steps``, and ends in ``after`` (``state``, or a framing state whose
    own program reads the calls after it); ``framing``: the text between calls here is
    a framing state's (dropped), else content.  ``source`` says what it is read from."""

    state: str
    state_id: int
    starts: tuple[tuple[str, bool, int], ...]
    steps: tuple[CallStepIR, ...]
    after: str
    after_id: int
    framing: bool
    source: str


@dataclass(frozen=True)
class LexingIR:
    """How a state's text is lexed: a state lexer of ``runtime/lexing.py`` (its
    ``LEXERS`` name), the chunk event its plain text is as it is (the fast path; None:
    none), the call program it reads runs with (``CallRuns``), the call markers it
    holds for what follows (``GatedReasoning``), and why, for the generated comment."""

    lexer: str
    event: str | None
    why: str
    program: CallProgramIR | None = None
    # REASONING's call markers that count only before the render's markup after them:
    # (terminal, the texts that begin it, past whitespace) each (compiler/gates.py)
    gates: tuple[tuple[str, tuple[str, ...]], ...] = ()


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
    confirmed_by_end: bool  # REASONING's text held until a marker leaves it
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
    # Terminals whose transition from TOOL_ARGS ends the call (and starts none), the state
    # each leads to and its line: inside a value, what follows one decides
    # (runtime/value_gate.py).
    call_closers: tuple[tuple[str, str, int], ...]
    # Terminals whose transition from TOOL_ARGS ends the call and starts the next in a
    # state that reads its name, the terminals that end that name, and its line: inside
    # a value, what follows one decides (runtime/value_gate.py).
    call_openers: tuple[tuple[str, tuple[str, ...], int], ...]
    # Terminals the render's call template writes after the marker that ends the call
    # (Step-3's <｜tool_call_end｜> after </steptml:invoke>): read with no call open,
    # they close the call before, never lead into the next (runtime: ToolCalls.settle).
    call_trailers: tuple[str, ...]
    # The text the render writes between a call's marker and its name (Kimi's
    # "functions."): a name cut inside it may still have been a call (CallNames.may_start).
    name_lead: str
    # The text, or the marker's spelling, the render writes right after a name.
    name_tail: str
    # The render writes nothing after a call's arguments (Mistral's NAME[ARGS]{...}): the
    # call has no end marker, so text after its arguments closed is content.
    arguments_end_call: bool
    # Where a parse may read runs of whole calls at once: per state calls start in at a
    # marker, what one call is (runtime/runs.py).
    call_programs: tuple[CallProgramIR, ...]
    # Per state id, how its text is lexed while streaming, and in a parse of a whole
    # text (the same where nothing is read whole).
    lexing: tuple[LexingIR, ...]
    parse_lexing: tuple[LexingIR, ...]
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
    # (key, value that means on, value that means off; both None: truthy means on)
    thinking_switch: tuple[tuple[str, Any, Any], ...]
    # Where derived values come from: a name (``arguments``, ``assembly.<flag>``,
    # ``initial_state``, ...) -> its spec line, None for a default.
    lines: dict[str, int | None]
    framing_punctuation: str = ""  # framing besides whitespace in framing states
    # States whose text the spec gives no event on purpose (an explicit null content
    # event, a header that rules read): not framing.
    spec_dropped: tuple[str, ...] = ()
    # request_options, each value's format found (compiler/request_options.py):
    # (key, default, ((value, format), ...)).
    request_options: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = ()
    # tokenizer_values: (name, init_kwargs key, vocabulary regex, default), in order.
    tokenizer_values: tuple[tuple[str, str | None, str | None, str], ...] = ()
    # Per thinking mode a parse reads a whole text in one pass, the state whose call
    # program it reads with (compiler/whole_text.py): (thinking, state) each.
    whole_text: tuple[tuple[bool, str], ...] = ()

    def cite(self, key: str) -> str:
        """``line N`` of a derived value, or ``default`` (for generated comments)."""
        line = self.lines.get(key)
        return "default" if line is None else f"line {line}"
