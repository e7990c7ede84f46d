"""Hypothesis strategies for what models really write, and the message a parser must
give back for it, derived from the documented rules only (never by running a parser).

A drawn message is never empty: reasoning and content are prose (tens to hundreds of
characters: words, code, unicode with emoji, CJK and combining marks, several lines),
often with whitespace at the edges; a message may hold up to eight calls with nested,
unicode and escaped arguments, now and then one nested ``DEEP`` levels.  Text and argument strings hold near-markers (a marker's
prefix, the marker with one character changed or a space inside) and, where the
tokenizer tells them apart, the format's marker literals themselves.

Two kinds of message, because README.md ("`tokenizer` is any transformers
tokenizer: ... a marker typed as plain text inside prose stays text") and its table
("a format's marker typed inside a string argument or prose: with token ids (markers
the tokenizer has as one token): text; without ids, or for markers matched as text, it
is the marker") say the two parse differently:

- ``typed_markers=False``: any cadence, with or without token ids.  A literal a state
  reads as a marker (text mode) cannot be typed there, so drawn text only holds
  near-markers; any live literal that the drawing happens to spell is removed.
- ``typed_markers=True``: only with token ids.  Text also holds the format's
  token-id markers that the test tokenizer has as one token, typed as plain text.
"""

from __future__ import annotations

import keyword
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from parsergen.runtime.events import STATE_NAMES

# -- prose ------------------------------------------------------------------------------

WORDS = ("the", "a", "weather", "in", "Paris", "is", "sunny", "let", "me", "check", "that",
         "for", "you", "first", "then", "call", "the", "tool", "result", "shows", "we", "need",
         "to", "compare", "both", "values", "and", "I", "think", "answer", "is", "42", "OK",
         "so", "because", "however", "maybe", "it's", "user's", "e.g.", "i.e.", "(see", "above)",
         "\"quoted\"", "'single'", "don't", "3.14", "-7", "100%", "$5", "#tag", "@name")
CODE = ("def f(x):", "return x + 1", "if (a < b) {", "}", "x = {\"k\": [1, 2]};", "a<b>c",
        "</p>", "<div class=\"x\">", "->", "=>", "| col |", "[1, 2, 3]", "f(a=1, b='x')",
        "C:\\path\\file", "\\n", "\\\"", "`code`", "```python", "```", "SELECT * FROM t;",
        "key: value", "<!-- note -->", "a && b || c", "{{ var }}", "${x}", "%s", "\\u00e9")
UNICODE = ("中文", "日本語のテキスト", "한국어", "😀", "👍🏽", "👨\u200d👩\u200d👧", "é", "ñ", "q\u0303",
           "a\u0308\u0301", "Ω", "∑", "שלום", "مرحبا", "ﬁ", "\u3000", "\u00a0", "…", "—", "«»", "①")
SEPARATORS = (" ",) * 8 + ("\n", ", ", ". ", "\n\n", "\t", "", "  ")
EDGES = ("", "", "", " ", "\n", "\n\n", "  ", "\t", " \n", "\n  ", "\u3000")

# Characters a tokenizer keeps as they are (no surrogates or controls; NFC-stable).
CHARS = st.characters(blacklist_categories=["Cs", "Cc"]).filter(
    lambda c: unicodedata.normalize("NFC", c) == c)


def near_markers(literal: str) -> st.SearchStrategy[str]:
    """Texts that almost spell ``literal``: a prefix, one character changed, a space inside."""
    n = len(literal)
    if n < 2:
        return st.just(literal + literal)  # a one-character marker has no near spelling
    prefix = st.integers(1, n - 1).map(lambda i: literal[:i])
    changed = st.tuples(st.integers(0, n - 1), st.sampled_from("xX_ 0|<>")).map(
        lambda t: literal[: t[0]] + t[1] + literal[t[0] + 1 :])
    spaced = st.integers(1, n - 1).map(lambda i: literal[:i] + " " + literal[i:])
    return st.one_of(prefix, changed, spaced).filter(lambda s: s != literal)


