"""The package type-checks with mypy, as it is imported (``parsergen.runtime``, ...).

The project maps its top-level folders into one namespace (pyproject.toml's
``package-dir``), which mypy cannot follow from an editable install, so the test
lays the namespace out with symbolic links and checks that.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"runtime": "runtime", "compiler": "compiler", "generated": "generated",
           "grammars": "grammars"}


def test_mypy_is_clean(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    package = tmp_path / "parsergen"
    package.mkdir()
    for item in (ROOT / "parsergen").iterdir():
        if item.name != "__pycache__":
            (package / item.name).symlink_to(item)
    for name, folder in FOLDERS.items():
        (package / name).symlink_to(ROOT / folder)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(tmp_path / "cache"), "-p", "parsergen"],
        cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
