"""Slow checks that are one subprocess each, run one after another beside the suite.

The suite runs on one core; a build of every format under three hash seeds, mypy over
the package and the compiled runtime's build take minutes of their own.  A test module
that has such a check defines ``background_jobs() -> list[Job]``: conftest.py submits
them once the tests are collected (and runs that module's tests last), a thread of this
process starts each job's process when the one before it ends, and the test waits for
its job's result.  A test run without conftest.py submits its jobs itself: ``submit`` is
idempotent by name.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path


class Job:
    """One subprocess: its command, and once run, its exit code and output."""

    def __init__(self, name: str, argv: Sequence[str], cwd: Path,
                 env: dict[str, str] | None = None,
                 prepare: Callable[[], None] | None = None) -> None:
        self.name = name
        self.argv = list(argv)
        self.cwd = cwd
        self.env = env
        self.prepare = prepare  # run just before the process starts (a layout to make)
        self.code: int | None = None
        self.output = ""
        self._done = threading.Event()

    def run(self) -> None:
        """Run the process to its end (on the runner's thread)."""
        try:
            if self.prepare is not None:
                self.prepare()
            with tempfile.TemporaryFile(mode="w+") as out:  # (a file: it never fills up)
                self.code = subprocess.call(self.argv, cwd=self.cwd, stdout=out,
                                            stderr=subprocess.STDOUT, text=True,
                                            env={**os.environ, **(self.env or {})})
                out.seek(0)
                self.output = out.read()
        except Exception as exc:  # reported by the test that waits, not lost on a thread
            self.code, self.output = -1, f"{type(exc).__name__}: {exc}"
        finally:
            self._done.set()

    def result(self, timeout: float = 1200) -> tuple[int, str]:
        """(exit code, output), once the job has run."""
        start()
        if not self._done.wait(timeout):
            raise TimeoutError(f"background job {self.name} still running after {timeout} s")
        assert self.code is not None
        return self.code, self.output


_JOBS: dict[str, Job] = {}
_QUEUE: list[Job] = []
_LOCK = threading.Lock()
_WAKE = threading.Condition(_LOCK)
_RUNNER: list[threading.Thread] = []


def submit(job: Job) -> Job:
    """Queue ``job`` (the one queued already under its name, if any) and start the runner."""
    with _LOCK:
        known = _JOBS.get(job.name)
        if known is not None:
            return known
        _JOBS[job.name] = job
        _QUEUE.append(job)
        _WAKE.notify()
    start()
    return job


def start() -> None:
    """Start the runner thread, once."""
    with _LOCK:
        if _RUNNER:
            return
        thread = threading.Thread(target=_run_all, name="background-jobs", daemon=True)
        _RUNNER.append(thread)
    thread.start()


def _run_all() -> None:
    while True:
        with _LOCK:
            while not _QUEUE:
                _WAKE.wait()
            job = _QUEUE.pop(0)
        job.run()
