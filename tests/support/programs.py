"""The call programs a format's parse reads runs of whole calls with (runtime/runs.py),
as the run tests look at them."""

from __future__ import annotations

from typing import Any

from parsergen.runtime.runs import CallProgram


def programs(module: Any, objects: bool = False) -> dict[int, CallProgram]:
    """A module's call programs by home state: calls between markers, or (``objects``)
    calls that are a marker and one JSON object."""
    found = getattr(module.StreamingParser, "WHOLE_CALLS", {})
    return {state: program for state, program in found.items()
            if (program.steps[-1][1] == "object") == objects}


def run_steps(program: CallProgram) -> tuple[tuple[int, str, str, str, tuple[str, ...]], ...]:
    """A call's steps, its start marker first as the "between" step (one start terminal)."""
    (start,) = program.starts
    return ((program.state, "between", start, "", ()), *program.steps)
