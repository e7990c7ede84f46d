"""Call-dense text: parsergen's ``parse()`` against vLLM's legacy tool parser, per call.

    .venv/bin/python benchmarks/run.py --dense [--formats a,b] [--reps N] [--peer DIR]
                                           [--workloads calls1k,batch]

Three workloads per format, written by the format's own renderer (no tokenizer pass:
the text is all that either side reads):

    calls1k    one completion holding 1,000 calls (an agent turn of parallel calls)
    calls10k   one completion holding 10,000 calls
    batch      1,000 short completions (a sentence of content, then 1-3 calls), parsed
               one by one (a batch job over logged completions)

The calls are the benchmark's four (completions.tool_calls: unicode, quotes, newlines,
nested objects), drawn afresh per group of four, typed by the request's tools.
parsergen's side is ``module.parse(text, tools=, tokenizer=, thinking=)`` per text;
vLLM's is ``ToolParserManager.get_tool_parser(LEGACY_TOOL[fmt])(tokenizer, tools)``
then ``extract_tool_calls(text, request)`` per text, constructed per text as a server
does per request (dense_vllm.py, run by the peer venv's python).  Both sides time CPU
seconds of their own process, back to back per repetition (who goes first alternates);
the ratio is the median over repetitions of vLLM's seconds over ours.
"""

from __future__ import annotations

import gc
import json
import os
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import completions as C
from peer import Peer, pin_apart

import parsergen

DRIVER = Path(__file__).resolve().parent / "dense_vllm.py"

# Format -> vLLM 0.33's legacy tool parser of the same syntax (its --tool-call-parser name).
LEGACY_TOOL = {"hermes": "hermes", "qwen3_json": "hermes", "llama3_json": "llama3_json",
               "deepseek_v3": "deepseek_v3", "deepseek_r1": "deepseek_v3",
               "deepseek_v31": "deepseek_v31", "kimi_k2": "kimi_k2", "granite": "granite",
               "mistral": "mistral", "pythonic": "pythonic",
               "llama4_pythonic": "llama4_pythonic", "qwen3": "qwen3_coder",
               "glm47_moe": "glm47", "minimax_m2": "minimax_m2", "ernie45": "ernie45",
               "granite_20b_fc": "granite-20b-fc", "internlm": "internlm", "jamba": "jamba",
               "longcat": "longcat", "phi4_mini_json": "phi4_mini_json",
               "deepseek_v32": "deepseek_v32", "kimi_k3": "kimi_k3", "seed_oss": "seed_oss",
               "step3p5": "step3p5", "mimo": "mimo", "poolside_v1": "poolside_v1"}  # fmt: skip
# Every JSON-argument format with a legacy parser in vLLM (#14 item 1), then two others.
DEFAULT_FORMATS = ("hermes", "qwen3_json", "llama3_json", "deepseek_v3", "deepseek_v31",
                   "kimi_k2", "granite", "mistral", "ernie45", "granite_20b_fc", "internlm",
                   "jamba", "longcat", "phi4_mini_json", "pythonic", "qwen3")  # fmt: skip
WORKLOADS = ("calls1k", "calls10k", "batch")
# Workloads vLLM's side is not run on: its parser's time grows with the text, so one
# repetition takes minutes (2026-12-02, calls10k: kimi_k2 about 130 s, granite and
# mistral 40-60 s, qwen3_coder more than 15 minutes, finding none of the calls; the
# other element parsers take 3.4-4.3 ms per call on 1k calls already).
# parsergen's side is still timed; --peer-all runs them anyway.
PEER_SKIPS: dict[str, frozenset[str]] = {fmt: frozenset({"calls10k"}) for fmt in (
    "kimi_k2", "granite", "mistral", "qwen3", "glm47_moe", "minimax_m2", "deepseek_v32",
    "seed_oss", "step3p5", "mimo")}
BATCH = 1000  # short completions in the batch workload
TARGET = 2.0  # x faster than the legacy parser, JSON-argument formats (reported only)


