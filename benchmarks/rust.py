"""The generated Rust reasoning parsers per token, against the Python modules (pure and
compiled) and vLLM's Python reasoning parsers, on the same completions.

    .venv/bin/python benchmarks/rust.py [--formats qwen3,step3p5] [--reps 9] [--compiled]
        [--peer /tmp/vllm-peer | --no-peer] [--json FILE]

Per format with reasoning: ``completions.realistic`` (about 4000 tokens, mostly
reasoning, then content and calls), cut into one delta per token by the incremental
detokenizer, with the format's test tokenizer and an empty prompt.  Each side splits the
same deltas into reasoning and content, as a server's reasoning stage does:

- Rust: the generated parser through the binding (tools/build_rust.py), timed inside
  Rust (``parsergen_rust.run``: a push per delta, then finish) and from Python (a
  ``push`` call per delta, what a Python server would pay);
- Python: ``ChatParser(tool_choice="none")`` fed each delta's text until reasoning is
  over, the rest handed on as it came (``tests/support/rust.py``, the vLLM plugin's
  reasoning stage); ``--compiled`` times it again over a mypyc build made apart
  (``tools/build_compiled.py``'s ``compile_in``, nothing installed);
- vLLM 0.33: its reasoning parser of the format (``VLLM_PARSERS``) under the peer venv's
  python, ``extract_reasoning_streaming`` per delta with the token ids (every delta: an
  upper bound where vLLM's server stops calling it once reasoning is over).

Before timing, the Rust and Python splits of the deltas must be equal (a ``WARNING``
says otherwise).  Reported: microseconds per token delta (the best of ``--reps``: the machine is
shared, and others' load only adds) and the
ratios of the others to Rust's.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
DEFAULT_PEER = Path("/tmp/vllm-peer")
# vLLM 0.33's reasoning parser of each format (its ReasoningParserManager's names).
VLLM_PARSERS = {
    "qwen3": "qwen3", "qwen3_reasoning": "qwen3", "deepseek_r1": "deepseek_r1",
    "deepseek_r1_reasoning": "deepseek_r1", "seed_oss": "seed_oss",
    "seed_oss_reasoning": "seed_oss", "step3p5": "step3p5", "step3p5_reasoning": "step3p5",
    "step3": "step3", "glm47_moe": "glm47", "glm45_reasoning": "glm45", "kimi_k2": "kimi_k2",
    "kimi_k2_reasoning": "kimi_k2", "minimax_m2": "minimax_m2", "gemma4": "gemma4",
    "ernie45": "ernie45", "mimo": "mimo", "nemotron_v3": "nemotron_v3",
    "deepseek_v31": "deepseek_v3", "deepseek_v4": "deepseek_v4", "deepseek_v41": "deepseek_v41",
    "granite_thinking": "granite_thinking_parser", "plamo3": "plamo3", "inkling": "inkling",
    "step5": "step5", "kimi_k3": "kimi_k3", "openai": "openai_gptoss",
}


def _best_us(samples: list[float], tokens: int) -> float:
    # The best of the repetitions: the machine is shared, and others' load only adds.
    return min(samples) / tokens * 1e6


def python_times(cases: list[dict[str, Any]], reps: int) -> dict[str, float]:
    """Python's side: us per token delta of each case (run here, or over a compiled build)."""
    import parsergen
    from completions import get_tokenizer
    from support.rust import python_split

    out = {}
    for case in cases:
        module, tok = parsergen.load(case["fmt"]), get_tokenizer(case["fmt"])
        samples = []
        for _ in range(reps):
            started = time.perf_counter()
            python_split(module, case["deltas"], tokenizer=tok, thinking=case["thinking"])
            samples.append(time.perf_counter() - started)
        out[case["fmt"]] = _best_us(samples, len(case["deltas"]))
    return out


def rust_times(cases: list[dict[str, Any]], reps: int) -> dict[str, tuple[float, float]]:
    """Rust's side: us per token delta, timed in Rust and from Python."""
    from completions import get_tokenizer
    from support import rust as rs

    binding = rs.binding()
    out = {}
    for case in cases:
        tok = rs.rust_tokenizer(get_tokenizer(case["fmt"]))
        inside, called = [], []
        for _ in range(reps):
            inside.append(binding.run(case["fmt"], case["deltas"], tok, case["thinking"])[2] / 1e9)
            parser = binding.ReasoningParser(case["fmt"], tok, case["thinking"])
            parser.initialize([])
            push = parser.push
            started = time.perf_counter()
            for delta in case["deltas"]:
                push(delta)
            parser.finish()
            called.append(time.perf_counter() - started)
        n = len(case["deltas"])
        out[case["fmt"]] = (_best_us(inside, n), _best_us(called, n))
    return out


