"""A syntax's ``json_fallback`` option: a call the markers give no name is one JSON object
naming the tool, read by ``json_envelope`` (Dots: ``{"name": ..., "arguments": ...}`` in
the wrapper that otherwise holds invoke elements).

A syntax offers the option by adding ``FALLBACK_SCHEMA`` to its options and setting
``self.fallback = fallback_syntax(options.get("json_fallback"))``; ``ToolCalls`` reads
such a call with it (``ArgumentSyntax.fallback``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .envelope import EnvelopeSyntax

FALLBACK_SCHEMA: Final[dict[str, Any]] = {
    "type": "object", "additionalProperties": False,
    "properties": {k: EnvelopeSyntax.schema["properties"][k]
                   for k in ("name_key", "argument_keys")},
    "description": (
        "A call the markers give no name (a transition into TOOL_ARGS with no TOOL_NAME text "
        "before it, such as a { terminal's) is one JSON object naming the tool, read as "
        "json_envelope with these options ({} for its defaults). Dots writes "
        "{\"name\": NAME, \"arguments\": {...}} in place of invoke elements. Default: none "
        "(such a call has an empty name and is content)."),
}


def fallback_syntax(options: Mapping[str, Any] | None) -> EnvelopeSyntax | None:
    """The syntax a ``json_fallback`` option reads nameless calls with (None without one)."""
    return None if options is None else EnvelopeSyntax({"syntax": "json_envelope", **options})
