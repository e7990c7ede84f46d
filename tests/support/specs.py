"""Compiling a spec written by a test into a module the test can import."""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path
from types import ModuleType

from parsergen.compiler import compile_spec
from parsergen.compiler.generator import generate_module


def build(tmp_path: Path, yaml_text: str, name: str = "spec") -> ModuleType:
    """Write ``yaml_text`` (dedented) to tmp_path, compile it, import the module."""
    spec_path = tmp_path / f"{name}.yaml"
    spec_path.write_text(textwrap.dedent(yaml_text).lstrip("\n"), encoding="utf-8")
    source = generate_module(compile_spec(spec_path, spec_path.name))
    out = tmp_path / f"{name}_generated.py"
    out.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(f"{name}_generated_{id(tmp_path)}", out)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
