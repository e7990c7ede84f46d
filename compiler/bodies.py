"""A spec's argument syntax and tool body, with the defaults the syntax registry gives."""

from __future__ import annotations

from typing import Any

from parsergen.runtime.arguments import SYNTAXES

DEFAULT_SYNTAX = "json"  # without an `arguments` section


def syntax(spec: dict[str, Any]) -> str:
    """The spec's argument syntax (``json`` without an ``arguments`` section)."""
    arguments = spec.get("arguments")
    value = arguments.get("syntax") if isinstance(arguments, dict) else None
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
