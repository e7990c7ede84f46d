"""parsergen's compiler: YAML format specs in, one Python parser module per spec out.

Pipeline: ``loader`` (YAML with positions, ``extends``) -> ``validate`` (JSON Schema,
then meaning) -> ``ir`` (frozen dataclasses) -> ``generator`` (Jinja2, ast, black).
"""

from typing import Any

from .diagnostics import Diagnostic, SpecError


def __getattr__(name: str) -> Any:
    """``compile_spec`` and ``plan``, imported from ``build`` on first use: the command
    line (this package's ``cli``) parses with no YAML, JSON Schema or Jinja2 imported."""
    if name in ("compile_spec", "plan"):
        from . import build

        return getattr(build, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Diagnostic", "SpecError", "compile_spec", "plan"]
