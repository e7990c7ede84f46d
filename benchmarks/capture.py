"""tools/capture_goldens.py imported by path, for both sides of the benchmarks.

It imports nothing of parsergen, so vLLM's side (``vllm_driver.py``, run by the peer
venv's python) uses it as well as parsergen's side.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


def load_capture_tool() -> ModuleType:
    """tools/capture_goldens.py: the goldens' tokenizers, vllm_config, merge (loaded once)."""
    if "capture_goldens" in sys.modules:
        return sys.modules["capture_goldens"]
    spec = importlib.util.spec_from_file_location(
        "capture_goldens", ROOT / "tools" / "capture_goldens.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module
