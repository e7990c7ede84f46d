"""Time parsergen's parsers, in-process for run.py and as a subprocess for ``--against``.

``time_variant`` is the one timed repetition every parsergen timing of run.py goes
through.  Run as a script, this module is a driver like vllm_driver.py: ``against.py``
starts one per source tree, with the tree's import root first on PYTHONPATH, so the
same timing code runs on whichever parsergen that root holds.  It imports parsergen
only in ``main``, and nothing of it by name but ``load`` and what a generated module
offers.  One JSON command per line on stdin, one JSON answer per line on stdout:

    {"cmd": "hello"}                -> {"parsergen": FILE, "runtime": FILE, "runtime_version": N}
    {"cmd": "load", "file": F}      -> {"events": {...}, "messages": {...}, "errors": {...}}
                                       or {"unavailable": WHY} (the tree has no such format)
    {"cmd": "run", "variant": V}    -> {"construct": s, "parse": s, "parse_cpu": s}

F is the file run.py writes for vllm_driver.py.  "load" runs every variant once (the
warm-up; a variant that raises is listed in "errors" and not timed) and answers the
merged events per cadence and the message per variant, to compare the two trees by.
EOF on stdin ends the driver.
"""

from __future__ import annotations

import gc
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from peer import warmed

Deltas = list[tuple[str, list[int]]]

# Levels and cadences: StreamingParser and ChatParser fed per token or per 1-8 token
# group, or the per-token deltas handed over 4 at a time to feed_many (coalesced), and
# parse() on the whole text.
VARIANTS = ("events/tokens", "events/groups", "events/many4", "openai/tokens", "openai/groups",
            "openai/many4", "parse")
MANY = 4  # per-token deltas per feed_many call (the "many4" cadence)


def batches(deltas: Deltas, n: int = MANY) -> list[Deltas]:
    """``deltas`` in consecutive lists of ``n``: what a server streaming every n tokens has."""
    return [deltas[i : i + n] for i in range(0, len(deltas), n)]


@dataclass
class Input:
    """One format's input, the same for every side that times it."""

    thinking: bool
    tools: list[dict[str, Any]]
    text: str
    ids: list[int]
    cadences: dict[str, Deltas]


def _replay(parser: Any, deltas: Deltas | None, many: list[Deltas] | None) -> None:
    """Feed a parser (either level) one delta at a time, or in ``feed_many`` groups."""
    if many is not None:
        feed_many = parser.feed_many
        for group in many:
            feed_many(group)
    else:
        feed = parser.feed
        for text, ids in deltas or ():
            feed(text, ids)
    parser.finish()


def time_variant(module: ModuleType, tokenizer: Any, inp: Input, variant: str) -> dict[str, float]:
    """One repetition, after an untimed pass (``peer.warmed``): see ``time_once``."""
    return warmed(lambda: time_once(module, tokenizer, inp, variant))


def time_once(module: ModuleType, tokenizer: Any, inp: Input, variant: str) -> dict[str, float]:
    """One timed pass: construct, feed every delta, finish (or one parse()).

    ``construct`` and ``parse`` are wall-clock seconds; ``parse_cpu`` is the process's CPU
    seconds over the same span, which other processes on a loaded machine do not add to.
    """
    kind, _, cadence = variant.partition("/")
    many = batches(inp.cadences["tokens"]) if cadence == "many4" else None
    # Every rep (ours and the peer's) starts on a clean heap; freezing what survives
    # (tokenizers, modules, the deltas) keeps collections from rescanning it.
    gc.collect()
    gc.freeze()
    t0 = time.perf_counter()
    if kind == "events":
        parser = module.StreamingParser(tokenizer, thinking=inp.thinking)
        t1 = time.perf_counter()
        c1 = time.process_time()
        _replay(parser, inp.cadences[cadence] if many is None else None, many)
    elif kind == "openai":
        chat = module.ChatParser(tokenizer, tools=inp.tools, thinking=inp.thinking)
        t1 = time.perf_counter()
        c1 = time.process_time()
        _replay(chat, inp.cadences[cadence] if many is None else None, many)
    elif kind == "parse":  # parse() constructs its parser inside: that is timed too
        t1 = time.perf_counter()
        c1 = time.process_time()
        module.parse(inp.text, tools=inp.tools, tokenizer=tokenizer, token_ids=inp.ids,
                     thinking=inp.thinking)  # fmt: skip
    else:
        raise ValueError(f"unknown variant {variant!r}")
    c2 = time.process_time()
    t2 = time.perf_counter()
    return {"construct": t1 - t0, "parse": t2 - t1, "parse_cpu": c2 - c1}


