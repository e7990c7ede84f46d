"""The JSON argument tracker against a character-at-a-time statement of the same rule."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from parsergen.runtime.bodies.json import JsonArgs


class CharByChar:
    """The rule, one character at a time: every character releases everything held,
    except a ``}``/``]`` outside strings that leaves depth at 0 (it waits)."""

    def __init__(self) -> None:
        self.buf, self.depth, self.in_string, self.escape = "", 0, False, False

    def feed(self, text: str) -> str:
        out = ""
        for ch in text:
            self.buf += ch
            held = False
            if self.escape:
                self.escape = False
            elif self.in_string:
                if ch == "\\":
                    self.escape = True
                elif ch == '"':
                    self.in_string = False
            elif ch == '"':
                self.in_string = True
            elif ch in "{[":
                self.depth += 1
            elif ch in "}]":
                self.depth = max(0, self.depth - 1)
                held = self.depth == 0
            if not held:
                out += self.buf
                self.buf = ""
        return out


JSONISH = st.lists(st.sampled_from(['{', '}', '[', ']', '"', '\\', 'a', ' ', ':', ',', 'é']),
                   max_size=60).map("".join)


@settings(max_examples=400, deadline=None)
@given(text=JSONISH, cuts=st.lists(st.integers(0, 100), max_size=8))
def test_same_emissions_as_char_by_char(text: str, cuts: list[int]) -> None:
    bounds = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    ours, ref = JsonArgs(), CharByChar()
    for a, b in zip(bounds, bounds[1:]):
        assert ours.feed(text[a:b]) == ref.feed(text[a:b])
        assert ours.held == ref.buf
    assert ours.take() == ref.buf


def test_closing_brace_waits_for_what_follows() -> None:
    args = JsonArgs()
    assert args.feed('{"a": "}"') == '{"a": "}"'
    assert args.feed("}") == ""
    assert args.feed("}") == ""  # a second top-level closer waits too
    assert args.feed(" ") == "}} "
    assert args.feed('{"b": [1]}') == '{"b": [1]'
    assert args.take() == "}"
