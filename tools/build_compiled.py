"""Builds the runtime with mypyc: installed next to its sources, or tested apart.

    .venv/bin/python tools/build_compiled.py            # build and install (1-2 minutes)
    .venv/bin/python tools/build_compiled.py --status   # what is installed, and is it current
    .venv/bin/python tools/build_compiled.py --remove   # back to pure Python
    .venv/bin/python tools/build_compiled.py --test [PYTEST ARGS]  # the suite, compiled

mypyc names a module by its file's path, and the package maps its top-level folders
into ``parsergen.*`` (pyproject.toml's ``package-dir``), so the build lays the package
out as ``parsergen/...`` in a staging folder (a copy of runtime/; symbolic links for the
rest, as tests/test_types.py does) and compiles the runtime there into one shared
library (``parsergen.runtime.compiled__mypyc``) and a small extension module per runtime
module. Installing copies them into the folder ``parsergen.runtime`` is imported from
(runtime/ of an editable install): an extension module next to its ``.py`` is imported
in its place, and ``--remove`` deletes them. ``--test`` installs nothing: it runs pytest
(default: the whole suite) with the staging folder first on ``PYTHONPATH``. Each build
records its sources' hashes in ``mypyc_build.json``; tests/test_compiled.py fails on a
stale build (an edited runtime/ file whose compiled module would still be imported).

Every runtime class carries ``@mypyc_attr(allow_interpreted_subclasses=True)``: the
generated parsers subclass the runtime's, and it is also what lets a compiled object be
copied (``copy.deepcopy``): its ``__new__`` then leaves ``__init__`` to the caller.
(``serializable=True`` alone does not do: mypyc 1.19 then never runs ``__init__`` when
Python code constructs the class.)
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ROOT / "runtime"
# The package's other folders, linked into the staging namespace for their types.
LINKED = {"compiler": "compiler", "generated": "generated", "grammars": "grammars"}
# The shared library every compiled module's shim loads: parsergen.runtime.<GROUP>__mypyc.
GROUP = "parsergen.runtime.compiled"
MANIFEST = "mypyc_build.json"

# Runtime modules left interpreted, each with the reason.
LEFT_OUT: dict[str, str] = {
    # Compiled, the package's __init__ would load the shared library, which lives in the
    # package and so imports it first: the import recurses. (Re-exports only: no cost.)
    "__init__.py": "the package that holds the shared library",
}


def runtime_modules() -> list[str]:
    """Every runtime module as a path relative to runtime/, except LEFT_OUT."""
    found = sorted(path.relative_to(RUNTIME).as_posix() for path in RUNTIME.rglob("*.py"))
    return [name for name in found if name not in LEFT_OUT]


def source_hashes(root: Path, modules: list[str]) -> dict[str, str]:
    """sha256 of each module's source, keyed by its path relative to runtime/."""
    return {name: hashlib.sha256((root / name).read_bytes()).hexdigest() for name in modules}


def installed_runtime() -> Path:
    """The folder ``parsergen.runtime`` is imported from by this interpreter."""
    spec = importlib.util.find_spec("parsergen.runtime")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("parsergen is not installed in this interpreter")
    return Path(list(spec.submodule_search_locations)[0])


