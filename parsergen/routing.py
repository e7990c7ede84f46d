"""Which format parses a model: by name patterns, most specific first, never by order.

Each format declares patterns of model names (``models`` in its spec): case-insensitive
text, where ``{...}`` stands for a version number in a range: ``{>=3.5}`` matches
``3.5``, ``3.10`` and ``4``; ``{>=4.5,<6}`` also stops before 6; ``{}`` is any version.
A number is read whole (``qwen{>=3.5}`` does not match ``qwen3-8b``: 3 is below 3.5).
A pattern whose match in a name covers another's is more specific than it
(``step-3.5`` over ``step-3``, ``deepseek-v{>=4.1}`` over ``deepseek-v4`` on
``deepseek-v4.2``); on the same text, the pattern with more literal characters wins
(``deepseek-v4.1`` over ``deepseek-v{>=4}``).  The most specific matching patterns
decide, with the defaults of them all (``qwen3-`` names the format, ``-instruct-2507``
adds the variant's ``thinking: false``); if they name two formats, or give one option
two values, the name is ambiguous and nothing is guessed.

``route(model)`` gives a ``Route``: the format and those defaults, which every parser it
makes gets (an argument the caller passes wins over them).  It reads the format index
only; the format's module is imported when a parser is first asked for.  A user's specs
(``PARSERGEN_SPECS``, or ``route(..., specs=[path])``) are routed by the same rules,
keyed by their paths (``Route.spec``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from types import MappingProxyType, ModuleType
from typing import Any

from .index import FormatEntry, ModelPattern
from .response_templates import (compile_template, load_template, template_entry,
                                 tokenizer_template)

Version = tuple[int, ...]
Span = tuple[int, int]

_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
_BOUND = re.compile(r"(>=|<)(\d+(?:\.\d+)*)")
_NUMBER = r"(?<![\d.])(\d+(?:\.\d+)*)(?!\.?\d)"


def model_key(name: str) -> str:
    """What patterns are matched against: a repo id, or a local path's last part."""
    name = name.strip().rstrip("/\\")
    if name.startswith(("/", ".", "~")) or "\\" in name or name.count("/") > 1:
        name = re.split(r"[/\\]", name)[-1]
    return name.lower()


def version(text: str) -> Version:
    """``"3.5"`` as ``(3, 5)``, trailing zeros dropped (``4`` and ``4.0`` are equal)."""
    parts = [int(p) for p in text.split(".")]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def pattern_errors(pattern: str) -> list[str]:
    """What is wrong with a pattern's notation (empty: it is well formed)."""
    errors = []
    rest = _PLACEHOLDER.sub("", pattern)
    if "{" in rest or "}" in rest:
        errors.append("unbalanced '{' or '}': a version is written {>=3.5} or {>=3.5,<4}")
    for inner in _PLACEHOLDER.findall(pattern):
        bounds = [b for b in inner.replace(" ", "").split(",") if b]
        ops = [m.group(1) if (m := _BOUND.fullmatch(b)) else None for b in bounds]
        if None in ops or len(set(ops)) != len(ops):
            errors.append(f"version {{{inner}}}: write at most one '>=N' and one '<N', "
                          "separated by a comma")
            continue
        low, high = _range(inner)
        if low is not None and high is not None and _cmp(low, high) >= 0:
            errors.append(f"version {{{inner}}} is an empty range")
    if not rest.strip():
        errors.append("a pattern needs some text besides its version")
    return errors


def _range(inner: str) -> tuple[Version | None, Version | None]:
    low = high = None
    for op, number in _BOUND.findall(inner.replace(" ", "")):
        if op == ">=":
            low = version(number)
        else:
            high = version(number)
    return low, high


