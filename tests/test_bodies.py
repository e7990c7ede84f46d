"""Every tool body in the registry, through the bundled formats that use it.

A body registered in ``BODIES`` is picked up here: each bundled format naming it
(``StreamingParser.BODY``) and able to write a call (``render.call``) parses a complete
call, a call cut inside its arguments (reported, nothing completed) and a call followed
by more text.  The schema's enum and the syntaxes' ``bodies`` must name the same
bodies as the registry.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from types import ModuleType

import pytest

from parsergen.generated import FORMATS
from parsergen.runtime import BODIES, ToolBody, accumulate
from parsergen.runtime.arguments import SYNTAXES

SYNTAX_BODIES = {name: cls.bodies for name, cls in SYNTAXES.items()}

SCHEMA = json.loads((Path(__file__).resolve().parent.parent / "grammars" / "schema.json")
                    .read_text(encoding="utf-8"))
ARGUMENTS = {"city": "Paris", "unit": "celsius"}  # strings: no tool schema needed to type them
CALL = {"name": "get_weather", "arguments": ARGUMENTS}


def _modules() -> list[ModuleType]:
    return [importlib.import_module(f"parsergen.generated.{name}") for name in FORMATS]


def _users(body: type[ToolBody]) -> list[ModuleType]:
    """Bundled formats whose parser names ``body`` and that can write a call."""
    return [m for m in _modules() if m.StreamingParser.__dict__.get("BODY") is body
            and m.RENDERER.call is not None]


def test_the_registry_the_schema_and_the_syntax_table_agree() -> None:
    assert all(name == cls.name and issubclass(cls, ToolBody) for name, cls in BODIES.items())
    assert sorted(SCHEMA["properties"]["tool_body"]["enum"]) == sorted(BODIES)
    syntaxes = [b["properties"]["syntax"]["const"]
                for b in SCHEMA["$defs"]["arguments"]["oneOf"]]
    assert sorted(SYNTAX_BODIES) == sorted(syntaxes)
    for allowed in SYNTAX_BODIES.values():
        assert allowed and set(allowed) <= set(BODIES)
    # Every body is some syntax's choice, and is in use (else it is dead code).
    assert set(BODIES) == {b for allowed in SYNTAX_BODIES.values() for b in allowed}


@pytest.mark.parametrize("name", sorted(BODIES))
def test_every_body_parses_complete_cut_and_followed_calls(name: str) -> None:
    users = _users(BODIES[name])
    assert users, f"no bundled format uses the {name} body"
    for module in users:
        fmt = module.FORMAT
        text = module.render({"content": "", "tool_calls": [CALL]})

        # A complete call: its name and arguments, as written.
        got = module.parse(text)
        assert [(c.name, json.loads(c.arguments)) for c in got.tool_calls] == [
            ("get_weather", ARGUMENTS)], fmt
        full = got.tool_calls[0].arguments

        # Cut inside the arguments: reported, and its arguments are never completed.
        cut = text[: text.index("Paris") + 3]
        events = module.StreamingParser()
        for ch in cut:
            events.feed(ch)
        events.finish()
        assert events.cut_off is not False, fmt  # True, or None: the arguments decide
        chat = module.ChatParser(ids="sequential")
        message = accumulate([chat.feed(ch) for ch in cut] + [chat.finish()])
        assert [c.index for c in chat.cut_calls] == [0], fmt
        assert any("was cut off" in w for w in chat.warnings), fmt
        streamed = message.tool_calls[0].arguments if message.tool_calls else ""
        assert full.startswith(streamed) and len(streamed) < len(full), (fmt, streamed)
        assert not module.parse(cut).tool_calls, fmt

        # Text after the body: the call stays as it was; the text is not its argument.
        got = module.parse(text + " Done.")
        assert [(c.name, c.arguments) for c in got.tool_calls] == [("get_weather", full)], fmt
        assert got.content is None or got.content.endswith(" Done."), (fmt, got.content)