def extensions(folder: Path) -> list[Path]:
    """The extension modules under folder."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return sorted(path for path in folder.rglob("*") if path.name.endswith(suffixes))


def stage(staging: Path) -> Path:
    """Lays the package out as ``parsergen/...`` under staging; returns parsergen/runtime."""
    package = staging / "parsergen"
    package.mkdir()
    for item in (ROOT / "parsergen").iterdir():
        if item.name != "__pycache__":
            (package / item.name).symlink_to(item)
    for name, folder in LINKED.items():
        (package / name).symlink_to(ROOT / folder)
    runtime = package / "runtime"
    for path in RUNTIME.rglob("*.py"):
        target = runtime / path.relative_to(RUNTIME)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return runtime


def compile_in(staging: Path, jobs: int, opt_level: str) -> Path:
    """Compiles the runtime in staging, in place; returns its parsergen/runtime folder."""
    runtime = stage(staging)
    modules = runtime_modules()
    paths = [f"parsergen/runtime/{name}" for name in modules]
    # A child process: setup() works in its current folder and exits on errors.
    script = (
        "import sys\n"
        "from setuptools import setup\n"
        "from mypyc.build import mypycify\n"
        f"ext = mypycify(['--config-file', {str(ROOT / 'pyproject.toml')!r}, *sys.argv[1:]],"
        f" group_name={GROUP!r}, opt_level={opt_level!r})\n"
        "setup(name='parsergen-compiled', ext_modules=ext,"
        f" script_args=['build_ext', '--inplace', '-j', '{jobs}'])\n"
    )
    done = subprocess.run([sys.executable, "-c", script, *paths], cwd=staging,
                          capture_output=True, text=True)
    if done.returncode:
        sys.stderr.write(done.stdout[-20000:] + done.stderr[-20000:])
        raise SystemExit("the mypyc build failed")
    built = extensions(runtime)
    if not built:
        raise SystemExit("mypyc built no extension modules")
    manifest = {
        "python": sys.version,
        "modules": source_hashes(RUNTIME, modules),
        "left_out": LEFT_OUT,
        "extensions": [path.relative_to(runtime).as_posix() for path in built],
    }
    (runtime / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    return runtime


def install(runtime: Path, target: Path) -> None:
    """Copies a build's extension modules and manifest from runtime into target."""
    remove(target)
    for path in [*extensions(runtime), runtime / MANIFEST]:
        destination = target / path.relative_to(runtime)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, destination)


def remove(target: Path) -> int:
    """Deletes the compiled modules and the manifest from target; returns how many."""
    gone = 0
    for path in [*extensions(target), target / MANIFEST]:
        if path.exists():
            path.unlink()
            gone += 1
    return gone


def stale(target: Path) -> list[str] | None:
    """Modules whose source changed since target's build; None without a build."""
    manifest_path = target / MANIFEST
    if not manifest_path.exists():
        return None
    recorded: dict[str, str] = json.loads(manifest_path.read_text())["modules"]
    current = {name: hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else ""
               for name in recorded for path in [target / name]}
    return [name for name, digest in recorded.items() if current[name] != digest]


def status(target: Path) -> int:
    """Prints whether a compiled build is installed and current; 0 when current or absent."""
    changed = stale(target)
    if changed is None:
        print(f"pure Python: no compiled build in {target}")
        return 0
    print(f"compiled build in {target}: {len(extensions(target))} extension modules")
    if changed:
        print("stale (build again or --remove): " + ", ".join(changed))
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command line: build and install (default), --remove, --status or --test."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--remove", action="store_true", help="delete the compiled modules")
    parser.add_argument("--status", action="store_true", help="is a current build installed")
    parser.add_argument("--test", nargs=argparse.REMAINDER, metavar="PYTEST_ARGS",
                        help="build apart and run pytest against it (the rest of the line)")
    parser.add_argument("--target", type=Path,
                        help="install here instead of parsergen.runtime's folder")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--opt-level", default="3", help="the C compiler's -O (0 builds faster)")
    args = parser.parse_args(argv)
    if args.test is None:
        target = args.target or installed_runtime()
        if args.remove:
            print(f"removed {remove(target)} files from {target}")
            return 0
        if args.status:
            return status(target)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="parsergen-mypyc-") as tmp:
        runtime = compile_in(Path(tmp), args.jobs, args.opt_level)
        print(f"compiled {len(runtime_modules())} runtime modules in "
              f"{time.monotonic() - started:.0f} s", flush=True)
        if args.test is None:
            install(runtime, target)
            print(f"installed into {target}")
            return 0
        # The staging folder first on the path; and not the current folder (the project
        # root, whose parsergen/ would come first and map the pure runtime).
        env = {**os.environ, "PYTHONSAFEPATH": "1", "PYTHONPATH": os.pathsep.join(
            [tmp, *filter(None, [os.environ.get("PYTHONPATH")])])}
        probe = [sys.executable, "-c", "import parsergen.runtime.driver as d; print(d.__file__)"]
        where = subprocess.run(probe, cwd=ROOT, env=env, capture_output=True, text=True)
        if not where.stdout.strip().startswith(str(runtime)) or where.returncode:
            raise SystemExit(f"the compiled runtime is not the one imported: {where}")
        pytest = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args.test]
        return subprocess.run(pytest, cwd=ROOT, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
