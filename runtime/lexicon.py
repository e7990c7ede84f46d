"""A format variant's terminals, and the per-state matchers that find them.

A generated module builds one ``Lexicon`` per thinking variant.  It knows the
terminals' spellings, which of them each state has a transition for, and which are
tokenizer tokens; per tokenizer it caches what the tokenizer says about them
(``TokenizerInfo``), and per (tokenizer facts, mode) the per-state ``Matcher``s.

Matching has exactly the semantics of a global longest-match lexer.  vLLM's lexer
matches every terminal in every state (longest first, left to right) and only then asks
the state machine what a terminal means.  A state therefore needs to look for its
*live* terminals (those that do something there) plus every terminal that could swallow
the start of one of them; all other literals can be ignored.  That set is
``relevant_closure``; a ``Matcher`` scans for it with one compiled regex.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, ClassVar

from mypy_extensions import mypyc_attr

from .events import DROP
from .sequences import FollowHold, FramingHold
from .vocabulary import TokenizerInfo, tokenizer_info

# One pattern terminal as the generated module declares it: (regex, literal prefix, bound).
PatternSpec = tuple[str, str, int]

# -- matching: one state's literals ------------------------------------------------------


def can_hide(outer: str, inner: str) -> bool:
    """True if a match of ``outer`` can consume the first character of a match of ``inner``."""
    if len(outer) > len(inner) and outer.startswith(inner):
        return True  # same start, longest match wins
    for d in range(1, len(outer)):
        tail = outer[d:]
        if tail.startswith(inner) or inner.startswith(tail):
            return True
    return False


def relevant_closure(live: Iterable[str], universe: Iterable[str]) -> frozenset[str]:
    """Literals of ``universe`` a scanner must see to find ``live`` literals exactly."""
    relevant = set(live)
    pending = list(relevant)
    rest = set(universe) - relevant
    while pending:
        inner = pending.pop()
        hiding = [outer for outer in rest if can_hide(outer, inner)]
        for outer in sorted(hiding):
            rest.discard(outer)
            relevant.add(outer)
            pending.append(outer)
    return frozenset(relevant)


@mypyc_attr(allow_interpreted_subclasses=True)
class Matcher:
    """Finds the next relevant literal of one state, holding back a possible prefix."""

    __slots__ = ("search", "names", "prefixes", "reach", "literals", "stop",
                 "start_char", "sizes")

    def __init__(self, names: Mapping[str, str | None],
                 sizes: Mapping[str, int] | None = None) -> None:
        # names: literal -> terminal name when live here, None when only relevant
        # (a relevant literal that is not live is plain content of the state).
        self.names = dict(names)
        # Lookahead literals (a marker with its follower, ``followed_by``) -> how much of
        # them the marker is: the follower is matched anew in the state the marker leads to.
        self.sizes = dict(sizes or {})
        self.literals = tuple(sorted(self.names, key=lambda s: (-len(s), s)))
        if self.literals:
            # Longest first: at one position the regex takes the first alternative.
            self.search = re.compile("|".join(map(re.escape, self.literals))).search
        else:
            self.search = None  # type: ignore[assignment]  # (no literal: nothing to find)
        self.prefixes = frozenset(lit[:i] for lit in self.literals for i in range(1, len(lit)))
        self.reach = max((len(lit) for lit in self.literals), default=1) - 1
        # Text without any of these characters holds no literal, nor the start of one.
        starts = sorted({lit[0] for lit in self.literals})
        self.stop = re.compile(f"[{''.join(map(re.escape, starts))}]").search if starts else None
        # Where every literal starts with one character, that character: ``in`` is
        # cheaper than the regex call for a delta of a token or a few ("": use stop).
        self.start_char = starts[0] if len(starts) == 1 else ""

    def clear(self, buf: str, pos: int, stop: int) -> bool:
        """Whether no relevant literal starts in ``buf[pos:stop]``, searching only as far
        as one starting there could reach (not the whole rest of ``buf``)."""
        if self.search is None:
            return True
        m = self.search(buf, pos, stop + self.reach)
        return m is None or m.start() >= stop

    def hold_point(self, buf: str, pos: int) -> int:
        """First index >= pos whose suffix may still grow into a relevant literal."""
        n = len(buf)
        k = n - self.reach
        if k < pos:
            k = pos
        stop, prefixes = self.stop, self.prefixes
        if stop is None:
            return n
        # (Only where a literal may start, found by the regex of their first characters:
        # a whole text's tail, up to the longest literal, is mostly other characters.)
        while k < n:
            m = stop(buf, k)
            if m is None:
                return n
            k = m.start()
            if buf[k:] in prefixes:
                return k
            k += 1
        return n

    def cut(self, text: str) -> tuple[int, str | None]:
        """(length, terminal) of the longest tail of ``text`` that is a proper prefix of
        a live literal here (a marker the end of the completion cut), or (0, None)."""
        names, sizes = self.names, self.sizes
        for k in range(max(0, len(text) - self.reach), len(text)):
            tail = text[k:]
            for lit in self.literals:
                name = names[lit]
                # (A marker whose follower is missing is text, not a cut marker.)
                if (name is not None and len(tail) < sizes.get(lit, len(lit))
                        and lit.startswith(tail)):
                    return len(text) - k, name
        return 0, None

    def scan(self, buf: str, pos: int, final: bool) -> tuple[int, int, str | None]:
        """Return (start, end, name) of the next match, or (hold, -1, None) if none is sure.

        Text before ``start`` (or ``hold``) is plain content.  ``name`` is None for a
        relevant literal that is only content in this state.
        """
        search = self.search
        m = search(buf, pos) if search is not None else None
        if not final:
            start = m.start() if m is not None else len(buf)
            if start >= len(buf) - self.reach:
                hold = self.hold_point(buf, pos)
                if m is None or start >= hold:
                    return hold, -1, None
        if m is None:
            return len(buf), -1, None
        lit = m.group()
        if self.sizes:
            return m.start(), m.start() + self.sizes.get(lit, len(lit)), self.names[lit]
        return m.start(), m.end(), self.names[lit]


def build_matchers(
    live_by_state: Mapping[int, Mapping[str, str]],
    universe: Iterable[str],
    sizes: Mapping[int, Mapping[str, int]] | None = None,
) -> dict[int, Matcher]:
    """One matcher per state from its live literals (literal -> terminal name);
    ``sizes``: per state, its lookahead literals and how much of each the marker is."""
    universe = frozenset(universe)
    out: dict[int, Matcher] = {}
    for state in sorted(live_by_state):
        live = live_by_state[state]
        relevant = relevant_closure(live, universe)
        out[state] = Matcher({lit: live.get(lit) for lit in relevant},
                             (sizes or {}).get(state))
    return out


# -- the lexicon: a variant's terminals ----------------------------------------------


@mypyc_attr(allow_interpreted_subclasses=True)
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
        followed_by: Mapping[str, tuple[Sequence[str], Sequence[str]]] | None = None,
        framing: Mapping[str, tuple[str, str]] | None = None,
        patterns: Mapping[str, PatternSpec] | None = None,
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
        # Markers that count only when a follower comes next: terminal name ->
        # (follower terminals, follower texts).
        self.followed_by = {name: (frozenset(names), tuple(texts))
                            for name, (names, texts) in (followed_by or {}).items()}
        # Markers with framing: terminal name -> (the text right before it, right after
        # it) that is part of it ("" for none; at most one character each).
        self.framing = dict(framing or {})
        # Pattern terminals (PatternLexicon's matchers read them): name -> (regex,
        # literal prefix, bound).  A keyword here, not **kwargs passed on by the
        # subclass: compiled, those arrived as the wrong arguments.
        self.patterns = dict(patterns or {})
        self._infos: weakref.WeakKeyDictionary[Any, TokenizerInfo] = weakref.WeakKeyDictionary()

    # What a copy or a pickle carries: all but the per-tokenizer cache (weak references
    # do not pickle).  Named, not read from ``__dict__``: a compiled Lexicon has none.
    _STATE: ClassVar[tuple[str, ...]] = ("literals", "token_terminals", "live", "configured_texts",
              "turn_boundary_tokens", "at_start", "followed_by", "framing", "patterns")

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its per-tokenizer cache."""
        return {name: getattr(self, name) for name in self._STATE}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self._infos = weakref.WeakKeyDictionary()

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
        # A marker spelled over ordinary pieces may merge with its framing (Hunyuan's
        # "</think>\n" is "</" "think" ">\n"): its ids in a prompt or output are those of
        # the framed spelling, so those are its id sequences too.
        framed = {text: name for lit, name in self.literals.items()
                  for text in self._framed(name, lit)}
        return tokenizer_info(tokenizer, self.token_terminals, self.configured_texts,
                              self.turn_boundary_tokens,
                              {**framed, **self.literals, **self.at_start}, self.literals)

    def texts(self, names: Sequence[str]) -> list[str]:
        """Every spelling of the named terminals (those this variant has), start-only
        markers included."""
        return [lit for lit, name in (*self.literals.items(), *self.at_start.items())
                if name in names]

    def follower_texts(self, name: str, resolved: frozenset[str]) -> tuple[str, ...]:
        """The texts that, right after marker ``name``, make it count: the follower
        texts and the spellings of follower terminals not known as tokens
        (``resolved``: those come as their token)."""
        names, texts = self.followed_by[name]
        spelled = [lit for lit, other in self.literals.items()
                   if other in names and other not in resolved]
        return (*spelled, *texts)

    def follow_hold(self, resolved: frozenset[str]) -> FollowHold | None:
        """What holds a marker token until its follower shows (None: no such marker
        comes as a token)."""
        gated = {name: (names, self.follower_texts(name, resolved))
                 for name, (names, _) in self.followed_by.items() if name in resolved}
        return FollowHold(gated) if gated else None

    def framing_hold(self, resolved: frozenset[str]) -> FramingHold | None:
        """What joins a marker token's framing to it (None: no framed marker comes as a
        token)."""
        framed = {name: sides for name, sides in self.framing.items() if name in resolved}
        return FramingHold(framed) if framed else None

    def _framed(self, name: str, lit: str) -> list[str]:
        """Spellings of marker ``name`` spelled ``lit`` with its framing before, after or
        both (the marker alone is not among them)."""
        before, after = self.framing.get(name, ("", ""))
        return [b + lit + a for b in {before, ""} for a in {after, ""}
                if b or a]

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
        sizes: dict[int, dict[str, int]] = {}
        for state in range(7):
            names = self.live.get(state, frozenset())
            if strict:
                names = names - resolved
            live = {lit: name for name in names.difference(self.followed_by)
                    for lit in by_name.get(name, ())}
            for name in names.intersection(self.followed_by):
                # The marker with each follower after it; alone it is text here.
                followers = self.follower_texts(name, resolved if strict else frozenset())
                before = self.framing.get(name, ("", ""))[0]
                for lit in by_name.get(name, ()):
                    for framed in {before + lit, lit}:
                        for follower in followers:
                            if framed + follower not in live:  # (another marker's own)
                                live[framed + follower] = name
                                sizes.setdefault(state, {})[framed + follower] = len(framed)
            # (frozenset methods: ``names & keys()`` would give a set, not a frozenset.)
            for name in names.intersection(self.framing).difference(self.followed_by):
                # The marker with its framing: longest match takes the framing along.
                for lit in by_name.get(name, ()):
                    for framed in self._framed(name, lit):
                        live.setdefault(framed, name)  # (another marker's own spelling wins)
            if not strict:
                live.update((text, DROP) for text in drop_texts)
            live_by_state[state] = live
        built = self.build(live_by_state, [*self.literals, *drop_texts], sizes)
        return tuple(built[state] for state in range(7))

    def build(self, live_by_state: Mapping[int, Mapping[str, str]], universe: Iterable[str],
              sizes: Mapping[int, Mapping[str, int]]) -> dict[int, Matcher]:
        """The per-state matchers (``PatternLexicon`` adds its patterns)."""
        return build_matchers(live_by_state, universe, sizes)


__all__ = ["Lexicon", "Matcher", "build_matchers", "can_hide", "relevant_closure"]
