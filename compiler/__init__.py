"""parsergen's compiler: YAML format specs in, one Python parser module per spec out.

Pipeline: ``loader`` (YAML with positions, ``extends``) -> ``validate`` (JSON Schema,
then meaning) -> ``ir`` (frozen dataclasses) -> ``generator`` (Jinja2, ast, black).
"""

from .build import compile_spec, plan
from .diagnostics import Diagnostic, SpecError

__all__ = ["Diagnostic", "SpecError", "compile_spec", "plan"]
