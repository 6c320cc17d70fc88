"""Scripted episodes in worker processes: the same records, every core, crash safety."""

from __future__ import annotations

import asyncio
import hashlib
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.errors import ConfigError, WorkerError
from harness.registry import get_game
from harness.tournament.config import TournamentConfig, load_tournament
from harness.tournament.pool import (
    ScriptedPool,
    WorkerSetup,
    check_workers,
    entrant_is_scripted,
)
from harness.tournament.run import plan_episodes, run_tournament
from harness.tournament.store import ResultsFolder
from tests.ctrl_c import FOREGROUND
from tests.in_process import lighthouse

GAME = get_game("lighthouse")
MIXED = """
name = "mixed"
seeds = {{ start = 0, stop = {seeds} }}
variants = ["default", "spring"]
reference = "lantern"
rules = {{ maxTicks = 40 }}

[[entrants]]
name = "lantern"
keeper = {{ baseline = "lantern" }}
runners = {{ baseline = "wallhug" }}

[[entrants]]
name = "pilot"
keeper = {{ baseline = "pilot" }}
runners = {{ baseline = "wallhug" }}

[[entrants]]
name = "mine"
keeper = {{ python = "tests.tournament.test_pool:quiet_keeper" }}
runners = {{ baseline = "wallhug" }}
"""
SCRIPTED = """
name = "scripted"
seeds = {{ start = 0, stop = {seeds} }}
variants = ["default"]

[[entrants]]
name = "lantern"
keeper = {{ baseline = "lantern" }}
runners = {{ baseline = "wallhug" }}
"""


def quiet_keeper(seen: Any) -> str:
    """A Python agent (not scripted: it plays on the event loop): never transmits."""
    return '{"transmit": false}'


def config_at(tmp_path: Path, text: str) -> TournamentConfig:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return load_tournament(path)


def timeless(line: dict[str, Any]) -> dict[str, Any]:
    """A record line without its wall-clock facts (when and how long, never what)."""
    out = {k: v for k, v in line.items() if k != "wallClock"}
    if line.get("type") == "tick":
        out["seats"] = {
            seat: {k: v for k, v in turn.items() if k != "wallClock"}
            for seat, turn in line["seats"].items()
        }
    return out


def records(out: Path) -> dict[str, list[dict[str, Any]]]:
    return {
        path.name: [timeless(json.loads(line)) for line in path.read_text().splitlines()]
        for path in sorted((out / "records").glob("*.jsonl"))
    }


def results_lines(out: Path) -> dict[str, dict[str, Any]]:
    """Each results line without its record's sha256 (records carry wall-clock facts),
    after checking that sha256 against the record on disk."""
    found = {}
    for line in (out / "episodes.jsonl").read_text().splitlines():
        data = json.loads(line)
        record = (out / "records" / f"{data['episodeId']}.jsonl").read_bytes()
        assert data.pop("recordSha256") == hashlib.sha256(record).hexdigest()
        found[data["episodeId"]] = data
    return found


@pytest.mark.parametrize(
    "seeds",
    [pytest.param(3, id="3-seeds"), pytest.param(6, id="6-seeds", marks=pytest.mark.slow)],
)
def test_worker_processes_and_the_event_loop_write_identical_records(
    tmp_path: Path, seeds: int
) -> None:
    config = config_at(tmp_path, MIXED.format(seeds=seeds))
    loop = asyncio.run(run_tournament(config, tmp_path / "loop", workers=0))
    pooled = asyncio.run(run_tournament(config, tmp_path / "pool", workers=2))
    # the two scripted entrants went to the workers, the Python agent stayed on the loop
    scripted = sum(1 for p in plan_episodes(config) if p.entrant.name != "mine")
    assert (loop.in_workers, loop.workers) == (0, 0)
    episodes = seeds * 2 * 3  # two variants, three entrants
    assert (pooled.in_workers, pooled.workers, pooled.played) == (scripted, 2, episodes)
    assert records(tmp_path / "pool") == records(tmp_path / "loop")
    assert len(records(tmp_path / "pool")) == episodes
    # results lines carry no wall clock of their own: the same figures (in another
    # order, as episodes finish in another order)
    assert results_lines(tmp_path / "pool") == results_lines(tmp_path / "loop")
    assert not list((tmp_path / "pool" / "records").glob("*.partial"))


