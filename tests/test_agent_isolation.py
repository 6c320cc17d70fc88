"""A Python agent can fail only its own turn: whatever it does, the run keeps its
deadlines, its Ctrl-C and its count of threads and processes (docs/agents.md).

The misbehaving agents are in tests/agents_misbehaving.py. The tournaments run in a
process of their own (tests/agent_soak.py), which counts its own threads and child
processes before and after, so that nothing another test left behind is counted;
this test watches its descendants from outside while it runs.

Margins: an episode must end within its play budget plus one second, the margin the
acceptance states, and not by its deadline. The budget (18 s) is far above what an
episode of misbehaving turns takes (each turn is cut at 0.5 s; a worker's
replacement is a fork, and even the first worker's start, a fresh interpreter, took
under 8 s at a load of 14 on two cores), so a loaded machine does not make an
episode reach it; what the margin catches is a run that does not cut a turn off (a
GIL held for 60 s, a cancellation swallowed, a call that never returns). Ctrl-C must
end the run within 60 s while its agent holds the GIL for 600 s (it takes well
under a second).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import harness
from harness.agents import AgentInput, PythonSeat
from harness.agents.inprocess import ABANDONED_CALLS
from harness.agents.pool import WorkerPool
from harness.episode import run_episode
from harness.errors import ConfigError
from harness.llm.prompts import PromptSet, default_prompt_files
from harness.registry import get_game
from harness.seat_spec import PythonSeatConfig, parse_seat_arg
from harness.seats import baseline_seats
from tests.agent_soak import PLAY_BUDGET, descendants
from tests.agents_misbehaving import READY_FILE, REPLY
from tests.ctrl_c import FOREGROUND

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="counts processes in /proc"
)

ROOT = Path(__file__).resolve().parents[1]
MARGIN_S = 1.0
AGENTS = "tests.agents_misbehaving"
#: What each misbehaving agent's turns come to.
EXPECTED = {
    "exits": "fallback_error",
    "interrupts": "fallback_error",
    "holds_the_gil": "fallback_timeout",
    "backtracks": "fallback_timeout",
    "swallows_cancellation": "fallback_timeout",
    "never_returns": "fallback_timeout",
}


def soak(agent: str, episodes: int, folder: Path, *, concurrency: int, ticks: int) -> Any:
    """Run tests/agent_soak.py; its figures, with the most descendants seen at once."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.agent_soak", agent, str(episodes), str(folder),
         "--concurrency", str(concurrency), "--ticks", str(ticks)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    peak = 0
    while proc.poll() is None:
        peak = max(peak, len(descendants(proc.pid)))
        time.sleep(0.05)
    out, err = proc.communicate()
    assert proc.returncode == 0, err
    figures = json.loads(out)
    figures["peakDescendants"] = peak
    return figures


def records(folder: Path) -> list[list[dict[str, Any]]]:
    return [
        [json.loads(line) for line in path.read_text().splitlines()]
        for path in sorted((folder / "results" / "records").glob("*.jsonl"))
    ]


def check_soak(agent: str, episodes: int, tmp_path: Path, concurrency: int, ticks: int) -> None:
    figures = soak(agent, episodes, tmp_path, concurrency=concurrency, ticks=ticks)
    assert figures["played"] == episodes
    assert figures["after"] == figures["before"]  # not a thread, not a process more
    # the fork server, a worker per episode in play, and as many killed ones not reaped yet
    assert figures["peakDescendants"] <= 1 + 2 * concurrency
    played = records(tmp_path)
    assert len(played) == episodes
    for lines in played:
        end = lines[-1]
        assert end["results"]["reason"] != "deadline"
        assert end["wallClock"]["playSeconds"] <= PLAY_BUDGET + MARGIN_S
        turns = [line["seats"]["keeper"] for line in lines[1:-1]]
        assert len(turns) == ticks
        assert {turn["source"] for turn in turns} == {EXPECTED[agent]}


