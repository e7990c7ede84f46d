"""Warnings about a user's spec (it compiles, but something will surprise its author).

``parsergen check`` prints them and ``parsergen.load(path)`` warns with them: a
``$schema`` that names no schema, a format name a bundled format already has, and model
patterns that leave a name to chance against a bundled format's (``Router.conflicts``:
such a name routes to neither format).
"""

from __future__ import annotations

import json
from pathlib import Path

from parsergen.index import FormatEntry
from parsergen.routing import Router

from .diagnostics import Diagnostic, Position, json_path
from .ir import FormatIR
from .loader import LoadedSpec, bundled_grammars

# What a spec writes as ``$schema`` to mean the bundled schema wherever parsergen is
# installed (``parsergen schema`` prints that file's path, for editors).
SCHEMA_URI = "parsergen://schema.json"


def schema_path() -> Path:
    """The bundled JSON Schema that every spec is checked against."""
    return bundled_grammars() / "schema.json"


def resolve_schema(value: str, spec_dir: Path) -> Path | None:
    """The file a spec's ``$schema`` names, or None.

    ``parsergen://schema.json`` and the schema's ``$id`` are the bundled schema; a path is
    read next to the spec first, then next to the bundled schema (so the bundled
    grammars' ``./schema.json`` keeps meaning the bundled schema in a copy elsewhere).
    """
    bundled = schema_path()
    if value == SCHEMA_URI or value == _schema_id():
        return bundled
    if "://" in value:
        return None
    path = Path(value).expanduser()
    for base in (spec_dir, bundled.parent):
        candidate = base / path  # an absolute path stays itself
        if candidate.is_file():
            return candidate
    return None


def _schema_id() -> str | None:
    try:
        return json.loads(schema_path().read_text(encoding="utf-8")).get("$id")
    except (OSError, ValueError):
        return None


def spec_warnings(path: Path, loaded: LoadedSpec, fmt: FormatIR) -> list[Diagnostic]:
    """Every warning about a spec that compiled (none for a bundled grammar's own file:
    ``parsergen build`` checks those together)."""
    out = _schema_warnings(path, loaded, fmt.source)
    if path.resolve().parent != bundled_grammars().resolve():
        out += _shadow_warnings(fmt, loaded) + collision_warnings(fmt)
    return sorted(set(out))


def _schema_warnings(path: Path, loaded: LoadedSpec, display: str) -> list[Diagnostic]:
    where = loaded.positions.get(("$schema",))
    value = loaded.data.get("$schema")
    if where is None or where.file != display or not isinstance(value, str):
        return []  # not written in this file (inherited, or absent)
    if resolve_schema(value, path.parent) is not None:
        return []
    return [Diagnostic(where, "$.$schema",
                       f"{value!r} names no file next to this spec or the bundled schema; "
                       f"write '$schema: {SCHEMA_URI}' (or the path 'parsergen schema' prints)")]


def _bundled() -> list[FormatEntry]:
    from parsergen.generated import INDEX

    return list(INDEX)


def _shadow_warnings(fmt: FormatIR, loaded: LoadedSpec) -> list[Diagnostic]:
    names = {n for e in _bundled() for n in (e.name, *e.aliases)}
    out = []
    keys = [("name",), *(("aliases", i) for i in range(len(fmt.aliases)))]
    for key, name in zip(keys, (fmt.name, *fmt.aliases)):
        if name in names:
            where = loaded.positions.get(key) or Position(fmt.source, 1, 1)
            out.append(Diagnostic(where, json_path(key),
                                  f"{name!r} is also a bundled format's name: by that name "
                                  "parsergen loads the bundled one; load this spec by its "
                                  "path, or rename it"))
    return out


def collision_warnings(fmt: FormatIR) -> list[Diagnostic]:
    """One warning per pair of a ``fmt`` pattern and a bundled format's pattern that
    leaves some model name to chance (that name then routes to neither)."""
    bundled = {e.name: e.models for e in _bundled()}
    mine = f"{fmt.name} (this spec)" if fmt.name in bundled else fmt.name
    router = Router({**bundled, mine: fmt.models})
    out = []
    for p, a, q, b, name in router.conflicts():
        if (a == mine) == (b == mine):
            continue  # between bundled formats (checked by parsergen build), or within fmt
        ours, theirs, other = (p, q, b) if a == mine else (q, p, a)
        lines = [line for m, line in zip(fmt.models, fmt.model_lines)
                 if m.pattern.lower() == ours]
        where = Position(fmt.source, lines[0] if lines else fmt.models_line, 1)
        out.append(Diagnostic(where, "$.models",
                              f"{ours!r} and {other}'s {theirs!r} both match {name!r} and "
                              "neither is more specific, so that name routes to neither "
                              "format: add a pattern that decides it"))
    return out
