"""Instructions per call of ``parse()`` on the call-dense texts, and per token delta of
the streaming parsers against vLLM's, counted by valgrind.

    .venv/bin/python benchmarks/run.py --instructions [--formats hermes,deepseek_v3]
                                                      [--workloads calls1k,batch] [--reps N]
    .venv/bin/python benchmarks/run.py --instructions --workloads tokens [--formats qwen3]
    .venv/bin/python benchmarks/run.py --instructions --workloads linearity [--formats qwen3]

Timing on a shared machine moves by 1.5x from one minute to the next; an instruction
count does not. Each format's ``dense.py`` workload runs in a child process under
valgrind's callgrind with a fixed hash seed, which counts only ``reps`` passes of
``parse()`` after a warm-up one (inside operator.call: ``count_calls``, as every count
here); the count over the calls parsed is printed. Whatever ``parsergen`` the child imports is counted: put a
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
WORKLOADS = ("calls1k", "calls10k", "batch", "tokens", "linearity")

# What the child runs: one warm-up pass (caches filled), then ``reps`` passes of parse()
# over the workload's texts, with the format's test tokenizer as --dense passes it (and
# vLLM's side has), counted inside operator.call (count_calls).
CHILD = """
import gc, operator, sys
sys.path.insert(0, {here!r})
import completions, dense, parsergen
module = parsergen.load({fmt!r})
tokenizer = completions.get_tokenizer({fmt!r})
thinking, tools, work = dense.workloads({fmt!r})
texts = work[{workload!r}]["texts"]
def passes(n):
    for _ in range(n):
        for text in texts:
            module.parse(text, tools=tools, tokenizer=tokenizer, thinking=thinking)