@pytest.mark.parametrize("agent", sorted(set(EXPECTED) - {"backtracks"}))
def test_a_misbehaving_agent_fails_only_its_own_turns(agent: str, tmp_path: Path) -> None:
    check_soak(agent, 4, tmp_path, concurrency=2, ticks=2)


@pytest.mark.slow
def test_a_catastrophic_regex_fails_only_its_own_turns(tmp_path: Path) -> None:
    check_soak("backtracks", 4, tmp_path, concurrency=2, ticks=2)


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize(
    "agent", ["exits", "holds_the_gil", "swallows_cancellation", "never_returns"]
)
def test_300_episodes_of_a_misbehaving_agent_leave_no_thread_or_process(
    agent: str, tmp_path: Path
) -> None:
    check_soak(agent, 300, tmp_path, concurrency=4, ticks=1)


@pytest.mark.parametrize("command", ["play", "run"])
def test_ctrl_c_stops_a_run_whose_agent_holds_the_gil(command: str, tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    agent = f"{AGENTS}:announces_then_holds_the_gil"
    if command == "play":
        argv = ["play", "--seed", "7", "--keeper", f"python:{agent}", "--agent-timeout", "300"]
    else:
        config = tmp_path / "gil.toml"
        config.write_text(
            textwrap.dedent(
                f"""
                name = "gil"
                seeds = {{ start = 0, stop = 4 }}
                variants = ["default"]
                [[entrants]]
                name = "gil"
                keeper = {{ python = "{agent}", timeout_seconds = 300 }}
                runners = {{ baseline = "wallhug" }}
                """
            )
        )
        argv = ["run", str(config), "--out", str(tmp_path / "out"), "--no-report"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", *argv],
        cwd=ROOT,
        env={**os.environ, READY_FILE: str(ready)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **FOREGROUND,
    )
    try:
        while not ready.exists():  # then the agent is in C, the GIL held for 600 s
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        worker = int(ready.read_text())
        assert worker in descendants(proc.pid)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)  # far less than the 600 s the agent holds
    finally:
        proc.kill()
    took = time.monotonic() - sent
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert not Path(f"/proc/{worker}").exists()  # the worker went with the run
    print(f"{command}: stopped {took:.2f} s after Ctrl-C")


def keeper_turns(result: harness.PlayResult) -> list[dict[str, Any]]:
    return [tick["seats"]["keeper"] for tick in result.ticks]


def short() -> harness.Env:
    return harness.make("lighthouse", rules={"maxTicks": 3})


def where(turns: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """(process id, call number) of each turn of :func:`tells_where`."""
    out = []
    for turn in turns:
        _, pid, _, calls = turn["decision"]["message"].split()
        out.append((int(pid), int(calls)))
    return out


@pytest.mark.parametrize("agent", ["tells_where", "tells_where_async"])
def test_an_agent_by_import_path_runs_in_a_worker_that_keeps_its_memory(agent: str) -> None:
    before = set(descendants(os.getpid()))  # what earlier tests left may end, not start
    result = short().play(seed=7, keeper=f"python:{AGENTS}:{agent}")
    places = where(keeper_turns(result))
    assert {pid for pid, _ in places} != {os.getpid()}
    assert len({pid for pid, _ in places}) == 1  # one worker for the seat's episode
    assert [calls for _, calls in places] == [1, 2, 3]  # its globals kept between calls
    assert set(descendants(os.getpid())) <= before  # every process ended with the run


def test_a_tournament_reuses_its_workers_and_leases_one_per_episode(tmp_path: Path) -> None:
    from harness.tournament.config import load_tournament
    from harness.tournament.run import run_tournament

    config = tmp_path / "where.toml"
    config.write_text(
        textwrap.dedent(
            f"""
            name = "where"
            seeds = {{ start = 0, stop = 8 }}
            variants = ["default"]
            concurrency = 2
            rules = {{ maxTicks = 3 }}
            [[entrants]]
            name = "where"
            keeper = {{ python = "{AGENTS}:tells_where" }}
            runners = {{ baseline = "wallhug" }}
            """
        )
    )
    asyncio.run(run_tournament(load_tournament(config), tmp_path / "results"))
    pids = set()
    for lines in records(tmp_path):
        places = where([line["seats"]["keeper"] for line in lines[1:-1]])
        assert len({pid for pid, _ in places}) == 1
        assert [calls for _, calls in places] == [1, 2, 3]  # a fresh lease: memory per episode
        pids |= {pid for pid, _ in places}
    assert len(pids) <= 2  # 8 episodes, 2 at once: the workers served episode after episode


@pytest.mark.parametrize(
    ("agent", "error"),
    [
        ("exits_at_tick_1", "SystemExit: bye"),
        ("dies_at_tick_1", "the agent's worker process ended during the call (exit status 1)"),
    ],
)
def test_an_agent_that_exits_fails_that_turn_and_plays_on(agent: str, error: str) -> None:
    turns = keeper_turns(short().play(seed=7, keeper=f"python:{AGENTS}:{agent}"))
    assert [turn["source"] for turn in turns] == ["python", "fallback_error", "python"]
    assert turns[1]["error"] == error


def test_an_answer_past_16_mib_is_the_agents_error() -> None:
    turns = keeper_turns(short().play(seed=7, keeper=f"python:{AGENTS}:talks_too_much"))
    assert {turn["source"] for turn in turns} == {"fallback_error"}
    assert "an answer may take at most 16,777,216 (16 MiB)" in turns[0]["error"]


def play_with(seat: PythonSeat, *, ticks: int = 3) -> list[dict[str, Any]]:
    game = get_game("lighthouse")
    state = game.rules.new_state(game.rules.make_config("default", {"maxTicks": ticks}), 7)
    seats = {**baseline_seats(game, state), "keeper": seat}

    async def play() -> Any:
        try:
            return await run_episode(game, state, seats, episode_id="e")
        finally:
            await seat.aclose()

    outcome = asyncio.run(play())
    return [doc["seats"]["keeper"] for doc in outcome.docs if doc["type"] == "tick"]


def seat_of(agent: Any, timeout: float = 60.0) -> PythonSeat:
    game = get_game("lighthouse")
    prompts = PromptSet.load(default_prompt_files("lighthouse", "keeper"))
    return PythonSeat(agent, game=game, prompts=prompts, timeout_seconds=timeout)


def test_a_module_that_fails_only_in_a_worker_is_tried_once(tmp_path: Path) -> None:
    (tmp_path / "agents_only_here.py").write_text(
        "import sys\n"
        "if sys.argv[0] == '-c':  # a worker's argv\n"
        "    raise RuntimeError('not in a worker')\n"
        f"def keeper(given):\n    return {REPLY!r}\n"
    )
    pool = WorkerPool("agents_only_here:keeper", (tmp_path,), game="lighthouse")
    turns = play_with(seat_of(pool))
    assert {turn["source"] for turn in turns} == {"fallback_error"}
    assert turns[0]["error"].startswith(
        "the agent's worker process could not load it: agents_only_here:keeper: importing "
        "agents_only_here failed: RuntimeError: not in a worker"
    )
    assert pool.started == 1  # the same module would fail the same way: no more tries


@pytest.mark.parametrize("launcher", ["fork", "spawn"])
def test_both_launchers_replace_a_worker_killed_on_a_timeout(launcher: Any) -> None:
    before = set(descendants(os.getpid()))
    pool = WorkerPool(f"{AGENTS}:slow_at_tick_1", game="lighthouse", launcher=launcher)
    turns = play_with(seat_of(pool, timeout=1.0))
    assert [turn["source"] for turn in turns] == ["python", "fallback_timeout", "python"]
    assert turns[1]["error"] == "no answer within 1 s"
    assert (pool.started, pool.killed, pool.alive) == (2, 1, 0)
    assert set(descendants(os.getpid())) <= before  # the fork server and workers ended


# -- in this process: a callable given directly, or isolation = "none" --


def test_sys_exit_and_keyboard_interrupt_from_a_callable_are_its_errors() -> None:
    def keeper(given: AgentInput) -> str:
        if given.tick == 1:
            sys.exit(2)
        if given.tick == 2:
            raise KeyboardInterrupt
        return REPLY

    async def async_keeper(given: AgentInput) -> str:
        return keeper(given)

    for agent in (keeper, async_keeper):
        turns = keeper_turns(short().play(seed=7, keeper=agent))
        assert [turn["source"] for turn in turns] == ["python", "fallback_error", "fallback_error"]
        assert [turn.get("error") for turn in turns] == [None, "SystemExit: 2", "KeyboardInterrupt"]


def test_isolation_none_runs_the_agent_in_this_process() -> None:
    spec = {"python": f"{AGENTS}:tells_where", "isolation": "none"}
    places = where(keeper_turns(short().play(seed=7, keeper=spec)))
    assert places == [(os.getpid(), 1), (os.getpid(), 2), (os.getpid(), 3)]


def test_an_async_agent_in_this_process_that_swallows_cancellation_times_out() -> None:
    spec = {
        "python": f"{AGENTS}:swallows_cancellation",
        "isolation": "none",
        "timeout_seconds": 0.5,
    }
    turns = keeper_turns(short().play(seed=7, keeper=spec))  # returns: nothing waits on it
    assert {turn["source"] for turn in turns} == {"fallback_timeout"}


_release = threading.Event()


def stuck_keeper(given: AgentInput) -> str:
    """Blocks until the test releases it (in this process, a call cannot be stopped)."""
    _release.wait(120)
    return REPLY


def test_calls_abandoned_in_this_process_are_bounded() -> None:
    def agent_threads() -> set[threading.Thread]:
        return {t for t in threading.enumerate() if t.name == "agent-keeper"}

    before = agent_threads()
    _release.clear()
    try:
        turns = play_with(seat_of(stuck_keeper, timeout=0.2), ticks=ABANDONED_CALLS + 2)
        assert len(agent_threads() - before) == ABANDONED_CALLS  # not one per tick
    finally:
        _release.set()
    sources = [turn["source"] for turn in turns]
    assert sources == ["fallback_timeout"] * ABANDONED_CALLS + ["fallback_error"] * 2
    assert turns[-1]["error"].startswith(
        f"not called: {ABANDONED_CALLS} earlier calls are still running past their timeout"
    )


def test_main_runs_in_this_process_and_cannot_ask_for_a_worker() -> None:
    assert PythonSeatConfig(python="__main__:keeper").runs_in() == "none"
    assert PythonSeatConfig(python="my_agents:keeper").runs_in() == "process"
    with pytest.raises(ValueError, match="a worker process cannot import __main__"):
        PythonSeatConfig(python="__main__:keeper", isolation="process")
    with pytest.raises(ConfigError, match="isolation"):
        parse_seat_arg(
            "python:a:b", role="keeper", baselines=["lantern"], options={"isolation": "thread"}
        )
    spec = parse_seat_arg("python:a:b", role="keeper", baselines=["lantern"],
                          options={"isolation": "none"})  # fmt: skip
    assert isinstance(spec, PythonSeatConfig)
    assert spec.runs_in() == "none"
    assert "isolation" not in spec.model_dump()  # how it runs is not who plays: no hash


def test_a_workers_error_never_shows_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.llm.secrets import register_secret

    key = "sk-agent-WORKER-0123456789abcdef"
    register_secret(key)  # known here only: the worker's message is redacted here
    monkeypatch.setenv("LIGHTHOUSE_TEST_AGENT_KEY", key)
    turns = keeper_turns(short().play(seed=7, keeper=f"python:{AGENTS}:leaks_a_key"))
    assert all(turn["error"].startswith("PermissionError: bad key") for turn in turns)
    assert all("WORKER-0123" not in turn["error"] for turn in turns)
