"""This working tree's parsergen against a git revision's, timed pair by pair in one run.

    .venv/bin/python benchmarks/run.py --against REV [--formats a,b] [--reps N] [--json FILE]

REV (``main``, ``HEAD~3``, a sha) is exported with ``git archive`` into a temporary
directory.  Each tree (REV's export and the working tree, uncommitted edits included)
gets an import root: a ``parsergen`` directory whose packages are linked where the
tree's own ``pyproject.toml`` package-dir mapping installs them.  One
``parsergen_driver.py`` of THIS checkout runs per tree with that root alone on
PYTHONPATH (it asserts that ``parsergen.runtime`` came from the root, not from the
editable install), so each side imports only its own runtime and generated modules,
whatever their runtime versions, and both are timed by the same code on the same
deltas.  Per format, repetition by repetition and workload by workload, the two run
back to back (who goes first alternates), so load that comes and goes hits both; each
side's repetitions go round PROCESSES driver processes, and what is compared is the CPU
time of the driver process (wall-clock seconds are kept in the JSON).  stdout is a
markdown table (progress goes to stderr): per format and workload the medians, the
paired ratio new/old (the median of the per-repetition ratios), its interquartile range
and a verdict.  vLLM is not involved.
"""

from __future__ import annotations

import io
import json
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from pathlib import Path
from typing import Any

import completions as C
from parsergen_driver import VARIANTS
from peer import Peer

ROOT = Path(__file__).resolve().parent.parent
DRIVER = Path(__file__).resolve().parent / "parsergen_driver.py"
SIDES = ("old", "new")

# A median ratio within 3% of 1.0 is noise even when its interquartile range misses
# 1.0.  The same code on both sides (--against HEAD, every format, 41 reps, 3 processes
# a side, load 9-10 on the 2-core VM): |ratio - 1| had a 90th percentile of 1.4% over
# the 190 rows, the quartiles a median width of 4.4%, and the range missed 1.0 in 2
# rows: 0.978 and 0.948 (hermes, events in groups; 0.939 in a run with one process a
# side, 1.02 in runs of three formats).  3% flags none of them slower; a row just over
# it with a tight range is worth a rerun of that format before it is believed.
NOISE = 0.03
# Driver processes per side, taking the repetitions in turn: one process can run the very
# same code a few percent faster or slower than another (memory layout; with the same
# code on both sides, single processes gave rows at 0.94 and 1.03 that moved on a rerun),
# and that bias averages out over several.
PROCESSES = 3

WORKLOAD = {"events/tokens": "events, per token", "events/groups": "events, 1-8 token groups",
            "events/many4": "events, feed_many x4",
            "openai/tokens": "OpenAI, per token", "openai/groups": "OpenAI, 1-8 token groups",
            "openai/many4": "OpenAI, feed_many x4", "parse": "parse(), whole text"}  # fmt: skip


# -- the two trees --------------------------------------------------------------------------


def git(*args: str) -> str:
    """Run git in this checkout, return its stdout stripped."""
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True,
                          text=True).stdout.strip()  # fmt: skip


def export(rev: str, dest: Path) -> str:
    """Extract the tree of ``rev`` into ``dest`` (git archive, no worktree); its sha."""
    sha = git("rev-parse", "--verify", f"{rev}^{{commit}}")
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", sha],
                         check=True, capture_output=True).stdout  # fmt: skip
    with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
        archive.extractall(dest, filter="data")
    return sha


def source_dir(package: str, mapping: dict[str, str]) -> Path:
    """Where setuptools finds ``package``: the longest mapped prefix, then the rest."""
    parts = package.split(".")
    for i in range(len(parts), 0, -1):
        prefix = ".".join(parts[:i])
        if prefix in mapping:
            return Path(mapping[prefix], *parts[i:])
    return Path(mapping.get("", "."), *parts)


