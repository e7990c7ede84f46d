"""tools/mutants.py stays runnable: every mutant's snippet is in the source exactly once."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parent.parent / "tools" / "mutants.py"


def test_every_mutant_applies_to_the_current_source() -> None:
    spec = importlib.util.spec_from_file_location("mutants", TOOL)
    assert spec is not None and spec.loader is not None
    mutants = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("mutants", mutants)  # dataclasses look their module up
    spec.loader.exec_module(mutants)
    assert len(mutants.MUTANTS) >= 40
    assert mutants.check() == []