class Pattern:
    """One compiled pattern: where it matches in a name."""

    def __init__(self, text: str) -> None:
        self.text = text
        pieces = _PLACEHOLDER.split(text)  # literal, range, literal, range, ...
        self.literals = pieces[0::2]
        self.ranges = [_range(inner) for inner in pieces[1::2]]
        self.literal_length = sum(len(p) for p in self.literals)
        self._regex = re.compile(_NUMBER.join(re.escape(p) for p in self.literals))

    def spans(self, key: str) -> list[Span]:
        """Every place the pattern matches ``key`` (overlapping ones too)."""
        out = []
        pos = 0
        while (m := self._regex.search(key, pos)) is not None:
            if all(_within(version(m.group(i + 1)), low, high)
                   for i, (low, high) in enumerate(self.ranges)):
                out.append(m.span())
            pos = m.start() + 1
        return out

    def examples(self) -> list[str]:
        """Names the pattern matches, one per kind of version it admits (for conflicts)."""
        names = [""]
        for i, literal in enumerate(self.literals):
            names = [n + literal for n in names]
            if i < len(self.ranges):
                names = [n + v for n in names for v in _versions(*self.ranges[i])]
        return names


def _within(v: Version, low: Version | None, high: Version | None) -> bool:
    return (low is None or _cmp(v, low) >= 0) and (high is None or _cmp(v, high) < 0)


def _cmp(a: Version, b: Version) -> int:
    n = max(len(a), len(b))
    a, b = a + (0,) * (n - len(a)), b + (0,) * (n - len(b))
    return (a > b) - (a < b)


def _versions(low: Version | None, high: Version | None) -> list[str]:
    """Sample versions in a range: its start, the next minor and the next major."""
    low = low or (1,)
    samples = [low, low[:-1] + (low[-1] + 1,) if len(low) > 1 else low + (1,), (low[0] + 1,)]
    out = []
    for v in samples:
        text = ".".join(map(str, v))
        if _within(v, low, high) and text not in out:
            out.append(text)
    return out


@lru_cache(maxsize=512)
def compiled(text: str) -> Pattern:
    """The compiled form of a (lowercased) pattern."""
    return Pattern(text)


def _as_pattern(p: str | ModelPattern) -> ModelPattern:
    return p if isinstance(p, ModelPattern) else ModelPattern(p)


class Router:
    """Model-name patterns per format, and the decisions they make."""

    def __init__(self, patterns: Mapping[str, Iterable[str | ModelPattern]]) -> None:
        options: dict[tuple[str, str], tuple[tuple[str, Any], ...]] = {}
        for fmt, ps in patterns.items():
            for p in map(_as_pattern, ps):
                options[(p.pattern.lower(), fmt)] = tuple(sorted(p.defaults.items()))
        self.patterns = sorted(options)
        self._options = options

    def candidates(self, name: str) -> list[tuple[str, str]]:
        """The most specific (pattern, format) pairs matching ``name``."""
        key = model_key(name)
        spans = {pf: compiled(pf[0]).spans(key) for pf in self.patterns}
        matches = [pf for pf in self.patterns if spans[pf]]

        def covers(q: str, qs: Span, p: str, ps: Span) -> bool:
            inside = qs[0] <= ps[0] and ps[1] <= qs[1]
            return inside and (qs != ps or compiled(q).literal_length
                               > compiled(p).literal_length)

        return [(p, f) for p, f in matches
                if not any(q != p and covers(q, qs, p, ps)
                           for q, g in matches for qs in spans[(q, g)] for ps in spans[(p, f)])]

    def route(self, name: str) -> tuple[str, dict[str, Any]] | None:
        """The one format for ``name`` and its defaults, or None (no pattern, or an
        ambiguous name: two formats, or one format with two different defaults)."""
        found = self.decide(name)
        return None if found is None else (found[0], found[1])

    def decide(self, name: str) -> tuple[str, dict[str, Any], list[str]] | None:
        """``route``'s answer with the patterns that decided it."""
        top = self.candidates(name)
        if len({f for _, f in top}) != 1:
            return None
        # The defaults of every deciding pattern apply (``qwen3-`` names the format,
        # ``-instruct-2507`` the variant); two values for one option are ambiguous.
        defaults: dict[str, Any] = {}
        for p, f in top:
            for key, value in self._options[(p, f)]:
                if defaults.setdefault(key, value) != value:
                    return None
        return top[0][1], defaults, sorted(p for p, _ in top)

    def detect(self, name: str) -> str | None:
        """The one format for ``name``, or None (no pattern, or an ambiguous name)."""
        found = self.route(name)
        return found[0] if found else None

    def conflicts(self) -> list[tuple[str, str, str, str, str]]:
        """Pattern pairs that make some name ambiguous (of two formats, or of one
        format with two different defaults).

        Names are built from each pair (a version stands for a few sample versions of
        its range): the pattern itself when the two match the same text, and the two
        merged where one ends with a name piece the other begins with (``kimi-k2`` and
        ``k2-thinking`` give ``kimi-k2-thinking``).  Returns (pattern, format, pattern,
        format, example name).
        """
        out = []
        for i, (p, a) in enumerate(self.patterns):
            for q, b in self.patterns[i + 1 :]:
                if a == b and self._options[(p, a)] == self._options[(q, b)]:
                    continue
                names = [n for x in compiled(p).examples() for y in compiled(q).examples()
                         for n in _merges(x, y)]
                for name in names:
                    if self.route(name) is None:
                        out.append((p, a, q, b, name))
                        break
        return out


