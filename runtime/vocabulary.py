"""What a parser needs from a tokenizer, read once per (tokenizer, format): ``TokenizerInfo``.

Which ids are markers: the format's token terminals; special tokens it does not name drop.
Spellings over special tokens (and text around them): id sequences of pieces (``sequences``).
Marker spellings the vocabulary holds as ids (a prompt's ids can show them); turn boundaries.
``Decoder``: a tokenizer's text of one id (cached) or of a run of ids.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, NamedTuple

from mypy_extensions import mypyc_attr

from .events import DROP

# Names of pieces (special tokens of a spelling matched as an id sequence; see
# sequences.py): characters of Unicode's private-use area B, which no terminal uses.
PIECE_BASE: Final = 0x100000


def is_piece(name: str) -> bool:
    """Whether a marker name is a piece of a spelling rather than a terminal."""
    return len(name) == 1 and ord(name) >= PIECE_BASE


class TokenizerInfo(NamedTuple):
    """What a parser needs from a tokenizer, computed once per (tokenizer, format)."""

    id_to_name: dict[int, str]  # marker ids, including auto-dropped special tokens
    resolved: frozenset[str]  # format terminals whose text is a token of the vocab
    drop_texts: frozenset[str]  # special tokens the format does not name
    decode: Callable[[int], str]
    decode_run: Callable[[Sequence[int]], str]  # several ids at once (bytes join up)
    name_to_ids: dict[str, tuple[tuple[int, ...], ...]]  # terminals the vocabulary spells: ids
    stop_ids: frozenset[int]  # turn boundaries and every special token: a prompt walk stops
    boundary_ids: frozenset[int]  # turn boundaries
    patterns: dict[str, str]  # spellings over special tokens, as pieces: pattern -> name


def tokenizer_info(
    tokenizer: Any,
    token_terminals: Mapping[str, str],
    configured_texts: Iterable[str],
    turn_boundary_tokens: Iterable[str] = (),
    literals: Mapping[str, str] | None = None,
    spelled: Mapping[str, str] | None = None,
) -> TokenizerInfo:
    """Resolve ``token_terminals`` (name -> token text) and the auto-drop set, and
    find which ``spelled`` terminals (spelling -> name) are spelled over special
    tokens (matched as id sequences, see ``sequences``)."""
    vocab = tokenizer.get_vocab()
    special_texts = special_tokens(tokenizer)
    whole = whole_tokens(tokenizer, vocab, special_texts)
    id_to_name: dict[int, str] = {}
    resolved: set[str] = set()
    for name, text in token_terminals.items():
        tid = whole.get(text)
        if tid is not None:
            id_to_name[tid] = name
            resolved.add(name)
    drop_texts: set[str] = set()
    special_ids, specials = list(special_texts), list(special_texts.values())
    configured = set(configured_texts)
    # A special token inside a spelling is part of it: never dropped (one that starts
    # the spelling makes it an id sequence, below; one inside it stays text).
    inside = list(spelled or {})
    for text, tid in zip(specials, special_ids):
        if text not in configured and not any(text in lit for lit in inside):
            id_to_name[tid] = DROP
            drop_texts.add(text)
    decode = Decoder(tokenizer)
    decode_run = decode.run
    boundary_ids = frozenset(vocab[t] for t in turn_boundary_tokens if t in vocab)
    # Markers the format reads as text may still be tokens of the vocabulary, one
    # (<think>) or several (Kimi K3's <|open|> think <|sep|>): a prompt's ids can show
    # them, in every spelling (name -> the spellings' id sequences).
    name_to_ids: dict[str, tuple[tuple[int, ...], ...]] = {}
    for text, name in (literals or {}).items():
        if text in vocab:
            name_to_ids[name] = (*name_to_ids.get(name, ()), (vocab[text],))
        else:
            ids = _encode(tokenizer, text)
            if len(ids) > 1 and "".join(decode(i) for i in ids) == text:
                name_to_ids[name] = (*name_to_ids.get(name, ()), ids)
    by_token: dict[str, tuple[tuple[int, ...], ...]] = {}
    for tid, name in id_to_name.items():
        if name != DROP:  # (a terminal matched by its token: its token ids)
            by_token[name] = (*by_token.get(name, ()), (tid,))
    name_to_ids.update(by_token)
    single = frozenset(seq[0] for seqs in name_to_ids.values() for seq in seqs if len(seq) == 1)
    stop_ids = boundary_ids | frozenset(special_ids) | single
    patterns, pieces = _patterns(tokenizer, spelled or {}, resolved, special_texts)
    resolved.update(patterns.values())
    for tid, piece in pieces.items():
        id_to_name[tid] = piece  # a piece, never dropped: the sequencer reads it
        drop_texts.discard(decode(tid))
    return TokenizerInfo(id_to_name, frozenset(resolved), frozenset(drop_texts), decode,
                         decode_run, name_to_ids, stop_ids, boundary_ids, patterns)


@mypyc_attr(allow_interpreted_subclasses=True)
class Decoder:
    """A tokenizer's text of one id (cached) or of a run of ids ("" if not a string)."""

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self.cache: dict[int, str] = {}

    def __call__(self, tid: int) -> str:
        text = self.cache.get(tid)
        if text is None:
            text = self.tokenizer.decode([tid])
            if not isinstance(text, str):
                text = ""
            self.cache[tid] = text
        return text

    def run(self, ids: Sequence[int]) -> str:
        """The text of ``ids`` decoded together."""
        text = self.tokenizer.decode(list(ids))
        return text if isinstance(text, str) else ""

    def __deepcopy__(self, memo: dict[int, Any]) -> Decoder:
        # Shared by the parsers of one tokenizer, as the functions it replaces were:
        # a function is not copied either (and compiled, a closure cannot be).
        return self


