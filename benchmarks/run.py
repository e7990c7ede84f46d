"""Time parsergen's generated parsers, and vLLM's engine side by side, on one long completion.

    /work/venv/bin/python benchmarks/run.py [--peer DIR | --no-peer] [--formats a,b] [--reps N]

See benchmarks/README.md for what is measured and how.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

# Before transformers is imported (by the tokenizers): its "PyTorch was not found"
# notice is noise here, only the tokenizers are used.
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import parsergen  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DRIVER = Path(__file__).resolve().parent / "vllm_driver.py"
DEFAULT_PEER = Path("/tmp/vllm-peer")


def load_capture_tool() -> ModuleType:
    """tools/capture_goldens.py, imported by path (it puts tests/ on sys.path)."""
    # The same module gives us the goldens' tokenizers, per-token deltas and event merge,
    # so the benchmark feeds exactly what the conformance goldens feed.
    spec = importlib.util.spec_from_file_location(
        "capture_goldens", ROOT / "tools" / "capture_goldens.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


CG = load_capture_tool()

# -- the completion -------------------------------------------------------------------

Call = tuple[str, dict[str, Any]]
Deltas = list[tuple[str, list[int]]]  # (delta text, delta token ids)


def _arg_text(value: Any) -> str:
    """A parameter value as the XML formats write it: strings raw, the rest as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def xml_calls(start: str, end: str) -> Callable[[list[Call]], str]:
    """Renderer of qwen3-style calls (`<function=NAME><parameter=K>`) between start/end markers."""

    def render(calls: list[Call]) -> str:
        blocks = []
        for name, args in calls:
            params = "".join(
                f"<parameter={k}>\n{_arg_text(v)}\n</parameter>\n" for k, v in args.items()
            )
            blocks.append(f"{start}\n<function={name}>\n{params}</function>\n{end}")
        return "\n".join(blocks)

    return render


def kimi_calls(calls: list[Call]) -> str:
    """Kimi K2's tool-call section with JSON arguments."""
    body = "".join(
        f"<|tool_call_begin|>functions.{name}:{i}<|tool_call_argument_begin|>"
        f"{json.dumps(args, ensure_ascii=False)}<|tool_call_end|>"
        for i, (name, args) in enumerate(calls)
    )
    return f"<|tool_calls_section_begin|>{body}<|tool_calls_section_end|>"


@dataclass(frozen=True)
class Syntax:
    """What the benchmark needs to know to write a completion in one format."""

    tokenizer: str  # key of tests/support/tokenizers.py TOKENIZERS
    think_end: str
    calls: Callable[[list[Call]], str]


# Add a format here to benchmark it; the prose and the calls are shared.
SYNTAX: dict[str, Syntax] = {
    "qwen3": Syntax("qwen3.6", "</think>", xml_calls("<tool_call>", "</tool_call>")),
    "seed_oss": Syntax(
        "seed_oss", "</seed:think>", xml_calls("<seed:tool_call>", "</seed:tool_call>")
    ),
    "kimi_k2": Syntax("kimi_k2", "</think>", kimi_calls),
}

# Prose vocabulary; "|" separates choices.
OPENERS = "|Hmm, |Wait, |Okay, |Actually, |First, |Then |So |Still, ".split("|")
SUBJECTS = (
    "the user|the request|this approach|the cache layer|our parser|the team in Zürich|"
    "the office in 東京|a careful reader|the forecast API|the second option|"
    "the café near the station|the naïve version"
).split("|")
VERBS = (
    "needs|suggests|implies|depends on|rules out|probably wants|should return|cannot handle|"
    "was built for|would simplify"
).split("|")
OBJECTS = (
    "a streaming answer|the weather for the next three days|an exact byte count|one more lookup|"
    "a short summary in plain words|the metric units|a retry with backoff|"
    "the list of open issues|a cheaper query 😀|both time zones (UTC+1 and UTC+9)"
).split("|")
CLAUSES = (
    "because the forecast changes hourly|so I should double-check the units|"
    "unless the API times out|which is fine|but only if the cache is warm|"
    "and that costs about 40 ms|as the docs say in §3.2|though I'm not sure 🤔"
).split("|")
CODE = ["`for i in range(n): total += i`", "`if a < b and b <= c: swap(a, c)`",
        '`data = {"k": [1, 2, 3], "ok": true}`']  # fmt: skip
BLOCKS = [
    "```python\ndef area(r: float) -> float:\n    return 3.14159 * r ** 2\n```",
    "```js\nconst ids = items.filter(x => x.ok).map(x => x.id);\n```",
]


def sentence(rng: random.Random) -> str:
    """One reasoning sentence, now and then with inline code or a code block."""
    s = f"{rng.choice(OPENERS)}{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)}"
    if rng.random() < 0.5:
        s += f", {rng.choice(CLAUSES)}"
    if rng.random() < 0.15:
        s += f"; compare {rng.choice(CODE)}"
    s = s[0].upper() + s[1:] + "."
    if rng.random() < 0.04:
        return f"{s} Something like:\n\n{rng.choice(BLOCKS)}\n\n"
    return s + ("\n\n" if rng.random() < 0.2 else " ")


