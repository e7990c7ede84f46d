"""vLLM's side of benchmarks/rust.py, run by the peer venv's python: each format's vLLM
reasoning parser, ``extract_reasoning_streaming`` per token delta.

    /tmp/vllm-peer/bin/python benchmarks/rust_vllm.py CASES.json REPS

Prints one JSON line: format -> microseconds per token delta (the best of REPS); a format
whose parser cannot be made with the test tokenizer is left out (said on stderr).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from capture import load_capture_tool


def main() -> int:
    cases = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    reps = int(sys.argv[2])
    toks = load_capture_tool().toks  # (tests/support/tokenizers.py, by path)
    from vllm.reasoning import ReasoningParserManager

    out = {}
    for case in cases:
        if not case["vllm"]:
            continue
        tokenizer = toks.TOKENIZERS[case["tokenizer"]]()
        make = ReasoningParserManager.get_reasoning_parser(case["vllm"])
        try:
            samples = [_once(make(tokenizer), case["deltas"], case["ids"]) for _ in range(reps)]
        except Exception as exc:  # (a check of the tokenizer; gpt-oss's only finds the end)
            print(f"{case['fmt']}: {case['vllm']}: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        out[case["fmt"]] = min(samples) / len(case["deltas"]) * 1e6  # (the best repetition)
    print(json.dumps(out))
    return 0


def _once(parser: Any, deltas: list[str], ids: list[int]) -> float:
    """Seconds ``parser`` spends on the deltas, a call per delta."""
    previous, previous_ids = "", []
    spent = 0.0
    for text, tid in zip(deltas, ids):
        # (The server's growing text and ids are made outside the timing.)
        current, current_ids = previous + text, [*previous_ids, tid]
        started = time.perf_counter()
        parser.extract_reasoning_streaming(previous, current, text, previous_ids,
                                           current_ids, [tid])
        spent += time.perf_counter() - started
        previous, previous_ids = current, current_ids
    return spent


if __name__ == "__main__":
    sys.exit(main())
