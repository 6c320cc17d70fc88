"""The plan without a list, and the worker pool that pulls episodes from it lazily."""

from __future__ import annotations

import asyncio
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.records import AgentInfo
from harness.registry import get_game
from harness.seats import BaselineSeat, Seat, SeatReply, SeatRequest
from harness.tournament import commit
from harness.tournament.config import TournamentConfig
from harness.tournament.manifest import Manifest
from harness.tournament.narrow import Narrowing
from harness.tournament.plan import (
    EpisodePlan,
    PlanIndex,
    count_episodes,
    iter_episodes,
    plan_episodes,
)
from harness.tournament.playing import play_all
from harness.tournament.run import run_tournament
from harness.tournament.store import ResultsFolder

GAME = get_game("lighthouse")


def config(
    seeds: Any, *, entrants: int = 3, repetitions: int = 2, **extra: Any
) -> TournamentConfig:
    return TournamentConfig.model_validate(
        {
            "name": "plan",
            "seeds": seeds,
            "variants": ["default", "spring"],
            "repetitions": repetitions,
            "rules": {"maxTicks": 2},
            "entrants": [
                {
                    "name": f"e-{i}",
                    "keeper": {"baseline": "lantern"},
                    "runners": {"baseline": "wallhug"},
                }
                for i in range(entrants)
            ],
            **extra,
        }
    )


@pytest.mark.parametrize("seeds", [[5, 1, 9], {"start": 10, "stop": 14}])
@pytest.mark.parametrize("shard", [(1, 1), (1, 2), (2, 2), (2, 3), (3, 3), (5, 7)])
def test_the_index_is_the_plan(seeds: Any, shard: tuple[int, int]) -> None:
    cfg = config(seeds)
    plans = plan_episodes(cfg, shard)
    index = PlanIndex(cfg, shard)
    assert len(index) == len(plans) == count_episodes(cfg, shard)
    assert list(index) == [p.episode_id for p in plans]
    for plan in plans:
        assert plan.episode_id in index
        assert index[plan.episode_id] == (plan.entrant.name, plan.repetition)
    others = {p.episode_id for p in plan_episodes(cfg)} - {p.episode_id for p in plans}
    assert not any(other in index for other in others)  # another shard's episodes


def test_the_plan_is_seed_major() -> None:
    cfg = config([5, 1, 9], entrants=2, repetitions=2)
    order = [(p.repetition, p.seed, p.variant, p.entrant.name) for p in iter_episodes(cfg)]
    expected = [
        (rep, seed, variant, entrant)
        for rep in range(2)
        for seed in [5, 1, 9]  # the config's seed order
        for variant in ["default", "spring"]
        for entrant in ["e-0", "e-1"]
    ]
    assert order == expected
    # so any prefix of the plan holds every variant of every seed it reached but the last
    for stop in range(1, len(order)):
        reached = {(s, v) for rep, s, v, _ in order[:stop] if rep == 0}
        seeds = list(dict.fromkeys(s for rep, s, _, _ in order[:stop] if rep == 0))
        assert all((s, v) in reached for s in seeds[:-1] for v in ["default", "spring"])


@pytest.mark.parametrize("shard", [(1, 2), (2, 2), (2, 3), (3, 3), (4, 7)])
def test_shards_split_by_the_episode_number_as_before(shard: tuple[int, int]) -> None:
    """The split of the plan's first (variant-major) numbering: a shard's folder begun
    under it still holds that shard's episodes."""
    cfg = config({"start": 10, "stop": 14}, entrants=3, repetitions=2)
    numbered = [
        (rep, variant, seed, f"e-{e}")
        for rep in range(2)
        for variant in ["default", "spring"]
        for seed in range(10, 14)
        for e in range(3)
    ]
    index, count = shard
    mine = [n for i, n in enumerate(numbered) if i % count == index - 1]
    got = [(p.repetition, p.variant, p.seed, p.entrant.name) for p in iter_episodes(cfg, shard)]
    assert sorted(got) == sorted(mine)
    assert len(got) == len(set(got))
    plans = PlanIndex(cfg, shard)
    slots = [place for place, _ in plans.placed()]
    assert sorted(slots) == list(range(len(mine)))
    assert all(plans.position(p.episode_id) == place for place, p in plans.placed())