def tool_calls(rng: random.Random) -> list[Call]:
    """Three calls with strings, numbers, nested JSON and non-ASCII values."""
    city = rng.choice(["Zürich", "東京", "São Paulo", "Kraków"])
    price = {"min": 1, "max": rng.randint(2, 4)}
    filters = {"lang": ["ja", "en"], "open_now": True, "price": price,
               "tags": [{"k": "quote", "v": 'say "hi"'}]}  # fmt: skip
    note = f"# Trip to {city}\n\nvia Zürich → 東京 ✈️\n- pack an umbrella ☔\n- {{not json}}\n"
    return [
        ("get_weather", {"city": city, "days": rng.randint(2, 7), "units": "metric"}),
        ("search_docs", {"query": "ramen near 東京 station 🍜", "limit": 5, "filters": filters}),
        ("write_file", {"path": "/tmp/notes/trip.md", "content": note}),
    ]


def completion(fmt: str, tokenizer: Any, target_tokens: int = 4000, seed: int = 0) -> str:
    """A deterministic completion of about ``target_tokens``: reasoning, content, three calls."""
    syntax = SYNTAX[fmt]
    rng = random.Random(seed)
    calls = tool_calls(rng)
    tail = (
        f"{syntax.think_end}\n\nI'll check the weather in {calls[0][1]['city']}, look for "
        "ramen near the station and save a note for the trip.\n\n" + syntax.calls(calls)
    )
    budget = target_tokens - len(tokenizer.encode(tail, add_special_tokens=False))
    reasoning = ""
    # Re-encode the whole prose each time: per-sentence counts overshoot (BPE merges
    # across the seams), and this costs well under a second.
    while len(tokenizer.encode(reasoning, add_special_tokens=False)) < budget:
        reasoning += sentence(rng)
    return reasoning.rstrip() + "\n" + tail


def deltas_of(tokenizer: Any, text: str) -> Deltas:
    """One delta per token, text from vLLM-style incremental detokenization."""
    ids = tokenizer.encode(text, add_special_tokens=False)
    pieces = CG.token_texts(tokenizer, ids)
    if "".join(pieces) != text:
        raise RuntimeError("detokenized deltas do not spell the completion")
    return [(piece, [tid]) for piece, tid in zip(pieces, ids)]


# -- timing -----------------------------------------------------------------------


def run_ours(module: ModuleType, tokenizer: Any, deltas: Deltas) -> dict[str, float]:
    """One repetition: construct a parser, feed every delta, finish; seconds of each part."""
    # Each rep (ours and the peer's) starts on a clean heap; freezing what survives
    # (tokenizers, modules) keeps the next collection from rescanning it, which took
    # 0.05 s here and 0.3 s in the peer.
    gc.collect()
    gc.freeze()
    t0 = time.perf_counter()
    parser = module.StreamingParser(tokenizer)
    t1 = time.perf_counter()
    feed = parser.feed
    for text, ids in deltas:
        feed(text, ids)
    parser.finish()
    return {"construct": t1 - t0, "parse": time.perf_counter() - t1}


def events_of(module: ModuleType, tokenizer: Any, deltas: Deltas) -> list[list[Any]]:
    """Our merged events for the deltas, as JSON-friendly [type, tool_index, value]."""
    parser = module.StreamingParser(tokenizer)
    events = [ev for text, ids in deltas for ev in parser.feed(text, ids)] + parser.finish()
    return [list(e) for e in CG.merged(events)]


class Peer:
    """vLLM's engine in the peer venv, driven over JSON lines (benchmarks/vllm_driver.py)."""

    def __init__(self, peer_dir: Path) -> None:
        self.log = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # vLLM's chatter, for errors
        self.proc = subprocess.Popen(
            [str(peer_dir / "bin" / "python"), str(DRIVER)], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self.log, text=True, encoding="utf-8", bufsize=1,
        )  # fmt: skip
        self.version = self.ask({"cmd": "hello"})["vllm"]

    def ask(self, command: dict[str, Any]) -> dict[str, Any]:
        """Send one command, return the driver's answer (raise with its log if it failed)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        answer = json.loads(line) if line else {"error": "driver exited"}
        if "error" in answer:
            self.log.seek(0)
            tail = self.log.read()[-3000:]
            raise RuntimeError(f"vLLM driver: {answer['error']}\n{tail}")
        return answer

    def close(self) -> None:
        """Ask the driver to quit and wait for it."""
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()  # EOF ends the driver's loop
            self.proc.wait(timeout=30)
        self.log.close()


def bench_format(fmt: str, reps: int, peer: Peer | None, workdir: Path) -> dict[str, Any]:
    """Build the completion, then time ours and (if any) the peer's, interleaved."""
    syntax = SYNTAX[fmt]
    tokenizer = CG.toks.TOKENIZERS[syntax.tokenizer]()
    module = parsergen.load(fmt)
    text = completion(fmt, tokenizer)
    deltas = deltas_of(tokenizer, text)
    first = run_ours(module, tokenizer, deltas)  # also the warm-up: fills per-tokenizer caches
    result: dict[str, Any] = {
        "tokenizer": syntax.tokenizer, "deltas": len(deltas), "bytes": len(text.encode()),
        "ours": {"first_construct_s": first["construct"], "construct_s": [], "parse_s": []},
    }  # fmt: skip
    if peer is not None:
        path = workdir / f"{fmt}.json"
        check = {"format": fmt, "tokenizer": syntax.tokenizer, "deltas": deltas}
        check["events"] = events_of(module, tokenizer, deltas)
        path.write_text(json.dumps(check), encoding="utf-8")
        loaded = peer.ask({"cmd": "load", "file": str(path)})  # runs vLLM once: warm-up + check
        result["events_match"] = loaded["match"]
        if not loaded["match"]:
            print(f"WARNING: {fmt}: vLLM's events differ from ours: {loaded['diff']}")
        result["vllm"] = {
            "first_construct_s": loaded["construct"],
            "construct_s": [],
            "parse_s": [],
        }
    # Interleave so both sides see the same machine load over the run.
    for _ in range(reps):
        record(result["ours"], run_ours(module, tokenizer, deltas))
        if peer is not None:
            record(result["vllm"], peer.ask({"cmd": "run"}))
    return result


