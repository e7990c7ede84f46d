"""Pass: where a parse may read a whole text in one pass, without a streaming parser
(runtime/whole_text.py).

Input: the IR's variants and states and the parse's lexers (``lexers``, each with its
call program from ``whole_calls``).  Output: per thinking mode, the state whose program a
whole text is read with, or none for that mode.

A mode qualifies where its completion starts in a state whose text is content (its
parse lexer gives plain text as one TEXT_CHUNK and reads runs of calls), whose program
starts at a marker and ends back there with content between calls, and where no
terminal counts only as the first text (an opening marker: the stream's opening reads
it).  The text is then content, runs of such calls, content; the runtime leaves any
other shape it meets to the streaming assembly.
"""

from __future__ import annotations

from .ir import EmitText, LexingIR, StateIR, VariantIR


def whole_text(variants: tuple[VariantIR, ...], states: tuple[StateIR, ...],
               parse_lexing: tuple[LexingIR, ...]) -> tuple[tuple[bool, str], ...]:
    """(thinking, the program's state) of each mode a whole text is read in one pass."""
    by_name = {s.name: s for s in states}
    out = []
    for variant in variants:
        state = by_name[variant.initial_state]
        lexing = parse_lexing[state.id]
        program = lexing.program
        if (program is not None and program.starts and program.after == state.name
                and not program.framing and state.text_action == EmitText("TEXT_CHUNK")
                and lexing.lexer == "CallRuns" and lexing.event == "TEXT_CHUNK"
                and not any(t.at_start for t in variant.terminals)):
            out.append((variant.thinking, state.name))
    return tuple(out)
