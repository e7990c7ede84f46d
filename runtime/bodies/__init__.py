"""Tool bodies: how TOOL_ARGS text becomes calls, one class each, one registry.

Adding a body: a module here with a ``ToolBody`` subclass (its docstring is the
reference text), one line in ``BODIES``, and the argument syntaxes that allow it; then
``parsergen build`` writes the schema's ``tool_body`` choice and
docs/arguments-and-tool-bodies.md from this registry, and tests/test_bodies.py runs it.
"""

from __future__ import annotations

from .base import BodyHost, ToolBody
from .json import JsonArgs, JsonBody
from .json_array import JsonArrayBody
from .json_object import JsonObjectBody
from .python_list import PythonLinesBody, PythonListBody
from .text import TextBody

BODIES: dict[str, type[ToolBody]] = {
    body.name: body
    for body in (TextBody, JsonBody, JsonObjectBody, JsonArrayBody, PythonListBody,
                 PythonLinesBody)
}

__all__ = [
    "BODIES",
    "BodyHost",
    "JsonArgs",
    "JsonArrayBody",
    "JsonBody",
    "JsonObjectBody",
    "PythonLinesBody",
    "PythonListBody",
    "TextBody",
    "ToolBody",
]
