"""Lowering: a validated spec becomes its explicit form, the IR's only input.

One pass, after validation: every default comes from one table (``DEFAULTS``, and the
argument syntax registry for ``tool_body``), and shorthand is desugared - a
transition written as a target becomes ``{to, emit}``, a terminal written as text
becomes ``{text: [...]}``, ``reasoning.ended_by_tool_calls`` becomes the REASONING
transitions it implies and ``reasoning.calls_are_text`` removes those into tool
states.  ``Lowered.line`` says where each value came from: its spec line, or None when
it is a default, so generated code can cite it.

The helpers here are pure and tolerate specs the schema rejected (validation uses
them to reason about a spec that may be broken); ``lower`` itself needs a valid one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from parsergen.runtime.arguments import SYNTAXES
from parsergen.runtime.bodies import BODIES

from .diagnostics import Path
from .loader import Positions

TOOL_STATE_NAMES = ("TOOL_PREAMBLE", "TOOL_NAME", "TOOL_ARGS", "TOOL_BETWEEN")

# Every default of the spec language, in one place (tool_body's comes from the
# argument syntax: the first of its class's ``bodies``).
DEFAULTS: dict[str, Any] = {
    "initial_state": "CONTENT",
    "thinking_default": True,  # only read when initial_state depends on thinking
    "content_events": {
        "CONTENT": "TEXT_CHUNK",
        "REASONING": "REASONING_CHUNK",
        "TOOL_NAME": "TOOL_NAME",
    },
    "arguments": {"syntax": "json"},
    # The assembly options (vLLM's defaults for its five flags); generated modules get
    # every one, so the runtime reads them without defaults of its own.
    "assembly": {
        "strip_trailing_reasoning_whitespace": True,
        "drop_whitespace_only_content_before_tools": True,
        "strip_content_whitespace_with_tools": True,
        "validate_tool_names": False,
        "stream_arg_deltas": True,
        "strip_leading_content_newlines": False,
        "strip_text": False,
        "reasoning_header": None,
        "call_ids": "openai",
    },
    # A reasoning section's options (filled in only where the spec has the section).
    "reasoning": {
        # The models may reason without writing the start marker: a prompt without a
        # reasoning marker keeps the initial state (else the completion starts in content).
        "start_optional": False,
        # The models never call tools while reasoning: call markers there are reasoning text.
        "calls_are_text": False,
        # The first text is reasoning only if an end marker follows it: held until then.
        "confirmed_by_end": False,
    },
    "aliases": [],
    "models": [],
    "thinking_switch": [],
    "preserve_tokens": [],
    "turn_boundary_tokens": [],
    "cut_header": None,
    "tool_name": {},
    "render": {},
}
DEFAULT_SYNTAX: str = DEFAULTS["arguments"]["syntax"]
# A terminal's framing, by its schema name: the text it stands for.
FRAMING_TEXTS: dict[str, str] = {"newline": "\n"}


@dataclass(frozen=True)
class Lowered:
    """A spec with every default filled in and every shorthand desugared."""

    spec: dict[str, Any]
    positions: Positions
    written: frozenset[str]  # top-level keys the spec itself wrote
    source: dict[str, Any]  # the spec as loaded (``extends`` resolved), for SPEC

    def line(self, *path: str | int) -> int | None:
        """The spec line of ``path`` (or of its nearest written ancestor); None when the
        value is a default the spec did not write."""
        if not path or path[0] not in self.written:
            return None
        key: Path = tuple(path)
        while key not in self.positions and key:
            key = key[:-1]
        return self.positions[key].line if key else None


def lower(spec: dict[str, Any], positions: Positions) -> Lowered:
    """The explicit form of a validated ``spec``."""
    out = {key: _copy(value) for key, value in DEFAULTS.items()}
    out.update({key: _copy(value) for key, value in spec.items()})
    out["assembly"] = {**DEFAULTS["assembly"], **spec.get("assembly", {})}
    if spec.get("reasoning"):
        out["reasoning"] = {**DEFAULTS["reasoning"], **spec["reasoning"]}
    else:
        del out["reasoning"]
    out["tool_body"] = tool_body(spec)
    out["terminals"] = {name: _terminal(value) for name, value in spec["terminals"].items()}
    transitions = with_implicit_reasoning_ends(spec)["transitions"]
    out["transitions"] = {state: {term: _transition(value) for term, value in table.items()}
                          for state, table in transitions.items()}
    on, off = initial_states(spec)
    out["initial_state"] = {"thinking": on, "otherwise": off}
    toggles = isinstance(spec.get("initial_state"), dict)
    # Without a thinking-dependent start there is nothing to switch: thinking is off.
    out["thinking_default"] = bool(spec.get("thinking_default", True)) if toggles else False
    out["models"] = [{"pattern": e, "thinking": None} if isinstance(e, str)
                     else {"thinking": None, **e} for e in spec.get("models", ())]
    out["thinking_switch"] = [{"key": e, "on": None, "off": None} if isinstance(e, str)
                              else {"on": None, "off": None, **e}
                              for e in spec.get("thinking_switch", ())]
    return Lowered(out, positions, frozenset(spec), spec)


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _terminal(value: Any) -> dict[str, Any]:
    """``{text: [spellings], token_id, thinking_only, at_start, followed_by, framing,
    pattern}``
    for any declaration (``framing``: the texts before and after, "" for none)."""
    flags = value if isinstance(value, dict) else {}
    framing = flags.get("framing", {})
    return {
        "framing": {side: FRAMING_TEXTS[framing[side]] if side in framing else ""
                    for side in ("before", "after")},
        "text": spellings(value),
        "token_id": bool(flags.get("token_id", False)),
        "thinking_only": bool(flags.get("thinking_only", False)),
        "at_start": bool(flags.get("at_start", False)),
        "followed_by": [f if isinstance(f, str) else {"text": f["text"]}
                        for f in flags.get("followed_by", ())],
        # A marker spelled by a regex (no spellings): its source and declared bound.
        "pattern": ({"source": flags["pattern"], "max_length": flags.get("max_length")}
                    if "pattern" in flags else None),
    }


def _transition(value: Any) -> dict[str, Any] | list[dict[str, Any]]:
    """``{to, emit}``, or rules as a list of ``{when, to, emit}`` (each with the
    ``name`` capture a pattern terminal's transition names, when it names one)."""
    if isinstance(value, list):
        return [{"when": r.get("when"), "to": r["to"], "emit": list(r.get("emit", ())),
                 **({"name": r["name"]} if "name" in r else {})} for r in value]
    if isinstance(value, str):
        return {"to": value, "emit": []}
    return {"to": value["to"], "emit": list(value.get("emit", ())),
            **({"name": value["name"]} if "name" in value else {})}


# -- pure helpers (also used by validation, on specs that may be broken) -----------


def as_mapping(value: Any) -> dict:
    """``value`` if it is a mapping, else an empty one (for specs that may be broken)."""
    return value if isinstance(value, dict) else {}


def spellings(value: Any) -> list[str]:
    """All literal spellings of a terminal declaration (those that are strings)."""
    text = value.get("text") if isinstance(value, dict) else value
    texts = text if isinstance(text, list) else [text]
    return [t for t in texts if isinstance(t, str)]


def syntax(spec: dict[str, Any]) -> str:
    """The spec's argument syntax (the default without an ``arguments`` section)."""
    value = as_mapping(spec.get("arguments")).get("syntax")
    return value if isinstance(value, str) else DEFAULT_SYNTAX


def allowed_bodies(name: str) -> tuple[str, ...] | None:
    """The tool bodies argument syntax ``name`` can be read from, its default first
    (its class's ``bodies``); None for a syntax the registry does not know."""
    cls = SYNTAXES.get(name)
    return cls.bodies if cls is not None else None


def tool_body(spec: dict[str, Any]) -> str:
    """The spec's tool body: ``tool_body``, or the default of its argument syntax."""
    body = spec.get("tool_body")
    if isinstance(body, str):
        return body
    return (allowed_bodies(syntax(spec)) or ("text",))[0]


def initial_states(spec: dict[str, Any]) -> tuple[str | None, str | None]:
    """Initial state with thinking on, and with thinking off (None: not written)."""
    init = spec.get("initial_state", DEFAULTS["initial_state"])
    if isinstance(init, dict):
        return init.get("thinking"), init.get("otherwise")
    return init, init


def implicit_reasoning_ends(spec: dict[str, Any]) -> dict[str, Any]:
    """Transitions ``reasoning.ended_by_tool_calls`` adds to REASONING: terminal -> target."""
    if as_mapping(spec.get("reasoning")).get("ended_by_tool_calls") is not True:
        return {}
    transitions = as_mapping(spec.get("transitions"))
    own = as_mapping(transitions.get("REASONING"))
    added = {}
    for term, target in as_mapping(transitions.get("CONTENT")).items():
        to = target if isinstance(target, str) else as_mapping(target).get("to")
        if to in TOOL_STATE_NAMES and term not in own:
            emit = [] if isinstance(target, str) else list(as_mapping(target).get("emit", []))
            added[term] = {"to": to, "emit": ["REASONING_END", *emit]}
    return added


def with_implicit_reasoning_ends(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec with the REASONING transitions its reasoning section implies:
    ``ended_by_tool_calls`` adds calls that end reasoning, ``calls_are_text`` removes
    every transition from REASONING into a tool state (the marker is reasoning text)."""
    added = implicit_reasoning_ends(spec)
    if as_mapping(spec.get("reasoning")).get("calls_are_text") is True:
        transitions = dict(as_mapping(spec.get("transitions")))
        own = as_mapping(transitions.get("REASONING"))
        transitions["REASONING"] = {term: target for term, target in own.items()
                                    if _target(target) not in TOOL_STATE_NAMES}
        return {**spec, "transitions": transitions}
    if not added:
        return spec
    transitions = dict(spec["transitions"])
    transitions["REASONING"] = {**as_mapping(transitions.get("REASONING")), **added}
    return {**spec, "transitions": transitions}


def _target(value: Any) -> Any:
    """The target state of a transition as written (a header rule list: its first)."""
    if isinstance(value, list):
        value = value[0] if value else None
    return value if isinstance(value, str) else as_mapping(value).get("to")


def reachable_states(spec: dict[str, Any]) -> set[str]:
    """States reachable from either initial state through the transitions."""
    transitions = as_mapping(with_implicit_reasoning_ends(spec).get("transitions"))
    reached = {s for s in initial_states(spec) if isinstance(s, str)}
    frontier = list(reached)
    while frontier:
        state = frontier.pop()
        # A tool body may move the parser on by itself (a JSON object's closing brace).
        body = BODIES.get(tool_body(spec)) if state == "TOOL_ARGS" else None
        for nxt in body.exits_to if body is not None else ():
            if nxt not in reached:
                reached.add(nxt)
                frontier.append(nxt)
        for target in as_mapping(transitions.get(state)).values():
            rules = target if isinstance(target, list) else [target]
            for rule in rules:
                to = rule if isinstance(rule, str) else as_mapping(rule).get("to")
                if isinstance(to, str) and to not in reached:
                    reached.add(to)
                    frontier.append(to)
    return reached