def message_list(m: Any) -> list[Any]:
    """A parsed message as JSON-friendly [reasoning, content, [[name, arguments]]]."""
    return [m.reasoning, m.content, [[c.name, c.arguments] for c in m.tool_calls]]


class Driver:
    """Holds one format's input and times the importable parsergen on it."""

    def __init__(self) -> None:
        from capture import load_capture_tool  # this checkout's tokenizers, never parsergen

        self.cg = load_capture_tool()
        self.module: ModuleType | None = None
        self.tok: Any = None
        self.input: Input | None = None

    def hello(self) -> dict[str, Any]:
        """Where parsergen was imported from: the caller checks it is its import root."""
        import parsergen
        import parsergen.runtime

        return {"parsergen": parsergen.__file__, "runtime": parsergen.runtime.__file__,
                "runtime_version": getattr(parsergen.runtime, "RUNTIME_VERSION", None)}  # fmt: skip

    def load(self, file: str) -> dict[str, Any]:
        """Take a format's input; run every variant once; answer what parsergen produced."""
        import parsergen

        data = json.loads(Path(file).read_text(encoding="utf-8"))
        try:
            self.module = parsergen.load(data["format"])
        except (KeyError, ImportError) as exc:
            return {"unavailable": f"{type(exc).__name__}: {exc}"}
        self.tok = self.cg.toks.TOKENIZERS[data["tokenizer"]]()
        cadences = {name: [(text, ids) for text, ids in deltas]
                    for name, deltas in data["cadences"].items()}  # fmt: skip
        self.input = Input(data["thinking"], data["tools"], data["text"], data["ids"], cadences)
        errors: dict[str, str] = {}
        for variant in VARIANTS:
            try:
                time_variant(self.module, self.tok, self.input, variant)
            except Exception as exc:  # an older tree may lack a level: not timed, reported
                errors[variant] = f"{type(exc).__name__}: {exc}"
        return {"events": self.events(errors), "messages": self.messages(errors),
                "errors": errors}  # fmt: skip

    def events(self, errors: dict[str, str]) -> dict[str, list[list[Any]]]:
        """Merged events per cadence, JSON-friendly [type, tool_index, value]."""
        assert self.module is not None and self.input is not None
        out = {}
        for cadence, deltas in self.input.cadences.items():
            if f"events/{cadence}" in errors:
                continue
            parser = self.module.StreamingParser(self.tok, thinking=self.input.thinking)
            evs = [ev for text, ids in deltas for ev in parser.feed(text, ids)] + parser.finish()
            out[cadence] = [list(e) for e in self.cg.merged(evs)]
        return out

    def messages(self, errors: dict[str, str]) -> dict[str, list[Any]]:
        """The message a client assembles, per streamed cadence and from parse()."""
        assert self.module is not None and self.input is not None
        m, inp, out = self.module, self.input, {}
        try:
            from parsergen.runtime.messages import accumulate
        except ImportError:  # an older tree: streamed messages are not compared
            accumulate = None
        for cadence, deltas in inp.cadences.items():
            if accumulate is None or f"openai/{cadence}" in errors:
                continue
            chat = m.ChatParser(self.tok, tools=inp.tools, thinking=inp.thinking)
            stream = [chat.feed(text, ids) for text, ids in deltas] + [chat.finish()]
            out[f"openai/{cadence}"] = message_list(accumulate(stream))
        if "parse" not in errors:
            out["parse"] = message_list(m.parse(inp.text, tools=inp.tools, tokenizer=self.tok,
                                                token_ids=inp.ids, thinking=inp.thinking))  # fmt: skip
        return out

    def run(self, variant: str) -> dict[str, float]:
        """One timed repetition of one variant."""
        assert self.module is not None and self.input is not None
        return time_variant(self.module, self.tok, self.input, variant)


def main() -> int:
    """Answer commands until stdin closes."""
    from peer import serve  # benchmarks/ is this script's folder: on sys.path

    protocol = sys.stdout
    sys.stdout = sys.stderr  # whatever a parser prints must not corrupt the protocol channel
    return serve(Driver(), protocol)


if __name__ == "__main__":
    sys.exit(main())
