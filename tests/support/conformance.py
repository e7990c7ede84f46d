"""canitoolcall's fixtures replayed through ``parsergen.route``: the parses its checks judge.

Each fixture is replayed as a server would: the route of its reference model, the
fixture's tools and ``thinking``, and the generation prompt canitoolcall gives every
engine (``ReplayInput``: the fixture's, else its family's default) as the prompt.  Two
observations per fixture, each judged by canitoolcall's own checks:

- ``text``: ``parse()`` of the text, and ``ChatParser`` streams of it whole, one
  character per delta and in random character groups;
- ``ids``: where a tokenizer the tests build from PyPI (``tokenizers.py``) decodes the
  fixture's ``output_token_ids`` back to its text, ``parse()`` with those ids and
  streams grouped by canitoolcall's default strategies (``one``, ``special``, ``token``,
  ``rand:S:8``), each group's text from an incremental detokenizer.

Streams use ``stream_calls="complete"``: canitoolcall fails a call the stream sent and
the completion then cut off (a client already has it), which is the default
``"incremental"`` mode's documented behaviour (README, "Broken output").
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from canitoolcall.adapters.base import ReplayInput
from canitoolcall.checks import case_status, run_checks
from canitoolcall.chunking import DEFAULT_STRATEGIES, ChunkStrategy, split, split_text
from canitoolcall.fixtures import Family, Fixture, load_fixtures
from canitoolcall.results import (
    Observation,
    ParsedToolCall,
    ParseResult,
    Status,
    StreamAccumulator,
)
from canitoolcall.runner import family_for

import parsergen

from . import tokenizers
from .streams import Deltas, token_deltas

# The PyPI tokenizer that may reproduce a family's ids (checked per fixture by decoding).
FAMILY_TOKENIZERS = {"qwen3-hermes": "qwen3.6", "qwen3-xml": "qwen3.6", "deepseek": "deepseek",
                     "mistral": "tekken"}
# Character cadences: canitoolcall's synthetic ``char:S`` splits (0: one per delta), named
# so that its checks count them (a text-only server, SGLang, streams text).
TEXT_SEEDS = (0, 1, 2, 3)
PASSING = (Status.PASS, Status.SOFT_PASS)


@lru_cache(maxsize=1)
def fixtures() -> tuple[tuple[Fixture, Family | None], ...]:
    """Every bundled fixture with its family (for the marker-leak check)."""
    cache: dict[Any, Family | None] = {}
    return tuple((f, family_for(f, cache)) for f in load_fixtures())


def result_of(message: Any) -> ParseResult:
    """A ``ParsedMessage`` as canitoolcall's ``ParseResult``."""
    return ParseResult(content=message.content, reasoning_content=message.reasoning,
                       tool_calls=tuple(ParsedToolCall(c.name, c.arguments)
                                        for c in message.tool_calls))


def streamed(route: Any, deltas: Deltas, options: dict[str, Any], tokenizer: Any = None,
             prompt_ids: list[int] | None = None) -> ParseResult:
    """What an OpenAI client accumulates from a ``ChatParser`` fed ``deltas``."""
    parser = route.chat_parser(tokenizer, tools=options["tools"], thinking=options["thinking"],
                               stream_calls="complete")
    parser.initialize(prompt_ids or (), prompt_text=options["prompt_text"])
    acc = StreamAccumulator()
    for delta in [*(parser.feed(text, ids) for text, ids in deltas), parser.finish()]:
        if delta is not None:
            acc.add_openai_delta(delta.to_openai())
    return acc.result()


def tokenizer_for(fixture: Fixture) -> Any:
    """The PyPI tokenizer that decodes the fixture's ids to its text exactly, or None."""
    name = FAMILY_TOKENIZERS.get(fixture.family)
    if name is None or fixture.output_token_ids is None:
        return None
    tok = tokenizers.TOKENIZERS[name]()
    text = tok.decode(list(fixture.output_token_ids), skip_special_tokens=False)
    return tok if text == fixture.raw_output else None


def observations(fixture: Fixture, family: Family | None) -> dict[str, Observation]:
    """The fixture's parses through its model's route, by kind (``text``, ``ids``)."""
    route = parsergen.route(fixture.reference_model)
    assert route is not None, f"{fixture.reference_model} routes nowhere"
    prompt = ReplayInput.from_fixture(fixture, family).generation_prompt
    text = fixture.raw_output
    options = {"tools": list(fixture.tools) or None, "thinking": fixture.thinking,
               "prompt_text": prompt}
    whole = result_of(route.parse(text, **options))
    streams = {"text:one": streamed(route, [(text, [])], options)}
    for seed in TEXT_SEEDS:
        pieces = split_text(text, ChunkStrategy("char", seed=seed))
        streams[f"text:char:{seed}"] = streamed(route, [(p, []) for p in pieces], options)
    out = {"text": Observation(whole, streams)}
    tok = tokenizer_for(fixture)
    if tok is not None:
        ids = list(fixture.output_token_ids or ())
        prompt_ids = tok.encode(prompt, add_special_tokens=False) if prompt else []
        whole = result_of(route.parse(text, tokenizer=tok, token_ids=ids,
                                      prompt_token_ids=prompt_ids, **options))
        per_token = token_deltas(tok, ids)
        special = set(tok.all_special_ids)
        marks = {i for i, tid in enumerate(ids) if tid in special}
        streams = {}
        for strategy in DEFAULT_STRATEGIES:
            groups = split(range(len(ids)), strategy, special=marks)
            deltas = [("".join(per_token[i][0] for i in g), [ids[i] for i in g])
                      for g in groups]
            streams[strategy.id] = streamed(route, deltas, options, tok, prompt_ids)
        out["ids"] = Observation(whole, streams)
    return out


def failures(fixture: Fixture, family: Family | None) -> list[str]:
    """Each failing check of each observation, as ``kind check@strategy: detail``."""
    out = []
    for kind, obs in observations(fixture, family).items():
        rows = run_checks(fixture, family, obs)
        if case_status(rows) not in PASSING:
            out += [f"{kind} {r.check}@{r.strategy}: {r.detail}" for r in rows
                    if r.status not in PASSING]
    return out
