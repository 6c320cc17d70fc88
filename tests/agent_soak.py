"""A tournament of one misbehaving Python agent, in a process of its own, counting.

    python -m tests.agent_soak AGENT EPISODES FOLDER [--concurrency N] [--ticks N]

plays EPISODES Lighthouse episodes whose keeper is ``tests.agents_misbehaving:AGENT``
(by import path: in worker processes, the default) into FOLDER/results, and prints
one JSON object: this process's threads (Python's and the OS's) and child processes
before the tournament and after it, the settings, and the tournament's wall time.
The isolation tests run it, and so does ``benchmarks.agent_isolation``; a process
of its own, so that nothing another test left running is counted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import threading
import time
from pathlib import Path

#: The seconds one call of the agent may take.
AGENT_TIMEOUT = 0.5
#: An episode's timeout; its play budget is 60% of it.
EPISODE_TIMEOUT = 30
PLAY_BUDGET = 0.6 * EPISODE_TIMEOUT

CONFIG = """
name = "soak"
seeds = {{ start = 0, stop = {episodes} }}
variants = ["default"]
episode_timeout_seconds = {episode_timeout}
concurrency = {concurrency}
rules = {{ maxTicks = {ticks} }}

[[entrants]]
name = "agent"
keeper = {{ python = "tests.agents_misbehaving:{agent}", timeout_seconds = {agent_timeout} }}
runners = {{ baseline = "wallhug" }}
"""


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (zombies included), from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:  # it ended meanwhile
            continue
        # the command name may hold spaces and parentheses: the fields follow the last ")"
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid:
            found.append(int(entry))
    return found


def descendants(pid: int) -> list[int]:
    """Every process below ``pid``: children, theirs, and so on."""
    found, todo = [], [pid]
    while todo:
        below = children(todo.pop())
        found += below
        todo += below
    return found


def census() -> dict[str, int]:
    """This process's threads (Python's, the OS's) and child processes now.

    A thread Python has joined may take a moment more to leave /proc: the OS count is
    read again, for up to a second, until it is Python's.
    """
    threads = threading.active_count()
    for _ in range(100):
        os_threads = len(os.listdir("/proc/self/task"))
        if os_threads == threads:
            break
        time.sleep(0.01)
    return {
        "threads": threads,
        "os_threads": os_threads,
        "children": len(children(os.getpid())),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("agent")
    parser.add_argument("episodes", type=int)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--ticks", type=int, default=2)
    args = parser.parse_args(argv)

    from harness.tournament.config import load_tournament
    from harness.tournament.run import run_tournament

    args.folder.mkdir(parents=True, exist_ok=True)
    path = args.folder / "config.toml"
    path.write_text(
        CONFIG.format(
            episodes=args.episodes,
            episode_timeout=EPISODE_TIMEOUT,
            concurrency=args.concurrency,
            ticks=args.ticks,
            agent=args.agent,
            agent_timeout=AGENT_TIMEOUT,
        )
    )
    config = load_tournament(path)
    before = census()
    started = time.perf_counter()
    outcome = asyncio.run(run_tournament(config, args.folder / "results"))
    wall = time.perf_counter() - started
    after = census()
    print(
        json.dumps(
            {
                "agent": args.agent,
                "episodes": args.episodes,
                "played": outcome.played,
                "concurrency": args.concurrency,
                "ticks": args.ticks,
                "agentTimeout": AGENT_TIMEOUT,
                "playBudget": PLAY_BUDGET,
                "before": before,
                "after": after,
                "wallSeconds": round(wall, 3),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
