"""Typing tool arguments by the request's JSON Schema: the request's tools, per tool name.

``read_tools``: the request's tool definitions (mappings or pydantic objects) as mappings.
``ToolTyping``: each tool's parameters compiled once (``schema_compiler``) and kept.
Compiled parameters are shared by every request whose schema is the same (its marshal).
"""

from __future__ import annotations

import marshal
from collections.abc import Mapping, Sequence
from typing import Any, Final

from mypy_extensions import mypyc_attr

from .schema_compiler import compile_schema
from .schema_nodes import Compiled, Properties, is_mapping

def read_tools(tools: Sequence[Any], warnings: list[str],
               functions: dict[str, Mapping[str, Any]] | None = None
               ) -> list[Mapping[str, Any]]:
    """The request's tool definitions as plain mappings.

    A definition may be a mapping, an object whose ``function`` has a ``name`` and a
    mapping (or None) as ``parameters`` (the pydantic models servers such as vLLM
    pass: read from those attributes), or any object with ``model_dump()``; one that is
    none of these, or whose function has no name, cannot type any call's arguments: it
    is left out with a warning, instead of its calls silently losing their typing.
    ``functions``, if given, gets ``tool_functions`` of the result (in the same walk).
    """
    out: list[Mapping[str, Any]] = []
    for i, tool in enumerate(tools):
        # (A plain dict, what JSON gives, taken in a few steps: in pure Python a call per
        # check was a few percent of a short completion's parse.)
        if type(tool) is dict:
            fn = tool.get("function", tool)
            if type(fn) is dict and isinstance(fn.get("name"), str):
                out.append(tool)
                if functions is not None:
                    functions.setdefault(fn["name"], fn)  # (the first of a name wins)
                continue
        elif not is_mapping(tool):
            read = _read_function(tool)
            if read is not None:
                out.append(read)
                if functions is not None:
                    functions.setdefault(read["function"]["name"], read["function"])
                continue
            dump = getattr(tool, "model_dump", None)
            try:
                tool = dump() if callable(dump) else None
            except Exception as exc:  # a broken model: report it, parse on untyped
                warnings.append(f"tool definition {i} cannot be read: model_dump() "
                                f"raised {type(exc).__name__}: {exc}")
                continue
        fn = tool.get("function", tool) if type(tool) is dict or is_mapping(tool) else None
        if (type(fn) is not dict and not is_mapping(fn)) or not isinstance(fn.get("name"), str):
            warnings.append(f"tool definition {i} cannot be read (no function name); "
                            "its calls' arguments stay untyped")
            continue
        out.append(tool)
        if functions is not None:
            functions.setdefault(fn["name"], fn)  # (the first of a name wins)
    return out


def _read_function(tool: Any) -> Mapping[str, Any] | None:
    """What typing and structural tags read of a tool object (its function's name,
    parameters and strict) from its attributes, as vLLM's pydantic tools have them:
    ``model_dump()`` of every tool costs 15 us each per request (vLLM 0.33,
    ``ChatCompletionToolsParam``), most of them never called; None when they are not
    there so (a mapping where the schema is, or no name)."""
    fn = getattr(tool, "function", None)
    name = getattr(fn, "name", None)
    params = getattr(fn, "parameters", None)
    if not isinstance(name, str) or not (params is None or is_mapping(params)):
        return None
    function: dict[str, Any] = {"name": name, "parameters": params}
    strict = getattr(fn, "strict", None)
    if strict is not None:
        function["strict"] = strict
    return {"type": "function", "function": function}


def tool_functions(tools: Sequence[Mapping[str, Any]] | None) -> dict[str, Mapping[str, Any]]:
    """The request's function definitions by name (the first of a name wins, as a scan
    in order finds it): one walk of the tools per request, one lookup per call."""
    functions: dict[str, Mapping[str, Any]] = {}
    for tool in tools or ():
        fn = tool.get("function", tool) if type(tool) is dict or is_mapping(tool) else None
        if type(fn) is dict or is_mapping(fn):
            name = fn.get("name")
            if isinstance(name, str) and name not in functions:
                functions[name] = fn
    return functions


