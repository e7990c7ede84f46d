"""The build-time check of model routing: no constructible name may be ambiguous."""

from __future__ import annotations

from parsergen.routing import Router

from .diagnostics import Diagnostic, Position
from .ir import FormatIR


def routing_conflicts(formats: list[FormatIR]) -> list[Diagnostic]:
    """One error per pair of patterns that leaves some model name (or its defaults) to
    chance, at the models entry of the pattern that sorts first."""
    router = Router({f.name: f.models for f in formats})
    by_name = {f.name: f for f in formats}
    out = []
    for p, a, q, b, name in router.conflicts():
        fmt = by_name[a]
        lines = [line for m, line in zip(fmt.models, fmt.model_lines) if m.pattern.lower() == p]
        where = Position(fmt.source, lines[0] if lines else fmt.models_line, 1)
        what = ("neither is more specific" if a != b
                else "they give the same option two values")
        out.append(Diagnostic(where, "$.models",
                              f"{p!r} ({a}) and {q!r} ({b}) both match {name!r} and {what}: "
                              "add a pattern that decides it"))
    return out