def test_a_resumed_run_gives_workers_only_what_is_left(tmp_path: Path) -> None:
    config = config_at(tmp_path, SCRIPTED.format(seeds=10))
    out = tmp_path / "out"
    first = asyncio.run(run_tournament(config, out, workers=2, narrowing=None))
    assert (first.played, first.in_workers) == (10, 10)
    again = asyncio.run(run_tournament(config, out, workers=2))
    # nothing left: no pool is started at all
    assert (again.already_done, again.played, again.workers) == (10, 0, 0)
    assert len(ResultsFolder(out).summaries()) == 10


def test_an_entrant_is_scripted_when_every_seat_is_a_baseline(tmp_path: Path) -> None:
    config = config_at(tmp_path, MIXED.format(seeds=1))
    assert [entrant_is_scripted(GAME, e) for e in config.entrants] == [True, True, False]


@pytest.mark.parametrize("bad", [-1, 1.5, True, "2"])
def test_check_workers_refuses_what_is_not_a_count(bad: Any) -> None:
    with pytest.raises(ConfigError, match="--workers: must be a whole number >= 0"):
        check_workers(bad)
    assert check_workers(0) == 0


def test_the_command_line_refuses_negative_workers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "c.toml").write_text(SCRIPTED.format(seeds=1))
    assert main(["run", str(tmp_path / "c.toml"), "--workers", "-1"]) == 2
    assert "--workers: must be a whole number >= 0, got -1" in capsys.readouterr().err
    assert not (tmp_path / "results").exists()


# --- SIGKILL: of a worker, and of the parent --------------------------------------------


def start(config: Path, out: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "run", str(config), "--out", str(out),
         "--no-report", "--workers", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        **FOREGROUND,
    )  # fmt: skip


