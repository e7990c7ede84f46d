"""Which tool bodies each argument syntax allows, and a spec's tool body."""

from __future__ import annotations

from typing import Any

# The tool bodies (runtime/bodies, BODIES) each `arguments.syntax` allows, its default
# first.  This table moves onto the argument syntax classes (their `bodies`) when the
# syntax registry lands; until then it is the one place that says it.
SYNTAX_BODIES: dict[str, tuple[str, ...]] = {
    "json": ("json", "text", "json_object"),
    "json_envelope": ("json", "json_object", "json_array", "text"),
    "python_kwargs": ("python_list", "text"),
    "xml_parameters": ("text",),
    "notation": ("text",),
    "nested_elements": ("text",),
}
DEFAULT_SYNTAX = "json"  # without an `arguments` section


def syntax(spec: dict[str, Any]) -> str:
    """The spec's argument syntax (``json`` without an ``arguments`` section)."""
    arguments = spec.get("arguments")
    value = arguments.get("syntax") if isinstance(arguments, dict) else None
    return value if isinstance(value, str) else DEFAULT_SYNTAX


def tool_body(spec: dict[str, Any]) -> str:
    """The spec's tool body: ``tool_body``, or the default of its argument syntax."""
    body = spec.get("tool_body")
    if isinstance(body, str):
        return body
    return SYNTAX_BODIES.get(syntax(spec), ("text",))[0]
