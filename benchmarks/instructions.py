"""Instructions per call of ``parse()`` on the call-dense texts, counted by valgrind.

    .venv/bin/python benchmarks/run.py --instructions [--formats hermes,deepseek_v3]
                                                      [--workloads calls1k,batch] [--reps N]

Timing on a shared machine moves by 1.5x from one minute to the next; an instruction
count does not. Each format's ``dense.py`` workload runs in a child process under
valgrind's callgrind with a fixed hash seed, once with ``reps`` counted passes of
``parse()`` and once without them (its imports and warm-up); the difference over the
calls parsed is printed. Whatever ``parsergen`` the child imports is counted: put a
compiled build first on ``PYTHONPATH`` to count it. No tokenizer: the texts are read as
text. Needs ``valgrind`` on PATH; a change to a call's path is read as the difference
of two such runs (README, "Call-dense text").
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORKLOADS = ("calls1k", "calls10k", "batch")

# What the child runs: one warm-up pass (caches filled), then ``reps`` passes of parse()
# over the workload's texts; it prints the calls one pass parses.
CHILD = """
import gc, sys
sys.path.insert(0, {here!r})
import dense, parsergen
module = parsergen.load({fmt!r})
thinking, tools, work = dense.workloads({fmt!r})
texts = work[{workload!r}]["texts"]
for _ in range({reps} + 1):
    for text in texts:
        module.parse(text, tools=tools, thinking=thinking)
    gc.collect()
    gc.freeze()
print(work[{workload!r}]["calls"])
"""


def count(fmt: str, workload: str, reps: int) -> tuple[int, int]:
    """(instructions of ``reps`` passes of parse(), calls they parse) of one format's
    workload: the child's count with those passes, less its count without them."""
    totals, calls = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "child.py"
        for passes in (reps, 0):
            script.write_text(CHILD.format(here=str(HERE), fmt=fmt, workload=workload,
                                           reps=passes))  # fmt: skip
            done = subprocess.run(
                ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                 sys.executable, str(script)],
                capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
            m = re.search(r"Collected : (\d+)", done.stderr)
            if done.returncode or m is None:
                raise SystemExit(f"{fmt}: valgrind failed:\n{done.stderr[-2000:]}")
            totals.append(int(m.group(1)))
            calls = int(done.stdout.split()[-1])
    return totals[0] - totals[1], calls * reps


def _compiled() -> bool:
    """Whether the parsergen imported here (and by the child) is the compiled build."""
    import parsergen.runtime.assembly as assembly

    return not assembly.__file__.endswith(".py")


def main(names: list[str] | None, reps: int | None,
         chosen: tuple[str, ...] = ("calls1k",)) -> int:
    """Print instructions per call, per format and workload."""
    if shutil.which("valgrind") is None:
        print("valgrind is not on PATH: nothing counted", file=sys.stderr)
        return 1
    import dense

    names = names or list(dense.DEFAULT_FORMATS[:9])
    reps = reps or 3
    print(f"instructions per call of parse(), {'compiled' if _compiled() else 'pure Python'}"
          f", {reps} passes, PYTHONHASHSEED=0\n")
    print(f"{'format':<16}" + "".join(f"{w:>12}" for w in chosen))
    for fmt in names:
        cells = []
        for w in chosen:
            instructions, calls = count(fmt, w, reps)
            cells.append(f"{instructions / max(calls, 1):>12,.0f}")
        print(f"{fmt:<16}" + "".join(cells), flush=True)
    return 0