def special_tokens(tokenizer: Any) -> dict[int, str]:
    """The tokenizer's special tokens, id -> text (none when it cannot say)."""
    try:
        return dict(zip(tokenizer.all_special_ids, tokenizer.all_special_tokens))
    except (AttributeError, NotImplementedError):
        return {}


def whole_tokens(tokenizer: Any, vocab: Mapping[str, int],
                 specials: Mapping[int, str]) -> Mapping[str, int]:
    """The tokens a token-id terminal may be: the added and special ones, or the whole
    vocabulary where the tokenizer names neither."""
    # (A tokenizer splits its added tokens out of the text before its model runs, so
    # such a marker is always its id; an ordinary piece such as ">" merges with what
    # follows it (">\n"), and matched by its id alone it would be missed.)
    try:
        added = dict(tokenizer.get_added_vocab())
    except (AttributeError, NotImplementedError, TypeError, ValueError):
        added = {}
    out = {text: tid for text, tid in added.items() if vocab.get(text) == tid}
    out.update((text, tid) for tid, text in specials.items() if vocab.get(text) == tid)
    return out or vocab


def _patterns(tokenizer: Any, spelled: Mapping[str, str], resolved: set[str],
              specials: dict[int, str]) -> tuple[dict[str, str], dict[int, str]]:
    """Patterns of the terminals spelled over special tokens (with text before, between
    or after them), and the piece name of each special token in them.

    Only a terminal whose every spelling is such can be known by ids alone (the
    lexer drops it from text matching once ids come); the sequencer holds the words a
    pattern starts with until its first piece shows whether it is one.
    """
    by_name: dict[str, list[str]] = {}
    for text, name in spelled.items():
        by_name.setdefault(name, []).append(text)
    patterns: dict[str, str] = {}
    pieces: dict[int, str] = {}
    for name in sorted(by_name):
        if name in resolved:
            continue
        found: dict[str, str] = {}
        for text in by_name[name]:
            ids = _encode(tokenizer, text)
            if not any(tid in specials for tid in ids):
                break
            parts = [specials.get(tid) for tid in ids]
            rest = [tokenizer.decode([tid]) for tid, part in zip(ids, parts) if part is None]
            if "".join(part or rest.pop(0) for part in parts) != text:
                break  # the ids do not spell it piece by piece
            pattern = "".join(
                pieces.setdefault(tid, chr(PIECE_BASE + len(pieces))) if tid in specials
                else tokenizer.decode([tid]) for tid in ids)
            found[pattern] = name
        else:
            patterns.update(found)
    return patterns, pieces


def _encode(tokenizer: Any, text: str) -> tuple[int, ...]:
    """The ids ``text`` tokenizes to, special tokens included, or () if it cannot say."""
    try:
        ids = tokenizer.encode(text, add_special_tokens=False)
    except (AttributeError, TypeError, ValueError):
        return ()
    return tuple(ids) if all(isinstance(i, int) for i in ids) else ()
