"""This working tree against a git revision, counted: instructions per token delta and
per call of ``parse()``, old and new side by side (valgrind; no timing noise).

    .venv/bin/python benchmarks/run.py --instructions-against REV [--formats a,b]
                                       [--reps N] [--compiled]

Each tree (REV's export, and a copy of the working tree with its uncommitted edits) gets
an import root as ``against.py`` makes one; with ``--compiled`` each copy is first built
with its own ``tools/build_compiled.py --target`` (a few minutes a side).  The counting
children are ``instructions.py``'s: run.py's per-token deltas fed to StreamingParser and
ChatParser (``tokens``), and ``dense.py``'s call-dense texts and batch of short
completions through ``parse()``, each with the format's test tokenizer, under callgrind
with one hash seed, counted inside ``operator.call`` only.  Each child prints where it
imported ``parsergen.runtime`` from, and is checked against its tree.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import against
import instructions

HERE = Path(__file__).resolve().parent
PARSE_WORKLOADS = ("calls1k", "batch")

# Every format's call-dense workloads through parse(), one counted call each, in order.
PARSE_ALL = """
import gc, operator, sys
sys.path.insert(0, {here!r})
import completions, dense, parsergen, parsergen.runtime
print(parsergen.runtime.__file__, flush=True)
def passes(module, tokenizer, thinking, tools, texts, n):
    for _ in range(n):
        for text in texts:
            module.parse(text, tools=tools, tokenizer=tokenizer, thinking=thinking)
for fmt in {formats!r}:
    module = parsergen.load(fmt)
    tokenizer = completions.get_tokenizer(fmt)
    thinking, tools, work = dense.workloads(fmt)
    for w in {workloads!r}:
        texts = work[w]["texts"]
        passes(module, tokenizer, thinking, tools, texts, 1)
        gc.collect()
        gc.freeze()
        operator.call(passes, module, tokenizer, thinking, tools, texts, {reps})
        gc.unfreeze()
"""


def _copy_working_tree(dest: Path) -> None:
    """The working tree's files as they are (tracked and untracked, not ignored)."""
    listed = subprocess.run(["git", "-C", str(against.ROOT), "ls-files", "-co",
                             "--exclude-standard", "-z"], check=True,
                            capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = against.ROOT / name
        if source.is_file():
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


def _compile(tree: Path) -> None:
    """Build ``tree``'s runtime and generated modules with mypyc, next to its sources."""
    subprocess.run([sys.executable, str(tree / "tools" / "build_compiled.py"), "--target",
                    str(tree), "--jobs", str(os.cpu_count() or 1)], check=True, cwd=tree,
                   stdout=sys.stderr)


def _count(script: str, root: Path, expected: int) -> list[int]:
    """``instructions.count_with_output`` of ``script`` importing from ``root`` only."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    counts, lines = instructions.count_with_output(sys.executable, script, env, expected)
    if not lines or not Path(lines[0]).resolve().is_relative_to(root.resolve()):
        where = Path(lines[0]).resolve() if lines else "nowhere"
        # (The root links the tree's folders: resolved, a file is under the tree.)
        if not lines or not str(where).startswith(str(root.parent)):
            raise SystemExit(f"parsergen.runtime imported from {where}, not from {root}")
    return counts


def main(rev: str, names: list[str], reps: int | None, compiled: bool,
         target_tokens: int = 4000) -> int:
    """Print old and new instructions per token delta and per parsed call."""
    if shutil.which("valgrind") is None:
        print("valgrind is not on PATH: nothing counted", file=sys.stderr)
        return 1
    reps = reps or 3
    with tempfile.TemporaryDirectory(prefix="parsergen-instr-") as tmp:
        base = Path(tmp)
        trees = {"old": base / "old", "new": base / "new"}
        sha = against.export(rev, trees["old"])
        _copy_working_tree(trees["new"])
        if compiled:
            for tree in trees.values():
                _compile(tree)
        roots = {side: against.import_root(tree, base / f"root-{side}")
                 for side, tree in trees.items()}
        files, deltas = instructions.token_files(names, base, reps, target_tokens)
        import dense
        import parsergen

        # (parse() of call-dense texts where the format has calls.)
        calling = [fmt for fmt in names if parsergen.load(fmt).RENDERER.call]
        calls = [dense.workloads(fmt)[2][w]["calls"] * reps
                 for fmt in calling for w in PARSE_WORKLOADS]
        tokens_script = ("import parsergen.runtime\nprint(parsergen.runtime.__file__, "
                         "flush=True)\n" + instructions.OURS_TOKENS.format(
                             here=str(HERE), files=files, reps=reps))
        parse_script = PARSE_ALL.format(here=str(HERE), formats=calling,
                                        workloads=PARSE_WORKLOADS, reps=reps)
        counted = {}
        for side, root in roots.items():
            print(f"counting {side} ...", file=sys.stderr, flush=True)
            counted[side] = (_count(tokens_script, root, 2 * len(names)),
                             _count(parse_script, root, len(calls)))
    build = "compiled (mypyc)" if compiled else "pure Python"
    print(f"instructions, {build}: old = {rev} ({sha[:7]}), new = "
          f"{against.describe_new()}; {reps} passes, PYTHONHASHSEED=0\n")
    print("| format | workload | old | new | new/old |\n| --- | --- | ---: | ---: | ---: |")
    per_call = {}
    for i, (fmt, w) in enumerate((f, w) for f in calling for w in PARSE_WORKLOADS):
        per_call[fmt, w] = (counted["old"][1][i] / calls[i], counted["new"][1][i] / calls[i])
    for i, fmt in enumerate(names):
        rows = [(level, counted["old"][0][2 * i + k] / deltas[i],
                 counted["new"][0][2 * i + k] / deltas[i])
                for k, level in enumerate(("events, per token", "OpenAI, per token"))]
        rows += [(f"parse(), {w}, per call", *per_call[fmt, w])
                 for w in PARSE_WORKLOADS if (fmt, w) in per_call]
        for level, old, new in rows:
            print(f"| {fmt} | {level} | {old:,.0f} | {new:,.0f} | {new / old:.3f} |", flush=True)
    return 0