def prose(markers: list[str], typed: list[str], *, max_words: int = 80) -> st.SearchStrategy[str]:
    """Text as a model writes it, with near-markers of ``markers`` and the ``typed``
    marker literals themselves mixed in, and whitespace at the edges."""
    tokens = [st.sampled_from(WORDS), st.sampled_from(WORDS), st.sampled_from(WORDS),
              st.sampled_from(CODE), st.sampled_from(UNICODE),
              st.text(CHARS, min_size=1, max_size=6)]
    if markers:
        tokens.append(st.sampled_from(markers).flatmap(near_markers))
    if typed:
        tokens.append(st.sampled_from(typed))
    word = st.one_of(*tokens)

    @st.composite
    def build(draw: st.DrawFn) -> str:
        n = draw(st.integers(1, max_words))
        words = draw(st.lists(st.tuples(word, st.sampled_from(SEPARATORS)), min_size=n,
                              max_size=n))
        body = "".join(w + s for w, s in words[:-1]) + words[-1][0]
        text = draw(st.sampled_from(EDGES)) + body + draw(st.sampled_from(EDGES))
        return unicodedata.normalize("NFC", text)

    return build()


KEYS = st.from_regex(r"[a-z_][a-z0-9_]{0,11}", fullmatch=True).filter(
    lambda k: not keyword.iskeyword(k))  # every syntax can write them, Python's too
NAMES = st.from_regex(r"[a-z_][a-z0-9_]{0,15}", fullmatch=True)


# Deep values: objects and one-item lists nested this deep around a scalar.  The top
# stays below every syntax's bound (Python's parser allows 200 brackets, nested
# elements 128 levels), so each must come back as it was; deeper ones are
# tests/test_deep_nesting.py's.
DEEP = (20, 100)


def deeply_nested(leaf: Any, depth: int, keys: list[str]) -> Any:
    """``leaf`` inside ``depth`` levels, objects and lists in turn (built without recursion)."""
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {keys[level % len(keys)]: value}
    return value


def argument_values(strings: st.SearchStrategy[str], *,
                    deep: bool = False) -> st.SearchStrategy[dict]:
    """Arguments: strings (prose, escapes, markers), numbers, nested lists and objects;
    with ``deep``, now and then a value nested ``DEEP`` levels."""
    escapes = st.sampled_from(['"', "\\", "\\n", "\n", "\t", '{"a": 1}', "[]", "", " ", "null",
                               "true", "3", "a\\u00e9b", "</", "'"])
    text = st.one_of(strings, escapes)
    scalars = st.one_of(text, text, st.integers(-10**9, 10**9), st.booleans(), st.none(),
                        st.floats(allow_nan=False, allow_infinity=False, width=32))
    # Lists hold one kind of value, so one items schema types them all.
    homogeneous = st.one_of(
        st.lists(text, max_size=4), st.lists(st.integers(-99, 99), max_size=4),
        st.lists(st.booleans(), max_size=3),
        st.lists(st.dictionaries(KEYS, text, max_size=3), max_size=3))
    nested = st.recursive(scalars | homogeneous,
                          lambda inner: st.dictionaries(KEYS, inner, max_size=3), max_leaves=6)
    if deep:
        deep_value = st.builds(deeply_nested, scalars, st.integers(*DEEP),
                               st.lists(KEYS, min_size=1, max_size=3))
        # One value in about twenty: often enough to be drawn, rare enough to stay fast.
        plain = nested
        nested = st.integers(0, 19).flatmap(lambda r: deep_value if r == 0 else plain)
    return st.dictionaries(KEYS, nested, max_size=5)


# -- what a format reads as a marker ----------------------------------------------------

