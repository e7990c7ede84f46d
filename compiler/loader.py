"""Load YAML specs keeping the position of every key, and resolve ``extends``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path as FsPath
from typing import Any

import yaml

from .diagnostics import Diagnostic, Path, Position, SpecError, json_path

Positions = dict[Path, Position]


def bundled_grammars() -> FsPath:
    """The directory of the grammars shipped with parsergen."""
    from importlib.resources import files

    return FsPath(str(files("parsergen.grammars")))


class _Builder:
    """Turns a composed YAML node tree into plain data plus a position table."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.positions: Positions = {}
        self.diagnostics: list[Diagnostic] = []
        self._constructor = yaml.SafeLoader("")

    def _pos(self, node: yaml.Node) -> Position:
        mark = node.start_mark
        return Position(self.file, mark.line + 1, mark.column + 1)

    def build(self, node: yaml.Node, path: Path, pos: Position) -> Any:
        self.positions[path] = pos
        if isinstance(node, yaml.MappingNode):
            out: dict[str, Any] = {}
            for key_node, value_node in node.value:
                key_pos = self._pos(key_node)
                if not isinstance(key_node, yaml.ScalarNode):
                    self._error(key_pos, path, "mapping keys must be plain strings")
                    continue
                key = key_node.value
                if key in out:
                    what = "duplicate key"
                    if len(path) == 2 and path[0] == "transitions":
                        what = f"two transitions for ({path[1]}, {key})"
                    self._error(key_pos, (*path, key), f"{what}; the first is at line "
                                f"{self.positions[(*path, key)].line}")
                    continue
                out[key] = self.build(value_node, (*path, key), key_pos)
            return out
        if isinstance(node, yaml.SequenceNode):
            return [
                self.build(item, (*path, i), self._pos(item)) for i, item in enumerate(node.value)
            ]
        return self._constructor.construct_object(node)

    def _error(self, pos: Position, path: Path, message: str) -> None:
        self.diagnostics.append(Diagnostic(pos, json_path(path), message))


def load_yaml(path: FsPath, display: str) -> tuple[Any, Positions, list[Diagnostic]]:
    """Parse one YAML file into plain data, key positions and recoverable problems.

    Unreadable or malformed YAML raises SpecError; a duplicate key is reported and
    the first value kept, so that later checks still see the rest of the file.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError([Diagnostic(Position(display, 1, 1), "$", f"cannot read: {exc.strerror}")])
    except UnicodeDecodeError as exc:
        raise SpecError([Diagnostic(Position(display, 1, 1), "$",
                                    f"not UTF-8 text (byte {exc.start})")]) from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = getattr(exc, "problem", None) or str(exc)
        raise SpecError([Diagnostic(Position(display, line, col), "$", f"invalid YAML: {problem}")])
    if node is None:
        raise SpecError([Diagnostic(Position(display, 1, 1), "$", "the spec is empty")])
    builder = _Builder(display)
    data = builder.build(node, (), Position(display, 1, 1))
    return data, builder.positions, builder.diagnostics


def _merge(base: Any, over: Any, base_pos: Positions, over_pos: Positions,
           path: Path, out_pos: Positions) -> Any:
    """Deep-merge mappings (``over`` wins, ``null`` deletes); anything else is replaced."""
    if isinstance(base, dict) and isinstance(over, dict):
        merged: dict[str, Any] = {}
        out_pos[path] = over_pos.get(path) or base_pos.get(path) or over_pos[()]
        for key in base:
            if key not in over:
                merged[key] = base[key]
                _copy_positions(base_pos, (*path, key), out_pos)
        for key in over:
            if over[key] is None:
                continue  # "key: null" in a derived spec removes what the base says
            if key in base:
                merged[key] = _merge(base[key], over[key], base_pos, over_pos, (*path, key), out_pos)
            else:
                merged[key] = over[key]
                _copy_positions(over_pos, (*path, key), out_pos)
        return merged
    _copy_positions(over_pos, path, out_pos)
    return over


def _copy_positions(src: Positions, prefix: Path, dst: Positions) -> None:
    n = len(prefix)
    for p, pos in src.items():
        if p[:n] == prefix:
            dst[p] = pos


@dataclass
class LoadedSpec:
    """A spec merged with what it extends, where each value came from, and problems."""

    data: dict[str, Any]
    positions: Positions
    sources: list[FsPath]
    diagnostics: list[Diagnostic]


IDENTITY_KEYS = ("name", "description", "models", "aliases")


def load_spec(path: FsPath, display: str | None = None, _seen: tuple[str, ...] = ()) -> LoadedSpec:
    """Load a spec and everything it ``extends`` (one name, or a list merged in order)."""
    display = display or str(path)
    data, positions, problems = load_yaml(path, display)
    if not isinstance(data, dict):
        raise SpecError([Diagnostic(Position(display, 1, 1), "$", "a spec must be a mapping")])
    bases = data.get("extends")
    if bases is None:
        return LoadedSpec(data, positions, [path], problems)
    names = bases if isinstance(bases, list) else [bases]
    seen = (*_seen, str(data.get("name", "?")))
    merged: dict[str, Any] = {}
    merged_pos: Positions = {(): positions[()]}
    sources = [path]
    for i, base_name in enumerate(names):
        where_path = ("extends", i) if isinstance(bases, list) else ("extends",)
        where = positions.get(where_path, positions[("extends",)])
        if not isinstance(base_name, str):
            raise SpecError([Diagnostic(where, "$.extends", "must name other specs")])
        if base_name in seen:
            chain = " -> ".join((*seen, base_name))
            raise SpecError([Diagnostic(where, "$.extends", f"circular extends: {chain}")])
        base_path = find_spec(path, base_name)
        if base_path is None:
            raise SpecError([Diagnostic(where, "$.extends", f"no spec named {base_name!r} next "
                                        "to this file or among the bundled grammars")])
        base = load_spec(base_path, _display_for(base_path, path, display), seen)
        # What a spec is (its name, description, models, aliases) is not inherited.
        inherited = {k: v for k, v in base.data.items() if k not in IDENTITY_KEYS}
        step_pos: Positions = {}
        merged = _merge(merged, inherited, merged_pos, base.positions, (), step_pos)
        merged_pos = {**step_pos, (): positions[()]}
        sources += base.sources
        problems = problems + base.diagnostics
    over = {k: v for k, v in data.items() if k != "extends"}
    over_pos = {p: pos for p, pos in positions.items() if not p or p[0] != "extends"}
    out_pos: Positions = {}
    merged = _merge(merged, over, merged_pos, over_pos, (), out_pos)
    out_pos[()] = positions[()]
    return LoadedSpec(merged, out_pos, sources, problems)


def find_spec(path: FsPath, name: str) -> FsPath | None:
    """The spec ``name`` names from the spec at ``path``: next to it, else bundled."""
    for directory in (path.parent, bundled_grammars()):
        candidate = directory / f"{name}.yaml"
        if candidate.is_file():
            return candidate
    return None


def _display_for(base_path: FsPath, path: FsPath, display: str) -> str:
    """Show a base spec relative to the directory the derived spec was shown from."""
    if base_path.parent.resolve() == path.parent.resolve():
        return str(FsPath(display).parent / base_path.name)
    return str(base_path)
