"""The streaming driver of generated parsers: deltas in, semantic events out.

``StreamingParserBase`` is what a generated module's ``StreamingParser`` subclasses.  A
delta's token ids go through the token scanner (``tokens``: marker tokens, pieces of
id sequences, held markers), its text to the current state's lexer (``machine``,
``lexing``): the common delta, with no marker token and no character a marker of the
state may start with, is one event as it is (``advance``).  Where a completion starts
and the reasoning-id queries are the prompt reader's (``prompt``).

The generated subclass gives, besides ``machine``'s ``on_marker``/``on_text`` and lexer
tables: ``FORMAT``; ``LEXICONS`` (thinking -> ``Lexicon``); ``INITIAL_STATES`` (thinking
-> state id); ``THINKING_DEFAULT``; ``REASONING_RULES`` (a ``Reasoning``, or None);
``BODY`` (the tool body class); ``SYNTAX`` (the arguments syntax, whose ``values()``
scanner the TOOL_ARGS lexer reads) and ``CALL_CLOSERS`` (terminals that end a call from
TOOL_ARGS); ``FRAMING_PUNCTUATION``, ``FRAMING_STATES`` (states with no event: a marker
one knows, cut by the completion's end, is framing) and ``SPEC_DROPPED`` (states whose
text the spec drops on purpose; ``accounting`` reads it).

Other modules use the public side only: ``feed``/``feed_many``/``advance``/``plain_events``/
``finish``, ``initialize``, ``state``/``state_id``, ``tool_index``, ``cut_off``,
``reasoning``, the reasoning-id queries, ``read_whole`` and the ``raw`` tap (``RawText``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from .arguments import ArgumentSyntax
from .events import (
    CONTENT,
    MESSAGE_HEADER,
    REASONING,
    STATE_NAMES,
    TOOL_ARGS,
    TOOL_STATES,
    EventType,
    RawText,
    SemanticEvent,
)
from .lexicon import Lexicon
from .machine import ParserCore
from .opening import Opening
from .parser_setup import ParserSetup, parser_setup
from .prompt import Reasoning, ReasoningEndAt, count_reasoning_tokens
from .runs import CallProgram
from .deltas import coalesce
from .tokens import TokenIdScanner
from .vocabulary import TokenizerInfo

_REASONING_END: Final = EventType.REASONING_END
_TEXT_CHUNK: Final = EventType.TEXT_CHUNK


@mypyc_attr(allow_interpreted_subclasses=True)
class StreamingParserBase(ParserCore):
    """Feeds deltas through the token-id scanner and the per-state lexers."""

    FORMAT: ClassVar[str] = ""
    LEXICONS: ClassVar[Mapping[bool, Lexicon]]
    INITIAL_STATES: ClassVar[Mapping[bool, int]]
    THINKING_DEFAULT: ClassVar[bool] = False
    REASONING_RULES: ClassVar[Reasoning | None] = None
    # A MESSAGE_HEADER the completion ends in whose whole text matches this is framing
    # (cut_header); otherwise, or without it, the text is content.
    CUT_HEADER: ClassVar[re.Pattern[str] | None] = None
    # The arguments syntax: where its strings and values hide markers (``values()``).
    SYNTAX: ClassVar[ArgumentSyntax | None] = None
    # Terminals that end a call from TOOL_ARGS: inside an ambiguous value, what
    # follows one decides whether it ended the call (see arguments/values.py).
    CALL_CLOSERS: ClassVar[Mapping[str, int]] = {}  # -> the state each leads to
    # Terminals that end a call from TOOL_ARGS and start the next -> the terminals that
    # end its name: inside an ambiguous value, what follows decides whether one starts.
    CALL_OPENERS: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    FRAMING_STATES: ClassVar[frozenset[int]] = frozenset()  # states with no event (_end)
    SPEC_DROPPED: ClassVar[frozenset[int]] = frozenset()  # states whose text is dropped
    # The calls a parse may read whole, by home state (introspection: PARSE_LEXING's
    # lexers hold them; declared here so a compiled subclass keeps it a class attribute).
    WHOLE_CALLS: ClassVar[Mapping[int, CallProgram]] = {}

    def __init__(self, tokenizer: Any = None, *, thinking: bool | None = None,
                 raw: bool = False) -> None:
        self.thinking = self.THINKING_DEFAULT if thinking is None else bool(thinking)
        lexicon = self.LEXICONS[self.thinking]
        self._lexicon = lexicon
        # What every parser of this class, thinking mode and tokenizer shares, made once.
        setup: ParserSetup = parser_setup(type(self), self.thinking, lexicon, tokenizer)
        self._setup = setup
        self._info = setup.info
        self._tokenizer = tokenizer
        # The token-id scanner, made when the first token ids come (see _marked).
        self._scanner: TokenIdScanner | None = None
        self._frame_befores = setup.frame_befores
        self._strict_matchers = setup.strict_matchers
        self._had_ids = False
        super().__init__(setup.matchers, Opening(lexicon, self.REASONING_RULES, setup.opening),
                         raw)
        self.state_id = self._start_state = setup.initial_state
        self._reasoning_closed = False  # the prompt (or initialize's caller) closed it
        self._found: str | None = None  # what initialize's prompt walk found
        self._prompt = setup.prompt
        # The TOOL_ARGS value scanner, where the compiler gave TOOL_ARGS a lexer that
        # reads one (its strings and values hide markers, and TOOL_ARGS has some).
        gate = setup.gate
        if gate is not None and self.SYNTAX is not None:
            self.values = gate.fresh(self.SYNTAX.values())
        if setup.closed_by_default:
            self.opening.closed(self)
        # Set by finish(): the stream ended inside a call (None: its arguments decide).
        self.cut_off: bool | None = False

    # -- prompts and structured output ---------------------------------------

    def initialize(self, prompt_token_ids: Sequence[int] = (), *,
                   prompt_text: str | None = None, start: str | None = None) -> None:
        """Start where the prompt leaves the model (call before the first feed).

        Walking back from the prompt's end to the last reasoning marker, stopping at a
        turn boundary or any other special token: a start marker means the completion
        begins inside reasoning, an end marker means in content.  A prompt with
        neither leaves the model in content, where a start marker that begins the
        completion opens reasoning (unless the format's models may reason without
        writing it: ``reasoning.start_optional`` keeps the format's initial state).
        A format whose messages open with a header that alone opens reasoning (no start
        marker: Harmony, Muse) starts in that header after an end marker too.
        Without a prompt the format's default stays (which ``thinking`` may choose).
        ``start`` ("reasoning" or "content") says it explicitly instead, for a caller
        that knows (a server that already parsed the reasoning hands the rest over as
        content).
        """
        self._begin(self._prompt.start_marker(prompt_token_ids, prompt_text, start))

    def _begin(self, found: str | None) -> None:
        """Start after ``found`` (``PromptReader.start_marker``'s answer)."""
        state = self.INITIAL_STATES[self.thinking]
        rules = self.REASONING_RULES
        if found == "end" and state == MESSAGE_HEADER and rules is not None and not rules.start:
            # Only headers open reasoning (Harmony, Muse): the prompt's end marker ended
            # an earlier message, and this completion opens a header of its own.
            found = "none"
        self._found = found
        opens = (found == "none" and rules is not None and not rules.start_optional
                 and state in (REASONING, CONTENT))
        if found == "start":
            state = REASONING
        elif found == "end" or opens:
            state = CONTENT
        self.state_id = self._start_state = state
        self.opening.begin(self, opens)
        self._reasoning_closed = found == "end"
        if found == "end" or (found is None and self._setup.closed_by_default):
            self.opening.closed(self)

    @property
    def reasoning_end_token_ids(self) -> tuple[tuple[int, ...], ...]:
        """Token id sequences of the markers that end reasoning explicitly (``</think>``);
        empty without a tokenizer or when the tokenizer has no token for them."""
        return self._prompt.end_token_ids

    @property
    def implicit_reasoning_end_token_ids(self) -> tuple[tuple[int, ...], ...]:
        """Token id sequences of markers that end reasoning and are content themselves
        (a tool call's start marker met inside reasoning)."""
        return self._prompt.implicit_end_token_ids

    def count_reasoning_tokens(self, token_ids: Sequence[int]) -> int:
        """How many of a completion's ``token_ids`` are reasoning text (markers are not).

        The ids are parsed from where ``initialize`` starts the completion, each token
        as its own text, and a token counts when its text starts inside reasoning text
        (so a call marker written as plain text ends the count too).  Without a
        tokenizer ids cannot be read: every id counts if the completion starts in
        reasoning, none otherwise.
        """
        if self.REASONING_RULES is None or not token_ids:
            return 0
        if self._info is None:
            return len(token_ids) if self._start_state == REASONING else 0
        decode = self._info.decode
        texts = [decode(t) for t in token_ids]
        parser = type(self)(self._tokenizer, thinking=self.thinking, raw=True)
        parser._begin(self._found)  # where this completion starts, as initialize found
        items: list[Any] = [*parser.feed("".join(texts), token_ids), *parser.finish()]
        return count_reasoning_tokens(items, texts, self._lexicon.live.get(REASONING, ()))

    @property
    def starts_past_reasoning(self) -> bool:
        """Whether the completion starts past its reasoning: in content, because the
        prompt or ``initialize(start=)`` closed reasoning or the format does not wait
        for it."""
        return self._start_state == CONTENT and (self._reasoning_closed
                                                 or not self._prompt.waits)

    def is_reasoning_end(self, token_ids: Sequence[int]) -> bool:
        """Whether reasoning is over after ``token_ids`` (prompt and output so far)."""
        return self._prompt.is_reasoning_end(token_ids)

    def is_reasoning_open(self, token_ids: Sequence[int]) -> bool:
        """Whether a start marker left reasoning open at the end of ``token_ids``."""
        return self._prompt.is_reasoning_open(token_ids)

    def find_reasoning_end(self, token_ids: Sequence[int], inside: bool = False) -> ReasoningEndAt:
        """Where reasoning ends in ``token_ids`` read forward, after ids that left a
        start marker open (``inside``, see ``is_reasoning_open``) or not: a server that
        sees a completion's ids batch by batch carries ``inside`` from one to the next."""
        return self._prompt.find_reasoning_end(token_ids, inside)

    def extract_content_ids(self, token_ids: Sequence[int]) -> list[int]:
        """The output's content token ids: what follows the end of reasoning."""
        return self._prompt.extract_content_ids(token_ids, self._start_state == REASONING)

    @property
    def reasoning(self) -> Reasoning | None:
        """The format's reasoning markers, or None when it has no reasoning."""
        return self.REASONING_RULES

    @property
    def state(self) -> str:
        """Name of the current state."""
        return STATE_NAMES[self.state_id]

    # -- deltas --------------------------------------------------------------

    def _marked(self, delta_text: str, delta_token_ids: Sequence[int]) -> bool:
        """Whether the delta has marker ids, or markers wait for their text, or (with
        ids) its text ends in what may be the framing of a marker token to come."""
        if delta_token_ids and not self._had_ids:
            self._had_ids = True
            self.matchers = self._strict_matchers
            self._scanner = self._setup.scanner()
            if self.values.special:  # (a marker in text is ordinary tokens now)
                self.values.ids_came()
            if self._info is not None:
                self.opening.ids_came(self._info.resolved)
        scanner = self._scanner
        if scanner is None:
            return False
        if scanner.waiting():
            return True
        markers = scanner.id_to_name
        # (Usually one id: a loop beats a set operation.  Compiled, ids read as objects
        # are looked up as they are, and a list, what servers pass, is walked by index.)
        ids: Sequence[object] = delta_token_ids
        if isinstance(ids, list):
            for token_id in ids:
                if token_id in markers:
                    return True
        else:
            for token_id in ids:
                if token_id in markers:
                    return True
        return self._had_ids and delta_text[-1:] in self._frame_befores

    def feed(self, delta_text: str, delta_token_ids: Sequence[int] = ()) -> list[SemanticEvent]:
        """Parse one streamed delta; return the events it completes."""
        got = self.advance(delta_text, delta_token_ids)
        if isinstance(got, list):
            return got
        event = SemanticEvent(got, delta_text, self.tool_index)  # as plain_events, inline
        # (The raw tap puts the consumed text before its events: ChatParser reads both.)
        return [RawText(delta_text, self.state_id), event] if self.raw else [event]  # type: ignore[list-item]

    def feed_many(self, deltas: Iterable[tuple[str, Sequence[int]]]) -> list[SemanticEvent]:
        """Parse consecutive deltas at once: the events of feeding each in turn, with
        chunk events split differently (``merge_chunks`` of the two is the same).

        Cheaper than a feed per delta: their texts and ids are joined (``coalesce``).
        """
        runs = coalesce(deltas)
        if len(runs) == 1:
            return self.feed(*runs[0])
        out: list[SemanticEvent] = []
        for text, ids in runs:
            out += self.feed(text, ids)
        return out

    def advance(self, delta_text: str,
                delta_token_ids: Sequence[int] = ()) -> list[SemanticEvent] | EventType:
        """Parse one delta: its events, or only the event type of a plain delta.

        The common delta: no marker token, nothing held, and text the current state's
        lexer takes as it is (no character a marker may start with there) is one event;
        it is left to the caller to make (``plain_events``), or to skip.
        """
        lexer = self.lexers[self.state_id]
        if not self._marked(delta_text, delta_token_ids):
            if delta_text and not self.pending and not self.fresh:
                got = lexer.plain(self, delta_text)
                if got is not None:
                    return got  # (no list made for an event type: most deltas end here)
            out: list[SemanticEvent] = []
            if delta_text:
                lexer.item(self, delta_text, out)
            return out
        out = []
        assert self._scanner is not None
        for scanned in self._scanner.scan(delta_text, delta_token_ids):
            self.lexers[self.state_id].item(self, scanned, out)
        return out

    def plain_events(self, kind: EventType, delta_text: str) -> list[SemanticEvent]:
        """The events of a plain delta that ``advance`` gave as its event type."""
        event = SemanticEvent(kind, delta_text, self.tool_index)
        # (The raw tap puts the consumed text before its events: ChatParser reads both.)
        return [RawText(delta_text, self.state_id), event] if self.raw else [event]  # type: ignore[list-item]

    def release(self) -> None:
        """A finished parser that will not be read again: its body lets go of it, so the
        pair (each refers to the other) is freed when the last reference goes, not left
        to the cycle collector (a batch of short parses made it run every few)."""
        self.body.release()
        self.whole_call = self.whole_object = None

    def finish(self) -> list[SemanticEvent]:
        """End of stream: flush what is held and close what is open."""
        out: list[SemanticEvent] = []
        if self._scanner is not None:
            for scanned in self._scanner.flush():
                self.lexers[self.state_id].item(self, scanned, out)
        self.lexers[self.state_id].flush(self, out)
        if self.pending:
            pending, self.pending = self.pending, ""
            self._end(pending, out)
        state = self.state_id
        if state in TOOL_STATES:
            self.cut_off = self.body.finish(out, state)  # flushes and closes the open call
        elif state == REASONING:
            out.append(SemanticEvent(_REASONING_END, "", self.tool_index))
        elif state == MESSAGE_HEADER and self.header:
            # A header cut by the end of the completion: framing where the spec's
            # cut_header says it is one (no text for the user, no call); else content.
            cut = self.CUT_HEADER
            if cut is None or cut.fullmatch(self.header) is None:
                out.append(SemanticEvent(_TEXT_CHUNK, self.header, self.tool_index))
            self.header = ""
        self.state_id = CONTENT
        return out

    def _end(self, tail: str, out: list[SemanticEvent]) -> None:
        """Lex the held tail of the completion; in a framing state, a proper prefix of a
        marker it knows at the very end is that marker cut off (max_tokens): framing."""
        state = self.state_id
        cut, name = (self.matchers[state].cut(tail) if state in self.FRAMING_STATES
                     else (0, None))
        self.lex(tail[: len(tail) - cut], True, out)
        if not cut:
            return
        if self.state_id != state:  # (the text before it changed the state)
            self.lex(tail[-cut:], True, out)
        elif self.raw:
            out.append(RawText(tail[-cut:], state, name))  # type: ignore[arg-type]  # (the raw tap)


__all__ = ["StreamingParserBase"]