def marker_literals(module: Any) -> list[str]:
    """Every marker text the format knows: terminals, argument syntax, render templates."""
    lexicon = module.StreamingParser.LEXICONS[True]
    out = {*lexicon.literals, *lexicon.token_terminals.values(), *lexicon.at_start,
           *lexicon.turn_boundary_tokens}
    args = module.ChatParser.ARGUMENTS
    out |= {v for k, v in args.items() if isinstance(v, str) and k != "syntax"}
    renderer = module.RENDERER
    for parts in (renderer.call, renderer.calls_open, renderer.calls_close, renderer.content,
                  renderer.reasoning, renderer.reasoning_close, *renderer.reasoning_open.values()):
        out |= {v for kind, v in parts or () if kind == "marker"}
    return sorted(t for t in out if t)


def live_literals(module: Any, thinking: bool, state: str) -> set[str]:
    """Literals that do something in ``state`` (read there as markers in text mode)."""
    lexicon = module.StreamingParser.LEXICONS[thinking]
    names = lexicon.live.get(STATE_NAMES.index(state), frozenset())
    out = {text for text, name in lexicon.literals.items() if name in names}
    out |= {lexicon.token_terminals[n] for n in names if n in lexicon.token_terminals}
    return out | set(lexicon.at_start)


def syntax_literals(arguments: dict) -> set[str]:
    """The argument syntax's own delimiters (an argument value cannot spell them)."""
    keys = ("open", "close", "value_open", "prefix", "string_delimiter")
    values = [arguments[k] for k in keys if arguments.get(k)]
    # A tag given in several spellings (a list) is every one of them.
    return {v for value in values for v in ([value] if isinstance(value, str) else value)}


def typed_marker_literals(module: Any, thinking: bool, tokenizer: Any) -> list[str]:
    """Token-id markers the tokenizer has as one token: typed as text, they stay text."""
    lexicon = module.StreamingParser.LEXICONS[thinking]
    added = tokenizer.get_added_vocab()
    return sorted(t for t in lexicon.token_terminals.values() if t in added)


def scrub(text: str, banned: set[str]) -> str:
    """``text`` without any banned literal (removal can form a new one: repeat)."""
    before = None
    while before != text:
        before = text
        for lit in sorted(banned, key=len, reverse=True):
            text = text.replace(lit, "")
    return text


def scrub_value(value: Any, banned: set[str]) -> Any:
    """``scrub`` applied to every string inside an argument value."""
    if isinstance(value, str):
        return scrub(value, banned)
    if isinstance(value, list):
        return [scrub_value(v, banned) for v in value]
    if isinstance(value, dict):
        return {k: scrub_value(v, banned) for k, v in value.items()}
    return value


# -- messages ---------------------------------------------------------------------------

@dataclass
class Drawn:
    """A drawn message, the thinking mode it is written in, and whether it types markers."""

    reasoning: str | None
    content: str | None
    calls: list[tuple[str, dict]] = field(default_factory=list)
    thinking: bool = True
    typed_markers: bool = False

    def as_dict(self) -> dict[str, Any]:
        """The message as render() takes it."""
        return {"reasoning": self.reasoning, "content": self.content,
                "tool_calls": [{"name": n, "arguments": a} for n, a in self.calls]}


@st.composite
def messages(draw: st.DrawFn, module: Any, thinking: bool, tokenizer: Any,
             typed_markers: bool, *, max_words: int = 80, max_calls: int = 8,
             deep: bool = True) -> Drawn:
    """A non-empty message this format can write, as a model would write it."""
    renderer = module.RENDERER
    markers = marker_literals(module)
    typed = typed_marker_literals(module, thinking, tokenizer) if typed_markers else []
    # What a state reads as a marker in text mode cannot be typed there (typed token-id
    # markers can: with ids they are text).
    ban_content = (live_literals(module, thinking, "CONTENT")
                   | live_literals(module, thinking, "MESSAGE_HEADER")) - set(typed)
    ban_reasoning = live_literals(module, thinking, "REASONING") - set(typed)
    ban_args = (live_literals(module, thinking, "TOOL_ARGS")
                | live_literals(module, thinking, "TOOL_BETWEEN")
                | syntax_literals(dict(module.ChatParser.ARGUMENTS))) - set(typed)

    can_reason = renderer.can_render_reasoning(thinking)
    can_call = renderer.call is not None
    fields = ["content"] + (["reasoning"] if can_reason else []) + (["calls"] if can_call else [])
    present = draw(st.lists(st.sampled_from(fields), min_size=1, max_size=3, unique=True),
                   label="fields")
    text = prose(markers, typed, max_words=max_words)

    def field_text(name: str, banned: set[str]) -> str | None:
        if name not in present:
            return None
        value = scrub(draw(text, label=name), banned)
        return value if value.strip() else "ok"  # scrubbing left nothing: still present

    reasoning = field_text("reasoning", ban_reasoning)
    content = field_text("content", ban_content)
    calls: list[tuple[str, dict]] = []
    if "calls" in present:
        names = draw(st.lists(NAMES, min_size=1, max_size=max_calls, unique=True), label="names")
        values = argument_values(prose(markers, typed, max_words=12), deep=deep)
        calls = [(name, scrub_value(draw(values, label="arguments"), ban_args)) for name in names]
        if content is not None and draw(st.booleans(), label="whitespace-only content"):
            content = draw(st.sampled_from(EDGES[3:]))  # dropped before calls (see below)
    return Drawn(reasoning, content, calls, thinking, typed_markers)