def test_a_limited_run_leaves_whole_seeds(tmp_path: Path) -> None:
    cfg = config({"start": 0, "stop": 6}, entrants=3, repetitions=1)
    out = tmp_path / "limited"
    # 3 seeds x 2 variants x 3 entrants, and one episode of the fourth seed
    asyncio.run(run_tournament(cfg, out, narrowing=Narrowing(limit=19)))
    cells = {(s.entrant, s.seed, s.variant) for s in ResultsFolder(out).summaries()}
    assert len(cells) == 19
    whole = {
        (f"e-{e}", seed, v) for e in range(3) for seed in range(3) for v in ["default", "spring"]
    }
    assert whole <= cells
    assert cells - whole == {("e-0", 3, "default")}


@pytest.mark.parametrize(
    "episode",
    [
        "e-1--default--s05--r0",  # a seed with a leading zero names no episode
        "e-1--default--s5--r2",  # a repetition past the last
        "e-9--default--s5--r0",  # no such entrant
        "e-1--neap--s5--r0",  # no such variant
        "e-1--default--s6--r0",  # no such seed
        "e-1--default--s5",
        "e-1--default--s5--r" + "9" * 5000,  # too long to be a number worth parsing
        "",
        "--r0",
    ],
)
def test_what_is_not_in_the_plan(episode: str) -> None:
    index = PlanIndex(config([5, 1, 9]))
    assert "e-1--default--s5--r0" in index
    assert episode not in index
    with pytest.raises(KeyError):
        index[episode]


def test_a_million_seeds_take_no_memory() -> None:
    cfg = config({"start": 0, "stop": 1_000_000}, entrants=2, repetitions=1)
    tracemalloc.start()
    try:
        index = PlanIndex(cfg)
        size = len(index)
        found = "e-1--spring--s999999--r0" in index
        first = next(iter_episodes(cfg))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert size == 4_000_000
    assert found
    assert first.episode_id == "e-0--default--s0--r0"
    assert peak < 1_000_000  # a list of the plan would take hundreds of megabytes


class Gate:
    """A keeper that holds every episode at its first tick until ``opened`` is set."""

    def __init__(self) -> None:
        self.opened = asyncio.Event()
        self.waiting = 0
        self.fail = False
        self._baseline = BaselineSeat("lantern")

    @property
    def agent(self) -> AgentInfo:
        return AgentInfo(kind="baseline", name="lantern")

    async def decide(self, request: SeatRequest) -> SeatReply:
        self.waiting += 1
        try:
            await self.opened.wait()
        finally:
            self.waiting -= 1
        if self.fail:
            raise RuntimeError("this seat stops the tournament")
        return await self._baseline.decide(request)


def counting(plans: Iterator[EpisodePlan], pulled: list[str]) -> Iterator[EpisodePlan]:
    for plan in plans:
        pulled.append(plan.episode_id)
        yield plan


async def settle() -> None:
    """Let every task run until none can move (a bounded number of loop turns)."""
    for _ in range(200):
        await asyncio.sleep(0)


def open_folder(tmp_path: Path, cfg: TournamentConfig) -> ResultsFolder:
    folder = ResultsFolder(tmp_path / "out")
    folder.open(Manifest(game="lighthouse", config_hash=cfg.config_hash(), shard="1/1"))
    return folder


def test_workers_pull_episodes_only_as_they_get_free(tmp_path: Path) -> None:
    cfg = config({"start": 0, "stop": 1000}, entrants=1, repetitions=1)
    folder = open_folder(tmp_path, cfg)
    gate, pulled = Gate(), list[str]()
    seats: dict[str, dict[str, Seat]] = {
        "e-0": {"keeper": gate, **{f"runner{i}": BaselineSeat("wallhug") for i in (1, 2, 3)}}
    }

    async def go() -> None:
        todo = counting(iter_episodes(cfg), pulled)
        playing = asyncio.create_task(play_all(cfg, GAME, folder, todo, seats, 4, None))
        await settle()
        # four episodes wait at their first tick; nothing else was taken from the plan
        assert (gate.waiting, len(pulled)) == (4, 4)
        gate.fail = True
        gate.opened.set()
        await playing

    # the first failure comes out as itself, not wrapped in an exception group
    with pytest.raises(RuntimeError, match="this seat stops the tournament"):
        asyncio.run(go())
    assert len(pulled) == 4
    assert folder.summaries() == []


