"""setuptools' hooks for parsergen's build backend (tools/build_backend.py): the
runtime and the bundled formats compiled with mypyc where the machine can."""

import sys
from pathlib import Path

from setuptools import setup

sys.path.insert(0, str(Path(__file__).resolve().parent / "tools"))
from build_backend import SETUP  # noqa: E402

setup(**SETUP)