def tools_for(calls: list[tuple[str, dict]], schema_of: Any) -> list[dict]:
    """The request's tools: one per called name, its schema typing the drawn arguments."""
    return [{"type": "function", "function": {"name": name, "parameters": schema_of(args)}}
            for name, args in calls]


def expected_message(module: Any, drawn: Drawn) -> tuple:
    """(reasoning, content, [(name, arguments)]) that parse() must return for ``drawn``.

    Only documented rules apply; each cites where it is written.  Anything else the
    parser changes is a bug, not a rule to add here.
    """
    flags = dict(module.ChatParser.ASSEMBLY)
    spec = module.SPEC
    reasoning, content, calls = drawn.reasoning, drawn.content, drawn.calls
    framing = bool((spec.get("reasoning") or {}).get("newline_framing"))
    if reasoning is not None:
        # schema.json reasoning.newline_framing: "drop the newline before the end marker
        # and one newline after it" (Step-3.5 writes \n</think>\n).
        if framing and reasoning.endswith("\n"):
            reasoning = reasoning[:-1]
        # Spec flag assembly.strip_trailing_reasoning_whitespace (vLLM's assembly flag,
        # default true in schema.json): trailing reasoning whitespace is dropped.
        if flags.get("strip_trailing_reasoning_whitespace", True):
            reasoning = reasoning.rstrip()
    if content is not None:
        # The newline after the end marker, with newline framing (as above); the renderer
        # writes the end marker whenever reasoning is rendered.
        renderer = module.RENDERER
        closed = drawn.reasoning is not None or renderer.reasoning_open.get(drawn.thinking) == ()
        if framing and closed and content.startswith("\n"):
            content = content[1:]
        # schema.json assembly.strip_leading_content_newlines: "drop the newlines that
        # start the content" (Granite writes \n</think>\n).
        if flags.get("strip_leading_content_newlines", False):
            content = content.lstrip("\n")
        if calls:
            # goldens/DIFFERENCES.md, "leading whitespace" and "whitespace before a call":
            # whitespace-only content and whitespace right before a call are dropped
            # (spec flags drop_whitespace_only_content_before_tools and
            # strip_content_whitespace_with_tools; leading whitespace is kept).
            if flags.get("drop_whitespace_only_content_before_tools", True) and not content.strip():
                content = ""
            if flags.get("strip_content_whitespace_with_tools", True):
                content = content.rstrip()
    if module.ChatParser.SYNTAX.options.get("trim") == "strip":
        # docs/arguments-and-tool-bodies.md, an element syntax's trim: "strip (all leading
        # and trailing whitespace ...)" of each value (Dots); a value that is no string is
        # written as JSON, which has none.
        calls = [(n, {k: v.strip() if isinstance(v, str) else v for k, v in a.items()})
                 for n, a in calls]
    # An empty field is no field (ParsedMessage: None).
    return (reasoning or None, content or None, [(n, a) for n, a in calls])

