"""The headline numbers, in one run: the build this interpreter imports (an install's
default: compiled) against vLLM 0.33, on the four workloads a user asks about.

    .venv/bin/python benchmarks/run.py --headline [--reps N] [--peer DIR]

    per token, events    qwen3's realistic completion (run.py), one delta per token with
                         ids: StreamingParser against vLLM's engine
    per token, OpenAI    the same deltas: ChatParser against vLLM's parse_delta
    call-dense           hermes, one text of 1,000 calls (dense.py): parse() against
                         vLLM's legacy hermes tool parser
    short completions    hermes, 1,000 short completions of 1-3 calls (dense.py's batch)

Each ratio is the median over repetitions of vLLM's time over ours in the same
repetition (run.py's and dense.py's pairing: both sides back to back).
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import dense
import run
from peer import Peer, pin_apart

import parsergen

TOKENS_FORMAT = "qwen3"
DENSE_FORMAT = "hermes"


def main(reps: int | None, peer_dir: Path | None, json_path: Path | None,
         tokens: int = 4000) -> int:
    """Time the four workloads and print one table."""
    if peer_dir is None:
        raise SystemExit("--headline compares with vLLM: give --peer DIR (the peer venv)")
    reps = reps or 21
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        peer = Peer([str(peer_dir / "bin" / "python"), str(run.DRIVER)])
        try:
            version, pinned = peer.hello["vllm"], pin_apart(peer)
            streamed = run.bench_format(TOKENS_FORMAT, reps, peer, Path(tmp), tokens)
        finally:
            peer.close()
        peer = Peer([str(peer_dir / "bin" / "python"), str(dense.DRIVER)])
        try:
            pin_apart(peer)
            parsed = dense.bench(DENSE_FORMAT, reps, peer, Path(tmp), ("calls1k", "batch"))
        finally:
            peer.close()
    deltas = streamed["deltas"]["tokens"]
    rows = []
    for label, variant in (("per token, events", "events/tokens"),
                           ("per token, OpenAI deltas", "openai/tokens")):
        rows.append((f"{label} ({TOKENS_FORMAT}, {deltas:,} deltas)", "us/delta",
                     run.median(streamed, "ours", variant) / deltas * 1e6,
                     run.median(streamed, "vllm", variant) / deltas * 1e6,
                     run.ratio(streamed, variant)))
    for label, workload in (("call-dense parse", "calls1k"), ("short completions", "batch")):
        calls = parsed["calls"][workload]
        what = "1,000 calls in one text" if workload == "calls1k" else "1,000 texts"
        rows.append((f"{label} ({DENSE_FORMAT}, {what})", "us/call",
                     statistics.median(parsed["ours"][workload]) / calls * 1e6,
                     statistics.median(parsed["vllm"][workload]) / calls * 1e6,
                     dense.ratio(parsed, workload)))
    print(f"headline: {time.strftime('%Y-%m-%d %H:%M %Z')}, parsergen "
          f"{parsergen.which_build()}; vLLM {version}; reps {reps}; cpus ours/vLLM "
          f"{pinned or '-'}; load at the end {os.getloadavg()[0]:.2f}; "
          f"{time.perf_counter() - started:.0f} s\n")
    print(f"    {'workload':<52}{'unit':<10}{'parsergen':>10}{'vLLM':>10}{'ratio':>8}")
    for label, unit, ours, theirs, ratio in rows:
        print(f"    {label:<52}{unit:<10}{ours:>10.2f}{theirs:>10.2f}{ratio:>7.1f}x")
    for note in streamed["notes"] + parsed["notes"]:
        print(f"    note: {note}")
    if json_path:
        json_path.write_text(json.dumps({"tokens": streamed, "dense": parsed,
                                         "rows": rows}, indent=1) + "\n")
    return 0
