"""Time vLLM's parsers for benchmarks/run.py; runs under the vLLM peer venv's python.

Never imports parsergen.  Reads one JSON command per line on stdin, answers one JSON
line on stdout:

    {"cmd": "hello"}                   -> {"vllm": VERSION}
    {"cmd": "load", "file": F}         -> {"events": [...], "messages": {...}, "construct": {...}}
    {"cmd": "run", "variant": V}       -> {"construct": s, "parse": s}

F is written by run.py: {"format", "tokenizer", "thinking", "tools", "text", "ids",
"cadences": {name: [[text, [id, ...]], ...]}}.  "load" runs every variant once (the
warm-up) and answers what vLLM produced, for run.py to compare with parsergen:
the engine's merged events per cadence, and per variant of the full parser the
message a client would assemble.  Variants:

    engine/CADENCE     StreamingParserEngine(vllm_config(...)).feed() per delta, finish()
    assembly/CADENCE   the full parser's parse_delta() per delta (finished on the last),
                       as tools/capture_goldens.py capture_messages drives it
    parse              the full parser's parse(text, request, model_output_token_ids=ids)

Only feed/finish, parse_delta or parse is timed; construction is timed apart.  EOF on
stdin ends the driver.
"""

from __future__ import annotations

import gc
import json
import sys
import time
from pathlib import Path
from typing import Any

PROTOCOL = sys.stdout
sys.stdout = sys.stderr  # whatever vLLM prints must not corrupt the protocol channel

from capture import load_capture_tool  # noqa: E402  (after the stdout swap)
from peer import warmed  # noqa: E402


class Driver:
    """Holds one format's input and times vLLM's parsers on it."""

    def __init__(self) -> None:
        from vllm.parser.engine.streaming_parser_engine import StreamingParserEngine
        from vllm.tokenizers.hf import get_cached_tokenizer

        self.engine_cls = StreamingParserEngine
        self.cached = get_cached_tokenizer
        self.cg = load_capture_tool()
        self.tokenizers: dict[str, Any] = {}
        self.data: dict[str, Any] = {}
        self.config: Any = None

    def hello(self) -> dict[str, Any]:
        """Which vLLM answers."""
        import vllm

        return {"vllm": vllm.__version__}

    def tokenizer(self, name: str) -> Any:
        # vLLM's server wraps every tokenizer in get_cached_tokenizer (get_vocab() and
        # the special-token lists computed once); without it each engine construction
        # rebuilds the vocabulary dict (0.35 s for qwen3.6's 250k entries).
        if name not in self.tokenizers:
            self.tokenizers[name] = self.cached(self.cg.toks.TOKENIZERS[name]())
        return self.tokenizers[name]

    def parser(self) -> Any:
        """A fresh full parser (engine plus assembly) with the benchmark's tools."""
        return self.cg.vllm_parser(self.data["format"], self.tok, self.data["thinking"])

    def request(self) -> Any:
        return self.cg.chat_request()

    def load(self, file: str) -> dict[str, Any]:
        """Take a format's input; run every variant once; answer what vLLM produced."""
        self.data = json.loads(Path(file).read_text(encoding="utf-8"))
        self.data["cadences"] = {
            name: [(text, ids) for text, ids in deltas]
            for name, deltas in self.data["cadences"].items()
        }
        self.tok = self.tokenizer(self.data["tokenizer"])
        # capture_goldens builds its request (and the parser's tools) from TOOLS: the
        # benchmark's calls need the benchmark's tools.
        self.cg.TOOLS = self.data["tools"]
        t0 = time.perf_counter()
        self.config = self.cg.vllm_config(self.data["format"], self.data["thinking"], self.tok)
        first_config = time.perf_counter() - t0
        events: dict[str, Any] = {}
        messages: dict[str, Any] = {}
        construct: dict[str, float] = {"config": first_config}
        for cadence, deltas in self.data["cadences"].items():
            t0 = time.perf_counter()
            engine = self.engine_cls(self.config, self.tok)
            construct[f"engine/{cadence}"] = time.perf_counter() - t0
            evs = [ev for text, ids in deltas for ev in engine.feed(text, ids)] + engine.finish()
            events[cadence] = [list(e) for e in self.cg.merged(evs)]
            t0 = time.perf_counter()
            parser = self.parser()
            construct[f"assembly/{cadence}"] = time.perf_counter() - t0
            messages[f"assembly/{cadence}"] = self.stream_message(parser, deltas)
        parser = self.parser()
        reasoning, content, calls = parser.parse(
            self.data["text"], self.request(), enable_auto_tools=True,
            model_output_token_ids=self.data["ids"],
        )  # fmt: skip
        messages["parse"] = [reasoning, content,
                             [[c.name, c.arguments] for c in calls or []]]  # fmt: skip
        return {"events": events, "messages": messages, "construct": construct}

    def stream_message(self, parser: Any, deltas: list) -> list[Any]:
        """The message a client assembles from parse_delta()'s deltas."""
        request = self.request()
        reasoning, content, acc = "", "", {}
        last = len(deltas) - 1
        for i, (text, ids) in enumerate(deltas):
            delta = parser.parse_delta(text, ids, request, finished=i == last)
            if delta is None:
                continue
            reasoning += delta.reasoning or ""
            content += delta.content or ""
            for tc in delta.tool_calls or []:
                slot = acc.setdefault(tc.index, ["", ""])
                if tc.function is not None:
                    slot[0] += tc.function.name or ""
                    slot[1] += tc.function.arguments or ""
        return [reasoning or None, content or None, [acc[i] for i in sorted(acc)]]

    def run(self, variant: str) -> dict[str, float]:
        """One repetition of one variant, timed like run.py's (after an untimed pass)."""
        return warmed(lambda: self._once(variant))

    def _once(self, variant: str) -> dict[str, float]:
        """One timed pass of one variant."""
        kind, _, cadence = variant.partition("/")
        request = self.request() if kind != "engine" else None
        gc.collect()  # as in run.py
        gc.freeze()
        t0 = time.perf_counter()
        if kind == "engine":
            engine = self.engine_cls(self.config, self.tok)
            t1 = time.perf_counter()
            feed = engine.feed
            for text, ids in self.data["cadences"][cadence]:
                feed(text, ids)
            engine.finish()
        elif kind == "assembly":
            parser = self.parser()
            t1 = time.perf_counter()
            parse_delta = parser.parse_delta
            deltas = self.data["cadences"][cadence]
            last = len(deltas) - 1
            for i, (text, ids) in enumerate(deltas):
                parse_delta(text, ids, request, finished=i == last)
        elif kind == "parse":
            parser = self.parser()
            t1 = time.perf_counter()
            parser.parse(self.data["text"], request, enable_auto_tools=True,
                         model_output_token_ids=self.data["ids"])  # fmt: skip
        else:
            raise ValueError(f"unknown variant {variant!r}")
        t2 = time.perf_counter()
        return {"construct": t1 - t0, "parse": t2 - t1}


def main() -> int:
    """Answer commands until stdin closes."""
    from peer import serve  # benchmarks/ is this script's folder: on sys.path

    return serve(Driver(), PROTOCOL)


if __name__ == "__main__":
    sys.exit(main())
