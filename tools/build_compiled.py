"""Builds the runtime and the generated modules with mypyc: installed next to their
sources, or tested apart.  An install compiles them too (tools/build_backend.py calls
``build_into``); this is the same build by hand.

    .venv/bin/python tools/build_compiled.py            # build and install (about 1 minute)
    .venv/bin/python tools/build_compiled.py --status   # what is installed, and is it current
    .venv/bin/python tools/build_compiled.py --remove   # back to pure Python
    .venv/bin/python tools/build_compiled.py --test [PYTEST ARGS]  # the suite, compiled

mypyc names a module by its file's path, and the package maps its top-level folders
into ``parsergen.*`` (pyproject.toml's ``package-dir``), so the build lays the package
out as ``parsergen/...`` in a staging folder (copies of runtime/ and generated/;
symbolic links for the rest, as tests/test_types.py does) and compiles them there into
one shared library (``parsergen.runtime.compiled__mypyc``) and a small extension module
per module. The shared library's C is one file per module (mypyc's ``multi_file``),
compiled ``--jobs`` at a time: as one file, it took one core twice as long.
The generated parsers are compiled too: their classes are then native
subclasses of the runtime's, whose methods compiled code calls directly (an interpreted
subclass is called through Python: compiling the runtime alone gave half the gain).
Installing copies them into the folders ``parsergen.runtime`` and ``parsergen.generated``
are imported from (runtime/ and generated/ of an editable install): an extension module
next to its ``.py`` is imported in its place, and ``--remove`` deletes them. ``--test``
installs nothing: it runs pytest (default: the whole suite) with the staging folder
first on ``PYTHONPATH``. Each build records its sources' hashes in ``mypyc_build.json``
(in runtime/; parsergen/native.py reads it): a build in a source tree whose sources
changed since is not imported (``import parsergen`` warns and runs pure Python), and
``parsergen build`` deletes the compiled module of a generated module it rewrites.
Specs loaded by path stay Python: their classes subclass the compiled runtime's.

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
from collections.abc import Collection
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# The package's folders compiled (parsergen.<name>), and the others, linked into the
# staging namespace for their types.
COMPILED = ("runtime", "generated")
LINKED = {"compiler": "compiler", "grammars": "grammars"}
# The shared library every compiled module's shim loads: parsergen.runtime.<GROUP>__mypyc.
GROUP = "parsergen.runtime.compiled"


def _native() -> ModuleType:
    """parsergen/native.py, by path: what reads a build's record, with no parsergen
    installed (an install's build environment has none)."""
    spec = importlib.util.spec_from_file_location("parsergen_native", ROOT / "parsergen" / "native.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


native = _native()
MANIFEST: str = native.MANIFEST

# Modules left interpreted (paths under the package), each with the reason.
LEFT_OUT: dict[str, str] = {
    # Compiled, the package's __init__ would load the shared library, which lives in the
    # package and so imports it first: the import recurses. (Re-exports only: no cost.)
    "runtime/__init__.py": "the package that holds the shared library",
    "generated/__init__.py": "the formats' index: data read once",
}


def modules(formats: Collection[str] | None = None) -> list[str]:
    """Every module compiled, as a path under the package (``runtime/driver.py``); of
    the generated ones, only those of ``formats`` if given."""
    found = sorted(f"{folder}/{path.relative_to(ROOT / folder).as_posix()}"
                   for folder in COMPILED for path in (ROOT / folder).rglob("*.py"))
    return [name for name in found if name not in LEFT_OUT and (
        formats is None or not name.startswith("generated/")
        or Path(name).stem in formats)]


def source_hashes(folders: dict[str, Path], names: list[str]) -> dict[str, str]:
    """sha256 of each module's source, keyed by its path under the package."""
    return {name: hashlib.sha256(_path(folders, name).read_bytes()).hexdigest()
            for name in names}


def _path(folders: dict[str, Path], name: str) -> Path:
    """Where module ``name`` (``runtime/driver.py``) is, in these package folders."""
    folder, _, rest = name.partition("/")
    return folders[folder] / rest


def installed_folders() -> dict[str, Path]:
    """The folders ``parsergen.runtime`` and ``parsergen.generated`` are imported from
    by this interpreter."""
    if importlib.util.find_spec("parsergen") is None:
        raise SystemExit("parsergen is not installed in this interpreter")
    return dict(native.folders())


def extensions(folder: Path) -> list[Path]:
    """The extension modules under folder."""
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return sorted(path for path in folder.rglob("*") if path.name.endswith(suffixes))


def stage(staging: Path) -> dict[str, Path]:
    """Lays the package out as ``parsergen/...`` under staging; returns its compiled
    folders (``parsergen/runtime``, ``parsergen/generated``)."""
    package = staging / "parsergen"
    package.mkdir()
    for item in (ROOT / "parsergen").iterdir():
        if item.name != "__pycache__":
            (package / item.name).symlink_to(item)
    for name, folder in LINKED.items():
        (package / name).symlink_to(ROOT / folder)
    for folder in COMPILED:
        for path in (ROOT / folder).rglob("*.py"):
            target = package / folder / path.relative_to(ROOT / folder)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    return {folder: package / folder for folder in COMPILED}


def compile_in(staging: Path, jobs: int, opt_level: str,
               formats: Collection[str] | None = None) -> dict[str, Path]:
    """Compiles the runtime and the generated modules (of ``formats``, if given) in
    staging, in place; returns the staged folders (see ``stage``)."""
    folders = stage(staging)
    names = modules(formats)
    # A child process: setup() works in its current folder and exits on errors.
    done = subprocess.run([sys.executable, __file__, "--mypycify", opt_level, str(jobs),
                           *(f"parsergen/{name}" for name in names)],
                          cwd=staging, capture_output=True, text=True)
    if done.returncode:
        sys.stderr.write(done.stdout[-20000:] + done.stderr[-20000:])
        raise SystemExit("the mypyc build failed")
    built = [f"{folder}/{path.relative_to(where).as_posix()}"
             for folder, where in folders.items() for path in extensions(where)]
    if not built:
        raise SystemExit("mypyc built no extension modules")
    manifest = {
        "python": sys.version,
        "modules": source_hashes(folders, names),  # (the copies built: sources may move on)
        "left_out": LEFT_OUT,
        "extensions": built,
    }
    (folders["runtime"] / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    return folders


def _mypycify(opt_level: str, jobs: int, paths: list[str]) -> None:
    """The child of ``compile_in``, in the staging folder: mypyc's C for ``paths``,
    compiled into extension modules next to them."""
    from setuptools import setup  # (first: it provides distutils on Python 3.12+)

    from mypyc.build import mypycify

    extensions = mypycify(["--config-file", str(ROOT / "pyproject.toml"), *paths],
                          group_name=GROUP, opt_level=opt_level, multi_file=True)
    # mypyc 1.19 writes a dotted group's headers under the group's package folder
    # (build/parsergen/runtime/), which it leaves off the include path.
    for extension in extensions:
        extension.include_dirs.append(os.path.join("build", *GROUP.split(".")[:-1]))
    _compile_in_parallel(jobs)
    setup(name="parsergen-compiled", ext_modules=extensions,
          script_args=["build_ext", "--inplace"])


def _compile_in_parallel(jobs: int) -> None:
    """Make distutils compile one extension's C files ``jobs`` at a time (it compiles
    them one by one, and the shared library is most of the files)."""
    from concurrent.futures import ThreadPoolExecutor
    from distutils import ccompiler  # setuptools' copy, once setuptools is imported

    def compile(self: Any, sources: list[str], output_dir: str | None = None,
                macros: Any = None, include_dirs: Any = None, debug: bool = False,
                extra_preargs: Any = None, extra_postargs: Any = None,
                depends: Any = None) -> list[str]:
        macros, objects, extra_postargs, pp_opts, build = self._setup_compile(
            output_dir, macros, include_dirs, sources, depends, extra_postargs)
        cc_args = self._get_cc_args(pp_opts, debug, extra_preargs)

        def one(obj: str) -> None:
            src, ext = build[obj]
            self._compile(obj, src, ext, cc_args, extra_postargs, pp_opts)

        with ThreadPoolExecutor(max(1, jobs)) as pool:
            list(pool.map(one, [obj for obj in objects if obj in build]))
        return list(objects)

    ccompiler.CCompiler.compile = compile


def install(built: dict[str, Path], targets: dict[str, Path]) -> None:
    """Copies a build's extension modules and manifest into the target folders (the
    manifest says whether they are a source tree's: runtime/ of this checkout)."""
    remove(targets)
    for folder, where in built.items():
        for path in extensions(where):
            destination = targets[folder] / path.relative_to(where)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, destination)
    manifest = json.loads((built["runtime"] / MANIFEST).read_text())
    manifest["in_place"] = targets["runtime"].resolve() == (ROOT / "runtime").resolve()
    write_manifest(targets, manifest)


def write_manifest(targets: dict[str, Path], manifest: dict[str, Any]) -> None:
    """Writes a build's record into the runtime folder."""
    (targets["runtime"] / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")


def build_into(targets: dict[str, Path], jobs: int, opt_level: str = "3",
               formats: Collection[str] | None = None) -> float:
    """Compiles everything (or ``formats``' modules) apart and installs the build into
    the target folders; returns the seconds it took."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="parsergen-mypyc-") as tmp:
        install(compile_in(Path(tmp), jobs, opt_level, formats), targets)
    return time.monotonic() - started


def remove(targets: dict[str, Path]) -> int:
    """Deletes the compiled modules and the manifest from the folders; returns how many."""
    gone = 0
    for where in targets.values():
        for path in [*extensions(where), where / MANIFEST]:
            if path.exists():
                path.unlink()
                gone += 1
    return gone


def stale(targets: dict[str, Path]) -> list[str] | None:
    """Modules compiled from a source that changed since the build in these folders;
    None without a build."""
    manifest = native.manifest(targets)
    if manifest is None or not manifest.get("modules"):
        return None
    return list(native.stale(targets, manifest))


def status(targets: dict[str, Path]) -> int:
    """Prints whether a compiled build is installed and current; 0 when current or absent."""
    changed = stale(targets)
    where = ", ".join(map(str, targets.values()))
    if changed is None:
        print(f"pure Python: no compiled build in {where}")
        return 0
    count = sum(len(extensions(folder)) for folder in targets.values())
    print(f"compiled build in {where}: {count} extension modules")
    if changed:
        print("stale (build again or --remove): " + ", ".join(changed))
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command line: build and install (default), --remove, --status or --test."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--mypycify"]:  # (compile_in's child)
        _mypycify(argv[1], int(argv[2]), argv[3:])
        return 0
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--remove", action="store_true", help="delete the compiled modules")
    parser.add_argument("--status", action="store_true", help="is a current build installed")
    parser.add_argument("--test", nargs=argparse.REMAINDER, metavar="PYTEST_ARGS",
                        help="build apart and run pytest against it (the rest of the line)")
    parser.add_argument("--target", type=Path,
                        help="install into this folder's runtime/ and generated/ instead "
                        "of the folders parsergen.runtime and parsergen.generated are "
                        "imported from")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--opt-level", default="3", help="the C compiler's -O (0 builds faster)")
    parser.add_argument("--formats", help="compile only these formats' generated modules "
                        "(comma-separated; the others stay Python)")
    args = parser.parse_args(argv)
    formats = args.formats.split(",") if args.formats else None
    if args.test is None:
        targets = ({folder: args.target / folder for folder in COMPILED} if args.target
                   else installed_folders())
        if args.remove:
            print(f"removed {remove(targets)} files from "
                  f"{', '.join(map(str, targets.values()))}")
            return 0
        if args.status:
            return status(targets)
        seconds = build_into(targets, args.jobs, args.opt_level, formats)
        print(f"compiled {len(modules(formats))} modules (runtime and generated) in "
              f"{seconds:.0f} s; installed into {', '.join(map(str, targets.values()))}")
        return 0
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="parsergen-mypyc-") as tmp:
        built = compile_in(Path(tmp), args.jobs, args.opt_level, formats)
        print(f"compiled {len(modules(formats))} modules (runtime and generated) in "
              f"{time.monotonic() - started:.0f} s", flush=True)
        # The staging folder first on the path; and not the current folder (the project
        # root, whose parsergen/ would come first and map the pure runtime).  Nor the
        # caller's PARSERGEN_PURE: what is tested here is the compiled build.
        env = {**{k: v for k, v in os.environ.items() if k != native.PURE_VARIABLE},
               "PYTHONSAFEPATH": "1", "PYTHONPATH": os.pathsep.join(
                   [tmp, *filter(None, [os.environ.get("PYTHONPATH")])])}
        # One compiled module of each folder must be the one imported.
        probes: dict[str, str] = {}
        for name in modules(formats):
            probes.setdefault(name.split("/")[0], name)
        names = [f"parsergen.{n[:-3].replace('/', '.')}" for n in probes.values()]
        probe = [sys.executable, "-c", "import importlib\n"
                 f"for n in {names!r}: print(importlib.import_module(n).__file__)"]
        where = subprocess.run(probe, cwd=ROOT, env=env, capture_output=True, text=True)
        files = where.stdout.split()
        if (where.returncode or len(files) != len(probes) or not all(
                f.startswith(str(built[folder])) and not f.endswith(".py")
                for f, folder in zip(files, probes))):
            raise SystemExit(f"the compiled build is not the one imported: {where}")
        pytest = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args.test]
        return subprocess.run(pytest, cwd=ROOT, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())
