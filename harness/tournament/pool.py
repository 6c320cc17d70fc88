"""Scripted episodes in worker processes: every core for the episodes no model plays.

An episode whose seats are all scripted baselines needs no network and no rate
limiter, only CPU, so a tournament plays those in a pool of worker processes
(``--workers N``, by default one per usable core) while episodes with a model seat stay
on the event loop with the one rate limiter.

Each worker plays an episode into the episode's partial record, closes it, and sends
the parent the episode's results line, made from the lines it wrote
(:func:`~harness.tournament.store.summarize_played`). Only the parent, which holds
the folder's lock, turns a partial record into a finished one (fsyncs and renames it:
:meth:`ResultsFolder.settle`), so the folder keeps its single writer and its crash
safety: a worker killed mid-episode leaves a partial record, which the run reports
(:class:`WorkerError`) and resuming discards and plays again; a parent killed at any
moment leaves what a killed single-process run leaves. Workers ignore Ctrl-C: the
parent handles it, stops handing out episodes and shuts the pool down.

Workers are started with ``spawn``, never ``fork``: the parent runs threads
(asyncio's), and forking a threaded process can deadlock. Spawned workers are the
run's own children, reaped by it, so their CPU time counts in the run's (``time
lighthouse run ...`` shows all of it).
"""

from __future__ import annotations

import asyncio
import gc
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from harness.episode import play_scripted
from harness.errors import ConfigError, WorkerError
from harness.protocol import GameEntry
from harness.records import RecordWriter
from harness.registry import get_game
from harness.seat_spec import BaselineSeatConfig
from harness.seating import scripted_seats
from harness.seats import Seat
from harness.summary import EpisodeSummary
from harness.tournament.config import EntrantConfig, TournamentConfig
from harness.tournament.episode_setup import start_state
from harness.tournament.identity import identified
from harness.tournament.plan import EpisodePlan
from harness.tournament.store import ResultsFolder, summarize_played
from harness.validation import short_repr

#: Episodes handed to a worker at once: a round trip of the run's per chunk, not per
#: episode; a chunk's results lines reach the folder when its last episode ends.
CHUNK = 4


