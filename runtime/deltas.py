"""Consecutive deltas (text, token ids) joined into as few as parse the same (``coalesce``)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def coalesce(deltas: Iterable[tuple[str, Sequence[int]]]) -> list[tuple[str, list[int]]]:
    """Consecutive deltas joined into as few as parse the same: texts and ids joined.

    A run breaks where deltas with ids meet deltas of text alone: a marker matched by
    id must stay an id, and typed text before the first ids is lexed as text was.
    Empty deltas join any run.
    """
    pairs = deltas if type(deltas) is list else list(deltas)
    texts: list[str] = []
    ids: list[int] = []
    bare = False  # some delta is text alone
    for text, delta_ids in pairs:  # (one plain loop: the common case, all of one kind)
        texts.append(text)
        if delta_ids:
            ids += delta_ids
        elif text:
            bare = True
    if not (bare and ids):
        return [("".join(texts), ids)] if texts else []
    return _runs(pairs)


def _runs(pairs: list[tuple[str, Sequence[int]]]) -> list[tuple[str, list[int]]]:
    """``coalesce`` of deltas with ids and deltas of text alone: one run per kind."""
    out: list[tuple[str, list[int]]] = []
    run: list[str] = []
    ids: list[int] = []
    has_ids: bool | None = None  # the open run's kind (None: only empty deltas yet)
    for text, delta_ids in pairs:
        kind = bool(delta_ids) if delta_ids or text else has_ids
        if kind is not has_ids and has_ids is not None:
            out.append(("".join(run), ids))
            run, ids = [], []
        has_ids = kind
        run.append(text)
        ids.extend(delta_ids)
    out.append(("".join(run), ids))
    return out
