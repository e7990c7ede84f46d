"""Whether the runtime imported is the mypyc build (tools/build_compiled.py)."""

from __future__ import annotations

import importlib.machinery

import parsergen.runtime.driver

# A compiled module is an extension module; the pure runtime imports driver.py.
COMPILED = str(parsergen.runtime.driver.__file__).endswith(
    tuple(importlib.machinery.EXTENSION_SUFFIXES))
