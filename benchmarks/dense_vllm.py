"""vLLM's side of dense.py: its legacy tool parsers, run by the peer venv's python.

Never imports parsergen.  JSON lines on stdin/stdout (peer.py):

    {"cmd": "hello"}               -> {"vllm": VERSION}
    {"cmd": "load", "file": F}     -> {"calls": {workload: calls found}}
    {"cmd": "run", "variant": W}   -> {"parse": s, "parse_cpu": s}

F is written by dense.py: {"tool_parser", "tokenizer", "tools", "workloads": {W: [text]}}.
A run constructs the tool parser and calls ``extract_tool_calls(text, request)`` per
text of workload W, as a server does per request; that is what is timed.
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


class Driver:
    """Holds one format's texts and times vLLM's legacy tool parser on them."""

    def __init__(self) -> None:
        from vllm.tokenizers.hf import get_cached_tokenizer

        self.cached = get_cached_tokenizer
        self.cg = load_capture_tool()
        self.data: dict[str, Any] = {}

    def hello(self) -> dict[str, Any]:
        import vllm

        return {"vllm": vllm.__version__}

    def load(self, file: str) -> dict[str, Any]:
        """Take the texts; parse each once (the warm-up); answer the calls found."""
        from vllm.tool_parsers import ToolParserManager

        self.data = json.loads(Path(file).read_text(encoding="utf-8"))
        self.cg.TOOLS = self.data["tools"]
        self.request = self.cg.chat_request()
        self.tok = self.cached(self.cg.toks.TOKENIZERS[self.data["tokenizer"]]())
        self.cls = ToolParserManager.get_tool_parser(self.data["tool_parser"])
        calls, raised = {}, {}
        for name, texts in self.data["workloads"].items():
            calls[name] = raised[name] = 0
            for text in texts:
                try:
                    info = self.cls(self.tok, self.request.tools).extract_tool_calls(
                        text, self.request)
                except Exception:  # (internlm's parser takes one call per text)
                    raised[name] += 1
                    continue
                calls[name] += len(info.tool_calls) if info.tools_called else 0
        return {"calls": calls, "raised": raised}

    def run(self, variant: str) -> dict[str, float]:
        """One repetition over every text of one workload."""
        cls, tok, request, tools = self.cls, self.tok, self.request, self.request.tools
        texts = self.data["workloads"][variant]
        gc.collect()
        gc.freeze()
        t0, c0 = time.perf_counter(), time.process_time()
        for text in texts:
            try:
                cls(tok, tools).extract_tool_calls(text, request)
            except Exception:  # counted at load; what raising costs is timed
                pass
        return {"parse": time.perf_counter() - t0, "parse_cpu": time.process_time() - c0}


def main() -> int:
    """Answer commands until stdin closes."""
    from peer import serve  # benchmarks/ is this script's folder: on sys.path

    return serve(Driver(), PROTOCOL)


if __name__ == "__main__":
    sys.exit(main())