def record(side: dict[str, Any], times: dict[str, float]) -> None:
    """Append one repetition's seconds to a side's lists."""
    side["construct_s"].append(times["construct"])
    side["parse_s"].append(times["parse"])


# -- report -------------------------------------------------------------------------


def seconds(s: float) -> str:
    """A duration in us below 1 ms, else in ms."""
    return f"{s * 1e6:.0f} us" if s < 1e-3 else f"{s * 1e3:.1f} ms"


def table(fmt: str, r: dict[str, Any], vllm_version: str | None) -> str:
    """The plain-text table of one format."""
    ours = statistics.median(r["ours"]["parse_s"])
    rows = [("parsergen", "ours")] + ([(f"vLLM {vllm_version}", "vllm")] if "vllm" in r else [])
    lines = [
        f"{fmt} (tokenizer {r['tokenizer']}): {r['deltas']} deltas, {r['bytes']} bytes, "
        f"median of {len(r['ours']['parse_s'])} reps",
        f"  {'implementation':<16}{'us/delta':>10}{'MB/s':>8}{'ratio':>8}",
    ]
    notes = []
    for label, key in rows:
        med = statistics.median(r[key]["parse_s"])
        lines.append(
            f"  {label:<16}{med / r['deltas'] * 1e6:>10.2f}{r['bytes'] / med / 1e6:>8.2f}"
            f"{med / ours:>8.2f}"
        )
        notes.append(
            f"{label} {seconds(statistics.median(r[key]['construct_s']))} "
            f"(first {seconds(r[key]['first_construct_s'])})"
        )
    lines.append("  construct (not in us/delta): " + "; ".join(notes))
    if r.get("events_match") is False:
        lines.append("  WARNING: events differ from vLLM's")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run every selected format, print the tables."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer", type=Path, help=f"vLLM venv (default {DEFAULT_PEER} if present)")
    ap.add_argument("--no-peer", action="store_true", help="time parsergen only")
    ap.add_argument("--formats", help="comma-separated formats (default: all bundled)")
    ap.add_argument("--reps", type=int, default=31, help="timed repetitions per side (default 31)")
    ap.add_argument("--json", type=Path, help="also write the raw numbers to this file")
    args = ap.parse_args(argv)
    bundled = parsergen.formats()
    names = args.formats.split(",") if args.formats else [n for n in bundled if n in SYNTAX]
    for name in names:
        if name not in bundled or name not in SYNTAX:
            ap.error(f"no benchmark completion for format {name!r} (see SYNTAX in {__file__})")
    peer_dir: Path | None = None
    if not args.no_peer:
        peer_dir = args.peer or (
            DEFAULT_PEER if (DEFAULT_PEER / "bin" / "python").exists() else None
        )
        if peer_dir is not None and not (peer_dir / "bin" / "python").exists():
            ap.error(f"{peer_dir}/bin/python not found")
    peer = Peer(peer_dir) if peer_dir else None
    meta = {"date": time.strftime("%Y-%m-%d %H:%M"), "python": platform.python_version(),
            "cpus": os.cpu_count(), "load": "%.2f" % os.getloadavg()[0], "reps": args.reps,
            "vllm": peer.version if peer else None}  # fmt: skip
    print("  ".join(f"{k} {v}" for k, v in meta.items()) + "\n")
    results: dict[str, Any] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name in names:
                results[name] = bench_format(name, args.reps, peer, Path(tmp))
                print(table(name, results[name], meta["vllm"]) + "\n", flush=True)
    finally:
        if peer:
            peer.close()
    if args.json:
        args.json.write_text(json.dumps({"meta": meta, "formats": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
