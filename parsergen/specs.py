"""A user's own specs, by path: compiled in memory, imported as modules, cached by content.

``parsergen.load("my.yaml")`` runs the compiler's pipeline (load, validate, lower, IR,
generator) on the spec and what it ``extends``, and imports the generated source as a
module without writing a file.  Modules are kept by the sha256 of those files' bytes:
the same content gives the same module object, a changed file a new one; a path
loaded before is not read again while its files' stat signatures stay the same.  Specs listed
in ``PARSERGEN_SPECS`` (paths joined by ``os.pathsep``) are routed with the bundled
formats (``parsergen.route``) and load by their format name too.

Nothing here imports the compiler until a spec is compiled.
"""

from __future__ import annotations

import hashlib
import json
import importlib.abc
import importlib.util
import os
import sys
import time
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from .index import FormatEntry

SPECS_VARIABLE = "PARSERGEN_SPECS"
SPEC_SUFFIXES = (".yaml", ".yml")


class SpecError(Exception):
    """A spec that cannot be used: a bad path, bad YAML or a bad spec.

    ``str()`` is every problem, one per line, as ``FILE:LINE:COL: $.path: message``;
    ``diagnostics`` holds them (``parsergen.compiler.Diagnostic``).
    """

    diagnostics: list[Any]


class SpecWarning(UserWarning):
    """A user's spec compiles but will surprise: its ``$schema`` names nothing, its name
    is a bundled format's, or its model patterns collide with a bundled format's."""


def is_path(name: str | os.PathLike[str]) -> bool:
    """Whether ``load``/``entry`` read ``name`` as a spec's path rather than a format name:
    a path object, or text ending in .yaml/.yml or holding a path separator."""
    if not isinstance(name, str):
        return True
    seps = [s for s in (os.sep, os.altsep, "/") if s]
    return name.endswith(SPEC_SUFFIXES) or any(s in name for s in seps)


# Compiled formats (IR) and imported modules by content digest; entries by module name.
_FORMATS: dict[str, Any] = {}
_MODULES: dict[str, ModuleType] = {}
_ENTRIES: dict[str, FormatEntry] = {}
_LEFT_OUT: set[tuple[str, str]] = set()  # (path, errors) of variable specs warned about


# The files each spec's path was last compiled from (it and what it extends), their
# stat signatures and their digest: loading the path again compares signatures (a few
# microseconds; the files' hash where they differ) instead of parsing the YAML to find
# the files (28 ms).  A signature is kept only once the files are older than _SETTLED:
# an edit within the file system's timestamp granularity could leave it the same.
# (A base spec found among the bundled grammars is still used if a file of its name
# appears next to the spec later: the spec's own next edit finds it.)
Signature = tuple[tuple[int, int, int], ...]
_SOURCES: dict[str, tuple[list[Path], Signature | None, str]] = {}
_SETTLED = 2_000_000_000  # ns


def _signature(paths: Iterable[Path]) -> Signature | None:
    """(mtime, size, inode) of each file, or None if one cannot be read."""
    try:
        return tuple((st.st_mtime_ns, st.st_size, st.st_ino) for st in map(os.stat, paths))
    except OSError:
        return None


def _settled(signature: Signature | None) -> Signature | None:
    """The signature if every file is older than _SETTLED (then an edit changes it)."""
    if signature is None or time.time_ns() - max(s[0] for s in signature) < _SETTLED:
        return None
    return signature


def _digest(paths: Iterable[Path]) -> str | None:
    """The sha256 of these files' bytes, one after another; None if one cannot be read."""
    digest = hashlib.sha256()
    try:
        for path in paths:
            digest.update(path.read_bytes())
    except OSError:
        return None
    return digest.hexdigest()


def _compile(path: str | os.PathLike[str],
             values: Mapping[str, str] | None = None) -> tuple[str, Any]:
    """The content digest and IR of a spec (compiled once per content and tokenizer
    values; warnings then)."""
    chosen = json.dumps(sorted((values or {}).items()))
    key = os.path.abspath(path) + ("" if values is None else "\0" + chosen)
    known = _SOURCES.get(key)
    if known is not None:
        sources, signature, digest = known
        now = _signature(sources)
        if now is not None and now == signature:
            return digest, _FORMATS[digest]
        if now is not None and _digest(sources) == digest:
            _SOURCES[key] = (sources, _settled(now), digest)
            return digest, _FORMATS[digest]
    from parsergen.compiler.advice import spec_warnings
    from parsergen.compiler.build import compile_loaded, sources_bytes
    from parsergen.compiler.loader import load_spec

    path = Path(path)
    display = os.fspath(path)
    loaded = load_spec(path, display)  # YAML and extends, to know what to hash
    made_of = sources_bytes(loaded) + (b"" if values is None else b"\0" + chosen.encode())
    digest = hashlib.sha256(made_of).hexdigest()
    fmt = _FORMATS.get(digest)
    if fmt is None:
        fmt = compile_loaded(loaded, display, values)
        if not _bundled(path):  # (a bundled grammar with a tokenizer's values: no advice)
            for problem in spec_warnings(path, loaded, fmt):
                warnings.warn(problem.warning(), SpecWarning, stacklevel=4)
        _FORMATS[digest] = fmt
    _SOURCES[key] = (list(loaded.sources), _settled(_signature(loaded.sources)), digest)
    return digest, fmt


