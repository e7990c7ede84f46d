"""A typed value reads the same in every casing and every cadence, in every format.

An outside mutation audit found the streaming writer's null rule tested in one casing:
a ``["string", "null"]`` value written ``Null`` must not stream as the string "Null"
while ``parse()`` gives null.  The reading (README, typed arguments): ``null`` in any
casing is null where the schema admits null, as vLLM 0.33's ``coerce_to_schema_type``
(``value.lower() == "null"``) and its step3 parser read it; the formats' templates write
JSON's ``null`` (and Python's ``None`` in Python calls).  Booleans and schema type names
are read case-insensitively too; each rule is pinned here in several casings, streamed
whole, by characters, in random pieces and (qwen3) by token ids.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from support.streams import cadences

import parsergen
from parsergen.runtime import accumulate
from parsergen.runtime.arguments import ArgumentsWriter

PLACEHOLDER = "QQQ"
CALLING = [f for f in parsergen.formats() if parsergen.load(f).RENDERER.call is not None]


def _tools(schema: dict) -> list[dict]:
    return [{"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"v": schema}}}}]


NULLABLE = _tools({"type": ["string", "null"]})
BOOLEAN = _tools({"type": "boolean"})
# (value as written, schema's tools, the value read)
VALUES = [
    *((w, NULLABLE, None) for w in ("null", "Null", "NULL", "nULL")),
    *((w, NULLABLE, w) for w in ("Nul", "NULLs", "nil")),  # never null: text
    *((w, BOOLEAN, True) for w in ("true", "True", "TRUE", "1")),
    *((w, BOOLEAN, False) for w in ("False", "fALSE", "0")),
    ("Yes", BOOLEAN, "Yes"),
]


def _call_text(fmt: str, written: str) -> str:
    """A completion with one call of ``f`` whose ``v`` the model wrote as ``written``
    (in the format's own render: quoted where the format quotes strings)."""
    text = parsergen.load(fmt).render(
        {"tool_calls": [{"name": "f", "arguments": {"v": PLACEHOLDER}}]})
    assert text.count(PLACEHOLDER) == 1, fmt
    return text.replace(PLACEHOLDER, written)


def _read(module: Any, deltas: list[tuple[str, list[int]]], tools: list[dict],
          tokenizer: Any = None) -> list[Any]:
    chat = module.ChatParser(tokenizer, tools=tools)
    message = accumulate([chat.feed(t, i) for t, i in deltas] + [chat.finish()])
    return [json.loads(c.arguments).get("v", "<no v>") for c in message.tool_calls]


@pytest.mark.parametrize("fmt", CALLING)
def test_a_value_reads_alike_in_every_casing_and_cadence(fmt: str) -> None:
    module = parsergen.load(fmt)
    for written, tools, value in VALUES:
        text = _call_text(fmt, written)
        assert [json.loads(c.arguments)["v"] for c in module.parse(text, tools=tools).tool_calls] \
            == [value], (fmt, written)
        for name, deltas in cadences(text, seeds=2).items():
            assert _read(module, deltas, tools) == [value], (fmt, written, name)


@pytest.mark.parametrize("written,tools,value", VALUES, ids=[v[0] for v in VALUES])
def test_by_token_ids_too(get_tokenizer, written: str, tools: list, value: Any) -> None:
    module, tok = parsergen.load("qwen3"), get_tokenizer("qwen3.6")
    for name, deltas in cadences(_call_text("qwen3", written), tok).items():
        assert _read(module, deltas, tools, tok) == [value], name


@pytest.mark.parametrize("pieces,out,value", [
    (["N", "u", "L", "L"], ["", "", "", ""], None),
    (["nU", "ll"], ["", ""], None),
    (["NU", "T"], ["", '"NUT'], "NUT"),  # streams once it cannot be null, as written
    (["Nul", "l!"], ["", '"Null!'], "Null!"),
])
def test_the_held_prefix_is_compared_in_any_casing(pieces: list, out: list, value: Any) -> None:
    writer = ArgumentsWriter({"v": {"type": ["string", "null"]}})
    got = [writer.begin("v") + writer.text(pieces[0])] + [writer.text(p) for p in pieces[1:]]
    assert got == ['{"v": ' + out[0], *out[1:]]
    text = "".join(got) + writer.end() + writer.close()
    assert json.loads(text) == {"v": value}


@pytest.mark.parametrize("declared", [["STRING", "Null"], ["string", "NULL"], "Integer"])
def test_schema_type_names_in_any_casing(declared: Any) -> None:
    module = parsergen.load("qwen3")
    tools = _tools({"type": declared})
    written, value = ("3", 3) if declared == "Integer" else ("NULL", None)
    text = _call_text("qwen3", written)
    assert _read(module, [(text, [])], tools) == [value]
    rng = random.Random(0)
    cuts = sorted(rng.sample(range(1, len(text)), 8))
    deltas = [(text[a:b], []) for a, b in zip([0, *cuts], [*cuts, len(text)])]
    assert _read(module, deltas, tools) == [value]
