"""parsergen against transformers' own response_template engine, on the same templates.

    .venv/bin/python benchmarks/run.py --transformers [--reps N] [--tokens N] [--json F]
    .venv/bin/python benchmarks/run.py --transformers --workloads linearity [--max-chars N]

The template is Hugging Face's (``tests/support/hf_templates.py``: TRL's Qwen3.5 and
Nemotron 3 table entries and transformers' own gpt-oss test template); parsergen's side is the module
``parsergen.load(template)`` compiles from it, so both read the same declaration.  The
completion is run.py's realistic one for the bundled format that writes that model's
output (qwen3, openai), as text: one delta per character, one per token (the texts a
detokenizer releases), and whole.  transformers' side is ``ResponseParser`` (feed per
delta, then ``finalize``) and ``parse_response``; parsergen's is ``ChatParser`` (OpenAI
deltas, the heavier level) and ``parse()``.  Each ratio is the median over repetitions
of transformers' time over ours in the same repetition.  The messages are compared too
(HF's ``thinking``/``reasoning_content`` is our reasoning).

``linearity``: completions of 1024 tokens doubling up to 1M characters
(``completions.scaled``), per-token
deltas and whole text, time per character at each size.  transformers' ``ResponseParser``
keeps its whole buffer, so its streaming side grows quadratically; it stops at the first
size that takes longer than ``STREAM_CAP_S`` and says so.
"""

from __future__ import annotations

import gc
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import completions as C
from support.hf_templates import TRL_nemotron_3, TRL_qwen3_5, gpt_oss

import parsergen

# template label -> (template, bundled format whose renderer writes the completion,
# the prompt's end that the chat template writes before the completion)
TEMPLATES: dict[str, tuple[dict[str, Any], str, str]] = {
    "trl_qwen3_5": (TRL_qwen3_5, "qwen3", "<|im_start|>assistant\n<think>\n"),
    "hf_test_gpt_oss": (gpt_oss, "openai", ""),
    # (its reasoning's open pattern is a lookahead for </think>: transformers rescans the
    # buffer for it at every delta; parsergen holds the text once, docs/spec.md)
    "trl_nemotron_3": (TRL_nemotron_3, "qwen3", "<|im_start|>assistant\n<think>\n"),
}
CADENCES = ("chars", "tokens")
STREAM_CAP_S = 20.0  # linearity: transformers' streaming stops after a size this slow
REASONING = ("thinking", "reasoning_content")



def _timed_stream(feed: Callable[[str], object], finish: Callable[[], object],
                  deltas: list[str]) -> float:
    """Seconds to feed every delta and finish (the parser made before the clock starts)."""
    t0 = time.perf_counter()
    for delta in deltas:
        feed(delta)
    finish()
    return time.perf_counter() - t0


