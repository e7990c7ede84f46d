"""parsergen's build backend: setuptools, with the runtime and the bundled formats'
generated modules compiled by mypyc into what it installs (as black and mypy ship).

pyproject.toml names this module (``backend-path = ["tools"]``); setup.py hands
setuptools ``SETUP``.  A wheel (``pip install .``, ``python -m build``) gets the
extension modules next to the ``.py`` files they replace, and a platform tag; an
editable install (``pip install -e .``) gets them in runtime/ and generated/ of the
source tree, as ``tools/build_compiled.py`` installs them (where a later edit makes
them stale: ``import parsergen`` then warns and runs pure Python, parsergen/native.py).

Where there is no C compiler or no Python headers, or ``PARSERGEN_PURE=1`` is set, or
the compilation fails, the install is pure Python: one line on stderr says so and why
(pip shows it with ``-v``), and so does ``parsergen --version`` afterwards (the reason
is kept in ``runtime/mypyc_build.json``).  mypy (which brings mypyc) is a build
requirement only when the build compiles.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import Any

from setuptools import Distribution
from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403  (the hooks not changed here)
from setuptools.command.build_py import build_py

import build_compiled

# mypyc's version is the one tests/test_types.py type-checks with (pyproject's test extra).
MYPYC = "mypy==1.19.1"


def why_pure() -> str | None:
    """Why this machine's install stays pure Python, or None: it compiles."""
    native = build_compiled.native
    if native.pure_requested():
        return f"{native.PURE_VARIABLE}={os.environ[native.PURE_VARIABLE]} was set"
    # (CC in the environment overrides Python's own, for setuptools as here.)
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "").split()
    if os.name != "nt" and (not compiler or shutil.which(compiler[0]) is None):
        return f"no C compiler ({compiler[0] if compiler else 'CC'} not found)"
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not headers.is_file():
        return f"no Python headers ({headers} not found; the python3-dev package has them)"
    return None


def _say(line: str) -> None:
    """One line on stderr, where pip shows a build's output (``pip install -v``)."""
    print(f"parsergen: {line}", file=sys.stderr, flush=True)


def get_requires_for_build_wheel(config_settings: Any = None) -> list[str]:
    """setuptools' requirements, and mypy where the wheel will be compiled."""
    return [*_setuptools.get_requires_for_build_wheel(config_settings),
            *([] if why_pure() else [MYPYC])]


def get_requires_for_build_editable(config_settings: Any = None) -> list[str]:
    """As for a wheel: an editable install compiles too."""
    return [*_setuptools.get_requires_for_build_editable(config_settings),
            *([] if why_pure() else [MYPYC])]


class CompilingBuildPy(build_py):
    """setuptools' build_py, then the compiled modules beside the copied sources (or,
    editable, beside the sources themselves)."""

    def run(self) -> None:
        """Copy the package, then compile it where it can be."""
        super().run()
        if self.editable_mode:
            targets = {f: build_compiled.ROOT / f for f in build_compiled.COMPILED}
        else:
            lib = Path(self.build_lib) / "parsergen"
            targets = {f: lib / f for f in build_compiled.COMPILED}
        reason = why_pure()
        if reason is None:
            try:
                seconds = build_compiled.build_into(targets, os.cpu_count() or 1)
            except (Exception, SystemExit) as exc:  # a failed build installs pure Python
                reason = f"the mypyc build failed ({exc})"
            else:
                _say(f"compiled the runtime and the bundled formats with mypyc in "
                     f"{seconds:.0f} s")
                return
        build_compiled.remove(targets)  # (an editable tree's earlier build)
        build_compiled.write_manifest(targets, {"pure": reason})
        _say(f"installing pure Python (slower): {reason}")


class CompiledDistribution(Distribution):
    """A distribution whose wheel holds extension modules where the build compiles
    (a platform wheel, not ``py3-none-any``)."""

    def has_ext_modules(self) -> bool:
        """Whether the wheel will hold compiled modules."""
        return why_pure() is None


SETUP: dict[str, Any] = {"cmdclass": {"build_py": CompilingBuildPy},
                         "distclass": CompiledDistribution}
