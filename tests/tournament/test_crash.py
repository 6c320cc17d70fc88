"""SIGKILL a running tournament at several points; a rerun finishes it exactly."""

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

import jsonschema
import pytest

from harness.testing.llm_server import Action, Reply, ScriptedLLMServer
from harness.tournament.store import ResultsFolder
from tests.ctrl_c import FOREGROUND
from tests.in_process import lighthouse

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs/schemas/lighthouse-record.schema.json").read_text())
KEY_ENV = "CRASH_TEST_KEY"

CONFIG = """
name = "crash"
seeds = {{ start = 0, stop = 5 }}
variants = ["default", "spring"]
reference = "lantern"
concurrency = 4
rules = {{ maxTicks = 8 }}

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
runners = [{{ provider = "local", model = "scripted" }}, {{ baseline = "wallhug" }}, {{ baseline = "wallhug" }}]
"""


def reply_for(path: str, body: dict[str, Any]) -> Action:
    if "You are the KEEPER" in json.dumps(body):
        return Reply('{"transmit": true, "message": "Sprocket N; Gizmo W"}', delay_s=0.03)
    return Reply('{"move": "N", "notes": "north"}', delay_s=0.03)


@pytest.fixture
def server() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer(default=reply_for) as srv:
        yield srv


def start(config: Path, out: Path, stderr: int = subprocess.DEVNULL) -> subprocess.Popen[bytes]:
    # -X faulthandler: a SIGABRT makes a stuck run print every thread's stack
    return subprocess.Popen(
        [
            sys.executable,
            "-X",
            "faulthandler",
            "-m",
            "harness.cli",
            "run",
            str(config),
            "--out",
            str(out),
            "--no-report",
        ],
        env={**os.environ, KEY_ENV: "sk-crash-test"},
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        **FOREGROUND,
    )


def finish(config: Path, out: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    """The same run to its end, in this process (what resumes is tested, not a process)."""
    environ = {**os.environ, KEY_ENV: "sk-crash-test"}
    return lighthouse("run", config, "--out", out, "--no-report", *flags, env=environ)


def wait_until(ready: Any, proc: subprocess.Popen[bytes], limit: float = 120.0) -> None:
    """Poll ``ready()`` until it holds; fail if the run ends or ``limit`` s pass first."""
    deadline = time.monotonic() + limit
    while not ready():
        assert proc.poll() is None, "the run ended before the point the test waits for"
        assert time.monotonic() < deadline, f"not ready after {limit} s"
        time.sleep(0.01)


def finished(out: Path) -> int:
    path = out / "episodes.jsonl"
    return path.read_bytes().count(b"\n") if path.exists() else 0


def kill_when(proc: subprocess.Popen[bytes], ready: Any, limit: float = 60.0) -> None:
    deadline = time.monotonic() + limit
    while not ready() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)


def outcome(out: Path) -> dict[str, tuple[list[float], str, dict[str, float]]]:
    return {s.episode_id: (s.scores, s.reason, s.metrics) for s in ResultsFolder(out).summaries()}


def _kill_early(config: Path, out: Path) -> None:
    """Killed almost at once, before or while the folder is set up."""
    kill_when(start(config, out), lambda: (out / "manifest.json").exists())


def _kill_after(done: int) -> Any:
    """Killed as soon as ``done`` episodes are finished (others are in play)."""

    def kill(config: Path, out: Path) -> None:
        kill_when(start(config, out), lambda: finished(out) >= done)

    return kill


def _kill_after_restart(config: Path, out: Path) -> None:
    """Killed mid-episode, a moment after a restart."""
    proc = start(config, out)
    time.sleep(0.8)
    kill_when(proc, lambda: True)


#: The points a run is killed at, in turn, before the run that finishes it.
EVERY_POINT = (_kill_early, _kill_after(3), _kill_after(9), _kill_after_restart)


@pytest.mark.parametrize(
    "points",
    [
        # the default run kills once, with episodes finished and others in play
        pytest.param((_kill_after(3),), id="mid-run"),
        # every point, one after another on the same folder
        pytest.param(EVERY_POINT, id="every-point", marks=pytest.mark.slow),
    ],
)
def test_sigkill_at_several_points_then_rerun(
    server: ScriptedLLMServer, tmp_path: Path, points: tuple[Any, ...]
) -> None:
    config = tmp_path / "crash.toml"
    config.write_text(CONFIG.format(url=server.openai_url, key_env=KEY_ENV))

    # The uninterrupted run, for comparison: in this process, its episodes on the event
    # loop (a pool plays the same episodes, tests/tournament/test_pool.py)
    clean = tmp_path / "clean"
    done = finish(config, clean, "--workers", "0")
    assert done.returncode == 0, done.stderr
    expected = outcome(clean)
    assert len(expected) == 20

    crashed = tmp_path / "crashed"
    for kill in points:
        kill(config, crashed)
    # finally: run to completion (its scripted episodes in worker processes)
    done = finish(config, crashed)
    assert done.returncode == 0, done.stderr

    folder = ResultsFolder(crashed)
    ids = [s.episode_id for s in folder.summaries()]
    assert len(ids) == len(set(ids)) == 20  # every episode exactly once
    assert not list(folder.records.glob("*.partial"))
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for record in folder.iter_records():
        lines = [json.loads(line) for line in record.read_text().splitlines()]
        assert lines[0]["type"] == "header"
        assert lines[-1]["type"] == "end"
        for line in lines:
            validator.validate(line)
    assert outcome(crashed) == expected  # the same results as the uninterrupted run
    # and a further rerun has nothing left to do
    again = finish(config, crashed)
    assert again.returncode == 0, again.stderr
    assert "0 episodes played, 20 already done, 20 in all" in again.stderr
    assert len(folder.summaries()) == 20


def test_ctrl_c_stops_cleanly_and_the_rerun_resumes(
    server: ScriptedLLMServer, tmp_path: Path
) -> None:
    # The seats' calls are held back until the test lets them go (the preflight call,
    # which has no system prompt, is answered), so the run is surely in the middle
    # (some baseline episodes done, model calls waiting) when Ctrl-C arrives, however
    # fast or busy the machine is.
    answer = threading.Event()

    def held(path: str, body: dict[str, Any]) -> Action:
        if "in Lighthouse, a cooperative game" in json.dumps(body):
            answer.wait(timeout=120)
        return reply_for(path, body)

    server.default = held
    config = tmp_path / "crash.toml"
    config.write_text(CONFIG.format(url=server.openai_url, key_env=KEY_ENV))
    out = tmp_path / "out"
    proc = start(config, out, stderr=subprocess.PIPE)
    try:
        wait_until(lambda: finished(out) >= 1 and server.in_flight >= 1, proc)
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)
            _, err = proc.communicate(timeout=30)
            pytest.fail(f"not stopped 60 s after Ctrl-C; its threads:\n{err.decode()[-8000:]}")
    finally:
        answer.set()
    assert proc.returncode == 130
    assert b"run the same command again" in err
    assert b"Traceback" not in err
    done = finished(out)
    assert 1 <= done < 20
    rerun = start(config, out, stderr=subprocess.PIPE)
    _, err = rerun.communicate(timeout=300)
    assert rerun.returncode == 0
    assert f"{done} already done" in err.decode()
    ids = [s.episode_id for s in ResultsFolder(out).summaries()]
    assert len(ids) == len(set(ids)) == 20
