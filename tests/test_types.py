"""The package type-checks with mypy, as it is imported (``parsergen.runtime``, ...).

The project maps its top-level folders into one namespace (pyproject.toml's
``package-dir``), which mypy cannot follow from an editable install, so the test
lays the namespace out with symbolic links and checks that.
"""

from __future__ import annotations

import atexit
import importlib.util
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from support.background import Job, submit

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"runtime": "runtime", "compiler": "compiler", "generated": "generated",
           "grammars": "grammars"}


def _layout() -> Path:
    """The namespace as the package imports it, laid out with symbolic links."""
    where = Path(tempfile.mkdtemp(prefix="parsergen-mypy-"))
    atexit.register(shutil.rmtree, where, True)
    return where


_WHERE = _layout()


def _lay_out() -> None:
    package = _WHERE / "parsergen"
    if package.exists():
        return
    package.mkdir()
    for item in (ROOT / "parsergen").iterdir():
        if item.name != "__pycache__":
            (package / item.name).symlink_to(item)
    for name, folder in FOLDERS.items():
        (package / name).symlink_to(ROOT / folder)


def _mypy_job() -> Job:
    return Job("mypy", [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                        "--cache-dir", str(_WHERE / "cache"), "-p", "parsergen"],
               _WHERE, prepare=_lay_out)


def background_jobs() -> dict[str, list[Job]]:
    """mypy, started at collection beside the suite (tests/support/background.py)."""
    return {"test_mypy_is_clean": [_mypy_job()] if importlib.util.find_spec("mypy") else []}


def test_mypy_is_clean() -> None:
    pytest.importorskip("mypy")
    code, output = submit(_mypy_job()).result()
    assert code == 0, output
