"""Calls a spec writes and reads back (``parsergen check``): render, then parse.

A spec can compile and still read none of the calls its own ``render`` writes: a tool
body that expects other markup (a ``python_list`` body given calls one per line without
``[``), markers whose transitions do not lead where the calls are read.  Every call the
model writes would then be content, without a warning.  ``roundtrip_errors`` imports
the spec's module from its IR in memory, renders one call and then two with the
module's ``render()``, parses each completion with its ``parse()``, and reports the
first completion whose calls do not come back, naming the tool body, the argument
syntax and the transitions the rendered markers take.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from parsergen.runtime.bodies import BODIES

from .diagnostics import Diagnostic, Path, Position, json_path
from .ir import FormatIR
from .loader import LoadedSpec
from .reference import doc_line

# The calls rendered: string arguments only, so no tool schema is needed to type them.
SAMPLE_CALLS: tuple[dict[str, Any], ...] = (
    {"name": "get_weather", "arguments": {"city": "Paris"}},
    {"name": "get_time", "arguments": {"zone": "CET"}},
)
_SHOWN = 160  # characters of a completion or of content quoted in a message

Call = tuple[str, Any]


@dataclass(frozen=True)
class Trip:
    """One completion ``render()`` wrote (``markers``: its marker pieces, in order), the
    calls it was given and the calls and content ``parse()`` read back."""

    text: str
    markers: tuple[str, ...]
    wanted: tuple[Call, ...]
    got: tuple[Call, ...]
    content: str | None

    @property
    def ok(self) -> bool:
        return self.got == self.wanted


def module_of(fmt: FormatIR) -> ModuleType:
    """The generated module of ``fmt``, imported from source held in memory."""
    from .generator import generate_module

    name = f"parsergen_check_{fmt.name}"
    module = ModuleType(name)
    module.__file__ = fmt.source
    sys.modules[name] = module  # (dataclasses look their module up while it runs)
    try:
        exec(compile(generate_module(fmt, formatted=False), f"<parsergen {fmt.source}>",
                     "exec"), module.__dict__)
    finally:
        del sys.modules[name]
    return module


def trip(module: ModuleType, calls: tuple[dict[str, Any], ...]) -> Trip:
    """Render ``calls`` with the module's own renderer and parse the text back."""
    message = {"content": "", "tool_calls": list(calls)}
    pieces = module.RENDERER.pieces(message)
    text = "".join(piece for piece, _ in pieces)
    parsed = module.parse(text, ids="sequential")
    return Trip(text, tuple(piece for piece, marker in pieces if marker),
                tuple((c["name"], c["arguments"]) for c in calls),
                tuple((c.name, _arguments(c.arguments)) for c in parsed.tool_calls),
                parsed.content)


def roundtrip_errors(fmt: FormatIR, loaded: LoadedSpec,
                     module: ModuleType | None = None) -> list[Diagnostic]:
    """An error when ``render()``'s calls do not come back from ``parse()`` (none
    where the spec has no ``render.call``: ``loss_warnings`` says so)."""
    if fmt.render.call is None:
        return []
    module = module_of(fmt) if module is None else module
    path: Path = ("tool_body",) if not fmt.tool_body_defaulted else ("render", "call")
    where = loaded.positions.get(path) or Position(fmt.source, 1, 1)
    for n in (1, 2):
        try:
            done = trip(module, SAMPLE_CALLS[:n])
        except ValueError as exc:  # the renderer's own refusal
            return [Diagnostic(where, json_path(path), f"render() cannot write a call: {exc}")]
        except Exception as exc:  # noqa: BLE001 - reported, check goes on to other specs
            return [Diagnostic(where, json_path(path), f"writing a call with render() and "
                               f"parsing it failed: {type(exc).__name__}: {exc}")]
        if not done.ok:
            return [Diagnostic(where, json_path(path), _message(fmt, loaded, done))]
    return []


def _message(fmt: FormatIR, loaded: LoadedSpec, done: Trip) -> str:
    got = ", ".join(f"{name}({json.dumps(args)})" if not isinstance(args, str)
                    else f"{name}({args!r})" for name, args in done.got)
    said = (f"{'not every' if done.got else 'no'} call comes back from render()'s own "
            f"output: render() wrote {_calls(len(done.wanted))} as {_quote(done.text)} and "
            f"parse() read back {_calls(len(done.got))}" + (f": {got}" if got else ""))
    if done.content:
        said += f", content {_quote(done.content)}"
    summary = doc_line(BODIES[fmt.tool_body])
    body = (f"TOOL_ARGS text goes to tool_body {fmt.tool_body!r} ({_at(loaded, 'tool_body')}: "
            f"{summary.rstrip('.').replace('``', '')})" if "TOOL_ARGS" in fmt.reachable
            else "no transition reaches TOOL_ARGS, where a tool body reads calls")
    return (f"{said}. Its markers: {_walk(fmt, done.markers)}; {body}, each call's "
            f"arguments to arguments.syntax {fmt.arguments['syntax']!r} "
            f"({_at(loaded, 'arguments', 'syntax')}); render.call "
            f"({_at(loaded, 'render', 'call')}) writes calls this spec does not read"
            f"{_alone(loaded, done)}: fix whichever of them is not what the model writes")


def _calls(n: int) -> str:
    return f"{n} call{'s' * (n != 1)}"


def _walk(fmt: FormatIR, markers: tuple[str, ...]) -> str:
    """Where each rendered marker takes the machine, from the initial state."""
    variant = next(v for v in fmt.variants if v.thinking == fmt.thinking_default)
    names: dict[str, str] = {}
    for terminal in variant.terminals:
        for spelling in terminal.spellings:
            names.setdefault(spelling, terminal.name)
    tables = {s.name: {t.terminal: t for t in s.transitions} for s in fmt.states}
    state, steps = variant.initial_state, []
    for marker in markers:
        name = names.get(marker, repr(marker))
        move = tables.get(state, {}).get(name)
        if move is None:
            steps.append(f"{name}: text in {state} (no transition)")
            continue
        steps.append(f"{name}: {state} -> {move.target} (line {move.line})")
        state = move.target
    return ", ".join(dict.fromkeys(steps)) if steps else "none"  # each step once


def _alone(loaded: LoadedSpec, done: Trip) -> str:
    """After two calls failed, one alone came back: between them is where they differ."""
    if len(done.wanted) < 2:
        return ""
    separator = _at(loaded, "render", "separator")
    return f" (one call alone comes back: see render.separator, {separator})"


def _at(loaded: LoadedSpec, *key: str) -> str:
    at = loaded.positions.get(key)
    return f"line {at.line}" if at is not None else "the default"


def _quote(text: str) -> str:
    shown = json.dumps(text[:_SHOWN], ensure_ascii=False)
    return shown + ("..." if len(text) > _SHOWN else "")


def _arguments(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text