def compiled_times(input_file: Path, reps: int) -> dict[str, float]:
    """Python's side over a mypyc build made apart (tools/build_compiled.py)."""
    sys.path.insert(0, str(ROOT / "tools"))
    from build_compiled import compile_in

    with tempfile.TemporaryDirectory(prefix="parsergen-mypyc-") as tmp:
        compile_in(Path(tmp), os.cpu_count() or 1, "3", None)
        env = {**os.environ, "PYTHONSAFEPATH": "1", "PYTHONPATH": tmp}
        done = subprocess.run([sys.executable, __file__, "--side", "python", "--input",
                               str(input_file), "--reps", str(reps)], cwd=ROOT, env=env,
                              capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def vllm_times(peer: Path, input_file: Path, reps: int) -> dict[str, Any]:
    """vLLM's side, under the peer venv's python (benchmarks/rust_vllm.py)."""
    done = subprocess.run([str(peer / "bin" / "python"), str(HERE / "rust_vllm.py"),
                           str(input_file), str(reps)], cwd=ROOT, capture_output=True,
                          text=True)
    if done.returncode:
        print(f"WARNING: vLLM's side failed: {done.stderr[-2000:]}", file=sys.stderr)
        return {}
    return json.loads(done.stdout.splitlines()[-1])


def cases_for(formats: list[str], tokens: int) -> list[dict[str, Any]]:
    """Each format's completion as token deltas (texts and ids)."""
    import completions as C

    out = []
    for fmt in formats:
        tok = C.get_tokenizer(fmt)
        c = C.realistic(fmt, tok, tokens)
        deltas = list(c.token_deltas(tok))
        out.append({"fmt": fmt, "thinking": c.thinking, "tokenizer": C.tokenizer_table()[fmt],
                    "deltas": [t for t, _ in deltas], "ids": [i for _, ids in deltas for i in ids],
                    "vllm": VLLM_PARSERS.get(fmt)})
    return out


def check(cases: list[dict[str, Any]]) -> None:
    """The Rust split must be the Python one before anything is timed."""
    import parsergen
    from completions import get_tokenizer
    from support.rust import python_split, rust_split

    for case in cases:
        tok = get_tokenizer(case["fmt"])
        want = python_split(parsergen.load(case["fmt"]), case["deltas"], tokenizer=tok,
                            thinking=case["thinking"])
        got = rust_split(case["fmt"], case["deltas"], tokenizer=tok, thinking=case["thinking"])
        if got != want:
            print(f"WARNING: {case['fmt']}: the Rust split differs from Python's", file=sys.stderr)


def table(cases: list[dict[str, Any]], rust: dict[str, tuple[float, float]],
          pure: dict[str, float], compiled: dict[str, float], vllm: dict[str, Any]) -> str:
    """The results, us per token delta and ratios to Rust (timed in Rust)."""
    head = ("| format | tokens | Rust (in Rust) | Rust (push from Python) | Python pure | "
            "x | Python compiled | x | vLLM | x |")
    lines = [head, "|" + " --- |" * 10]

    def cell(value: float | None, base: float) -> tuple[str, str]:
        return ("-", "-") if value is None else (f"{value:.3f}", f"{value / base:.0f}")

    for case in cases:
        fmt = case["fmt"]
        inside, called = rust[fmt]
        cells = [*cell(pure.get(fmt), inside), *cell(compiled.get(fmt), inside),
                 *cell(vllm.get(fmt), inside)]
        name = f"{fmt} ({case['vllm']})" if vllm.get(fmt) is not None else fmt
        lines.append(f"| {name} | {len(case['deltas'])} | {inside:.3f} | {called:.3f} | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--formats", help="comma-separated (default: every format with reasoning)")
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--tokens", type=int, default=4000)
    ap.add_argument("--compiled", action="store_true", help="also time a mypyc build")
    ap.add_argument("--peer", type=Path, help=f"vLLM venv (default {DEFAULT_PEER} if present)")
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--json", type=Path, help="also write the numbers here")
    ap.add_argument("--side", choices=("python",), help=argparse.SUPPRESS)
    ap.add_argument("--input", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.side == "python":  # (a child over the compiled build)
        cases = json.loads(args.input.read_text(encoding="utf-8"))
        print(json.dumps(python_times(cases, args.reps)))
        return 0
    import parsergen

    formats = (args.formats.split(",") if args.formats else
               [n for n in parsergen.formats() if parsergen.entry(n).has_reasoning])
    cases = cases_for(formats, args.tokens)
    check(cases)
    rust = rust_times(cases, args.reps)
    pure = python_times(cases, args.reps)
    peer = None if args.no_peer else args.peer or (
        DEFAULT_PEER if (DEFAULT_PEER / "bin" / "python").exists() else None)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(cases, f)
    input_file = Path(f.name)
    try:
        compiled = compiled_times(input_file, args.reps) if args.compiled else {}
        vllm = vllm_times(peer, input_file, args.reps) if peer else {}
    finally:
        input_file.unlink()
    print(table(cases, rust, pure, compiled, vllm))
    if args.json:
        args.json.write_text(json.dumps({"rust": rust, "pure": pure, "compiled": compiled,
                                         "vllm": vllm}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
