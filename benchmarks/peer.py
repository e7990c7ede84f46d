"""A driver subprocess spoken to in JSON lines (vllm_driver.py, parsergen_driver.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable
from typing import IO, Any, Protocol


class Peer:
    """One long-lived driver: a command per line on its stdin, an answer per line back."""

    def __init__(self, argv: list[str], env: dict[str, str] | None = None) -> None:
        self.log = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # the driver's chatter
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True,
            encoding="utf-8", bufsize=1, env=env,
        )  # fmt: skip
        self.hello = self.ask({"cmd": "hello"})

    def ask(self, command: dict[str, Any]) -> dict[str, Any]:
        """Send one command, return the driver's answer (raise with its log if it failed)."""
        self.send(command)
        return self.answer()

    def send(self, command: dict[str, Any]) -> None:
        """Send one command without waiting (several drivers can work at once)."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()

    def answer(self) -> dict[str, Any]:
        """The answer to the command sent last (raise with the driver's log if it failed)."""
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        answer = json.loads(line) if line else {"error": "driver exited"}
        if "error" in answer:
            self.log.seek(0)
            tail = self.log.read()[-3000:]
            raise RuntimeError(f"driver {self.proc.args[-1]}: {answer['error']}\n{tail}")
        return answer

    def close(self) -> None:
        """Ask the driver to quit and wait for it."""
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()  # EOF ends the driver's loop
            self.proc.wait(timeout=60)
        self.log.close()


def pin_apart(peer: Peer) -> str | None:
    """Pin this process and ``peer`` to two different CPUs (Linux, two or more usable);
    returns which ("0/1"), or None where that cannot be done.

    Left to the scheduler, the two often share one CPU although they never run at once,
    and then both sides' reps come out bimodal, some up to 2x slower (2026-12-01, the
    2-core VM: qwen3 events 0.41-0.79 us against 0.43-0.49 pinned apart; vLLM's engine
    2.4-4.6 against 2.3-2.4)."""
    setaffinity = getattr(os, "sched_setaffinity", None)
    getaffinity = getattr(os, "sched_getaffinity", None)
    if setaffinity is None or getaffinity is None:
        return None
    cpus = sorted(getaffinity(0))
    if len(cpus) < 2:
        return None
    try:
        setaffinity(0, {cpus[0]})
        setaffinity(peer.proc.pid, {cpus[1]})
    except OSError:
        return None
    return f"{cpus[0]}/{cpus[1]}"


def warmed(run: Callable[[], dict[str, float]]) -> dict[str, float]:
    """One repetition's times: ``run`` twice back to back, the second kept (both sides).

    Each side waits, idle, while the other runs, and comes back with cold caches (the
    other side's work took them); a window of a millisecond or two, as ours per token,
    then pays much of its time for it: mistral's events took 0.58 us per token after
    waiting on the peer, 0.28 us after an untimed pass, as with no peer at all (0.26;
    a 20 ms spin instead gave 0.32; 2026-12-01, compiled). It is why a run's later
    formats looked slower than the same formats run first."""
    run()
    return run()


class Served(Protocol):
    """What a driver answers: ``hello``, ``load`` a completions file, ``run`` a variant."""

    def hello(self) -> dict[str, Any]: ...
    def load(self, file: str) -> dict[str, Any]: ...
    def run(self, variant: Any) -> dict[str, Any]: ...


def serve(driver: Served, protocol: IO[str]) -> int:
    """The driver side: answer commands from stdin until it closes, on ``protocol`` (the
    real stdout; the driver's own stdout goes to stderr so prints cannot corrupt it)."""
    for line in sys.stdin:
        command = json.loads(line)
        try:
            if command["cmd"] == "hello":
                answer = driver.hello()
            elif command["cmd"] == "load":
                answer = driver.load(command["file"])
            elif command["cmd"] == "run":
                answer = driver.run(command["variant"])
            else:
                answer = {"error": f"unknown command {command['cmd']!r}"}
        except Exception as exc:  # report to the caller rather than die silently
            traceback.print_exc()  # to stderr, which the caller shows on error
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        protocol.write(json.dumps(answer, ensure_ascii=False) + "\n")
        protocol.flush()
    return 0
