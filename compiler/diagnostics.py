"""Errors in specs, reported as ``FILE:LINE:COL: $.path: message``."""

from __future__ import annotations

import re
from dataclasses import dataclass

import parsergen.specs

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

Path = tuple[object, ...]


def json_path(path: Path) -> str:
    """Render a key path as ``$.a.b[0]`` (quoted where a key is not an identifier)."""
    out = "$"
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif isinstance(part, str) and _IDENT.match(part):
            out += f".{part}"
        else:
            out += f"[{str(part)!r}]"
    return out


@dataclass(frozen=True, order=True)
class Position:
    """Where a value stands in a spec file (1-based line and column)."""

    file: str
    line: int
    col: int


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One problem found in a spec."""

    position: Position
    path: str
    message: str

    def __str__(self) -> str:
        p = self.position
        return f"{p.file}:{p.line}:{p.col}: {self.path}: {self.message}"

    def warning(self) -> str:
        """The diagnostic as a warning: ``FILE:LINE:COL: warning: $.path: message``."""
        p = self.position
        return f"{p.file}:{p.line}:{p.col}: warning: {self.path}: {self.message}"


class SpecError(parsergen.specs.SpecError):
    """A spec failed to load or validate; carries every diagnostic found."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = sorted(set(diagnostics))
        super().__init__("\n".join(map(str, self.diagnostics)))