passes(1)
gc.collect()
gc.freeze()
operator.call(passes, {reps})
"""


def count(fmt: str, workload: str, reps: int) -> tuple[int, int]:
    """(instructions of ``reps`` passes of parse(), calls they parse) of one format's
    workload."""
    import dense

    script = CHILD.format(here=str(HERE), fmt=fmt, workload=workload, reps=reps)
    counted = count_calls(sys.executable, script, dict(os.environ), 1)[0]
    return counted, dense.workloads(fmt)[2][workload]["calls"] * reps


def _compiled() -> bool:
    """Whether the parsergen imported here (and by the child) is the compiled build."""
    import parsergen.runtime.assembly as assembly

    return not assembly.__file__.endswith(".py")


def main(names: list[str] | None, reps: int | None,
         chosen: tuple[str, ...] = ("calls1k",), peer: Path | None = None) -> int:
    """Print instructions per call, per format and workload (with ``peer``, vLLM's
    legacy tool parser's too, as dense.py runs it, and their ratio)."""
    if shutil.which("valgrind") is None:
        print("valgrind is not on PATH: nothing counted", file=sys.stderr)
        return 1
    import dense

    names = names or list(dense.DEFAULT_FORMATS[:9])
    reps = reps or 3
    ours = {(fmt, w): count(fmt, w, reps) for fmt in names for w in chosen}
    theirs = vllm_counts(names, chosen, reps, peer) if peer is not None else {}
    vllm = "beside ours vLLM's legacy tool parser, as --dense runs it" if peer else "no vLLM"
    print(f"instructions per call of parse(), {'compiled' if _compiled() else 'pure Python'}"
          f", {reps} passes, PYTHONHASHSEED=0; {vllm}\n")
    print(f"{'format':<16}" + "".join(f"{w:>12}" + (f"{'vLLM':>10}{'ratio':>8}" if peer else "")
                                      for w in chosen))
    for fmt in names:
        cells = []
        for w in chosen:
            instructions, calls = ours[(fmt, w)]
            cells.append(f"{instructions / max(calls, 1):>12,.0f}")
            if peer is not None:
                other = theirs.get((fmt, w))
                cells.append(f"{other / max(calls, 1):>10,.0f}{other / max(instructions, 1):>7.2f}x"
                             if other is not None else f"{'-':>10}{'-':>8}")
        print(f"{fmt:<16}" + "".join(cells), flush=True)
    return 0


# vLLM's side of the call-dense texts: every format's legacy tool parser constructed
# per text and its extract_tool_calls, as dense_vllm.py times them (the workloads
# dense.py's PEER_SKIPS leaves out, where vLLM takes minutes, are left out here too).
VLLM_DENSE = """
import gc, operator, sys
sys.path.insert(0, {here!r})
import dense_vllm
driver = dense_vllm.Driver()
def passes(w):
    cls, tok, request = driver.cls, driver.tok, driver.request
    for _ in range({reps}):
        for text in driver.data["workloads"][w]:
            try:
                cls(tok, request.tools).extract_tool_calls(text, request)
            except Exception:
                pass
for file, chosen in {jobs!r}:
    driver.load(file)  # every text once: the warm-up
    for w in chosen:
        gc.collect()
        gc.freeze()
        operator.call(passes, w)
"""


def vllm_counts(names: list[str], chosen: tuple[str, ...], reps: int,
                peer: Path) -> dict[tuple[str, str], int]:
    """Instructions of ``reps`` passes of vLLM's legacy tool parser per (format,
    workload), one child under the peer's python for all."""
    import json

    import completions as C
    import dense

    with tempfile.TemporaryDirectory() as tmp:
        jobs, keys = [], []
        for fmt in names:
            legacy = dense.LEGACY_TOOL.get(fmt)
            theirs = [w for w in chosen if w not in dense.PEER_SKIPS.get(fmt, frozenset())]
            if legacy is None or not theirs:
                continue
            _, tools, work = dense.workloads(fmt)
            file = Path(tmp) / f"dense-{fmt}.json"
            file.write_text(json.dumps({"tool_parser": legacy, "tools": tools,
                                        "tokenizer": C.tokenizer_table()[fmt],
                                        "workloads": {w: work[w]["texts"] for w in theirs}},
                                       ensure_ascii=False), encoding="utf-8")  # fmt: skip
            jobs.append((str(file), theirs))
            keys += [(fmt, w) for w in theirs]
        if not jobs:
            return {}
        counts = count_calls(str(peer / "bin" / "python"),
                             VLLM_DENSE.format(here=str(HERE), jobs=jobs, reps=reps),
                             {k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
                             len(keys))
    return dict(zip(keys, counts))


# -- per token: the streaming parsers, ours and vLLM's ---------------------------------
# ``tokens``: run.py's per-token cadence of a format's realistic completion (its token
# ids too), fed delta by delta to a parser made beforehand, ``reps`` parsers in a row;
# the events level (StreamingParser against vLLM's engine) and the OpenAI level
# (ChatParser against the full parser's parse_delta).  Each side runs every format in
# one child under callgrind (vLLM's imports alone take minutes there), counting only
# inside operator.call (new in Python 3.11: neither side's code calls it), which the
# child calls once per format and level: one dump each, in order.

# The one replay loop of both sides' event level (the same loop: counted on both).
REPLAY = """
def replay(parsers, deltas):
    for parser in parsers:
        feed = parser.feed
        for text, ids in deltas:
            feed(text, ids)
        parser.finish()
"""

OURS_TOKENS = REPLAY + """
import gc, json, operator, sys
sys.path.insert(0, {here!r})
import completions as C, parsergen
for file in {files!r}:
    data = json.loads(open(file, encoding="utf-8").read())
    module = parsergen.load(data["format"])
    tok = C.get_tokenizer(data["format"])
    deltas = [(text, ids) for text, ids in data["cadences"]["tokens"]]
    for make in (lambda: module.StreamingParser(tok, thinking=data["thinking"]),
                 lambda: module.ChatParser(tok, tools=data["tools"], thinking=data["thinking"])):
        replay([make()], deltas)  # warm-up
        parsers = [make() for _ in range({reps})]
        gc.collect()
        gc.freeze()
        operator.call(replay, parsers, deltas)
"""

VLLM_TOKENS = REPLAY + """
import gc, operator, sys
sys.path.insert(0, {here!r})
import vllm_driver
driver = vllm_driver.Driver()
def assembly(parsers, deltas):
    last = len(deltas) - 1
    for parser in parsers:
        parse_delta = parser.parse_delta
        for i, (text, ids) in enumerate(deltas):
            parse_delta(text, ids, request, finished=i == last)
for file in {files!r}:
    driver.load(file)  # every variant once: the warm-up
    deltas = driver.data["cadences"]["tokens"]
    request = driver.request()
    for run, make in ((replay, lambda: driver.engine_cls(driver.config, driver.tok)),
                      (assembly, driver.parser)):
        parsers = [make() for _ in range({reps})]
        gc.collect()
        gc.freeze()
        operator.call(run, parsers, deltas)
"""


def count_calls(python: str, script: str, env: dict[str, str], expected: int) -> list[int]:
    """Instructions counted in each of the ``expected`` operator.call calls of ``script``
    run by ``python`` under callgrind, in order."""
    return count_with_output(python, script, env, expected)[0]


def count_with_output(python: str, script: str, env: dict[str, str],
                      expected: int) -> tuple[list[int], list[str]]:
    """``count_calls``, and the lines the script printed."""
    with tempfile.TemporaryDirectory() as tmp:
        child = Path(tmp) / "child.py"
        child.write_text(script)
        out = Path(tmp) / "cg.out"
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", "--collect-atstart=no",
             "--toggle-collect=_operator_call", "--dump-after=_operator_call",
             f"--callgrind-out-file={out}", python, str(child)],
            capture_output=True, text=True, env={**env, "PYTHONHASHSEED": "0"})
        if done.returncode:
            raise SystemExit(f"valgrind failed:\n{done.stderr[-2000:]}")
        parts = sorted(Path(tmp).glob("cg.out.*"), key=lambda p: int(p.suffix[1:]))
        counts = [int(m.group(1)) for p in parts
                  if (m := re.search(r"^summary: (\d+)", p.read_text(), re.M))]
        if len(counts) != expected:
            raise SystemExit(f"{python}: {len(counts)} counted calls, not {expected}")
        return counts, done.stdout.splitlines()