class Side:
    """One template, one completion: both engines' timed runs on it."""

    def __init__(self, label: str, text: str, deltas: dict[str, list[str]],
                 tools: list[dict[str, Any]]) -> None:
        from transformers.utils import chat_parsing

        self.template, self.fmt, self.prefix = TEMPLATES[label]
        self.hf = chat_parsing
        self.module = parsergen.load(self.template)
        self.text, self.deltas, self.tools = text, deltas, tools

    def ours_stream(self, cadence: str) -> float:
        parser = self.module.ChatParser(tools=self.tools)
        if self.prefix:
            parser.initialize(prompt_text=self.prefix)
        return _timed_stream(parser.feed, parser.finish, self.deltas[cadence])

    def theirs_stream(self, cadence: str) -> float:
        parser = self.hf.ResponseParser(self.template, prefix=self.prefix, tools=self.tools)
        return _timed_stream(parser.feed, parser.finalize, self.deltas[cadence])

    def ours_parse(self) -> float:
        t0 = time.perf_counter()
        self.module.parse(self.text, tools=self.tools, prompt_text=self.prefix or None)
        return time.perf_counter() - t0

    def theirs_parse(self) -> float:
        t0 = time.perf_counter()
        self.hf.parse_response(self.text, self.template, prefix=self.prefix, tools=self.tools)
        return time.perf_counter() - t0

    def differences(self) -> list[str]:
        """Where the two engines' messages differ (whole text, and HF streamed by token)."""
        ours = self.module.parse(self.text, tools=self.tools, prompt_text=self.prefix or None)
        mine = {"reasoning": ours.reasoning, "content": ours.content,
                "calls": [(c.name, json.loads(c.arguments)) for c in ours.tool_calls]}
        notes = []
        theirs = self.hf.parse_response(self.text, self.template, prefix=self.prefix,
                                        tools=self.tools)
        parser = self.hf.ResponseParser(self.template, prefix=self.prefix, tools=self.tools)
        for delta in self.deltas["tokens"]:
            parser.feed(delta)
        streamed, _ = parser.finalize()
        for how, message in (("parse_response", theirs), ("ResponseParser", streamed)):
            got = {"reasoning": next((message[k] for k in REASONING if k in message), None),
                   "content": message.get("content"),
                   "calls": [(c["function"]["name"], c["function"]["arguments"])
                             for c in message.get("tool_calls", [])]}
            for key in mine:
                if got[key] != mine[key]:
                    notes.append(f"{how}'s {key} differs from parse()")
        return notes


def completion(label: str, tokens: int, scaled: bool = False) -> tuple[str, dict[str, list[str]], list[dict[str, Any]]]:
    """The completion's text, its deltas per cadence, and the request's tools."""
    fmt = TEMPLATES[label][1]
    tokenizer = C.get_tokenizer(fmt)
    c = (C.scaled if scaled else C.realistic)(fmt, tokenizer, tokens)
    text = c.text()
    per_token = [t for t, _ in c.token_deltas(tokenizer)]
    if "".join(per_token) != text:
        raise RuntimeError(f"{label}: the per-token deltas do not spell the completion")
    return text, {"chars": list(text), "tokens": per_token}, c.tools


def _timed(run: Callable[[], float]) -> float:
    gc.collect()
    return run()


def bench(label: str, reps: int, tokens: int) -> dict[str, Any]:
    """Each workload timed on both sides back to back, ``reps`` times."""
    side = Side(label, *completion(label, tokens))
    runs: dict[str, tuple[Callable[[], float], Callable[[], float]]] = {
        f"stream/{c}": (lambda c=c: side.ours_stream(c), lambda c=c: side.theirs_stream(c))
        for c in CADENCES}
    runs["parse"] = (side.ours_parse, side.theirs_parse)
    out: dict[str, Any] = {"chars": len(side.text), "deltas": {c: len(side.deltas[c])
                                                              for c in CADENCES},
                           "ours": {k: [] for k in runs}, "hf": {k: [] for k in runs},
                           "notes": side.differences()}
    for ours, theirs in runs.values():  # warm-up
        ours(), theirs()
    for _ in range(reps):
        for key, (ours, theirs) in runs.items():
            out["ours"][key].append(_timed(ours))
            out["hf"][key].append(_timed(theirs))
    return out


def ratio(r: dict[str, Any], key: str) -> float:
    """Median over repetitions of transformers' time over ours in the same repetition."""
    return statistics.median(h / o for h, o in zip(r["hf"][key], r["ours"][key]))


def table(label: str, r: dict[str, Any]) -> str:
    fmt = TEMPLATES[label][1]
    lines = [f"{label} ({fmt}'s realistic completion, {r['chars']:,} characters, "
             f"{r['deltas']['tokens']:,} tokens)",
             f"    {'workload':<34}{'unit':<10}{'parsergen':>11}{'transformers':>14}{'ratio':>9}"]
    for key, what in (("stream/chars", "per character (ResponseParser)"),
                      ("stream/tokens", "per token (ResponseParser)"),
                      ("parse", "whole text (parse_response)")):
        n = r["deltas"][key.split("/")[1]] if "/" in key else r["chars"] / 1000
        unit = "us/delta" if "/" in key else "us/KB"
        ours = statistics.median(r["ours"][key]) / n * 1e6
        theirs = statistics.median(r["hf"][key]) / n * 1e6
        lines.append(f"    {what:<34}{unit:<10}{ours:>11.2f}{theirs:>14.2f}{ratio(r, key):>8.1f}x")
    for note in r["notes"]:
        lines.append(f"    note: {note}")
    return "\n".join(lines)