def import_root(tree: Path, dest: Path) -> Path:
    """A directory that, first on PYTHONPATH, imports ``tree``'s packages without
    installing them: each linked where pyproject.toml's package-dir mapping puts it."""
    setup = tomllib.loads((tree / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    config = setup["setuptools"]
    mapping = config.get("package-dir", {})
    dest.mkdir(parents=True)
    for package in sorted(config["packages"], key=lambda p: p.count(".")):
        source = (tree / source_dir(package, mapping)).resolve()
        target = dest.joinpath(*package.split("."))
        if target.exists():  # a subfolder of a package linked already
            if target.resolve() != source:
                raise RuntimeError(f"{package}: {target} is {target.resolve()}, not {source}")
            continue
        if any(p.is_symlink() for p in target.parents if p.is_relative_to(dest)):
            raise RuntimeError(f"{package}: would link inside a linked folder ({target})")
        if "." in package:
            target.symlink_to(source, target_is_directory=True)
        else:  # a real folder, so that subpackages mapped elsewhere can be linked into it
            target.mkdir()
            for entry in source.iterdir():
                (target / entry.name).symlink_to(entry)
    return dest


def start(root: Path) -> Peer:
    """A parsergen driver importing from ``root`` only; checked, not assumed."""
    # One hash seed for both sides, so that no side gets luckier dict and set layouts.
    env = dict(
        os.environ, PYTHONPATH=str(root), PYTHONHASHSEED=os.environ.get("PYTHONHASHSEED", "0")
    )
    peer = Peer([sys.executable, str(DRIVER)], env=env)
    for what in ("parsergen", "runtime"):
        if not Path(peer.hello[what]).is_relative_to(root):
            peer.close()
            raise RuntimeError(f"{what} imported from {peer.hello[what]}, not from {root}")
    return peer


def describe_new() -> str:
    """The working tree: HEAD and whether it has uncommitted changes."""
    dirty = git("status", "--porcelain", "--untracked-files=no").splitlines()
    head = f"working tree at `{git('rev-parse', '--short', 'HEAD')}`"
    return head + (f" with {len(dirty)} uncommitted changed files" if dirty else " (clean)")


# -- timing -----------------------------------------------------------------------------------


def bench_format(fmt: str, reps: int, sides: dict[str, list[Peer]], workdir: Path,
                 tokens: int) -> dict[str, Any]:  # fmt: skip
    """Both trees on one completion: compare what they produce, then time them paired."""
    tokenizer = C.get_tokenizer(fmt)
    completion = C.realistic(fmt, tokenizer, tokens)
    cadences = C.cadences(completion, tokenizer)
    notes: list[str] = []
    problem = C.round_trip_problem(completion, tokenizer)
    if problem:
        notes.append(f"parse(render(message)) != message in the working tree: {problem}")
    path = workdir / f"{fmt}.json"
    data = {"format": fmt, "tokenizer": C.tokenizer_table()[fmt], "thinking": completion.thinking,
            "tools": completion.tools, "text": completion.text(), "ids": list(completion.ids()),
            "cadences": cadences}  # fmt: skip
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    everyone = [peer for peers in sides.values() for peer in peers]
    for peer in everyone:  # every process loads and warms up, all at once (not timed)
        peer.send({"cmd": "load", "file": str(path)})
    answers = [peer.answer() for peer in everyone]
    loaded = {side: answers[i * PROCESSES] for i, side in enumerate(sides)}  # they agree
    result: dict[str, Any] = {"deltas": {k: len(v) for k, v in cadences.items()},
                              "notes": notes, "old": {}, "new": {}}  # fmt: skip
    for side, answer in loaded.items():
        if "unavailable" in answer:
            notes.append(f"not in the {side} tree: {answer['unavailable']}")
            return result
    old, new = loaded["old"], loaded["new"]
    for variant in VARIANTS:
        for side, answer in loaded.items():
            if variant in answer["errors"]:
                notes.append(f"{variant} not timed: {side} tree: {answer['errors'][variant]}")
    for what in ("events", "messages"):
        for key in old[what].keys() & new[what].keys():
            if old[what][key] != new[what][key]:
                notes.append(f"{what} ({key}) differ between the trees")
    variants = [v for v in VARIANTS if v not in old["errors"] and v not in new["errors"]]
    result.update({side: {v: {"cpu": [], "wall": []} for v in variants} for side in SIDES})
    for rep in range(reps):
        for variant in variants:
            for side in SIDES if rep % 2 == 0 else SIDES[::-1]:
                answer = sides[side][rep % PROCESSES].ask({"cmd": "run", "variant": variant})
                result[side][variant]["cpu"].append(answer["parse_cpu"])
                result[side][variant]["wall"].append(answer["parse"])
    return result


# -- report -----------------------------------------------------------------------------------


def paired(old: list[float], new: list[float]) -> tuple[float, float, float]:
    """Median and quartiles of the per-repetition ratios new/old."""
    ratios = [n / o for o, n in zip(old, new)]
    if len(ratios) < 2:
        return ratios[0], ratios[0], ratios[0]
    q1, _, q3 = statistics.quantiles(ratios, n=4, method="inclusive")
    return statistics.median(ratios), q1, q3


def verdict(ratio: float, q1: float, q3: float) -> str:
    """Within noise when the quartiles hold 1.0 or the ratio is within NOISE of it."""
    if q1 <= 1.0 <= q3 or abs(ratio - 1.0) < NOISE:
        return "within noise"
    change = f"{(ratio - 1.0) * 100:+.0f}%"
    return f"**slower** ({change})" if ratio > 1.0 else f"faster ({change})"


def cell(seconds: float, variant: str, deltas: dict[str, int]) -> str:
    """A median time: microseconds per delta when streaming, milliseconds for parse()."""
    if variant == "parse":
        return f"{seconds * 1e3:.2f} ms"
    cadence = variant.partition("/")[2]
    # (feed_many x4 hands the per-token deltas over four at a time: per token delta.)
    return f"{seconds / deltas['tokens' if cadence == 'many4' else cadence] * 1e6:.2f} us/delta"


def report(results: dict[str, dict[str, Any]], meta: dict[str, Any]) -> str:
    """The markdown: header, one row per format and workload, notes, the overall verdict."""
    lines = [f"### parsergen speed: `{meta['rev']}` (old) against the working tree (new)", "",
             f"`date {meta['date']}  python {meta['python']}  cpus {meta['cpus']}  "
             f"load {meta['load']}  reps {meta['reps']}  tokens {meta['tokens']}`", "",
             f"- old: `{meta['old']['sha'][:12]}` {meta['old']['subject']} "
             f"(runtime version {meta['old']['runtime_version']})",
             f"- new: {meta['new']['tree']} (runtime version {meta['new']['runtime_version']})",
             "", "| format | workload | old | new | ratio | spread (IQR) | verdict |",
             "| --- | --- | ---: | ---: | ---: | --- | --- |"]  # fmt: skip
    slower, rows, notes = [], 0, []
    for fmt, r in results.items():
        notes += [f"- {fmt}: {note}" for note in r["notes"]]
        for variant in r["old"]:
            old, new = r["old"][variant]["cpu"], r["new"][variant]["cpu"]
            ratio, q1, q3 = paired(old, new)
            said = verdict(ratio, q1, q3)
            rows += 1
            if said.startswith("**slower"):
                slower.append(f"{fmt} {WORKLOAD[variant]} ({ratio:.2f})")
            lines.append(f"| {fmt} | {WORKLOAD[variant]} | "
                         f"{cell(statistics.median(old), variant, r['deltas'])} | "
                         f"{cell(statistics.median(new), variant, r['deltas'])} | "
                         f"{ratio:.3f} | {q1:.3f}-{q3:.3f} | {said} |")  # fmt: skip
    lines += [
        "",
        f"old, new: medians over the repetitions; ratio: the median over repetitions "
        f"of new/old in the same repetition (the two run back to back, who goes first "
        f"alternating), above 1 = new slower; spread: the ratios' interquartile range; "
        f"within noise: the range holds 1.0 or the ratio is within {NOISE:.0%} of it.",
        "",
    ]
    lines += notes + ([""] if notes else [])
    if slower:
        lines.append(f"**{len(slower)} of {rows} slower**: " + "; ".join(slower))
    else:
        lines.append(f"**No workload slower**: {rows} of {rows} within noise or faster.")
    return "\n".join(lines)


# -- main -------------------------------------------------------------------------------------


def main(rev: str, names: list[str], reps: int, tokens: int, json_path: Path | None) -> int:
    """Export REV, start a driver per tree, time every format, print the markdown."""
    started = time.perf_counter()
    meta: dict[str, Any] = {"rev": rev, "date": time.strftime("%Y-%m-%d %H:%M %Z"),
                            "python": platform.python_version(), "cpus": os.cpu_count(),
                            "load": "%.2f" % os.getloadavg()[0], "reps": reps,
                            "tokens": tokens}  # fmt: skip
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="parsergen-against-") as tmp_name:
        tmp = Path(tmp_name)
        sha = export(rev, tmp / "old-tree")
        meta["old"] = {"sha": sha, "subject": git("log", "-1", "--format=%s", sha)}
        meta["new"] = {"tree": describe_new()}
        sides: dict[str, list[Peer]] = {}
        try:
            for side, tree in (("old", tmp / "old-tree"), ("new", ROOT)):
                root = import_root(tree, tmp / f"{side}-import")
                sides[side] = []
                for _ in range(PROCESSES):
                    sides[side].append(start(root))
                meta[side].update(sides[side][0].hello)
                print(f"{side}: parsergen.runtime from {sides[side][0].hello['runtime']}",
                      file=sys.stderr)  # fmt: skip
            for fmt in names:
                t0 = time.perf_counter()
                results[fmt] = bench_format(fmt, reps, sides, tmp, tokens)
                print(f"{fmt}: {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
        finally:
            for peer in (peer for peers in sides.values() for peer in peers):
                peer.close()
    print(report(results, meta))
    meta["wall_s"] = round(time.perf_counter() - started, 1)
    print(f"wall time {meta['wall_s']:.0f} s", file=sys.stderr)
    if json_path:
        json_path.write_text(json.dumps({"meta": meta, "formats": results}, indent=1) + "\n")
    return 0