def _bundled(path: Path) -> bool:
    """Whether ``path`` is one of the grammars shipped with parsergen."""
    from parsergen.compiler.loader import bundled_grammars

    return path.resolve().parent == bundled_grammars().resolve()


class _SourceLoader(importlib.abc.InspectLoader):
    """Imports generated source held in memory (``get_source`` serves tracebacks)."""

    def __init__(self, source: str, filename: str) -> None:
        self.source = source
        self.filename = filename

    def get_source(self, fullname: str) -> str:
        return self.source

    def exec_module(self, module: ModuleType) -> None:
        exec(compile(self.source, self.filename, "exec"), module.__dict__)


def load_path(path: str | os.PathLike[str], *,
              values: Mapping[str, str] | None = None) -> ModuleType:
    """The module of the spec at ``path``, compiled in memory; SpecError if it cannot be.

    ``values``: its ``tokenizer_values`` as a tokenizer gives them (else the defaults)."""
    digest, fmt = _compile(path, values)
    return import_format(digest, fmt, os.fspath(path))


def import_format(digest: str, fmt: Any, file: str) -> ModuleType:
    """The module of a compiled format (IR), generated and imported once per digest."""
    module = _MODULES.get(digest)
    if module is not None:
        return module
    from parsergen.compiler.generator import format_entry, generate_module

    name = f"parsergen_user_{fmt.name}_{digest[:12]}"
    loader = _SourceLoader(generate_module(fmt, formatted=False), f"<parsergen {fmt.source}>")
    spec = importlib.util.spec_from_loader(name, loader)
    assert spec is not None  # (a loader is given: there is always a spec)
    module = importlib.util.module_from_spec(spec)
    module.__file__ = file
    sys.modules[name] = module  # dataclasses and pickling look modules up by name
    try:
        loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    _MODULES[digest] = module
    _ENTRIES[name] = format_entry(fmt)
    return module


def spec_entry(path: str | os.PathLike[str]) -> FormatEntry:
    """The index entry of the spec at ``path`` (compiled, not imported); SpecError."""
    from parsergen.compiler.generator import format_entry

    return format_entry(_compile(path)[1])


def module_entry(module: ModuleType) -> FormatEntry | None:
    """The entry of a module ``load_path`` made, or None (a bundled module)."""
    return _ENTRIES.get(module.__name__)


def env_specs() -> list[str]:
    """The paths listed in ``PARSERGEN_SPECS``."""
    return [p for p in os.environ.get(SPECS_VARIABLE, "").split(os.pathsep) if p]


def user_entries(specs: Iterable[str | os.PathLike[str]] = ()) -> list[tuple[str, FormatEntry]]:
    """(path, entry) of each spec of ``PARSERGEN_SPECS``, then of ``specs``.

    A spec of the variable that does not compile is skipped with a warning (one broken
    file must not take routing down); one of ``specs`` raises SpecError.
    """
    out: dict[str, FormatEntry] = {}
    for path in env_specs():
        try:
            out[path] = spec_entry(path)
        except SpecError as exc:
            if (path, str(exc)) not in _LEFT_OUT:  # once, not on every route()
                _LEFT_OUT.add((path, str(exc)))
                warnings.warn(f"{SPECS_VARIABLE}: {path} is left out: {exc}", SpecWarning,
                              stacklevel=3)
    for given in specs:
        out[os.fspath(given)] = spec_entry(given)
    return list(out.items())


def by_name(name: str) -> str | None:
    """The path of the ``PARSERGEN_SPECS`` spec whose format (or alias) is ``name``."""
    for path, entry in user_entries():
        if name == entry.name or name in entry.aliases:
            return path
    return None


__all__ = ["SPECS_VARIABLE", "SpecError", "SpecWarning", "by_name", "env_specs", "import_format",
           "is_path", "load_path", "module_entry", "spec_entry", "user_entries"]
