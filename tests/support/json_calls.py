"""What the run tests of JSON-object calls share (tests/test_object_runs.py: calls that
are one object each; tests/test_array_runs.py: the elements of one array): the tools,
the completions around runs of calls, and the two ways of reading one."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from parsergen.runtime import accumulate, without_cut_calls

from .streams import token_deltas

PROPERTIES = {"n": {"type": "integer"}, "x": {"type": "number"}, "s": {"type": "string"},
              "o": {"type": "object"}, "l": {"type": "array"}, "b": {"type": "boolean"}}
TOOLS = [{"type": "function", "function": {"name": name, "parameters": {
    "type": "object", "properties": PROPERTIES}}} for name in ("f", "g")]
THINKING = False


def render_text(parts: Any, fields: dict[str, str] | None = None) -> str:
    """The text of a render section's parts, fields filled in as written."""
    return "".join((fields or {})[value] if kind == "field" else value for kind, value in parts)


def call_cases(lead: str, sep: str, close: str,
               call: Callable[..., str]) -> dict[str, str]:
    """Completions of calls written by ``call(args, name)`` between ``lead`` and
    ``close``, ``sep`` between them: what may join a run and what must end it."""
    c = call()
    # (None: the call is named by its object's only key, {"f": {...}}: Apertus.)
    key = next((k for k in ("parameters", "arguments") if f'"{k}"' in c), None)
    other = "arguments" if key == "parameters" else "parameters"
    texts = {
        "three": lead + c + sep + c + sep + c + close,
        "content around": "Sure. " + lead + c + sep + c + close + " Done.",
        "many": lead + sep.join([c] * 40) + close,
        "re-typed member": lead + c + sep + call('{"n": "5"}') + sep + c + close,
        # A run that starts after content between calls, then more.
        "re-typed, text after": lead + c + sep + call('{"n": "5"}') + sep + c + " oops" + close,
        "untyped member": lead + call('{"zz": [1, {"a": "b"}], "n": 2}') + sep + c + close,
        "empty arguments": lead + call("{}") + sep + c + close,
        "newlines inside": lead + c.replace(", ", ",\n  ") + sep + c + close,
        "spaces inside": lead + c.replace('{"n"', '{ "n"').replace("}", " }") + sep + c + close,
        "unicode": lead + call('{"s": "S\\u00e3o \\ud83c\\udf5c \u6771\u4eac"}') + sep + c + close,
        "extra member after": lead + c[:-1] + ', "id": 1}' + sep + c + close,
        "arguments as a string": lead + call(json.dumps('{"n": 1}')) + sep + c + close,
        "empty name": lead + c + sep + call(name='""') + sep + c + close,
        "name with spaces": lead + c + sep + call(name='" f "') + sep + c + close,
        "unknown tool": lead + c + sep + call(name='"zzz"') + sep + c + close,
        "name not a string": lead + c + sep + call(name="1") + sep + c + close,
        "escaped name": lead + call(name='"\\u0066"') + sep + c + close,
        "duplicate key": lead + call('{"n": 1, "n": 2}') + sep + c + close,
        "NaN": lead + call('{"x": NaN}') + sep + c + close,
        "raw newline in a string": lead + call('{"s": "a\nb"}') + sep + c + close,
        "deep": lead + call('{"l": ' + "[" * 3000 + "]" * 3000 + "}") + sep + c + close,
        "brace after": lead + c + "}" + sep + c + close,
        "whitespace before": " \n " + lead + c + sep + c + close,
        "long value": lead + call(json.dumps({"s": "x" * 5000, "n": 1})) + sep + c + close,
        "cut after separator": lead + c + sep,
        "cut in separator": lead + c + sep[:1],
    }
    if key is not None:
        texts.update({
            "other arguments key": lead + c.replace(f'"{key}"', f'"{other}"') + sep + c + close,
            "args key": lead + c.replace(f'"{key}"', '"args"') + sep + c + close,
            "extra member between": lead + c.replace(f'"{key}"', f'"id": 1, "{key}"') + sep
            + c + close,
            "no arguments": lead + c.replace(f', "{key}": {{"n": 1, "s": "x"}}', "") + sep + c
            + close,
        })
    else:
        texts.update({
            "extra member before": lead + '{"id": 1, ' + c[1:] + sep + c + close,
            "no arguments": lead + '{"f"}' + sep + c + close,
            "arguments not an object": lead + call("[1]") + sep + call("1") + sep + c + close,
            "empty object": lead + "{}" + sep + c + close,
        })
    for cut in range(1, len(c)):
        texts[f"cut at {cut}"] = lead + c + sep + c[:cut]
    return texts


def _parser(module: Any, tokenizer: Any, kwargs: dict[str, Any]) -> Any:
    return module.ChatParser(tokenizer, tools=kwargs.get("tools", TOOLS),
                             thinking=kwargs.get("thinking", THINKING), ids="sequential",
                             tool_choice=kwargs.get("tool_choice"))


def read_by_chars(module: Any, text: str, tokenizer: Any = None, **kwargs: Any) -> tuple:
    """(message, cut calls, warnings, content offset) of ``text`` streamed one character
    per delta."""
    parser = _parser(module, tokenizer, kwargs)
    message = accumulate([parser.feed(ch) for ch in text] + [parser.finish()])
    return (without_cut_calls(message, parser.cut_calls), parser.cut_calls, parser.warnings,
            parser.content_offset)


def read_whole(module: Any, text: str, tokenizer: Any = None, **kwargs: Any) -> tuple:
    """The same of ``text`` read whole (``complete``: where runs are read)."""
    parser = _parser(module, tokenizer, kwargs)
    message = parser.complete(text, kwargs.get("token_ids", ()))
    return message, parser.cut_calls, parser.warnings, parser.content_offset


def read_by_ids(module: Any, text: str, tokenizer: Any) -> tuple[tuple, tuple]:
    """(read whole, streamed token by token) of ``text`` with its token ids."""
    ids = tokenizer.encode(text, add_special_tokens=False)
    parser = _parser(module, tokenizer, {})
    message = accumulate([parser.feed(t, i) for t, i in token_deltas(tokenizer, ids)]
                         + [parser.finish()])
    return read_whole(module, text, tokenizer, token_ids=ids), (
        without_cut_calls(message, parser.cut_calls), parser.cut_calls, parser.warnings,
        parser.content_offset)


def check_with_tokenizer(module: Any, name: str, text: str, tokenizer: Any) -> None:
    """``text`` read whole is what streaming it gives, with a tokenizer by character
    (text mode) and by token with its ids (a marker counts only as its token)."""
    whole, chars = read_whole(module, text, tokenizer), read_by_chars(module, text, tokenizer)
    assert whole == chars, f"{name}, text mode: {whole} != {chars}"
    whole, streamed = read_by_ids(module, text, tokenizer)
    assert whole == streamed, f"{name}, token ids: {whole} != {streamed}"
