"""Goldens for formats vLLM parses by hand: parsergen's own events, change detectors.

They are checked in as text like vLLM's captures and replayed by test_goldens.py; this
test keeps them in step with the corpus. They detect change, not wrongness: what the
model meant is checked against goldens/expected/ by test_expected.py. After reviewing a
change in behaviour, rewrite them with
``python -m pytest tests/test_own_goldens.py --update-goldens``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

import parsergen

ROOT = Path(__file__).resolve().parent.parent


def _capture_module():
    sys.path.insert(0, str(ROOT / "tools"))
    spec = importlib.util.spec_from_file_location("capture_goldens", ROOT / "tools" / "capture_goldens.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


CAPTURE = _capture_module()
OWN = sorted(fmt for fmt, ref in CAPTURE.REFERENCES.items() if ref.parser is None)


@pytest.mark.parametrize("fmt", OWN)
def test_own_goldens_match_the_corpus(fmt: str, request: pytest.FixtureRequest) -> None:
    module = parsergen.load(fmt)
    text = CAPTURE.capture(
        fmt, lambda thinking, tok: module.StreamingParser(tok, thinking=thinking),
        CAPTURE.OWN_SOURCE)
    path = ROOT / "goldens" / f"{fmt}.golden"
    if request.config.getoption("--update-goldens"):
        path.write_text(text, encoding="utf-8")
    assert path.is_file() and path.read_text(encoding="utf-8") == text, (
        f"{path.name} is not what parsergen emits for the corpus: review the change, then "
        "run pytest tests/test_own_goldens.py --update-goldens")
