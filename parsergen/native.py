"""Which build of the runtime and the bundled formats this process runs: compiled by
mypyc (extension modules next to the ``.py`` files they replace) or pure Python.

The install compiles where it can (tools/build_backend.py) and records what it did in
``runtime/mypyc_build.json``: the sources' hashes, or why it stayed pure.  ``import
parsergen`` calls ``choose()`` before anything imports the runtime: with
``PARSERGEN_PURE=1`` set, or a build compiled into a source tree whose sources changed
since (an editable install, where an edit of ``runtime/`` would otherwise not count),
the modules of ``parsergen.runtime`` and ``parsergen.generated`` are imported from
their ``.py`` files, all of them: a compiled format binds to the compiled runtime's
classes, so the two never mix.  ``describe()`` says which build runs
(``parsergen --version``).

Nothing here imports the runtime, and a wheel's build (not made in a source tree) is
never hashed again: ``import parsergen`` reads one small file.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

PURE_VARIABLE = "PARSERGEN_PURE"
MANIFEST = "mypyc_build.json"
# The packages compiled; a module of theirs is a path under the package ("runtime/driver.py").
FOLDERS = ("runtime", "generated")
# How a source tree's build is made again, or removed.
REBUILD = ("`pip install -e .` or `python tools/build_compiled.py` compiles it again "
           "(`--remove` deletes it)")

# Why this process runs pure Python although compiled modules are installed (None: it
# does not, or there are none); set once, by choose().
_PURE_BECAUSE: list[str] = []


def pure_requested(environ: Any = os.environ) -> bool:
    """Whether ``PARSERGEN_PURE`` asks for pure Python (at install or at run time)."""
    return environ.get(PURE_VARIABLE, "").strip().lower() not in ("", "0", "false", "no")


def folders() -> dict[str, Path]:
    """The folders ``parsergen.runtime`` and ``parsergen.generated`` are imported from,
    found without importing them."""
    out = {}
    for folder in FOLDERS:
        spec = importlib.util.find_spec(f"parsergen.{folder}")
        assert spec is not None and spec.submodule_search_locations is not None
        out[folder] = Path(list(spec.submodule_search_locations)[0])
    return out


def manifest(where: dict[str, Path]) -> dict[str, Any] | None:
    """The build's record in these folders (see the module docstring), or None."""
    try:
        data = json.loads((where["runtime"] / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def compiled_file(source: Path) -> Path | None:
    """The extension module next to ``source`` that is imported in its place, if any."""
    stem = source.name[:-3]
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = source.with_name(stem + suffix)
        if candidate.is_file():
            return candidate
    return None


def stale(where: dict[str, Path], record: dict[str, Any]) -> list[str]:
    """Modules still compiled from a source that has changed since (or is gone): what
    would be imported is the module as it was."""
    out = []
    for name, digest in record.get("modules", {}).items():
        folder, _, rest = name.partition("/")
        source = where[folder] / rest
        if compiled_file(source) is None:
            continue  # (``parsergen build`` deleted it: the source is imported)
        try:
            current = hashlib.sha256(source.read_bytes()).hexdigest()
        except OSError:
            current = ""
        if current != digest:
            out.append(name)
    return out


class SourcesOnly(importlib.abc.MetaPathFinder):
    """Finds the modules of ``parsergen.runtime`` and ``parsergen.generated`` as their
    ``.py`` files, passing over the compiled modules beside them."""

    PREFIXES = tuple(f"parsergen.{folder}." for folder in FOLDERS)

    def find_spec(self, name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        """The source module's spec, or None for a module not of those packages."""
        if path is None or not name.startswith(self.PREFIXES):
            return None
        for folder in path:
            finder = importlib.machinery.FileFinder(
                folder, (importlib.machinery.SourceFileLoader,
                         importlib.machinery.SOURCE_SUFFIXES))
            spec = finder.find_spec(name, target)
            if spec is not None:
                return spec
        return None


def choose(environ: Any = os.environ) -> None:
    """Before the runtime is imported: import it (and the formats) from source when
    ``PARSERGEN_PURE`` asks, or when a build in a source tree is stale (a warning says
    so and how to rebuild)."""
    if _PURE_BECAUSE or "parsergen.runtime" in sys.modules:
        return  # (decided already: the runtime is what it is)
    if pure_requested(environ):
        reason = f"{PURE_VARIABLE}={environ[PURE_VARIABLE]}"
    else:
        where = folders()
        record = manifest(where)
        if record is None or not record.get("in_place"):
            return
        changed = stale(where, record)
        if not changed:
            return
        reason = (f"the compiled build in {where['runtime'].parent} is stale "
                  f"({', '.join(changed[:3])}{', ...' if len(changed) > 3 else ''} changed)")
        warnings.warn(f"parsergen runs pure Python: {reason}; {REBUILD}",
                      RuntimeWarning, stacklevel=3)
    _PURE_BECAUSE.append(reason)
    sys.meta_path.insert(0, SourcesOnly())


def is_compiled() -> bool:
    """Whether the runtime this process imported is the compiled one."""
    import parsergen.runtime.driver as driver

    return str(driver.__file__).endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def describe() -> str:
    """Which build runs, in a line: compiled (how many formats), or pure Python and why."""
    where = folders()
    record = manifest(where) or {}
    if is_compiled():
        # (those still compiled: `parsergen build` deletes a rewritten module's)
        formats = sum(1 for name in record.get("modules", ()) if name.startswith("generated/")
                      and compiled_file(where["generated"] / name.partition("/")[2]))
        return f"compiled (mypyc): the runtime and {formats} bundled formats"
    if _PURE_BECAUSE:
        return f"pure Python: {_PURE_BECAUSE[0]}"
    if record.get("pure"):
        return f"pure Python: not compiled when installed, {record['pure']}"
    return f"pure Python: nothing compiled in {where['runtime']}; {REBUILD}"


__all__ = ["MANIFEST", "PURE_VARIABLE", "choose", "describe", "folders", "is_compiled",
           "manifest", "pure_requested", "stale"]
