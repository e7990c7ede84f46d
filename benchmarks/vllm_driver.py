"""Time vLLM's StreamingParserEngine for benchmarks/run.py; runs under the vLLM peer venv's python.

Never imports parsergen.  Reads one JSON command per line on stdin, answers one JSON
line on stdout:

    {"cmd": "hello"}              -> {"vllm": VERSION}
    {"cmd": "load", "file": F}    -> {"match": bool, "diff": str, "construct": s}
    {"cmd": "run"}                -> {"construct": s, "parse": s}

F is written by run.py: {"format", "tokenizer", "deltas": [[text, [id]], ...], "events"}
with "events" parsergen's merged events, which "load" compares with vLLM's.
EOF on stdin ends the driver.
"""

from __future__ import annotations

import gc
import importlib.util
import json
import sys
import time
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any

PROTOCOL = sys.stdout
sys.stdout = sys.stderr  # whatever vLLM prints must not corrupt the protocol channel

ROOT = Path(__file__).resolve().parent.parent


def load_capture_tool() -> ModuleType:
    """tools/capture_goldens.py by path: the goldens' tokenizers, vllm_config and merge."""
    spec = importlib.util.spec_from_file_location(
        "capture_goldens", ROOT / "tools" / "capture_goldens.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


class Driver:
    """Holds the loaded completion and times the engine on it."""

    def __init__(self) -> None:
        from vllm.parser.engine.streaming_parser_engine import StreamingParserEngine

        self.engine_cls = StreamingParserEngine
        self.cg = load_capture_tool()
        self.config: Any = None
        self.tokenizer: Any = None
        self.deltas: list[tuple[str, list[int]]] = []

    def load(self, file: str) -> dict[str, Any]:
        """Take a format's deltas, run the engine once, compare its events with ours."""
        data = json.loads(Path(file).read_text(encoding="utf-8"))
        self.tokenizer = self.cg.toks.TOKENIZERS[data["tokenizer"]]()  # cached per process
        self.config = self.cg.vllm_config(data["format"], True)  # thinking on, as in run.py
        self.deltas = [(text, ids) for text, ids in data["deltas"]]
        t0 = time.perf_counter()
        engine = self.engine_cls(self.config, self.tokenizer)
        cold = time.perf_counter() - t0
        events = [
            ev for text, ids in self.deltas for ev in engine.feed(text, ids)
        ] + engine.finish()
        theirs = [list(e) for e in self.cg.merged(events)]
        ours = data["events"]
        diff = ""
        if theirs != ours:
            i = next(
                (i for i, (a, b) in enumerate(zip(theirs, ours)) if a != b),
                min(len(theirs), len(ours)),
            )
            diff = (
                f"{len(theirs)} vs {len(ours)} merged events; first difference at {i}: "
                f"vLLM {theirs[i:i + 1]} ours {ours[i:i + 1]}"
            )
        # The check doubles as the warm-up, and its construction is the cold one.
        return {"match": theirs == ours, "diff": diff, "construct": cold}

    def run(self) -> dict[str, float]:
        """One repetition, timed like run.py's: construct, feed every delta, finish."""
        gc.collect()  # as in run.py's run_ours
        gc.freeze()
        t0 = time.perf_counter()
        engine = self.engine_cls(self.config, self.tokenizer)
        t1 = time.perf_counter()
        feed = engine.feed
        for text, ids in self.deltas:
            feed(text, ids)
        engine.finish()
        return {"construct": t1 - t0, "parse": time.perf_counter() - t1}


def main() -> int:
    """Answer commands until stdin closes."""
    import vllm

    driver = Driver()
    for line in sys.stdin:
        command = json.loads(line)
        try:
            if command["cmd"] == "hello":
                answer: dict[str, Any] = {"vllm": vllm.__version__}
            elif command["cmd"] == "load":
                answer = driver.load(command["file"])
            elif command["cmd"] == "run":
                answer = driver.run()
            else:
                answer = {"error": f"unknown command {command['cmd']!r}"}
        except Exception as exc:  # report to run.py rather than die silently
            traceback.print_exc()  # to stderr, which run.py shows on error
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        PROTOCOL.write(json.dumps(answer) + "\n")
        PROTOCOL.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
