"""Build the Rust reasoning parsers' Python binding (runtime/rust/python, pyo3) offline.

Crates come from Debian's ``librust-*-dev`` packages through runtime/rust/.cargo/config.toml
(tools/install_rust_crates.sh installs them); the wheel is built by maturin and unpacked into ``--out``
(default build/rust/site), which the tests and benchmarks put on ``sys.path``: nothing
is installed.  ``--test`` runs ``cargo test`` on the shared runtime first.

    .venv/bin/python tools/build_rust.py [--test] [--debug] [--out DIR]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATE = ROOT / "runtime" / "rust"
DEFAULT_OUT = ROOT / "build" / "rust" / "site"
REGISTRY = Path("/usr/share/cargo/registry")
# The crates the binding needs from Debian's registry (tools/install_rust_crates.sh).
CRATES = ("pyo3-0.17", "fancy-regex-0.7")


def missing_tools() -> str | None:
    """Why the binding cannot be built here (None: it can)."""
    if shutil.which("cargo") is None:
        return "cargo is not installed (rustup's toolchain)"
    missing = [c for c in CRATES if not any(REGISTRY.glob(c + ".*"))]
    if missing:
        return (f"the crates {', '.join(missing)} are not in {REGISTRY}: run "
                "tools/install_rust_crates.sh (Debian's librust-*-dev packages)")
    return None


def cargo_test() -> int:
    """The shared runtime's unit tests (and the generated modules compiled with them)."""
    return subprocess.call(["cargo", "test", "--offline", "-p", "parsergen-reasoning"],
                           cwd=CRATE)


def build(out: Path, release: bool = True) -> Path:
    """Build the wheel (optimised unless not ``release``: the tests' build reuses what
    ``cargo test`` compiled) and unpack it into ``out``; returns ``out``."""
    maturin = Path(sys.executable).with_name("maturin")
    with tempfile.TemporaryDirectory() as wheels:
        subprocess.run([str(maturin), "build", *(["--release"] if release else []), "--offline",
                        "-i", sys.executable, "--out", wheels], cwd=CRATE / "python", check=True)
        wheel = next(Path(wheels).glob("*.whl"))
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        with zipfile.ZipFile(wheel) as z:
            z.extractall(out)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--test", action="store_true", help="run cargo test first")
    parser.add_argument("--debug", action="store_true",
                        help="an unoptimised build (faster to make; the benchmarks want release)")
    args = parser.parse_args()
    why = missing_tools()
    if why is not None:
        print(f"cannot build the Rust binding: {why}", file=sys.stderr)
        return 2
    if args.test and cargo_test() != 0:
        return 1
    print(f"built {build(args.out, release=not args.debug)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
