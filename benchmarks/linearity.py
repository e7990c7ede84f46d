"""Linear cost: parsergen's time per token on completions of 1k, 2k, 4k, ... 1M tokens.

    .venv/bin/python benchmarks/linearity.py [--formats a,b] [--rounds N] [--max-tokens N]
    .venv/bin/python benchmarks/run.py --linearity [--formats a,b] [--reps N]

For each format, completions of 2^10 .. 2^20 tokens are built by repeating parts
(``completions.scaled``: per 1024 tokens the four calls of the realistic completion
once, the rest a prose block as 7/8 reasoning and 1/8 content, so that every size has
the same make-up and only the length changes), cut into per-token deltas with token ids, and fed to
the event level (StreamingParser.feed/finish) and the OpenAI level (ChatParser with
tools).  Sizes are interleaved: every round times every size once (small sizes several
times), so drift in machine load spreads over all of them; the time of a size is the
fastest of its samples (load on a shared machine only ever adds time; a cost that grows
with the completion shows in every sample; the medians are in the JSON).  Target:
doubling the completion at most doubles the time, with 1.1x slack, so the per-token
time of 2n over that of n stays at or below 1.1.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import completions as C  # noqa: E402

import parsergen  # noqa: E402

FORMATS = ["qwen3", "kimi_k2", "deepseek_v32", "hermes", "gemma4"]
SLACK = 1.1
LEVELS = ("events", "openai")


def feed_all(module: Any, tokenizer: Any, c: C.Completion, deltas: list, level: str) -> float:
    """Seconds to feed every delta and finish, at one level (construction not timed)."""
    gc.collect()
    gc.freeze()
    if level == "events":
        parser = module.StreamingParser(tokenizer, thinking=c.thinking)
    else:
        parser = module.ChatParser(tokenizer, tools=c.tools, thinking=c.thinking)
    feed = parser.feed
    t0 = time.perf_counter()
    for text, ids in deltas:
        feed(text, ids)
    parser.finish()
    t = time.perf_counter() - t0
    return t


def bench(fmt: str, sizes: list[int], rounds: int) -> dict[str, Any]:
    tokenizer = C.get_tokenizer(fmt)
    module = parsergen.load(fmt)
    built = []
    for n in sizes:
        c = C.scaled(fmt, tokenizer, n)
        deltas = list(c.token_deltas(tokenizer))
        built.append((n, c, deltas))
    small = built[0][1]
    problem = C.round_trip_problem(small, tokenizer)
    if problem:
        print(f"WARNING: {fmt}: parse(render(message)) != message: {problem}")
    samples: dict[tuple[int, str], list[float]] = {(n, lv): [] for n in sizes for lv in LEVELS}
    for _, c, deltas in built[:2]:  # warm-up
        for level in LEVELS:
            feed_all(module, tokenizer, c, deltas, level)
    for _ in range(rounds):
        for n, c, deltas in built:
            times = max(1, min(8, (1 << 16) // n))  # small sizes: several samples per round
            for _ in range(times):
                for level in LEVELS:
                    samples[n, level].append(feed_all(module, tokenizer, c, deltas, level))
    rows = []
    for n, c, _ in built:
        rows.append({"target": n, "tokens": c.n_tokens, "bytes": c.n_bytes,
                     "calls": len(c.expected[2]),
                     **{f"{lv}_s": min(samples[n, lv]) for lv in LEVELS},
                     **{f"{lv}_median_s": statistics.median(samples[n, lv]) for lv in LEVELS},
                     **{f"{lv}_samples": samples[n, lv] for lv in LEVELS}})  # fmt: skip
    return {"tokenizer": C.tokenizer_table()[fmt], "round_trip": problem, "rows": rows}


def table(fmt: str, r: dict[str, Any]) -> str:
    lines = [f"{fmt} (tokenizer {r['tokenizer']}): per-token deltas with ids",
             f"  {'tokens':>9}{'bytes':>10}{'calls':>7}{'events s':>10}{'us/tok':>8}{'x prev':>8}"
             f"{'OpenAI s':>10}{'us/tok':>8}{'x prev':>8}"]  # fmt: skip
    prev = None
    for row in r["rows"]:
        cells = [f"  {row['tokens']:>9}{row['bytes']:>10}{row['calls']:>7}"]
        for lv in LEVELS:
            per = row[f"{lv}_s"] / row["tokens"]
            growth = "" if prev is None else f"{per / (prev[f'{lv}_s'] / prev['tokens']):.2f}"
            cells.append(f"{row[f'{lv}_s']:>10.4f}{per * 1e6:>8.2f}{growth:>8}")
        lines.append("".join(cells))
        prev = row
    w = {lv: worst(r, lv) for lv in LEVELS}
    lines.append(
        "  x prev: time per token over that of the size before (target <= "
        f"{SLACK}); worst: events {w['events'][0]:.2f} ({w['events'][1]}), "
        f"OpenAI {w['openai'][0]:.2f} ({w['openai'][1]}); "
        f"largest over smallest: events {span(r, 'events'):.2f}, "
        f"OpenAI {span(r, 'openai'):.2f}"
    )
    return "\n".join(lines)


def worst_ratio(r: dict[str, Any], level: str) -> float:
    return worst(r, level)[0]


def worst(r: dict[str, Any], level: str) -> tuple[float, str]:
    """The largest per-token growth between consecutive sizes, and where."""
    rows = r["rows"]
    per = [row[f"{level}_s"] / row["tokens"] for row in rows]
    pairs = [(b / a, f"{short(rows[i]['target'])}->{short(rows[i + 1]['target'])}")
             for i, (a, b) in enumerate(zip(per, per[1:]))]  # fmt: skip
    return max(pairs, default=(1.0, ""))


def short(n: int) -> str:
    return f"{n >> 20}M" if n >= 1 << 20 else f"{n >> 10}k"


def span(r: dict[str, Any], level: str) -> float:
    rows = r["rows"]
    first, last = rows[0], rows[-1]
    return (last[f"{level}_s"] / last["tokens"]) / (first[f"{level}_s"] / first["tokens"])


def summary(results: dict[str, Any]) -> str:
    head = (f"{'format':<14}{'events worst x':>16}{'at':>14}{'met':>5}{'largest/smallest':>18}"
            f"{'OpenAI worst x':>16}{'at':>14}{'met':>5}{'largest/smallest':>18}")  # fmt: skip
    lines = [head, "-" * len(head)]
    for fmt, r in results.items():
        cells = [f"{fmt:<14}"]
        for lv in LEVELS:
            w, where = worst(r, lv)
            cells.append(f"{w:>16.2f}{where:>14}{'yes' if w <= SLACK else 'NO':>5}"
                         f"{span(r, lv):>18.2f}")  # fmt: skip
        lines.append("".join(cells))
    lines.append("-" * len(head))
    lines.append(f"worst x: the largest per-token time ratio between consecutive doublings "
                 f"(target <= {SLACK}); largest/smallest: per-token time at the largest size over "
                 f"the smallest")  # fmt: skip
    return "\n".join(lines)


def main(names: list[str] | None = None, reps: int | None = None, json_path: Path | None = None,
         max_tokens: int = 1 << 20) -> int:  # fmt: skip
    from run import run_formats

    names = names or FORMATS
    rounds = reps or 5
    sizes = [1 << k for k in range(10, max_tokens.bit_length()) if (1 << k) <= max_tokens]
    return run_formats("linearity", names, lambda fmt: bench(fmt, sizes, rounds), table,
                       summary, json_path, rounds=rounds)  # fmt: skip


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--formats", help=f"comma-separated (default {','.join(FORMATS)})")
    ap.add_argument("--rounds", type=int, default=5, help="rounds over all sizes (default 5)")
    ap.add_argument("--max-tokens", type=int, default=1 << 20, help="largest size (default 2^20)")
    ap.add_argument("--json", type=Path, help="also write the raw numbers to this file")
    a = ap.parse_args()
    sys.exit(main(a.formats.split(",") if a.formats else None, a.rounds, a.json, a.max_tokens))
