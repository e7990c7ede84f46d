"""Pass: call markers that reasoning reads only before the call's own markup.

Input: the IR's states and terminals and the render.  Output: per call marker REASONING
has a transition into a tool state for, the texts one of which must come after it,
past whitespace, for it to count there (``lexing.GatedReasoning``; a marker that comes
as its token id is the marker).

A model that quotes a call marker while reasoning (``I will wrap calls in <tool_call>
tags.``) writes words after it; a call is written with the render's markup after it:
the next marker (qwen3's ``<tool_call>\\n<function=``) or the call's JSON (hermes'
``<tool_call>\\n{``).  So, in REASONING, such a marker is held until what follows shows
(whitespace, then that markup's first marker or character; a bounded wait) and is
reasoning text when it is something else.  Where the render writes a word after the
marker (Kimi's ``functions.``, a name), what follows does not tell prose from a call:
no gate, the marker counts as before.
"""

from __future__ import annotations

from .ir import StateIR, TerminalIR
from .lower import TOOL_STATE_NAMES
from .render import RenderIR
from .whole_calls import by_spelling

Gates = tuple[tuple[str, tuple[str, ...]], ...]


def reasoning_gates(states: tuple[StateIR, ...] | list[StateIR],
                    terminals: tuple[TerminalIR, ...], render: RenderIR) -> Gates:
    """(terminal, follower texts) per call marker REASONING reads, sorted by terminal."""
    reasoning = next((s for s in states if s.name == "REASONING"), None)
    if reasoning is None or render.call is None:
        return ()
    named = by_spelling(terminals)
    by_name = {t.name: t for t in terminals}
    # What the render writes from the section's opener through the first call.
    written = (*render.calls_open, *render.call)
    out: dict[str, tuple[str, ...]] = {}
    for tr in reasoning.transitions:
        term = by_name.get(tr.terminal)
        if (tr.target not in TOOL_STATE_NAMES or term is None or term.pattern is not None
                or term.follower_names or term.follower_texts or term.at_start):
            continue  # (not a call marker, or one that waits for its own follower)
        followers = _after(written, tr.terminal, named)
        if followers:
            out[tr.terminal] = followers
    return tuple(sorted(out.items()))


def _after(written: tuple[tuple[str, str], ...], terminal: str,
           named: dict[str, list[TerminalIR]]) -> tuple[str, ...]:
    """The texts that begin what the render writes after ``terminal``'s marker, past
    whitespace: the next marker (each spelling), or the next text's first character
    where it is punctuation (``{``); () where the render writes a field or a word
    there, or does not write the marker."""
    for i, (kind, text) in enumerate(written):
        if kind != "marker" or terminal not in (t.name for t in named.get(text, ())):
            continue
        for kind2, text2 in written[i + 1 :]:
            if kind2 == "text" and not text2.strip():
                continue  # (whitespace: a model writes it as it likes)
            if kind2 == "marker":
                return tuple(sorted({s for t in named.get(text2, ()) for s in t.spellings}))
            first = text2.lstrip()[:1] if kind2 == "text" else ""
            return (first,) if first and not (first.isalnum() or first == "_") else ()
        return ()
    return ()


__all__ = ["Gates", "reasoning_gates"]