def test_every_episode_pulled_is_committed_once(tmp_path: Path) -> None:
    cfg = config([1, 2, 3, 4, 5], entrants=2, repetitions=1)
    folder = open_folder(tmp_path, cfg)
    seats: dict[str, dict[str, Seat]] = {
        entrant.name: {
            "keeper": BaselineSeat("lantern"),
            **{f"runner{i}": BaselineSeat("wallhug") for i in (1, 2, 3)},
        }
        for entrant in cfg.entrants
    }
    pulled: list[str] = []
    asyncio.run(play_all(cfg, GAME, folder, counting(iter_episodes(cfg), pulled), seats, 3, None))
    committed = [s.episode_id for s in folder.summaries()]
    assert sorted(committed) == sorted(pulled)
    assert len(committed) == len(set(committed)) == 20
    assert not list(folder.records.glob("*.partial"))


def baseline_seats(cfg: TournamentConfig) -> dict[str, dict[str, Seat]]:
    return {
        entrant.name: {
            "keeper": BaselineSeat("lantern"),
            **{f"runner{i}": BaselineSeat("wallhug") for i in (1, 2, 3)},
        }
        for entrant in cfg.entrants
    }


class CountingFolder(ResultsFolder):
    """A results folder that counts its batches of commits."""

    batches: list[int]

    def settle(self, summaries: Any) -> None:
        self.batches.append(len(summaries))
        super().settle(summaries)


def test_episodes_that_finish_together_share_a_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = config([1, 2, 3, 4, 5], entrants=2, repetitions=1)
    folder = CountingFolder(tmp_path / "out")
    folder.batches = []
    folder.open(Manifest(game="lighthouse", config_hash=cfg.config_hash(), shard="1/1"))
    monkeypatch.setattr(commit, "COMMIT_EVERY", 3600.0)  # a turn never comes by time
    asyncio.run(play_all(cfg, GAME, folder, iter_episodes(cfg), baseline_seats(cfg), 4, None))
    assert len(folder.summaries()) == 20
    # the first batch is committed at once; the rest wait for the committer's next turn,
    # which comes early when its queue is full (4 x 4 workers) or the plan runs out
    batches = [size for size in folder.batches if size]
    assert sum(batches) == 20
    assert len(batches) <= 3
    assert max(batches) <= 17
    assert not list(folder.records.glob("*.partial"))


def test_a_cancelled_run_still_commits_what_finished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cfg = config({"start": 0, "stop": 1000}, entrants=1, repetitions=1)
    folder = CountingFolder(tmp_path / "out")
    folder.batches = []
    folder.open(Manifest(game="lighthouse", config_hash=cfg.config_hash(), shard="1/1"))
    monkeypatch.setattr(commit, "COMMIT_EVERY", 3600.0)
    pulled: list[str] = []

    async def go() -> None:
        todo = counting(iter_episodes(cfg), pulled)
        playing = asyncio.create_task(
            play_all(cfg, GAME, folder, todo, baseline_seats(cfg), 2, None)
        )
        while len(pulled) < 12:  # episodes finish and wait for the committer's next turn
            await asyncio.sleep(0)
        playing.cancel()
        with pytest.raises(asyncio.CancelledError):
            await playing

    asyncio.run(go())
    committed = {s.episode_id for s in folder.summaries()}
    # every episode a worker had finished is committed (in the committer's turns, and as
    # it was cancelled, though its next turn was an hour away); only those in play are not
    assert len(committed) >= 9
    assert committed <= set(pulled)
    left = {p.name.removesuffix(".jsonl.partial") for p in folder.records.glob("*.partial")}
    assert committed.isdisjoint(left)
    assert len(committed) + len(left) == len(pulled)
