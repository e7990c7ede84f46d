"""The build-time check of model routing: no constructible name may be ambiguous."""

from __future__ import annotations

from parsergen.routing import Router

from .diagnostics import Diagnostic, Position
from .ir import FormatIR


def routing_conflicts(formats: list[FormatIR]) -> list[Diagnostic]:
    """One error per pair of patterns that leaves some model name to chance."""
    router = Router({f.name: f.models for f in formats})
    where = {f.name: Position(f.source, f.models_line, 1) for f in formats}
    out = []
    for p, a, q, b, name in router.conflicts():
        out.append(Diagnostic(where[a], "$.models",
                              f"{p!r} ({a}) and {q!r} ({b}) both match {name!r} and neither "
                              "is more specific: add a pattern that decides it"))
    return out