# Compiled parameters by their marshal: a server sends the same tools with request after
# request, and compiling costs far more than writing the schema out.  marshal writes it
# in C, a third of what repr costs (no quoting; 2026-12-02, the benchmark's four schemas:
# 10.7k instructions each against 37k), refuses any type it cannot write exactly (a
# mapping other than a dict: compiled per request), and writes a cycle as a reference
# back, so equal keys are equal schemas; two spellings of one schema just take two
# entries.  Bounded.
_COMPILED: dict[bytes, Compiled] = {}
_COMPILED_LIMIT: Final = 512
# The last schema compiled per tool name, as a copy (its marshal read back) and what it
# compiled to: the next request's schema for that name is most often the same, and a
# deep == against the copy costs a fraction of writing it out again (2026-12-05, the
# benchmark's four schemas: 100-500 ns against 450-1,800).  == takes 1, 1.0 and true for
# one another, which typing tells apart only in an enum's values and nullable's true:
# a schema with either is not kept here (nor one whose == could recurse: shared or
# cyclic nodes).  A schema is JSON data (what == compares as typing reads it).
_LAST: dict[Any, tuple[dict[str, Any], Compiled]] = {}


def function_properties(fn: Mapping[str, Any] | None) -> Properties | None:
    """The compiled ``properties`` of a function definition's parameters (``$ref``
    followed, ``allOf`` merged, a top-level ``anyOf``/``oneOf`` of objects joined); None
    without one or without a schema.  Shared by every request whose schema is the same
    (its marshal: see _COMPILED)."""
    params = fn.get("parameters") if fn is not None else None
    # (A plain dict, what JSON gives, goes straight to its key: once per called tool
    # per request, so the steps are few; marshal refuses other mappings.)
    if type(params) is not dict:
        return compile_schema(params).props if is_mapping(params) else None
    assert fn is not None
    name = fn.get("name")
    last = _LAST.get(name)
    if last is not None:
        try:
            if last[0] == params:
                return last[1].props
        except RecursionError:  # (nested past the stack: written out instead)
            pass
    try:
        key = marshal.dumps(params, marshal.version)
    except ValueError:  # not plain JSON data inside (or nested past marshal's depth)
        return compile_schema(params).props
    found = _COMPILED.get(key)
    if found is None:
        if len(_COMPILED) >= _COMPILED_LIMIT:
            _COMPILED.clear()
            _LAST.clear()
        found = _COMPILED[key] = compile_schema(params)
    if _told_apart_by_equality(params):
        if len(_LAST) >= _COMPILED_LIMIT:
            _LAST.clear()  # (bounded too: many names may share one compiled schema)
        _LAST[name] = (marshal.loads(key), found)
    return found.props


def _told_apart_by_equality(schema: dict[str, Any]) -> bool:
    """Whether == tells ``schema`` from any schema typed otherwise (see _LAST): no enum
    or nullable in it, and no node reached twice (shared or cyclic)."""
    seen: set[int] = set()
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            return False
        seen.add(id(node))
        if type(node) is dict:
            if "enum" in node or "nullable" in node:
                return False
            stack.extend(v for v in node.values() if type(v) is dict or type(v) is list)
        else:
            stack.extend(v for v in node if type(v) is dict or type(v) is list)
    return True


def tool_properties(tools: Sequence[Mapping[str, Any]] | None, name: str) -> Properties | None:
    """The compiled ``properties`` of tool ``name``'s parameters (``function_properties``);
    None without tools or schema."""
    return function_properties(tool_functions(tools).get(name))


@mypyc_attr(allow_interpreted_subclasses=True)
class ToolTyping:
    """The request's tools' argument typing, compiled once per tool name and kept."""

    __slots__ = ("functions", "names", "compiled")

    def __init__(self, tools: Sequence[Mapping[str, Any]] | None,
                 functions: dict[str, Mapping[str, Any]] | None = None) -> None:
        # (``functions``: ``tool_functions(tools)``, when the caller has it already.)
        self.functions = tool_functions(tools) if functions is None else functions
        self.names = frozenset(self.functions)  # the request's function tools
        self.compiled: dict[str, Properties | None] = {}

    def properties(self, name: str) -> Properties | None:
        """Tool ``name``'s compiled properties (see ``function_properties``)."""
        # (Asked with ``in``, not caught as KeyError: the first call of each tool in a
        # request raised one, about 2k instructions compiled, a traceback built.)
        compiled = self.compiled
        if name in compiled:
            return compiled[name]
        try:
            props = function_properties(self.functions.get(name))
        except RecursionError:  # a schema nested past Python's stack: its calls go untyped
            props = None
        self.compiled[name] = props
        return props
