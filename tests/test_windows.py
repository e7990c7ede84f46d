"""A long stretch of call text is given to a body in windows (driver._windowed), which
keeps a call-dense parse() linear; the result is the same as reading it in small
deltas, where no window is ever cut."""

from __future__ import annotations

import pytest

import parsergen
from parsergen.runtime import merge_chunks
from parsergen.runtime.bodies import BODIES

# Formats whose body can end its calls by itself (the only ones given windows).
FORMATS = sorted(f for f in parsergen.formats()
                 if parsergen.load(f).StreamingParser.BODY.exits_to)

CALLS = [{"name": "get_weather", "arguments": {"city": "São Paulo {\"x\"} ]", "days": i,
                                               "tags": ["a", {"b": [1, 2, "}"]}]}}
         for i in range(400)]


def _events(module, deltas: list[str]) -> list[tuple]:
    parser = module.StreamingParser(thinking=False)
    events = [e for d in deltas for e in parser.feed(d)] + parser.finish()
    return [(e.type.name, e.value, e.tool_index) for e in merge_chunks(events)]


@pytest.mark.parametrize("fmt", FORMATS)
def test_windows_read_as_small_deltas_do(fmt: str) -> None:
    module = parsergen.load(fmt)
    text = "".join(t for t, _ in module.RENDERER.pieces(
        {"content": "Sure.", "tool_calls": CALLS}, thinking=False))
    assert len(text) > 6 * 4096  # several windows
    whole = _events(module, [text])
    assert whole == _events(module, [text[i : i + 997] for i in range(0, len(text), 997)])
    message = module.parse(text, thinking=False)
    assert len(message.tool_calls) == len(CALLS)


def test_some_formats_have_such_bodies() -> None:
    assert {"llama3_json", "granite", "pythonic"} <= set(FORMATS)
    assert all(BODIES[b].exits_to for b in ("json_object", "json_array", "python_list"))