def linearity(label: str, max_chars: int) -> dict[str, Any]:
    """Time per character on completions of 1, 2, 4, ... units of ``completions.scaled``
    (1024 tokens each, the same make-up at every size) up to ``max_chars`` characters."""
    rows: list[dict[str, Any]] = []
    stream_capped: int | None = None
    units = 1
    while True:
        side = Side(label, *completion(label, 1024 * units, scaled=True))
        row: dict[str, Any] = {"chars": len(side.text)}
        for key, run in (("ours_stream", lambda: side.ours_stream("tokens")),
                         ("ours_parse", side.ours_parse), ("hf_parse", side.theirs_parse),
                         ("hf_stream", lambda: side.theirs_stream("tokens"))):
            if key == "hf_stream" and stream_capped is not None:
                continue
            row[key] = min(_timed(run) for _ in range(3 if len(side.text) < 1 << 18 else 1))
            if key == "hf_stream" and row[key] > STREAM_CAP_S:
                stream_capped = len(side.text)
        rows.append(row)
        print(f"    ({row['chars']:,} characters done)", flush=True)
        if len(side.text) * 2 > max_chars * 1.5:  # (the next size would overshoot)
            return {"rows": rows, "stream_capped": stream_capped}
        units *= 2


def linearity_table(label: str, r: dict[str, Any]) -> str:
    keys = ("ours_stream", "hf_stream", "ours_parse", "hf_parse")
    lines = [f"{label}: ns per character (per-token deltas for streaming; x: over the size "
             "before)",
             f"    {'chars':>9}" + "".join(f"{k:>22}" for k in keys)]
    before: dict[str, float] = {}
    for row in r["rows"]:
        cells = []
        for k in keys:
            if k not in row:
                cells.append(f"{'-':>22}")
                continue
            ns = row[k] / row["chars"] * 1e9
            grow = f" ({ns / before[k]:.2f}x)" if k in before else ""
            before[k] = ns
            cells.append(f"{ns:>12.1f}{grow:>10}")
        lines.append((f"    {row['chars']:>9,}" + "".join(cells)).rstrip())
    if r["stream_capped"]:
        lines.append(f"    transformers' ResponseParser stopped after {r['stream_capped']:,} "
                     f"characters (over {STREAM_CAP_S:.0f} s a run)")
    return "\n".join(lines)


def main(reps: int | None, tokens: int, json_path: Path | None,
         workloads: tuple[str, ...] = ("tokens",), max_chars: int = 1 << 20,
         labels: list[str] | None = None) -> int:
    """Print the per-delta table, or the linearity table, for each template."""
    labels = labels or list(TEMPLATES)
    import transformers

    started = time.perf_counter()
    print(f"transformers {transformers.__version__}; parsergen {parsergen.which_build()}; "
          f"{time.strftime('%Y-%m-%d %H:%M %Z')}\n", flush=True)
    results: dict[str, Any] = {}
    for label in labels:
        if "linearity" in workloads:
            results[label] = linearity(label, max_chars)
            print(linearity_table(label, results[label]) + "\n", flush=True)
        else:
            results[label] = bench(label, reps or 11, tokens)
            print(table(label, results[label]) + "\n", flush=True)
    print(f"wall time {time.perf_counter() - started:.0f} s")
    if json_path:
        json_path.write_text(json.dumps(results, indent=1) + "\n")
    return 0
