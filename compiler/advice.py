"""Warnings about a user's spec (it compiles, but something will surprise its author).

``parsergen check`` prints them and ``parsergen.load(path)`` warns with them: a
``$schema`` that names no schema, a format name a bundled format already has, model
patterns that leave a name to chance against a bundled format's (``Router.conflicts``:
such a name routes to neither format), and machines that lose text or never make a
call (``loss_warnings``).
"""

from __future__ import annotations

import json
from pathlib import Path

from parsergen.index import FormatEntry
from parsergen.routing import Router
from parsergen.runtime.arguments import SYNTAXES
from parsergen.runtime.bodies import BODIES

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
    out = _schema_warnings(path, loaded, fmt.source) + loss_warnings(fmt, loaded)
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


TOOL_STATES = ("TOOL_PREAMBLE", "TOOL_NAME", "TOOL_ARGS", "TOOL_BETWEEN")


def loss_warnings(fmt: FormatIR, loaded: LoadedSpec) -> list[Diagnostic]:
    """A machine that compiles but loses text or makes no call: a call end that no call
    start comes before, a tool state with no way out, calls with nowhere to take a
    name from, calls with no ``render.call``."""
    def at(*key: str | int) -> Position:
        return loaded.positions.get(key) or Position(fmt.source, 1, 1)

    states = {state.name: state for state in fmt.states if state.name in fmt.reachable}
    emitted = {event for state in states.values() for t in state.transitions
               for event in (*t.emit, *(e for r in t.rules for e in r.emit))}
    body = BODIES[fmt.tool_body]
    starts = "TOOL_CALL_START" in emitted or ("TOOL_ARGS" in states and body.starts_calls)
    out = []
    if "TOOL_CALL_END" in emitted and not starts:
        out.append(Diagnostic(at("transitions"), "$.transitions",
                              "TOOL_CALL_END is emitted but no transition emits "
                              "TOOL_CALL_START, so no call ever starts and the text "
                              "between is lost: emit TOOL_CALL_START where a call begins"))
    for name in TOOL_STATES:
        state = states.get(name)
        if state is None:
            continue
        leaves = any(t.target != name or any(r.target != name for r in t.rules)
                     for t in state.transitions)
        if not leaves and not (name == "TOOL_ARGS" and body.exits_to):
            out.append(Diagnostic(at("transitions", name) if state.transitions
                                  else at("transitions"), f"$.transitions.{name}",
                                  f"no transition leaves {name}, so all text after it is "
                                  "taken for the call (a sentence after the call is lost): "
                                  "add the marker that ends it"))
    captured = {t.name for v in fmt.variants for t in v.terminals if t.pattern is not None}
    named = ("TOOL_NAME" in states or SYNTAXES[fmt.arguments["syntax"]].names_call
             or body.starts_calls or fmt.tool_name_pattern is not None
             or any("(?P<name>" in (r.when or "") for state in states.values()
                    for t in state.transitions for r in t.rules)  # a header names it
             or any(t.terminal in captured for state in states.values()
                    for t in state.transitions  # a pattern's capture (validated)
                    if "TOOL_NAME" in t.emit or any("TOOL_NAME" in r.emit for r in t.rules)))
    if starts and not named:
        out.append(Diagnostic(at("arguments", "syntax"), "$.arguments.syntax",
                              "calls start but have nowhere to take a name from: no "
                              "TOOL_NAME state nor pattern capture, and syntax "
                              f"{fmt.arguments['syntax']!r} "
                              "does not name its call; add a TOOL_NAME state or a syntax "
                              "that reads the name (json_envelope with name_key)"))
    if starts and fmt.render.call is None:
        out.append(Diagnostic(at("render") if ("render",) in loaded.positions else at(),
                              "$.render.call", "no render.call: render() cannot write "
                              "this format's calls (and round trips cannot test it)"))
    return out
