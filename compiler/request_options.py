"""A spec's ``request_options``: each value's format found, and the variants checked.

A request option is a chat_template_kwargs key whose value names the format that parses
the request (``docs/spec.md``, "Request options"). Each variant is a spec compiled on
its own; this pass finds the spec each value names (as ``extends`` finds one) and checks
that the variant declares the same option choosing itself for that value, so a request
resolves to the same format from whichever variant it starts (``parsergen.variant``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .diagnostics import Diagnostic, SpecError, json_path
from .diagnostics import Path as JsonPath
from .loader import LoadedSpec, bundled_grammars, find_spec, load_spec

# (key, default, ((value, format), ...)): a format is a bundled format's name, or the
# path of a user's spec.
RequestOption = tuple[str, str, tuple[tuple[str, str], ...]]


def _own_path(loaded: LoadedSpec) -> Path:
    return loaded.sources[0].resolve()


def _target(path: Path, spec_name: Any, value_name: str) -> Path | None:
    """The spec file a value names: this spec itself by its name, else as extends finds it."""
    if value_name == spec_name:
        return path
    found = find_spec(path, value_name)
    return found.resolve() if found is not None else None


def _shown(target: Path) -> str:
    """A bundled format by its name (the index and ``parsergen.load`` know it so), a
    user's spec by its path."""
    return target.stem if target.parent == bundled_grammars().resolve() else str(target)


def resolve(loaded: LoadedSpec) -> tuple[list[Diagnostic], tuple[RequestOption, ...]]:
    """Problems of ``loaded``'s request options, and the options with each format found.

    Run after the schema check passed (the shapes are right).
    """
    spec, positions = loaded.data, loaded.positions
    options = spec.get("request_options") or []
    path = _own_path(loaded)
    problems: list[Diagnostic] = []

    def error(where: JsonPath, message: str) -> None:
        at = where
        while at not in positions and at:
            at = at[:-1]
        problems.append(Diagnostic(positions[at], json_path(where), message))

    out: list[RequestOption] = []
    keys: set[str] = set()
    for i, option in enumerate(options):
        key, default, formats = option["key"], option["default"], option["formats"]
        if key in keys:
            error(("request_options", i, "key"), f"{key!r} is already an option")
        keys.add(key)
        if default not in formats:
            error(("request_options", i, "default"),
                  f"{default!r} is not one of formats' values ({', '.join(formats)})")
        if spec.get("name") not in formats.values():
            error(("request_options", i, "formats"),
                  f"no value chooses this spec ({spec.get('name')!r}) itself")
        found: list[tuple[str, str]] = []
        for value, name in formats.items():
            where = ("request_options", i, "formats", value)
            target = _target(path, spec.get("name"), name)
            if target is None:
                error(where, f"no spec named {name!r} next to this file or among the "
                      "bundled grammars")
                continue
            if target != path:
                why = _chooses_itself(target, key, value)
                if why:
                    error(where, f"{name!r} {why}")
                    continue
            found.append((value, _shown(target)))
        out.append((key, default, tuple(found)))
    return problems, tuple(out)


def _chooses_itself(target: Path, key: str, value: str) -> str | None:
    """Why the variant at ``target`` would not keep a request whose ``key`` is ``value``
    (None: it does)."""
    try:
        other = load_spec(target)
    except SpecError:
        return "does not load (check it on its own)"
    for option in other.data.get("request_options") or []:
        if isinstance(option, dict) and option.get("key") == key:
            formats = option.get("formats")
            chosen = formats.get(value) if isinstance(formats, dict) else None
            if isinstance(chosen, str) and _target(target, other.data.get("name"), chosen) == target:
                return None
            return (f"does not choose itself for {key}: {value} (its own request_options "
                    f"say {chosen!r})")
    return f"declares no request option {key!r} (extend this spec to share it)"
