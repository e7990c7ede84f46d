"""benchmarks/transformers_bench.py (``run.py --transformers``) runs on a tiny input:
both engines read the same completion into the same message, and every row is timed.
Nothing here is timed against anything (the numbers are README's, from one run)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("transformers.utils.chat_parsing")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import run  # noqa: E402
import transformers_bench as tb  # noqa: E402


@pytest.mark.parametrize("label", sorted(tb.TEMPLATES))
def test_both_engines_read_the_completion_alike_and_every_row_is_timed(label: str) -> None:
    result = tb.bench(label, reps=1, tokens=300)
    assert result["notes"] == []  # parse_response and ResponseParser give parse()'s message
    assert result["deltas"]["chars"] == result["chars"] > result["deltas"]["tokens"] > 50
    for side in ("ours", "hf"):
        assert {k: len(v) for k, v in result[side].items()} == {
            "stream/chars": 1, "stream/tokens": 1, "parse": 1}
    table = tb.table(label, result)
    assert table.count("x\n") + table.endswith("x") == 3


def test_linearity_doubles_to_the_largest_size_and_caps_transformers() -> None:
    result = tb.linearity("hf_test_gpt_oss", max_chars=4000)
    sizes = [row["chars"] for row in result["rows"]]
    assert len(sizes) == 2 and sizes[1] > 1.5 * sizes[0]
    assert all(set(row) == {"chars", "ours_stream", "ours_parse", "hf_parse", "hf_stream"}
               for row in result["rows"])
    assert "ns per character" in tb.linearity_table("hf_test_gpt_oss", result)


def test_the_mode_takes_its_workloads_only() -> None:
    with pytest.raises(SystemExit):
        run.main(["--transformers", "--workloads", "calls1k"])
