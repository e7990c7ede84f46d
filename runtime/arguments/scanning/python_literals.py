"""A complete Python literal as a JSON value (``py_literal``), walked from its syntax tree."""

from __future__ import annotations

import ast
import math
from typing import Any, Final

_INT_BITS: Final = 14_000  # beyond about 4,300 digits Python will not write an int in decimal


# JSON's literal names, read as their values where a syntax allows them (``true``,
# ``false``, ``null`` in a Python call: OLMo 3).
JSON_NAMES: dict[str, Any] = {"true": True, "false": False, "null": None}
_NO_NAMES: dict[str, Any] = {}


def py_literal(raw: str, names: dict[str, Any] = _NO_NAMES) -> tuple[Any, list[str]]:
    """A Python literal as a JSON value, and the texts of the values in it JSON cannot hold.

    Such a value (``1e400``, ``-inf`` spelled as a number, ``1j``, ``b'x'``, ``...``) becomes
    its own text as the model wrote it, so the arguments stay strict JSON; tuples and sets
    become lists (JSON has no set: its elements in written order, duplicates dropped as the
    set drops them); a bare name in ``names`` is its value there (``JSON_NAMES``).  Raises
    as ast.literal_eval does for text that is no literal.

    The tree is walked here, not by literal_eval: literal_eval defines recursive closures on
    every call (reference cycles that stay allocated until the collector runs, so a stream of
    calls would grow memory), and only the tree knows each value's text.
    """
    src = raw.lstrip(" \t")
    lost: list[str] = []
    return _py_json(ast.parse(src, mode="eval").body, src, lost, names), lost


def _py_json(node: ast.AST, src: str, lost: list[str], names: dict[str, Any]) -> Any:
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_py_json(e, src, lost, names) for e in node.elts]
    if isinstance(node, ast.Set):
        seen: set[Any] = set()
        out = []
        for e in node.elts:
            key = _py_value(e, names)  # unhashable elements raise, as in Python
            if key not in seen:
                seen.add(key)
                out.append(_py_json(e, src, lost, names))
        return out
    if isinstance(node, ast.Dict) and None not in node.keys:
        # Keys as str() of their Python value; a repeated key keeps its last value.
        values = {_py_value(k, names): _py_json(v, src, lost, names)  # type: ignore[arg-type]
                  for k, v in zip(node.keys, node.values)}
        return {str(k): v for k, v in values.items()}
    value = _py_value(node, names)
    if isinstance(value, (set, frozenset)) and not value:  # set(), literal_eval's one call
        return []
    if (isinstance(value, float) and not math.isfinite(value)
            or isinstance(value, int) and value.bit_length() > _INT_BITS
            or not (value is None or isinstance(value, (str, int, float)))):
        text = ast.get_source_segment(src, node) or repr(value)
        lost.append(text)
        return text
    return value


def _py_value(node: ast.AST, names: dict[str, Any]) -> Any:
    """The Python value of a literal node, as ast.literal_eval gives it (and a name of
    ``names``, its value)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_py_value(e, names) for e in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Dict) and None not in node.keys:
        return {_py_value(k, names): _py_value(v, names)  # type: ignore[arg-type]
                for k, v in zip(node.keys, node.values)}
    if (isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub))
            and isinstance(node.operand, ast.Constant)
            and type(node.operand.value) in (int, float, complex)):  # fmt: skip
        value: Any = node.operand.value  # (a number, checked above)
        return -value if isinstance(node.op, ast.USub) else +value
    return ast.literal_eval(node)  # sets, complex sums, and the errors: as literal_eval
