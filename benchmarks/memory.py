"""Bounded memory: tracemalloc peak of parsergen's parsers on completions growing 100x.

    /work/venv/bin/python benchmarks/memory.py [--formats a,b] [--sizes 10000,100000,1000000]
    /work/venv/bin/python benchmarks/run.py --memory [--formats a,b]
    /work/venv/bin/python benchmarks/memory.py --plateau 40,400,4000 [--formats a,b]

For each format, completions with 10k, 100k and 1M characters of reasoning and content
(a prose block repeated: reasoning ~7/8, content ~1/8; all content where the format
writes no reasoning) and one call per 2,500 of those characters (4, 40, 400 calls,
the realistic completion's four cycled) are streamed per token, with token ids,
through StreamingParser and through ChatParser (with tools).  The deltas come from a
generator (the detokenizer steps one token at a time), so the input is never held in
memory.  tracemalloc is started after the tokenizer and the format's caches are warm,
right before the parser is constructed; the peak is the most the process allocated
from then until finish() returned, the parser's state and the transient objects of a
feed (its events, the delta) together, and cyclic garbage the collector has not yet
freed.  ``end`` is what is still allocated after finish() and a full collection, with
the parser alive; ``held`` is the part of it that goes when the parser goes (the rest
is the interpreter's: free lists, caches).  Flat means the 1M peak is within 1.5x of the 10k one.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import completions as C  # noqa: E402

import parsergen  # noqa: E402

SIZES = [10_000, 100_000, 1_000_000]
FLAT = 1.5
LEVELS = ("events", "openai")


def completion(fmt: str, tokenizer: Any, chars: int, calls: int | None = None) -> C.Completion:
    """``chars`` characters of reasoning and content, and ``calls`` calls (default one
    per 2,500 characters)."""
    import random

    rng = random.Random(f"memory/{fmt}")
    four = C.tool_calls(rng)
    block = C.prose(rng, tokenizer, 250)
    reps = max(1, round(chars / len(block)))
    module = parsergen.load(fmt)
    has_reasoning = module.RENDERER.can_render_reasoning(C.thinking_for(module))
    content_reps = max(1, reps // 8) if has_reasoning else reps
    n_calls = max(1, chars // 2500) if calls is None else calls
    return C.build(fmt, tokenizer, reasoning=block, content=block,
                   calls=[four[i % 4] for i in range(n_calls)],
                   reasoning_repeat=reps - content_reps, content_repeat=content_reps)  # fmt: skip


def measure(module: Any, tokenizer: Any, c: C.Completion, level: str,
            sites: bool = False, collect_every: int = 0) -> dict[str, Any]:  # fmt: skip
    """Stream ``c`` per token through one level under tracemalloc (``sites``: also the
    three source lines holding most of what is still allocated at the end;
    ``collect_every``: a full garbage collection every that many deltas)."""
    deltas = c.token_deltas(tokenizer)  # a generator: nothing is made yet
    gc.collect()
    fill_free_lists()
    t0 = time.perf_counter()
    tracemalloc.start(15 if sites else 1)
    if level == "events":
        parser: Any = module.StreamingParser(tokenizer, thinking=c.thinking)
    else:
        parser = module.ChatParser(tokenizer, tools=c.tools, thinking=c.thinking)
    n = 0
    feed = parser.feed
    for text, ids in deltas:
        feed(text, ids)
        n += 1
        if collect_every and n % collect_every == 0:
            gc.collect()
    parser.finish()
    peak = tracemalloc.get_traced_memory()[1]
    gc.collect()  # what is still there, not cyclic garbage waiting for the collector
    end = tracemalloc.get_traced_memory()[0]
    top: list[str] = []
    if sites:
        stats = tracemalloc.take_snapshot().statistics("traceback")
        top = [f"{s.size / 1024:.1f} KiB in {s.count} blocks: {where(s.traceback)}"
               for s in stats[:3]]  # fmt: skip
    del parser, feed
    gc.collect()
    # What the parser's own objects hold; the rest of ``end`` outlives it (the
    # interpreter's free lists and caches).
    held = end - tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return {"deltas": n, "peak": peak, "end": end, "held": held,
            "seconds": time.perf_counter() - t0, "sites": top}  # fmt: skip


def fill_free_lists() -> None:
    """Fill CPython's free lists (floats, tuples, lists, dicts and their key tables).

    Objects freed into a free list stay allocated for tracemalloc: without this, the
    first few hundred calls' parsed argument values (json.loads) would seem to grow
    the parser's memory until the lists are full, whatever the parser holds.
    """
    junk = [[{str(i): float(i)}, (i, float(i))] for i in range(4000)]
    del junk


def where(traceback: tracemalloc.Traceback) -> str:
    """The allocating line, and the innermost parsergen line that led to it."""
    frames = list(traceback)  # oldest first
    site = frames[-1]
    ours = [f for f in frames if "/runtime/" in f.filename or "/generated/" in f.filename]
    text = f"{Path(site.filename).name}:{site.lineno}"
    if ours and ours[-1] is not site:
        f = ours[-1]
        text += f" via {Path(f.filename).parent.name}/{Path(f.filename).name}:{f.lineno}"
    return text


def bench(fmt: str, sizes: list[int]) -> dict[str, Any]:
    tokenizer = C.get_tokenizer(fmt)
    module = parsergen.load(fmt)
    small = completion(fmt, tokenizer, sizes[0])
    problem = C.round_trip_problem(small, tokenizer)  # also warms the caches
    if problem:
        print(f"WARNING: {fmt}: parse(render(message)) != message: {problem}")
    for level in LEVELS:  # warm-up outside tracemalloc
        measure(module, tokenizer, small, level)
    rows = []
    # Every size with calls growing along; then the largest with the smallest's calls,
    # to tell growth with the text from growth with the number of calls.
    plan = [(chars, None) for chars in sizes]
    if module.RENDERER.call is not None:
        plan.append((sizes[-1], len(small.expected[2])))
    for chars, calls in plan:
        c = completion(fmt, tokenizer, chars, calls)
        row: dict[str, Any] = {
            "chars": chars,
            "tokens": c.n_tokens,
            "bytes": c.n_bytes,
            "calls": len(c.expected[2]),
            "fixed_calls": calls is not None,
        }
        for level in LEVELS:
            row[level] = measure(module, tokenizer, c, level)
        rows.append(row)
    r = {"tokenizer": C.tokenizer_table()[fmt], "round_trip": problem, "rows": rows, "sites": {}}
    # Where growing memory lives: tracemalloc with stacks is slow, so on the smallest
    # text with the largest number of calls (growth with the calls), or on the largest
    # text with few calls (growth with the text).
    for level in LEVELS:
        tg = text_growth(r, level)
        if tg is not None and tg > FLAT:
            c = completion(fmt, tokenizer, sizes[-1], len(small.expected[2]))
        elif growth(r, level) > FLAT:
            c = completion(fmt, tokenizer, sizes[0], growing(r)[-1]["calls"])
        else:
            continue
        got = measure(module, tokenizer, c, level, sites=True)
        # Is it held, or cyclic garbage the collector has not come to yet?
        collected = measure(module, tokenizer, c, level, collect_every=1000)["peak"]
        r["sites"][level] = {"tokens": c.n_tokens, "calls": len(c.expected[2]),
                             "peak_plain": measure(module, tokenizer, c, level)["peak"],
                             "peak_collected": collected, **got}  # fmt: skip
    return r


def kb(n: int) -> str:
    return f"{n / 1024:.1f}"


def growing(r: dict[str, Any]) -> list[dict[str, Any]]:
    return [row for row in r["rows"] if not row["fixed_calls"]]


def growth(r: dict[str, Any], level: str) -> float:
    """Peak at the largest size over the peak at the smallest (calls growing along)."""
    rows = growing(r)
    return rows[-1][level]["peak"] / rows[0][level]["peak"]


def text_growth(r: dict[str, Any], level: str) -> float | None:
    """Peak at the largest size with the smallest's calls, over the smallest's."""
    fixed = [row for row in r["rows"] if row["fixed_calls"]]
    return fixed[0][level]["peak"] / r["rows"][0][level]["peak"] if fixed else None


def table(fmt: str, r: dict[str, Any]) -> str:
    lines = [f"{fmt} (tokenizer {r['tokenizer']}): tracemalloc KiB, per-token deltas "
             "from a generator",
             f"  {'chars':>9}{'tokens':>9}{'calls':>6}{'events peak':>13}{'held':>7}"
             f"{'OpenAI peak':>13}{'end':>7}{'held':>7}{'seconds':>9}"]  # fmt: skip
    for row in r["rows"]:
        ev, oa = row["events"], row["openai"]
        lines.append(f"  {row['chars']:>9}{row['tokens']:>9}{row['calls']:>6}"
                     f"{kb(ev['peak']):>13}{kb(ev['held']):>7}{kb(oa['peak']):>13}"
                     f"{kb(oa['end']):>7}{kb(oa['held']):>7}"
                     f"{ev['seconds'] + oa['seconds']:>9.1f}")  # fmt: skip
    for level, got in r["sites"].items():
        lines.append(f"  {level}, {got['tokens']} tokens with {got['calls']} calls: peak "
                     f"{kb(got['peak_plain'])} KiB, {kb(got['peak_collected'])} KiB with "
                     f"gc.collect() every 1000 deltas; end {kb(got['end'])} KiB, most of it: "
                     + "; ".join(got["sites"]))  # fmt: skip
    return "\n".join(lines)


def summary(results: dict[str, Any]) -> str:
    sizes = [row["chars"] for row in growing(next(iter(results.values())))]
    head = (f"{'format':<22}" + "".join(f"{'ev ' + short(s):>9}" for s in sizes) + f"{'x':>6}"
            + "".join(f"{'oai ' + short(s):>10}" for s in sizes) + f"{'x':>6}"
            + f"{'x text':>8}{'held':>7}  flat")  # fmt: skip
    lines = [head, "-" * len(head)]
    grows = []
    for fmt, r in results.items():
        cells = [f"{fmt:<22}"]
        for level, width in (("events", 9), ("openai", 10)):
            cells += [f"{kb(row[level]['peak']):>{width}}" for row in growing(r)]
            cells.append(f"{growth(r, level):>6.2f}")
        tg = text_growth(r, "openai")
        cells.append(f"{tg:>8.2f}" if tg is not None else f"{'-':>8}")
        cells.append(f"{kb(max(row['openai']['held'] for row in r['rows'])):>7}")
        flat = all(growth(r, lv) <= FLAT for lv in LEVELS)
        if not flat:
            grows.append(
                f"{fmt} (events x{growth(r, 'events'):.2f}, " f"OpenAI x{growth(r, 'openai'):.2f})"
            )
        lines.append("".join(cells) + f"  {'yes' if flat else 'NO'}")
    lines.append("-" * len(head))
    lines.append("peak KiB by characters of reasoning+content (calls growing along: one per "
                 "2,500 characters); x: largest over smallest; x text: OpenAI level at the "
                 "largest size with the smallest's calls, over the smallest; held: the most KiB "
                 "the ChatParser's own objects held at an end (any size); flat: x <= "
                 f"{FLAT} at both levels")  # fmt: skip
    lines.append("grow: " + ("; ".join(grows) if grows else "none"))
    return "\n".join(lines)


def short(n: int) -> str:
    return f"{n // 1_000_000}M" if n >= 1_000_000 else f"{n // 1000}k"


def plateau(names: list[str], counts: list[int]) -> int:
    """The OpenAI level's peak as only the number of calls grows (10k characters of
    text): where growth with calls stops."""
    print(f"{'format':<22}{'tokens at most':>15}" + "".join(
        f"{f'{n} calls':>12}" for n in counts) + f"{'held':>12}")  # fmt: skip
    for fmt in names:
        tokenizer = C.get_tokenizer(fmt)
        module = parsergen.load(fmt)
        if module.RENDERER.call is None:
            continue
        got, most, held = [], 0, 0
        for n in counts:
            c = completion(fmt, tokenizer, 10_000, n)
            measure(module, tokenizer, c, "openai")  # warm-up
            r = measure(module, tokenizer, c, "openai")
            got.append(r["peak"])
            held = max(held, r["held"])
            most = max(most, c.n_tokens)
        print(f"{fmt:<22}{most:>15}" + "".join(f"{kb(x):>12}" for x in got)
              + f"{kb(held):>12}", flush=True)  # fmt: skip
    print("peak KiB of ChatParser per-token on 10k characters of text with N calls; held: "
          "the most its own objects held at the end")  # fmt: skip
    return 0


def main(names: list[str] | None = None, json_path: Path | None = None,
         sizes: list[int] | None = None) -> int:  # fmt: skip
    from run import run_formats

    names = names or parsergen.formats()
    sizes = sizes or SIZES
    return run_formats("memory", names, lambda fmt: bench(fmt, sizes), table, summary,
                       json_path)  # fmt: skip


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--formats", help="comma-separated (default: every bundled format)")
    ap.add_argument("--sizes", help="comma-separated characters (default 10000,100000,1000000)")
    ap.add_argument("--json", type=Path, help="also write the raw numbers to this file")
    ap.add_argument(
        "--plateau",
        metavar="COUNTS",
        help="instead: OpenAI-level peak on 10k characters with these numbers of "
        "calls (e.g. 40,400,4000)",
    )
    a = ap.parse_args()
    if a.plateau:
        sys.exit(
            plateau(
                a.formats.split(",") if a.formats else parsergen.formats(),
                [int(n) for n in a.plateau.split(",")],
            )
        )
    sys.exit(
        main(
            a.formats.split(",") if a.formats else None,
            a.json,
            [int(s) for s in a.sizes.split(",")] if a.sizes else None,
        )
    )
