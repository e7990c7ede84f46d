"""parsergen: model-output parsers generated from YAML format specs.

``parsergen.formats()`` lists the bundled formats and ``parsergen.load(name)``
returns a format's generated module (``StreamingParser``, ``FORMAT``, ``SPEC``).
"""

from __future__ import annotations

import importlib
from types import ModuleType

__version__ = "0.1.0"


def formats() -> list[str]:
    """Names of the bundled formats, sorted."""
    from parsergen.generated import FORMATS

    return list(FORMATS)


def load(name: str) -> ModuleType:
    """The generated module of format ``name``; KeyError if there is none."""
    if name not in formats():
        raise KeyError(name)
    return importlib.import_module(f"parsergen.generated.{name}")


__all__ = ["formats", "load"]
