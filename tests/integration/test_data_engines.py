"""README's data-engine snippet for batch parsing, run where PySpark is importable."""

from __future__ import annotations

import json
import sys
from functools import partial

import pytest

pyspark = pytest.importorskip("pyspark")

import parsergen  # noqa: E402
from parsergen.batch import parse_record  # noqa: E402


def test_pyspark_snippet_from_the_readme(tmp_path, monkeypatch) -> None:
    from pyspark.sql import SparkSession

    # Workers run this interpreter, where parsergen is installed.
    monkeypatch.setenv("PYSPARK_PYTHON", sys.executable)
    records = [{"completion": f"step {i}</think>answer {i}"} for i in range(50)]
    source = tmp_path / "completions.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records))
    spark = SparkSession.builder.master("local[2]").appName("parsergen").getOrCreate()
    try:
        # As in README.md, "Batch parsing".
        rows = spark.read.json(str(source)).rdd.map(lambda row: row.asDict(recursive=True))
        messages = rows.map(partial(parse_record, format="qwen3")).collect()
    finally:
        spark.stop()
    qwen3 = parsergen.load("qwen3")
    assert messages == [qwen3.parse(r["completion"]).to_openai() for r in records]
