"""Playing a run's episodes: players on the event loop and in worker processes, one committer.

:func:`play_all` starts ``width`` players on the event loop and, with a pool, two per
worker process (one episode played, one queued); each takes the next episode when
it is free, so at most that many are in play whatever the number of episodes, and
hands it, finished, to the one :class:`~harness.tournament.commit.Committer`. The
first failure cancels everything.

A gate (:class:`~harness.tournament.budget.Admission`: a cost cap, a limit) admits
each episode before it starts: once it refuses one, every player stops taking
episodes, and those in play finish. An episode counts against the cap by its bound
until its commit records its cost.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from harness.episode import run_episode
from harness.protocol import GameEntry
from harness.records import RecordWriter
from harness.seating import Seating
from harness.seats import Seat
from harness.summary import EpisodeSummary
from harness.tournament.budget import Admission, EpisodeBound
from harness.tournament.commit import Committer
from harness.tournament.config import TournamentConfig
from harness.tournament.episode_setup import start_state
from harness.tournament.plan import EpisodePlan
from harness.tournament.pool import CHUNK, ScriptedPool
from harness.tournament.progress import Progress
from harness.tournament.store import ResultsFolder, summarize_played


async def play_all(
    config: TournamentConfig,
    game: GameEntry,
    folder: ResultsFolder,
    todo: Iterator[EpisodePlan],
    seats: dict[str, dict[str, Seat]],
    width: int,
    progress: Progress | None,
    gate: Admission | None = None,
    bounds: Mapping[str, EpisodeBound] | None = None,
    *,
    pool: ScriptedPool | None = None,
    pooled: Iterable[EpisodePlan] = (),
) -> None:
    """Play ``todo`` on the event loop with ``width`` players, and ``pooled`` (scripted
    episodes) in ``pool``'s processes, committing each as it finishes (see the module).

    ``seats`` holds each entrant's seats by seat id; ``gate`` admits each episode, by
    the cost bound ``bounds`` gives its entrant.
    """
    in_pool = 0 if pool is None else 2 * pool.workers
    # room for what finishes while a batch waits its turn and settles
    committer = Committer(folder, room=4 * (width + in_pool), gate=gate, progress=progress)
    players = _Players(config, game, folder, seats, committer, gate, bounds or {})

    async def play() -> None:
        async with asyncio.TaskGroup() as group:
            for _ in range(width):
                group.create_task(players.on_loop(todo))
            if pool is not None:
                scripted = iter(pooled)  # one iterator shared by the pool's players
                for _ in range(in_pool):
                    group.create_task(players.in_pool(pool, scripted))
        await committer.close()  # everything played: the committer ends

    try:
        async with asyncio.TaskGroup() as group:
            group.create_task(committer.run())
            group.create_task(play())
    except BaseExceptionGroup as failed:
        raise _first(failed) from None


@dataclass(frozen=True)
class _Players:
    """What every player of a run shares: where episodes go, and who admits them."""

    config: TournamentConfig
    game: GameEntry
    folder: ResultsFolder
    seats: dict[str, dict[str, Seat]]
    committer: Committer
    gate: Admission | None
    bounds: Mapping[str, EpisodeBound]

    def bound_of(self, plan: EpisodePlan) -> float:
        """The cost bound ``plan``'s episode counts by until it is committed."""
        found = self.bounds.get(plan.entrant.name)
        return (found.cost_usd or 0.0) if found is not None else 0.0

    async def on_loop(self, todo: Iterator[EpisodePlan]) -> None:
        """Play episodes of ``todo`` on the event loop, one at a time, until it runs out
        or the gate refuses one. ``todo`` is shared: each player takes the next plan."""
        for plan in todo:
            bound = self.bound_of(plan)
            if self.gate is not None and not await self.gate.admit(bound):
                break
            summary = await play_one(
                self.config, self.game, self.folder, plan, self.seats[plan.entrant.name]
            )
            await self.committer.hand_over(summary, bound)

    async def in_pool(self, pool: ScriptedPool, scripted: Iterator[EpisodePlan]) -> None:
        """Hand episodes of ``scripted`` to ``pool``, :data:`CHUNK` at a time, until it
        runs out or the gate refuses one (``scripted`` is shared like ``todo``)."""
        while True:
            chunk: list[tuple[EpisodePlan, float]] = []
            for plan in itertools.islice(scripted, CHUNK):
                bound = self.bound_of(plan)
                if self.gate is not None and not await self.gate.admit(bound):
                    break
                chunk.append((plan, bound))
            if not chunk:
                return
            summaries = await pool.play([plan for plan, _ in chunk])
            for summary, (_, bound) in zip(summaries, chunk, strict=True):
                await self.committer.hand_over(summary, bound)


async def play_one(
    config: TournamentConfig,
    game: GameEntry,
    folder: ResultsFolder,
    plan: EpisodePlan,
    seats: dict[str, Seat],
) -> EpisodeSummary:
    """Play ``plan`` on the event loop into its partial record; its results line."""
    state = start_state(config, game, plan)
    # no reader follows a partial record: its lines need not be flushed one by one
    writer = RecordWriter(folder.partial_path(plan.episode_id), flush_lines=False)
    try:
        with Seating.episode(plan.episode_id):  # the cache keys this episode's calls apart
            outcome = await run_episode(
                game,
                state,
                seats,
                episode_id=plan.episode_id,
                seed=plan.seed,
                variant=plan.variant,
                writer=writer,
            )
    finally:
        # flushed off the event loop; fsynced as the episode settles
        await asyncio.to_thread(writer.close, sync=False)
    # summarising a long record (model replies of up to 1 MiB) would stall the loop
    return await asyncio.to_thread(
        summarize_played, game, outcome, writer.sha256,
        entrant=plan.entrant.name, repetition=plan.repetition,
    )  # fmt: skip


def _first(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The first failure of a task group (the one that cancelled the others)."""
    first = group.exceptions[0]
    return _first(first) if isinstance(first, BaseExceptionGroup) else first


__all__ = ["play_all", "play_one"]
