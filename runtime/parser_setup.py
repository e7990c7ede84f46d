"""What every streaming parser of one class, thinking mode and tokenizer shares, made
once: ``ParserSetup``.

A server makes a parser per request, and a short completion's parse is mostly that
construction; what only the format's tables and the tokenizer decide (the per-state
matchers, the prompt reader, the value gate's marker tables, how the token-id scanner
is staged) is read here once and shared.  What a parser changes as it reads (the
token-id scanner and its stages, the value gate's scanner) is made per parser, the
scanner only once token ids come (before, it would have nothing to do).
"""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

from .events import CONTENT, REASONING, TOOL_ARGS
from .lexicon import Lexicon, Matcher
from .lexing import ValueArgs
from .opening import Opening
from .prompt import PromptReader
from .sequences import Chained, PieceSequencer, head_chars
from .tokens import TokenIdScanner
from .value_gate import ValueGate
from .vocabulary import TokenizerInfo


@mypyc_attr(allow_interpreted_subclasses=True)
class ParserSetup:
    """One (parser class, thinking, tokenizer)'s shared, read-only part of a parser."""

    __slots__ = ("lexicon", "tokenizer", "info", "matchers", "strict_matchers", "frame_befores", "prompt",
                 "gate", "opening", "initial_state", "closed_by_default", "resolved")

    def __init__(self, cls: Any, thinking: bool, lexicon: Lexicon, tokenizer: Any) -> None:
        self.lexicon = lexicon
        self.tokenizer = tokenizer
        info = self.info = lexicon.info(tokenizer) if tokenizer is not None else None
        drops: frozenset[str] = frozenset()
        resolved: frozenset[str] = frozenset()
        self.frame_befores: frozenset[str] = frozenset()
        if info is not None:
            drops, resolved = info.drop_texts, info.resolved
            framing = lexicon.framing_hold(resolved)
            # (Text ending in one of these goes through the scanner: FramingHold holds it.)
            if framing is not None:
                self.frame_befores = framing.befores
            # (And text ending in a character of the words an id sequence starts with:
            # PieceSequencer holds them until its first piece shows.)
            self.frame_befores |= head_chars(info.patterns)
        self.resolved = resolved
        self.matchers: tuple[Matcher, ...] = lexicon.matchers(drops, resolved, False)
        self.strict_matchers: tuple[Matcher, ...] = lexicon.matchers(drops, resolved, True)
        rules = cls.REASONING_RULES
        # (Its marker tables: each parser's Opening shares them.)
        self.opening = Opening(lexicon, rules)
        # (Read only: its id-sequence tables are made on first use, alike for all.)
        self.prompt = PromptReader(rules, lexicon, info, thinking)
        initial = cls.INITIAL_STATES
        self.initial_state: int = initial[thinking]
        # The completion starts past reasoning the template closed: thinking off, where
        # thinking on starts in reasoning.
        self.closed_by_default = (not thinking and initial[False] == CONTENT
                                  and initial[True] == REASONING)
        # The TOOL_ARGS value gate's tables, where the compiler gave TOOL_ARGS a lexer
        # that reads values (its strings and values hide markers); each parser's gate
        # shares them, with a scanner of its own (``gate_for``).
        self.gate: ValueGate | None = None
        syntax = cls.SYNTAX
        if cls.LEXING and isinstance(cls.LEXING[TOOL_ARGS], ValueArgs) and syntax:
            # (Special: a terminal the spec reads by token id, which the tokenizer, if
            # any, has as one token; not one spelled over several.)
            tokens = frozenset(lexicon.token_terminals)
            self.gate = ValueGate(
                syntax.values(), _after_closers(cls, lexicon), lexicon.literals,
                tokens & resolved if info is not None else tokens, cls.CALL_OPENERS)

    def scanner(self) -> TokenIdScanner | None:
        """A new parser's token-id scanner (None: the tokenizer has no marker ids)."""
        info = self.info
        if info is None or not info.id_to_name:
            return None
        lexicon, resolved = self.lexicon, self.resolved
        pieces = PieceSequencer(info.patterns) if info.patterns else None
        stages = [stage for stage in (pieces, lexicon.follow_hold(resolved),
                                      lexicon.framing_hold(resolved)) if stage is not None]
        stage = Chained(*stages) if len(stages) > 1 else stages[0] if stages else None
        return TokenIdScanner(info.id_to_name, info.decode, info.decode_run, stage)


def _after_closers(cls: Any, lexicon: Lexicon) -> dict[str, tuple[str, ...]]:
    """Per call closer, the spellings of the markers the state it leads to reads
    (see ``ValueGate``)."""
    out = {}
    for name, target in cls.CALL_CLOSERS.items():
        live = lexicon.live.get(target, frozenset())
        out[name] = tuple(lit for lit, n in lexicon.literals.items() if n in live)
    return out


# Setups by (parser class, thinking, tokenizer): a setup holds its tokenizer, so the
# tokenizer's id stands for it while the entry lives.  Bounded.
_SETUPS: dict[tuple[type, bool, int], ParserSetup] = {}
_SETUPS_LIMIT = 256


def parser_setup(cls: type, thinking: bool, lexicon: Lexicon, tokenizer: Any) -> ParserSetup:
    """The setup of ``cls``'s parsers with this thinking mode (``lexicon``, its
    variant's) and tokenizer (or None)."""
    key = (cls, thinking, id(tokenizer))
    found = _SETUPS.get(key)
    if found is None or found.tokenizer is not tokenizer or found.lexicon is not lexicon:
        if len(_SETUPS) >= _SETUPS_LIMIT:
            _SETUPS.clear()
        found = _SETUPS[key] = ParserSetup(cls, thinking, lexicon, tokenizer)
    return found


__all__ = ["ParserSetup", "parser_setup"]