def rerun(config: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """The same command again, to its end: in this process, with its two workers."""
    return lighthouse("run", config, "--out", out, "--no-report", "--workers", "2")


def children(pid: int) -> list[int]:
    """The worker processes of ``pid`` (spawned by multiprocessing)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdecimal():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rpartition(")")[2].split()[1])
        if ppid == pid and b"spawn_main" in cmdline:
            found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_for(ready: Any, what: str, limit: float = 120.0) -> None:
    """Poll ``ready()``; a generous limit only so a broken run cannot hang the suite."""
    deadline = time.monotonic() + limit
    while not ready():
        assert time.monotonic() < deadline, f"{what}: not after {limit} s"
        time.sleep(0.005)


def finished(out: Path) -> int:
    path = out / "episodes.jsonl"
    return path.read_bytes().count(b"\n") if path.exists() else 0


def partials(out: Path) -> set[str]:
    return {p.name.removesuffix(".jsonl.partial") for p in (out / "records").glob("*.partial")}


def check_complete(out: Path, planned: int) -> None:
    """Every planned episode finished exactly once, each line matching its record."""
    lines = (out / "episodes.jsonl").read_text().splitlines()
    ids = [json.loads(line)["episodeId"] for line in lines]
    assert len(ids) == len(set(ids)) == planned
    assert {p.name.removesuffix(".jsonl") for p in (out / "records").glob("*.jsonl")} == set(ids)
    assert not partials(out)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds workers in /proc")
def test_a_worker_killed_mid_episode_is_recovered_on_resume(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text(SCRIPTED.format(seeds=400))
    out = tmp_path / "out"
    proc = start(config, out)
    try:
        wait_for(lambda: len(children(proc.pid)) == 2, "two workers")
        wait_for(lambda: finished(out) >= 3 and partials(out), "episodes in play")
        victim = children(proc.pid)[0]
        os.kill(victim, signal.SIGKILL)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    # the run stops with a clear error, no traceback, and keeps what finished
    text = err.decode()
    assert proc.returncode == 2, text
    assert "a worker process died" in text
    assert "run the same command again" in text
    assert "Traceback" not in text
    kept = finished(out)
    assert 3 <= kept < 400
    lines = (out / "episodes.jsonl").read_text().splitlines()
    assert len({json.loads(line)["episodeId"] for line in lines}) == kept
    # the killed worker's episode was left partial, never finished
    assert partials(out)
    resumed = rerun(config, out)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{400 - kept} episodes played, {kept} already done, 400 in all" in resumed.stderr
    check_complete(out, 400)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds workers in /proc")
def test_a_parent_killed_takes_its_workers_and_the_rerun_finishes(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text(SCRIPTED.format(seeds=300))
    out = tmp_path / "out"
    proc = start(config, out)
    try:
        wait_for(lambda: len(children(proc.pid)) == 2, "two workers")
        workers = children(proc.pid)
        wait_for(lambda: finished(out) >= 3, "episodes finished")
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        proc.kill()
    # orphaned workers notice their parent is gone and end (none plays on alone)
    wait_for(lambda: not any(alive(w) for w in workers), "workers ended", limit=60)
    kept = finished(out)
    resumed = rerun(config, out)
    assert resumed.returncode == 0, resumed.stderr
    assert "already done" in resumed.stderr
    check_complete(out, 300)
    assert kept <= 300


def test_a_worker_dying_while_a_wait_is_cancelled_ends_every_worker(tmp_path: Path) -> None:
    """A chunk whose wait was cancelled (the run stopping) before a worker died must not
    leave the other worker alive: on Python 3.11 the executor's thread died failing the
    cancelled future and never ended it, and the run hung on exit waiting for it."""
    config = config_at(tmp_path, SCRIPTED.format(seeds=200))
    setup = WorkerSetup(config, {"lantern": None}, tmp_path / "out")
    ResultsFolder(setup.root).records.mkdir(parents=True)
    plans = [plan for plan in plan_episodes(config) if plan.seed < 200]
    thread_errors: list[BaseException | None] = []
    previous = threading.excepthook
    threading.excepthook = lambda args: thread_errors.append(args.exc_value)

    async def scenario() -> list[int]:
        async with ScriptedPool(setup, 2) as pool:
            # two long chunks in play and one queued fill the executor's call queue; the
            # fourth waits in the executor, where a cancelled wait could cancel it
            long = [asyncio.ensure_future(pool.play(plans[i::3])) for i in range(3)]
            waiting = asyncio.ensure_future(pool.play(plans[:1]))
            await asyncio.sleep(0)
            while len(multiprocessing.active_children()) < 2:
                await asyncio.sleep(0.05)
            workers = [c.pid for c in multiprocessing.active_children() if c.pid is not None]
            waiting.cancel()
            await asyncio.sleep(0.2)
            os.kill(workers[0], signal.SIGKILL)
            outcomes = await asyncio.gather(*long, return_exceptions=True)
            assert any(isinstance(outcome, WorkerError) for outcome in outcomes)
        return workers

    try:
        workers = asyncio.run(scenario())
    finally:
        threading.excepthook = previous
    # the pool's exit ended both workers, and the executor's thread died of nothing
    assert not multiprocessing.active_children()
    assert not [pid for pid in workers if alive(pid)]
    assert thread_errors == []


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="names fds through /proc")
@pytest.mark.parametrize("workers", [0, 1])
def test_the_run_fsyncs_each_record_before_moving_it_and_writing_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int
) -> None:
    """The one committer makes every record durable, whoever played it (a worker's
    own fsyncs would not show here: it is another process), before its rename, and the
    renames before the results lines."""
    config = config_at(tmp_path, SCRIPTED.format(seeds=6))
    out = (tmp_path / "out").resolve()
    steps: list[tuple[str, str]] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        steps.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def replace(src: Any, dst: Any) -> None:
        steps.append(("replace", str(Path(src).resolve())))
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    asyncio.run(run_tournament(config, out, workers=workers))
    episodes = sorted(ResultsFolder(out).summaries(), key=lambda s: s.episode_id)
    assert len(episodes) == 6
    for summary in episodes:
        partial = str(out / "records" / f"{summary.episode_id}.jsonl.partial")
        synced = steps.index(("fsync", partial))
        moved = steps.index(("replace", partial))
        renames_durable = steps.index(("fsync", str(out / "records")), moved)
        line_durable = steps.index(("fsync", str(out / "episodes.jsonl")), renames_durable)
        assert synced < moved < renames_durable < line_durable
        assert steps.count(("fsync", partial)) == 1
