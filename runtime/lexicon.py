"""A format variant's terminals: which are live in each state, and their matchers.

A generated module builds one ``Lexicon`` per thinking variant.  It knows the
terminals' spellings, which of them each state has a transition for, and which are
tokenizer tokens; per tokenizer it caches what the tokenizer says about them
(``TokenizerInfo``), and per (tokenizer facts, mode) the per-state ``Matcher``s.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from .events import DROP
from .lexing import Matcher, build_matchers
from .tokens import TokenizerInfo, tokenizer_info


class Lexicon:
    """The terminals of one format variant and, per state, those with a transition."""

    def __init__(
        self,
        *,
        literals: Mapping[str, str],
        token_terminals: Mapping[str, str],
        live: Mapping[int, Sequence[str]],
        preserve_tokens: Sequence[str] = (),
        turn_boundary_tokens: Sequence[str] = (),
        at_start: Mapping[str, str] | None = None,
    ) -> None:
        self.literals = dict(literals)  # spelling -> terminal name
        self.token_terminals = dict(token_terminals)  # terminal name -> token text
        self.live = {state: frozenset(names) for state, names in live.items()}
        self.configured_texts = frozenset(
            [*self.literals, *self.token_terminals.values(), *preserve_tokens]
        )
        self.turn_boundary_tokens = tuple(turn_boundary_tokens)
        # Markers only as the very first text of a completion: spelling -> name.
        self.at_start = dict(at_start or {})
        self._infos: weakref.WeakKeyDictionary[Any, TokenizerInfo] = weakref.WeakKeyDictionary()

    def info(self, tokenizer: Any) -> TokenizerInfo:
        """Token ids and auto-dropped tokens of ``tokenizer``, cached per tokenizer."""
        try:
            return self._infos[tokenizer]
        except KeyError:
            pass
        except TypeError:  # not weak-referenceable: compute every time
            return self._info(tokenizer)
        info = self._info(tokenizer)
        self._infos[tokenizer] = info
        return info

    def _info(self, tokenizer: Any) -> TokenizerInfo:
        return tokenizer_info(tokenizer, self.token_terminals, self.configured_texts,
                              self.turn_boundary_tokens, self.literals)

    def texts(self, names: Sequence[str]) -> list[str]:
        """Every spelling of the named terminals (those this variant has)."""
        return [lit for lit, name in self.literals.items() if name in names]

    @lru_cache(maxsize=64)
    def matchers(
        self, drop_texts: frozenset[str], resolved: frozenset[str], strict: bool
    ) -> tuple[Matcher, ...]:
        """Per-state matchers, before (text mode) or after (strict) the first token ids.

        In text mode every terminal with a transition is live, and so is every
        auto-dropped special token.  Once ids have been seen, a marker that the
        tokenizer has as a token only counts when it arrives as that token: typed as
        text it is content (it still consumes its characters), like dropped tokens.
        """
        by_name: dict[str, list[str]] = {}
        for lit, name in self.literals.items():
            by_name.setdefault(name, []).append(lit)
        live_by_state: dict[int, dict[str, str]] = {}
        for state in range(7):
            names = self.live.get(state, frozenset())
            if strict:
                names = names - resolved
            live = {lit: name for name in names for lit in by_name.get(name, ())}
            if not strict:
                live.update((text, DROP) for text in drop_texts)
            live_by_state[state] = live
        built = build_matchers(live_by_state, [*self.literals, *drop_texts])
        return tuple(built[state] for state in range(7))