def _merges(p: str, q: str) -> list[str]:
    if p == q:
        return [p]
    if p in q or q in p:
        return []  # one is more specific: never ambiguous between the two
    names = []
    for x, y in ((p, q), (q, p)):
        for k in range(min(len(x), len(y)) - 1, 1, -1):
            # The shared part must be a whole name piece (kimi-k2 + k2-thinking),
            # not a coincidence of letters (distill + llama).
            if x.endswith(y[:k]) and x[-k - 1] in _SEPARATORS and y[k] in _SEPARATORS:
                names.append(x + y[k:])
                break
    return names


_SEPARATORS = "-_./: "


def tokenizer_markers(tokenizer: object) -> tuple[set[str], str]:
    """The tokenizer's vocabulary entries that look like markers, and its chat template."""
    try:
        vocab = set(tokenizer.get_vocab())  # type: ignore[attr-defined]
    except (AttributeError, TypeError):
        vocab = set()
    template = getattr(tokenizer, "chat_template", None)
    return vocab, template if isinstance(template, str) else ""


# What detect_by_tokenizer answers for the tokenizer's own response_template (no bundled
# format has this name: a template compiles under its checkpoint's name).
TEMPLATE = "response_template"


def detect_by_tokenizer(entries: Iterable[FormatEntry], tokenizer: object) -> str | None:
    """The format whose markers the tokenizer knows best; else ``TEMPLATE`` when the
    tokenizer carries a Hugging Face ``response_template`` (a format of the entries
    wins over it: it is tested against the model's real output); None on a tie or no
    match without a template.

    A format qualifies when every terminal it matches by token id is a token of the
    vocabulary (one without such terminals, when two of its markers are known); it scores
    one per such token and one per other marker that the chat template writes or the
    vocabulary holds as one token (GLM's <arg_key>). Formats that tie on markers (Laguna
    writes GLM's) are told apart by how many of their turn tokens the vocabulary holds.
    """
    vocab, template = tokenizer_markers(tokenizer)
    best: list[str] = []
    best_score: tuple[int, int] = (0, 0)
    for entry in sorted(entries, key=lambda e: e.name):
        tokens = entry.token_markers
        if not all(t in vocab for t in tokens):
            continue
        texts = entry.text_markers + entry.preserve_tokens  # control tokens that spell markers
        # A plain word (DeepSeek's call type, "function") is in every vocabulary: no evidence.
        score = len(tokens) + sum(1 for t in texts if len(t) > 2 and not t.isalpha()
                                  and (t in template or t in vocab))
        if not tokens and score < 2:
            continue  # markers matched as text qualify only when several are known
        ranked = (score, sum(1 for t in entry.turn_boundary_tokens if t in vocab))
        if ranked > best_score:
            best, best_score = [entry.name], ranked
        elif ranked == best_score:
            best.append(entry.name)
    if len(best) == 1:
        return best[0]
    return TEMPLATE if tokenizer_template(tokenizer) is not None else None


# -- routes: a format and its defaults ------------------------------------------


