"""One writer per results folder: a second run is refused at once, naming the first;
the lock dies with its process, SIGKILL included."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.errors import FolderError
from harness.testing.llm_server import Action, Reply, ScriptedLLMServer
from harness.tournament.lock import LOCK, FolderLock, writer_of
from harness.tournament.store import ResultsFolder
from tests.in_process import lighthouse

KEY_ENV = "LOCK_TEST_KEY"
CONFIG = """
name = "lock"
seeds = {{ start = 0, stop = 3 }}
rules = {{ maxTicks = 6 }}
concurrency = 4

[providers.local]
kind = "openai"
base_url = "{url}"
api_key_env = "{key_env}"

[[entrants]]
name = "lantern"
keeper = {{ baseline = "lantern" }}
runners = {{ baseline = "wallhug" }}

[[entrants]]
name = "llm"
keeper = {{ provider = "local", model = "scripted" }}
runners = {{ baseline = "wallhug" }}
"""
EPISODES = 6


class Gate:
    """Holds every model reply until opened, so a run stays in flight as long as needed."""

    def __init__(self) -> None:
        self.opened = threading.Event()

    def __call__(self, path: str, body: dict[str, Any]) -> Action:
        self.opened.wait(timeout=120)
        return Reply('{"transmit": false}')


@pytest.fixture
def gate() -> Gate:
    return Gate()


@pytest.fixture
def server(gate: Gate) -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer(default=gate) as srv:
        try:
            yield srv
        finally:
            gate.opened.set()


def start(config: Path, out: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "run", str(config), "--out", str(out), "--no-report"],
        env={**os.environ, KEY_ENV: "sk-lock-test"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(ready: Any, limit: float = 120.0) -> None:
    deadline = time.monotonic() + limit
    while not ready():
        assert time.monotonic() < deadline, "the processes never got there"
        time.sleep(0.01)


def write_config(tmp_path: Path, server: ScriptedLLMServer) -> Path:
    path = tmp_path / "lock.toml"
    path.write_text(CONFIG.format(url=server.openai_url, key_env=KEY_ENV))
    return path


def test_two_runs_on_one_folder_give_one_refusal_and_one_complete_folder(
    tmp_path: Path, server: ScriptedLLMServer, gate: Gate
) -> None:
    config, out = write_config(tmp_path, server), tmp_path / "out"
    procs = [start(config, out), start(config, out)]
    # Neither can finish while the gate is shut: whichever took the lock waits on a reply.
    wait_for(lambda: any(p.poll() is not None for p in procs))
    loser = next(p for p in procs if p.poll() is not None)
    winner = next(p for p in procs if p is not loser)
    _, err = loser.communicate(timeout=60)
    assert loser.returncode == 2
    assert err.count("lighthouse: error:") == 1
    assert "Traceback" not in err
    assert f"another lighthouse process is writing this folder (pid {winner.pid} on " in err
    assert winner.poll() is None  # still running, untouched by the refusal

    gate.opened.set()
    _, err = winner.communicate(timeout=300)
    assert winner.returncode == 0, err
    ids = [s.episode_id for s in ResultsFolder(out).summaries()]
    assert len(ids) == len(set(ids)) == EPISODES
    assert sorted(p.name for p in (out / "records").iterdir()) == sorted(f"{i}.jsonl" for i in ids)
    assert writer_of(out) is None  # the lock went with the process


def test_a_sigkilled_writer_leaves_no_lock_behind(
    tmp_path: Path, server: ScriptedLLMServer, gate: Gate
) -> None:
    config, out = write_config(tmp_path, server), tmp_path / "out"
    first = start(config, out)
    wait_for(lambda: len(server.requests) > 0)  # it holds the lock and waits on a reply
    holder = writer_of(out)
    assert holder is not None
    assert f"pid {first.pid} on " in holder
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    assert writer_of(out) is None
    gate.opened.set()
    # the next run, in this process, takes the folder over
    second = lighthouse("run", config, "--out", out, "--no-report",
                        env={**os.environ, KEY_ENV: "sk-lock-test"})  # fmt: skip
    assert second.returncode == 0, second.stderr
    assert len(ResultsFolder(out).summaries()) == EPISODES


def test_the_lock_in_one_process_names_its_holder_and_is_released(tmp_path: Path) -> None:
    out = tmp_path / "new" / "out"
    with FolderLock(out) as held:
        assert held.created == [tmp_path / "new", out]
        info = json.loads((out / LOCK).read_text())
        assert info["pid"] == os.getpid()
        with pytest.raises(FolderError, match=f"pid {os.getpid()} on .*, started "):
            FolderLock(out).acquire()
        with pytest.raises(FolderError, match="another lighthouse process"):
            FolderLock(out, shared=True).acquire()  # a merge does not read a folder being written
        assert writer_of(out) == f"pid {os.getpid()} on {info['host']}, started {info['startedAt']}"
    assert writer_of(out) is None
    with FolderLock(out, shared=True), FolderLock(out, shared=True):
        pass  # readers share


def test_a_run_that_stops_before_writing_leaves_no_folder(tmp_path: Path) -> None:
    lock = FolderLock(tmp_path / "a" / "b").acquire()
    lock.abandon()
    assert list(tmp_path.iterdir()) == []
