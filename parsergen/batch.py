"""Batch parsing: many completions, one JSON object each, on every core.

``parse_record`` is the unit of work, a plain function of one record, so a data
engine can run it as is (Ray Data's ``map``, a PySpark UDF, ``multiprocessing``);
``parse_jsonl`` runs it over a JSON Lines file in input order with a process pool.

A record is ``{"completion": str}`` with optionally ``prompt`` (the rendered prompt:
text, or its token ids), ``tools`` (the request's tool definitions), ``token_ids``
(the completion's, used with a tokenizer), ``model`` (picks the format when none is
given, and its variant's defaults) and ``thinking`` (true or false).  The result is the
OpenAI ``chat.completion`` message of the completion.

One precedence for every option, as for a single parse: the record's own fields, then
the caller's (the command line's ``--model``, ``--thinking``/``--no-thinking``), then
the defaults of the model's route (Qwen3-Coder never thinks), then the format's.
``--format`` names the format; the model, the record's or ``--model``, still brings its
route's defaults.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import lru_cache, partial
from multiprocessing import Pool
from typing import IO, Any

import parsergen


class RecordError(ValueError):
    """A record that cannot be parsed (not the completion's fault: its fields)."""


@lru_cache(maxsize=8)
def _tokenizer(name: str) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(name)


def settings(record: Mapping[str, Any], *, format: str | None = None,
             model: str | None = None, thinking: bool | None = None,
             specs: Sequence[str] = ()) -> tuple[str, dict[str, Any]]:
    """The format's name (or spec's path) and the parse options for ``record``: its own
    fields, then the caller's, then its model's route's defaults (module docstring)."""
    model = record.get("model") or model
    if not (model is None or isinstance(model, str)):
        raise RecordError("'model' must be a string")
    own = record.get("thinking")
    if not (own is None or isinstance(own, bool)):
        raise RecordError("'thinking' must be true, false or null")
    try:
        route = parsergen.route(model, specs=specs) if model else None
    except parsergen.SpecError as exc:
        raise RecordError(str(exc)) from None
    if format:
        name = format
    elif route is not None:
        name = route.spec or route.format
    else:
        raise RecordError(f"no format for model {model!r}; give --format")
    given = {"thinking": own if own is not None else thinking}
    defaults = route.defaults if route is not None else {}
    return name, {**defaults, **{k: v for k, v in given.items() if v is not None}}


def parse_record(record: Mapping[str, Any], *, format: str | None = None,
                 model: str | None = None, thinking: bool | None = None,
                 tokenizer: str | None = None, reasoning_key: str = "reasoning_content",
                 specs: Sequence[str] = ()) -> dict[str, Any]:
    """The OpenAI message of one record (see the module docstring); RecordError if the
    record is malformed.  ``model`` and ``thinking`` apply where the record has none of
    its own.  ``tokenizer`` (a transformers name or path) makes token ids count: the
    prompt's ids and the completion's ``token_ids``.  ``format`` may be a spec's path;
    ``specs`` (paths) are routed with the bundled formats."""
    if not isinstance(record, Mapping):
        raise RecordError("a record is a JSON object")
    text = record.get("completion")
    if not isinstance(text, str):
        raise RecordError("'completion' must be a string")
    name, defaults = settings(record, format=format, model=model, thinking=thinking,
                              specs=specs)
    try:
        module = parsergen.load(name)
    except KeyError as exc:
        raise RecordError(f"unknown format {exc.args[0]!r}") from None
    except parsergen.SpecError as exc:
        raise RecordError(str(exc)) from None
    prompt = record.get("prompt")
    tok = _tokenizer(tokenizer) if tokenizer else None
    prompt_ids: list[int] = []
    prompt_text = None
    if isinstance(prompt, str):
        prompt_text = prompt
        if tok is not None:
            prompt_ids = tok.encode(prompt, add_special_tokens=False)
    elif isinstance(prompt, list) and all(isinstance(i, int) for i in prompt):
        prompt_ids = prompt
    elif prompt is not None:
        raise RecordError("'prompt' must be text or a list of token ids")
    tools = record.get("tools")
    if tools is not None and not isinstance(tools, list):
        raise RecordError("'tools' must be a list of tool definitions")
    ids = record.get("token_ids") if tok is not None else None
    if ids is not None and not (isinstance(ids, list) and all(isinstance(i, int) for i in ids)):
        raise RecordError("'token_ids' must be a list of integers")
    message = module.parse(text, tools=tools, tokenizer=tok, token_ids=ids,
                           prompt_token_ids=prompt_ids, prompt_text=prompt_text, **defaults)
    return message.to_openai(reasoning_key=reasoning_key)


def parse_line(line: str, **options: Any) -> tuple[str | None, str | None]:
    """One JSONL line: (the output line, None) or (None, what is wrong with it)."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        return None, f"not JSON: {exc}"
    try:
        return json.dumps(parse_record(record, **options), ensure_ascii=False), None
    except RecordError as exc:
        return None, str(exc)


def parse_lines(lines: Iterable[str], *, workers: int | None = None,
                **options: Any) -> Iterator[tuple[str | None, str | None]]:
    """``parse_line`` over ``lines`` in input order, on ``workers`` processes (default:
    every core; 1: in this process)."""
    work = partial(parse_line, **options)
    workers = workers or os.cpu_count() or 1
    if workers == 1:
        yield from map(work, lines)
        return
    with Pool(workers) as pool:
        # Ordered, in chunks: big enough to amortize the transfer, small enough to
        # keep every worker busy and the progress moving.
        yield from pool.imap(work, lines, chunksize=64)


def parse_jsonl(source: IO[str], out: IO[str], *, workers: int | None = None,
                errors: IO[str] = sys.stderr, progress: bool | None = None,
                **options: Any) -> tuple[int, int]:
    """Parse a JSONL stream into one output line per input line, in order.

    A bad line is reported on ``errors`` (with its line number) and written as
    ``{"error": ...}`` so output lines stay aligned with input lines; it never stops
    the run.  Returns (lines, bad lines).  ``progress`` (default: when ``errors`` is a
    terminal) shows a counter there.
    """
    show = errors.isatty() if progress is None else progress
    expected = _count_lines(source) if show else None
    total = bad = 0
    for total, (result, error) in enumerate(parse_lines(source, workers=workers, **options), 1):
        if error is not None or result is None:
            bad += 1
            result = json.dumps({"error": error}, ensure_ascii=False)
            print(f"{chr(13) if show else ''}line {total}: {error}", file=errors)
        out.write(result + "\n")
        if show and (total % 100 == 0 or total == expected):
            errors.write("\r" + _bar(total, expected, bad))
            errors.flush()
    if show:
        errors.write("\r" + _bar(total, total, bad) + "\n")
    return total, bad


def _count_lines(source: IO[str]) -> int | None:
    """Lines in a seekable source (it is rewound), for the progress bar; else None."""
    try:
        start = source.tell()
        n = sum(1 for _ in source)
        source.seek(start)
        return n
    except (OSError, ValueError):
        return None


def _bar(done: int, total: int | None, bad: int) -> str:
    if not total:
        return f"{done} lines, {bad} bad"
    filled = 30 * done // total
    return f"[{'#' * filled}{'.' * (30 - filled)}] {done}/{total} lines, {bad} bad"


__all__ = ["RecordError", "parse_jsonl", "parse_line", "parse_lines", "parse_record", "settings"]