def token_files(names: list[str], folder: Path, reps: int,
                target_tokens: int) -> tuple[list[str], list[int]]:
    """Each format's realistic completion and its cadences, one JSON file each in
    ``folder`` (what the token children read), and the deltas ``reps`` passes feed."""
    import json

    import completions as C

    files, deltas = [], []
    for fmt in names:
        tokenizer = C.get_tokenizer(fmt)
        c = C.realistic(fmt, tokenizer, target_tokens)
        cadences = C.cadences(c, tokenizer)
        deltas.append(len(cadences["tokens"]) * reps)
        file = folder / f"{fmt}.json"
        file.write_text(json.dumps({
            "format": fmt, "tokenizer": C.tokenizer_table()[fmt], "thinking": c.thinking,
            "tools": c.tools, "text": c.text(), "ids": list(c.ids()),
            "cadences": cadences}, ensure_ascii=False), encoding="utf-8")
        files.append(str(file))
    return files, deltas


def tokens_main(names: list[str] | None, reps: int | None, peer: Path | None,
                target_tokens: int = 4000) -> int:
    """Print instructions per token delta, ours and vLLM's, events and OpenAI level."""
    if shutil.which("valgrind") is None:
        print("valgrind is not on PATH: nothing counted", file=sys.stderr)
        return 1
    import completions as C
    import parsergen

    reps = reps or 3
    # (Default: the formats vLLM has an engine parser for, as run.py's ratios.)
    names = names or [f for f in parsergen.formats()
                      if getattr(C.vllm_reference(f), "parser", None) is not None]
    with tempfile.TemporaryDirectory() as tmp:
        files, deltas = token_files(names, Path(tmp), reps, target_tokens)
        args = {"here": str(HERE), "files": files, "reps": reps}
        ours = count_calls(sys.executable, OURS_TOKENS.format(**args), dict(os.environ),
                           2 * len(names))
        theirs = (count_calls(str(peer / "bin" / "python"), VLLM_TOKENS.format(**args),
                              {k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
                              2 * len(names))
                  if peer is not None else [0] * len(ours))
    vllm = "its engine and parse_delta" if peer is not None else "not run"
    print(f"instructions per token delta, {'compiled' if _compiled() else 'pure Python'}, "
          f"{reps} passes of {target_tokens} tokens, PYTHONHASHSEED=0; vLLM: {vllm}\n")
    print(f"{'format':<18}{'events':>10}{'vLLM':>10}{'ratio':>8}{'OpenAI':>10}{'vLLM':>10}"
          f"{'ratio':>8}")
    for i, fmt in enumerate(names):
        cells = []
        for mine, other in zip(ours[2 * i : 2 * i + 2], theirs[2 * i : 2 * i + 2]):
            n = deltas[i]
            cells.append(f"{mine / n:>10,.0f}{other / n:>10,.0f}"
                         + (f"{other / mine:>7.1f}x" if other else f"{'-':>8}"))
        print(f"{fmt:<18}" + "".join(cells), flush=True)
    return 0


# -- linear cost, counted: linearity.py's completions, instructions per token ----------
# ``linearity``: the completions of 16k, 128k and 1M tokens linearity.py times
# (completions.scaled), fed per token with ids to both levels, once each, in one child
# per format (built one after another: a 1M-token completion is hundreds of MB).  The
# timed run moves with the machine; a count per token that stays flat as the completion
# grows 64x is linear cost without that noise.

LINEAR_SIZES = (1 << 14, 1 << 17, 1 << 20)

OURS_LINEAR = REPLAY + """
import gc, operator, sys
sys.path.insert(0, {here!r})
import completions as C, parsergen
module = parsergen.load({fmt!r})
tok = C.get_tokenizer({fmt!r})
for n in {sizes!r}:
    c = C.scaled({fmt!r}, tok, n)
    deltas = list(c.token_deltas(tok))
    print(len(deltas), flush=True)
    for make in (lambda: module.StreamingParser(tok, thinking=c.thinking),
                 lambda: module.ChatParser(tok, tools=c.tools, thinking=c.thinking)):
        parser = make()
        gc.collect()
        gc.freeze()
        operator.call(replay, [parser], deltas)
        gc.unfreeze()
    del c, deltas
"""


def linearity_main(names: list[str] | None, sizes: tuple[int, ...] = LINEAR_SIZES) -> int:
    """Print instructions per token delta at each size, events and OpenAI level."""
    if shutil.which("valgrind") is None:
        print("valgrind is not on PATH: nothing counted", file=sys.stderr)
        return 1
    import linearity

    names = names or linearity.FORMATS
    print(f"instructions per token delta, {'compiled' if _compiled() else 'pure Python'}, "
          f"PYTHONHASHSEED=0; the largest size over the smallest, target <= "
          f"{linearity.SLACK}\n")
    print(f"{'format':<16}{'level':<8}" + "".join(f"{linearity.short(n):>10}" for n in sizes)
          + f"{'x':>8}")
    for fmt in names:
        script = OURS_LINEAR.format(here=str(HERE), fmt=fmt, sizes=sizes)
        counts, lines = count_with_output(sys.executable, script, dict(os.environ),
                                          2 * len(sizes))
        tokens = [int(line) for line in lines]
        for level, offset in (("events", 0), ("OpenAI", 1)):
            per = [counts[2 * i + offset] / tokens[i] for i in range(len(sizes))]
            print(f"{fmt:<16}{level:<8}" + "".join(f"{p:>10,.0f}" for p in per)
                  + f"{per[-1] / per[0]:>8.3f}", flush=True)
    return 0
