"""parsergen's runtime: what every generated parser module imports.

Kept small and free of format names: events, token-id scanning, per-state literal
matching (the lexicon), the prompt walk, the tool bodies (``bodies``: how TOOL_ARGS
text becomes calls), the per-state lexers and the streaming driver.
"""

from __future__ import annotations

from .events import (
    CHUNK_EVENTS,
    DROP,
    STATE_NAMES,
    EventType,
    SemanticEvent,
    merge_chunks,
)
from .arguments import (
    SYNTAXES,
    ArgumentSyntax,
    ElementsSyntax,
    EnvelopeSyntax,
    JsonSyntax,
    KeyValueSyntax,
    NotationSyntax,
    PythonSyntax,
    TaggedSyntax,
)
from .assembly import ChatParser as ChatParserBase
from .bodies import (
    BODIES,
    JsonArrayBody,
    JsonBody,
    JsonObjectBody,
    PythonLinesBody,
    PythonListBody,
    TextBody,
    ToolBody,
)
from .messages import (
    CutCall,
    DeltaMessage,
    DeltaToolCall,
    ParsedMessage,
    ToolCall,
    accumulate,
    merge_deltas,
    without_cut_calls,
)
from .render import Renderer
from .lexicon import Lexicon
from .patterns import PatternLexicon, pattern_group
from .prompt import Reasoning, ReasoningEndAt
from .driver import StreamingParserBase
from .reasoning_lexing import ClosingReasoning, ConfirmedReasoning, GatedReasoning
from .lexing import (
    BodyArgs,
    BodyRuns,
    PlainValueArgs,
    ValueArgs,
    WindowedArgs,
    WindowedValueArgs,
)
from .machine import StateLexer
from .runs import CallProgram, CallRuns
from .structural import structural_tag as build_structural_tag
from .whole_text import WholeText

# Bumped whenever generated code and runtime must change together.
# 2: Lexicon without skip_in_token_id_mode.
# 3: modules name their tool body class (BODY) and call it instead of the driver's
#    _feed_array/_args/... helpers; _emit takes may_hold.
# 4: the protocol with generated code has public names (state_id, header, on_marker,
#    on_text, LEXICONS, INITIAL_STATES, THINKING_DEFAULT, REASONING_RULES, PLAIN_TEXT).
# 5: modules name their argument syntax class (ChatParser.SYNTAX); Renderer takes it;
#    modules give structural_tag() (build_structural_tag).
# 6: Reasoning takes start_optional (reasoning.start_optional).
# 7: state text actions FramingText / DropText / EndFraming and FRAMING_PUNCTUATION, SPEC_DROPPED
#    (framing is whitespace and punctuation; other text is content).
# 8: modules give StreamingParser.SYNTAX and CALL_CLOSERS (markers inside argument values).
# 9: Reasoning takes calls_are_text; ChatParser.TOOL_NAME_GLUED_PREFIX (tool_name.glued_prefix).
# 10: Lexicon takes followed_by and framing (a terminal's framing newlines).
# 11: CALL_RUNS holds each call's steps (state, what its text is, terminal), not (start, end).
# 12: ... and each step's framing before its terminal and the terminals it passes over.
# 13: ChatParser.CALL_TRAILERS (markers the render writes after a call's end).
# 14: per-state lexers chosen by the compiler (LEXING, PARSE_LEXING: runtime/lexing.py)
#     and call programs (CallProgram, WHOLE_CALLS) instead of PLAIN_TEXT, CALL_RUNS,
#     CALL_RUNS_END and OBJECT_RUNS; transitions into TOOL_ARGS start the value scanner.
# 15: CALL_CLOSERS maps each closer to the state it leads to (a special-token closer inside
#     a string is decided by what follows it, runtime/value_gate.py).
# 16: StreamingParser.CALL_OPENERS (a call opener inside a value is decided by what
#     follows it, runtime/value_gate.py).
# 17: ASSEMBLY holds strip_text (reasoning and content stripped at both ends).
# 18: PatternLexicon and pattern_group (pattern terminals, runtime/patterns.py).
# 19: ChatParser.NAME_LEAD, NAME_TAIL and ARGUMENTS_END_CALL (a cut name that is words is prose;
#     text after the arguments of a call they end is content).
# 20: GatedReasoning, and ClosingReasoning takes gates (REASONING's call markers that
#     count, typed as text, only before the render's markup: a quoted one is reasoning).
# 21: the kv_lines argument syntax (runtime/arguments/kv_lines.py).
# 22: an argument syntax's json_fallback (ArgumentSyntax.fallback reads nameless calls).
# 23: ConfirmedReasoning (reasoning.confirmed_by_end: REASONING held until its end marker).
# 24: ChatParser.WHOLE_TEXT (WholeText: a parse reads a whole text in one pass).
RUNTIME_VERSION = 24


def require_runtime(version: int) -> None:
    """Called by generated modules at import: fail early on a runtime mismatch."""
    if version != RUNTIME_VERSION:
        raise ImportError(
            f"this module was generated for parsergen runtime {version}, but the "
            f"installed runtime is {RUNTIME_VERSION}: run 'parsergen build' again"
        )


__all__ = [
    "BodyArgs",
    "BodyRuns",
    "CallProgram",
    "CallRuns",
    "ClosingReasoning",
    "ConfirmedReasoning",
    "GatedReasoning",
    "PlainValueArgs",
    "StateLexer",
    "ValueArgs",
    "WindowedArgs",
    "WindowedValueArgs",
    "WholeText",
    "SYNTAXES",
    "ArgumentSyntax",
    "ElementsSyntax",
    "EnvelopeSyntax",
    "JsonSyntax",
    "KeyValueSyntax",
    "NotationSyntax",
    "PythonSyntax",
    "TaggedSyntax",
    "BODIES",
    "CHUNK_EVENTS",
    "DROP",
    "RUNTIME_VERSION",
    "STATE_NAMES",
    "ChatParserBase",
    "CutCall",
    "DeltaMessage",
    "DeltaToolCall",
    "EventType",
    "JsonArrayBody",
    "JsonBody",
    "JsonObjectBody",
    "Lexicon",
    "PatternLexicon",
    "ParsedMessage",
    "PythonLinesBody",
    "PythonListBody",
    "Reasoning",
    "ReasoningEndAt",
    "Renderer",
    "SemanticEvent",
    "StreamingParserBase",
    "TextBody",
    "ToolBody",
    "ToolCall",
    "accumulate",
    "build_structural_tag",
    "merge_chunks",
    "merge_deltas",
    "pattern_group",
    "require_runtime",
    "without_cut_calls",
]