def render(module: Any, thinking: bool, content: str | None, calls: list) -> str:
    """The completion text the format's renderer writes for one message."""
    message = {"reasoning": None, "content": content,
               "tool_calls": [{"name": n, "arguments": a} for n, a in calls]}  # fmt: skip
    return "".join(text for text, _ in module.RENDERER.pieces(message, thinking=thinking))


def workloads(fmt: str, seed: int = 0) -> tuple[bool, list[dict[str, Any]], dict[str, Any]]:
    """(thinking, tools, {workload: {"texts": [...], "calls": n}}) of one format."""
    module = parsergen.load(fmt)
    thinking = False if module.RENDERER.can_render_reasoning(False) else C.thinking_for(module)
    rng = random.Random(f"{seed}/{fmt}/dense")
    out: dict[str, Any] = {}
    tools: list[dict[str, Any]] = []
    for name, n in (("calls1k", 1000), ("calls10k", 10000)):
        calls = [call for _ in range(n // 4) for call in C.tool_calls(rng)]
        tools = tools or C.tools_for(calls)
        out[name] = {"texts": [render(module, thinking, None, calls)], "calls": n}
    texts, total = [], 0
    for _ in range(BATCH):
        calls = rng.sample(C.tool_calls(rng), rng.randint(1, 3))
        texts.append(render(module, thinking, "Let me look that up for you.", calls))
        total += len(calls)
    out["batch"] = {"texts": texts, "calls": total}
    return thinking, tools, out


def time_ours(module: Any, tokenizer: Any, thinking: bool, tools: list[dict[str, Any]],
              texts: list[str]) -> float:  # fmt: skip
    """CPU seconds of parse() over every text (its construction included, as vLLM's)."""
    parse = module.parse
    gc.collect()  # as the peer does
    gc.freeze()
    start = time.process_time()
    for text in texts:
        parse(text, tools=tools, tokenizer=tokenizer, thinking=thinking)
    return time.process_time() - start


def bench(fmt: str, reps: int, peer: Peer | None, workdir: Path,
          chosen: tuple[str, ...] = WORKLOADS, peer_all: bool = False) -> dict[str, Any]:
    """One format: check both sides find every call, then time them interleaved (vLLM's
    side on the chosen workloads but its ``PEER_SKIPS``, unless ``peer_all``)."""
    module = parsergen.load(fmt)
    tokenizer = C.get_tokenizer(fmt)
    thinking, tools, work = workloads(fmt)
    work = {w: work[w] for w in chosen}
    result: dict[str, Any] = {"legacy": LEGACY_TOOL.get(fmt), "notes": [],
                              "calls": {w: work[w]["calls"] for w in chosen},
                              "bytes": {w: sum(len(t.encode()) for t in work[w]["texts"])
                                        for w in chosen},
                              "ours": {w: [] for w in chosen}}  # fmt: skip
    for w in chosen:  # warm-up, and the calls found
        found = sum(len(module.parse(t, tools=tools, tokenizer=tokenizer,
                                     thinking=thinking).tool_calls) for t in work[w]["texts"])  # fmt: skip
        if found != work[w]["calls"]:
            result["notes"].append(f"{w}: parsergen found {found} of {work[w]['calls']} calls")
    skipped = frozenset() if peer_all else PEER_SKIPS.get(fmt, frozenset())
    theirs = tuple(w for w in chosen if w not in skipped)
    timed = peer is not None and result["legacy"] is not None and bool(theirs)
    if timed:
        assert peer is not None
        path = workdir / f"dense-{fmt}.json"
        path.write_text(json.dumps({"tool_parser": result["legacy"], "tools": tools,
                                    "tokenizer": C.tokenizer_table()[fmt],
                                    "workloads": {w: work[w]["texts"] for w in theirs}},
                                   ensure_ascii=False), encoding="utf-8")  # fmt: skip
        loaded = peer.ask({"cmd": "load", "file": str(path)})
        for w in theirs:
            result.setdefault("vllm_found", {})[w] = loaded["calls"][w]
            if loaded["calls"][w] != work[w]["calls"]:
                result["notes"].append(f"{w}: vLLM found {loaded['calls'][w]} of "
                                       f"{work[w]['calls']} calls")  # fmt: skip
            if loaded["raised"][w]:
                result["notes"].append(f"{w}: vLLM's parser raised on {loaded['raised'][w]} "
                                       f"of {len(work[w]['texts'])} texts")  # fmt: skip
        result["vllm"] = {w: [] for w in chosen}
    for rep in range(reps):
        for w in chosen:
            vllm = timed and w in theirs
            if vllm and rep % 2:
                assert peer is not None
                result["vllm"][w].append(peer.ask({"cmd": "run", "variant": w})["parse_cpu"])
            result["ours"][w].append(time_ours(module, tokenizer, thinking, tools,
                                               work[w]["texts"]))  # fmt: skip
            if vllm and not rep % 2:
                assert peer is not None
                result["vllm"][w].append(peer.ask({"cmd": "run", "variant": w})["parse_cpu"])
    return result


def ratio(r: dict[str, Any], w: str) -> float | None:
    """The median over repetitions of vLLM's seconds over ours (paired)."""
    if not r.get("vllm", {}).get(w):
        return None
    return statistics.median(v / o for v, o in zip(r["vllm"][w], r["ours"][w]))


def row(fmt: str, r: dict[str, Any]) -> str:
    """One format's line: us per call per side and the ratio, per workload."""
    cells = [f"{fmt:<16}{r['legacy'] or '-':<16}"]
    for w in WORKLOADS:
        if w not in r["ours"]:
            cells.append(f"{'-':>10}{'-':>8}{'-':>8}")
            continue
        ours = statistics.median(r["ours"][w]) / r["calls"][w] * 1e6
        if r.get("vllm", {}).get(w):
            theirs = statistics.median(r["vllm"][w]) / r["calls"][w] * 1e6
            # (*: vLLM's parser found fewer of the calls, so its time is for less work.)
            short = "*" if r.get("vllm_found", {}).get(w, r["calls"][w]) < r["calls"][w] else "x"
            cells.append(f"{ours:>10.1f}{theirs:>8.1f}{ratio(r, w):>7.2f}{short}")
        else:
            cells.append(f"{ours:>10.1f}{'-':>8}{'-':>8}")
    return "".join(cells)


def main(names: list[str] | None, reps: int | None, peer_dir: Path | None,
         json_path: Path | None, chosen: tuple[str, ...] = WORKLOADS,
         peer_all: bool = False) -> int:  # fmt: skip
    """Run every format (the ``chosen`` workloads), print a table of us per call and the
    ratios."""
    names = names or list(DEFAULT_FORMATS)
    reps = reps or 5
    peer = Peer([str(peer_dir / "bin" / "python"), str(DRIVER)]) if peer_dir else None
    pinned = pin_apart(peer) if peer else None
    print(f"dense: {time.strftime('%Y-%m-%d %H:%M %Z')}, reps {reps}, load "
          f"{os.getloadavg()[0]:.2f}, vLLM {peer.hello['vllm'] if peer else '-'}, "
          f"cpus ours/vLLM {pinned or '-'}; "
          "us per call (CPU), ratio = vLLM / ours\n", flush=True)  # fmt: skip
    head = f"{'format':<16}{'vLLM parser':<16}" + "".join(
        f"{w:>10}{'vLLM':>8}{'ratio':>8}" for w in WORKLOADS)
    print(head + "\n" + "-" * len(head), flush=True)
    results = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for fmt in names:
                results[fmt] = bench(fmt, reps, peer, Path(tmp), chosen, peer_all)
                print(row(fmt, results[fmt]), flush=True)
                for note in results[fmt]["notes"]:
                    print(f"  note: {note}", flush=True)
    finally:
        if peer:
            peer.close()
    print(f"\ncalls1k/calls10k: one text of 1k/10k calls; batch: {BATCH} short completions; "
          f"target >= {TARGET:.0f}x for JSON-argument formats; a ratio marked * is over "
          "a vLLM run that found fewer of the calls (see the notes); load at the end "
          f"{os.getloadavg()[0]:.2f}")  # fmt: skip
    if json_path:
        json_path.write_text(json.dumps(results, indent=1) + "\n")
    return 0