@dataclass(frozen=True)
class Route:
    """The format of a model and the defaults of its variant (``{"thinking": False}``)."""

    format: str
    defaults: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    # The path of the user's spec that defines the format (None: a bundled format).
    spec: str | None = None
    # The response_template the format is compiled from (a tokenizer, a dict or a
    # path: what parsergen.load takes), and the sha256 that tells two apart.
    template: Any = field(default=None, compare=False, repr=False)
    template_digest: str | None = None
    # Why this format was chosen, in a sentence (``parsergen detect`` prints it).
    reason: str = field(default="", compare=False)

    @property
    def module(self) -> ModuleType:
        """The format's generated module (imported, or compiled from the spec, on first use)."""
        import parsergen

        if self.template is not None:
            return load_template(self.template)
        return parsergen.load(self.spec or self.format)

    @property
    def entry(self) -> FormatEntry:
        """The format's index entry."""
        import parsergen

        if self.template is not None:
            return template_entry(self.template)
        return parsergen.entry(self.spec or self.format)

    def options(self, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """``kwargs`` over the route's defaults; an argument passed as None is not given
        (None is every parser's "use the default")."""
        given = {k: v for k, v in kwargs.items() if v is not None}
        return {**self.defaults, **given}

    def module_for(self, tokenizer: Any) -> ModuleType:
        """``module``, its markers spelt as ``tokenizer`` gives them where the spec
        declares ``tokenizer_values`` (``parsergen.load(..., tokenizer=)``)."""
        import parsergen

        if tokenizer is None or self.template is not None:
            return self.module
        return parsergen.load(self.spec or self.format, tokenizer=tokenizer)

    def chat_parser(self, *args: Any, **kwargs: Any) -> Any:
        """The format's ``ChatParser(*args, **kwargs)`` with the route's defaults (the
        module of the tokenizer given, first or by name)."""
        module = self.module_for(args[0] if args else kwargs.get("tokenizer"))
        return module.ChatParser(*args, **self.options(kwargs))

    def streaming_parser(self, *args: Any, **kwargs: Any) -> Any:
        """The format's ``StreamingParser(*args, **kwargs)`` with the route's defaults (the
        module of the tokenizer given, first or by name)."""
        module = self.module_for(args[0] if args else kwargs.get("tokenizer"))
        return module.StreamingParser(*args, **self.options(kwargs))

    def parse(self, text: str, **kwargs: Any) -> Any:
        """The format's ``parse(text, **kwargs)`` (a ``ParsedMessage``) with the route's
        defaults (the module of ``tokenizer=``, if given)."""
        return self.module_for(kwargs.get("tokenizer")).parse(text, **self.options(kwargs))

    def thinking(self, chat_template_kwargs: Mapping[str, Any] | None = None) -> bool:
        """Whether a request thinks: its ``chat_template_kwargs`` switch if it sets one,
        else the route's default, else the format's."""
        from . import switch_thinking

        entry = self.entry
        found = switch_thinking(entry.thinking_switch, chat_template_kwargs)
        if found is not None:
            return found
        return bool(self.defaults.get("thinking", entry.thinking_default))

    def variant(self, chat_template_kwargs: Mapping[str, Any] | None = None) -> Route:
        """The route of the variant a request's settings choose (``parsergen.variant``):
        this route where the format has no ``request_options`` or the request keeps it."""
        import parsergen

        if self.template is not None or not self.entry.request_options:
            return self
        chosen = parsergen.variant(self.spec or self.format, chat_template_kwargs)
        if chosen == (self.spec or self.format):
            return self
        if self.spec is not None:  # a user's spec names its variants by path
            return replace(self, format=parsergen.entry(chosen).name, spec=chosen)
        return replace(self, format=chosen)

    def describe(self) -> str:
        """The format, then one ``option: value`` line per default (for ``parsergen
        detect``); thinking is shown with where it comes from."""
        lines = [self.format if self.spec is None else f"{self.format} ({self.spec})"]
        if self.template is not None:
            lines[0] += " (the checkpoint's response_template)"
        entry = self.entry
        for key, value in sorted(self.defaults.items()):
            lines.append(f"{key}: {_show(value)} (model)")
        if "thinking" not in self.defaults and entry.thinking_switch:
            lines.append(f"thinking: {_show(entry.thinking_default)} (format default)")
        if self.reason:
            lines.append(f"why: {self.reason}")
        return "\n".join(lines)


def _show(value: Any) -> str:
    return "true" if value is True else "false" if value is False else str(value)


@cache
def _router() -> Router:
    """The router of the bundled formats (built once: the index never changes)."""
    from parsergen.generated import INDEX

    return Router({e.name: e.models for e in INDEX})


def route(model_name: str | None = None, *, tokenizer: object = None,
          specs: Iterable[str | os.PathLike[str]] = ()) -> Route | None:
    """The route of a model, or None.

    By name first (the most specific ``models`` patterns of all specs decide, with their
    defaults; a name two formats claim equally is not guessed), else by the tokenizer's
    marker tokens and chat template (a route without defaults), else by the tokenizer's
    Hugging Face ``response_template`` (``Route.template``: the format compiled from it;
    a template that does not compile routes nowhere, with a ``SpecWarning``).  A format
    that claims the model wins over its template.  The user's specs of
    ``PARSERGEN_SPECS`` and ``specs`` (paths; SpecError if one does not compile) are
    routed with the bundled formats, by the same rules; their routes carry the spec's
    path (``Route.spec``).  ``Route.reason`` says which rule decided.  Without user
    specs or a template it reads the format index only: no format module is imported.
    """
    from parsergen.generated import INDEX

    from .specs import user_entries

    users = dict(user_entries(specs))  # path -> entry; the path is its key in routing
    unused = ("; the tokenizer's response_template is not used: a format claims the model"
              if tokenizer is not None and tokenizer_template(tokenizer) is not None else "")
    if model_name:
        router = _router() if not users else Router(
            {**{e.name: e.models for e in INDEX}, **{p: e.models for p, e in users.items()}})
        found = router.decide(model_name)
        if found is not None:
            key, defaults, patterns = found
            owner = f"{users[key].name} ({key})" if key in users else key
            reason = (f"the model name {model_name!r} matches {owner}'s models pattern"
                      f"{'s' if len(patterns) > 1 else ''} {', '.join(map(repr, patterns))}")
            return _route(key, users, MappingProxyType(defaults), reason + unused)
    if tokenizer is not None:
        keyed = [*INDEX, *(replace(e, name=p) for p, e in users.items())]
        full = [e for e in keyed if e.models]  # not reasoning-only parts
        name = detect_by_tokenizer(full, tokenizer)
        by_name = f"no models pattern decides {model_name!r}" if model_name else "no model name"
        if name == TEMPLATE:
            return _template_route(tokenizer, f"{by_name}, nor do the tokenizer's markers: "
                                   "the checkpoint's response_template")
        if name is not None:
            return _route(name, users, reason=f"{by_name}; the tokenizer's vocabulary and "
                          f"chat template hold {name}'s markers{unused}")
    return None


def _route(key: str, users: Mapping[str, FormatEntry],
           defaults: Mapping[str, Any] = MappingProxyType({}), reason: str = "") -> Route:
    """The route of a routing key: a bundled format's name, or a user spec's path."""
    if key in users:
        return Route(users[key].name, defaults, spec=key, reason=reason)
    return Route(key, defaults, reason=reason)


def _template_route(tokenizer: object, reason: str) -> Route | None:
    """The route of a tokenizer's response_template; None (warned) if it does not compile."""
    import warnings

    from .specs import SpecError, SpecWarning

    try:
        digest, fmt = compile_template(tokenizer)
    except SpecError as exc:
        warnings.warn(f"the tokenizer's response_template is not used: {exc}", SpecWarning,
                      stacklevel=3)
        return None
    return Route(fmt.name, template=tokenizer, template_digest=digest, reason=reason)


__all__ = ["TEMPLATE", "ModelPattern", "Pattern", "Route", "Router", "detect_by_tokenizer",
           "model_key", "pattern_errors", "route", "version"]