def usable_cores() -> int:
    """The CPU cores this process may run on (its affinity where the OS reports one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS, Windows: no affinity call
        return max(1, os.cpu_count() or 1)


def check_workers(value: int) -> int:
    """``value`` if it is a whole number of worker processes (>= 0); else a ConfigError.

    0 plays scripted episodes on the event loop, in this process.
    """
    if type(value) is not int or value < 0:
        raise ConfigError(f"--workers: must be a whole number >= 0, got {short_repr(value)}")
    return value


def entrant_is_scripted(game: GameEntry, entrant: EntrantConfig) -> bool:
    """Whether every seat of ``entrant`` is a scripted baseline (a worker may play it)."""
    return all(
        isinstance(spec, BaselineSeatConfig) for _, spec in entrant.seat_specs(game).values()
    )


@dataclass(frozen=True)
class WorkerSetup:
    """What a worker process needs to play any scripted episode of a tournament."""

    config: TournamentConfig
    identities: Mapping[str, str | None]
    """Each entrant's identity, stamped on its seats as on the event loop's."""
    root: Path
    """The results folder (the worker writes partial records only)."""


class _Worker:
    """One worker process's tournament: its game, folder and each entrant's seats."""

    def __init__(self, setup: WorkerSetup) -> None:
        self.config = setup.config
        self.game = get_game(setup.config.game)
        self.folder = ResultsFolder(setup.root)
        self.entrants = {e.name: e for e in setup.config.entrants}
        self.seats: dict[str, dict[str, Seat]] = {}
        for entrant in setup.config.entrants:
            if entrant_is_scripted(self.game, entrant):
                bots = scripted_seats(self.game, entrant.seat_specs(self.game))
                identity = setup.identities.get(entrant.name) or ""
                self.seats[entrant.name] = identified(bots, identity)

    def play(self, entrant: str, variant: str, seed: int, repetition: int) -> EpisodeSummary:
        plan = EpisodePlan(self.entrants[entrant], variant, seed, repetition)
        state = start_state(self.config, self.game, plan)
        # no reader follows a partial record: its lines need not be flushed one by one
        writer = RecordWriter(self.folder.partial_path(plan.episode_id), flush_lines=False)
        try:
            outcome = play_scripted(
                self.game,
                state,
                self.seats[entrant],
                episode_id=plan.episode_id,
                seed=seed,
                variant=variant,
                writer=writer,
            )
        finally:
            writer.close(sync=False)  # the parent fsyncs it as it settles the episode
        return summarize_played(
            self.game, outcome, writer.sha256, entrant=entrant, repetition=repetition
        )


_worker: _Worker | None = None


def _consume(done: asyncio.Future[list[EpisodeSummary]]) -> None:
    if not done.cancelled():
        done.exception()


def _start_worker(setup: WorkerSetup) -> None:
    """A worker's initializer: Ctrl-C is the parent's to handle; a worker whose parent
    died ends at once; set up the tournament."""
    global _worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_end_with, args=(parent.sentinel,), daemon=True).start()
    _worker = _Worker(setup)
    # what is loaded now lives as long as the worker: the collector need not walk it
    # again at every full collection (a few per hundred episodes)
    gc.freeze()


def _end_with(sentinel: int) -> None:
    """Wait for the parent to end, then end this worker.

    A worker waiting for its next episode would otherwise wait forever: it holds both
    ends of its call queue's pipe, so the parent's death never reads as end of file.
    The episode in play is dropped: only its partial record is written, and resuming
    discards it (the parent alone finishes episodes).
    """
    multiprocessing.connection.wait([sentinel])
    os._exit(1)


def _play(keys: Sequence[tuple[str, str, int, int]]) -> list[EpisodeSummary]:
    """Play episodes (entrant, variant, seed, repetition) in this worker, in order (the
    function the pool calls)."""
    if _worker is None:  # pragma: no cover - the initializer always runs first
        raise RuntimeError("worker not initialised")
    return [_worker.play(*key) for key in keys]


class ScriptedPool:
    """A pool of ``workers`` processes playing a tournament's scripted episodes.

    Use as ``async with ScriptedPool(setup, workers) as pool: await pool.play(plans)``.
    Leaving the block shuts the pool down: episodes not yet started are cancelled,
    those in play finish (a scripted episode takes milliseconds).
    """

    def __init__(self, setup: WorkerSetup, workers: int) -> None:
        if workers < 1:
            raise ConfigError(f"a pool needs at least one worker, not {workers}")
        self.workers = workers
        self.played = 0
        """Episodes the workers finished."""
        self._executor = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
            initargs=(setup,),
        )

    async def play(self, plans: Sequence[EpisodePlan]) -> list[EpisodeSummary]:
        """Play ``plans`` in one worker, one after the other; their results lines once
        their partial records are complete.

        Handing a worker a few episodes at a time (:data:`CHUNK`) spares the run a
        round trip per episode. Raises :class:`WorkerError` when a worker process died
        (this chunk's or another's: the pool is then unusable).
        """
        keys = [(p.entrant.name, p.variant, p.seed, p.repetition) for p in plans]
        done = asyncio.wrap_future(self._executor.submit(_play, keys))
        # what ends after the caller stopped waiting is dropped, not logged as unread
        done.add_done_callback(_consume)
        try:
            # Shielded: a cancelled wait must not cancel the executor's future from this
            # thread. If a worker dies meanwhile, the executor's own thread fails every
            # waiting future, and on Python 3.11 one cancelled under it (CPython
            # gh-107219) kills that thread before it ends the other workers: the run
            # then hangs on exit, waiting for a worker that waits for work. Episodes not
            # started when the run stops are cancelled by shutdown, from that thread.
            summaries = await asyncio.shield(done)
        except BrokenProcessPool:
            raise WorkerError(
                f"a worker process died while scripted episodes were in play "
                f"({plans[0].episode_id} among them): killed, or out of memory. Finished "
                "episodes are kept; run the same command again to play the rest"
            ) from None
        self.played += len(summaries)
        return summaries

    async def __aenter__(self) -> ScriptedPool:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await asyncio.to_thread(self._executor.shutdown, wait=True, cancel_futures=True)


__all__ = [
    "CHUNK",
    "ScriptedPool",
    "WorkerSetup",
    "check_workers",
    "entrant_is_scripted",
    "usable_cores",
]
