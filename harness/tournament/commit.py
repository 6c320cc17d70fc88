"""The committer: the one writer of a run's finished episodes into its results folder.

Players hand it each finished episode (:meth:`Committer.hand_over`) and go on to the
next; it commits them (records fsynced and moved into place, results lines
appended: :meth:`ResultsFolder.settle`) in the order they finish, in batches at most
every :data:`COMMIT_EVERY` seconds, so episodes that finish by the hundred a second
share their fsyncs. Its queue is bounded: a full queue holds the players back until
it catches up, and wakes it early. When the run is cancelled (Ctrl-C), the episodes
already handed over are still committed.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from typing import TypeVar

from harness.summary import EpisodeSummary
from harness.tournament.budget import Admission
from harness.tournament.growth import recorded_cost
from harness.tournament.progress import Progress
from harness.tournament.store import ResultsFolder

T = TypeVar("T")
#: The shortest time between two commits of finished episodes, in seconds.
COMMIT_EVERY = 0.05

#: A finished episode's results line and the cost bound it was admitted by; None: the
#: last episode is in.
_Item = tuple[EpisodeSummary, float] | None


class Committer:
    """Commits what players hand over; run :meth:`run` beside them, and :meth:`close`
    once the last episode is handed over.

    ``room`` bounds the episodes waiting to be committed; each committed episode's
    cost is recorded with ``gate`` (against the bound it was admitted by) and counted
    in ``progress``.
    """

    def __init__(
        self,
        folder: ResultsFolder,
        *,
        room: int,
        gate: Admission | None = None,
        progress: Progress | None = None,
    ) -> None:
        self._folder = folder
        self._queue: asyncio.Queue[_Item] = asyncio.Queue(maxsize=room)
        self._gate = gate
        self._progress = progress
        self._wake = asyncio.Event()
        self._ending = False
        self._held: list[_Item] = []  # taken from the queue, not yet settling
        self._settling: asyncio.Future[None] | None = None

    async def hand_over(self, summary: EpisodeSummary, bound: float) -> None:
        """Queue a finished episode (waiting while the queue is full)."""
        await self._put((summary, bound))

    async def close(self) -> None:
        """Everything was played: the committer commits what it holds, and ends."""
        self._ending = True
        await self._put(None)

    async def run(self) -> None:
        """Commit batches until :meth:`close`; cancelled, commit what was handed over."""
        loop = asyncio.get_running_loop()
        last = -math.inf
        try:
            while True:
                self._held = [await self._queue.get()]
                await self._wait_turn(last + COMMIT_EVERY - loop.time())
                self._held += _drain(self._queue)
                last = loop.time()
                items = [item for item in self._held if item is not None]
                done, self._held = len(items) < len(self._held), []
                await self._commit(items)
                if done:
                    return
        except asyncio.CancelledError:
            # the batch settling is waited for (the folder's lock is not let go while its
            # thread writes), and whatever else finished is settled now: nothing is lost
            if self._settling is not None:
                await self._settling
            rest = [item for item in [*self._held, *_drain(self._queue)] if item is not None]
            self._folder.settle([summary for summary, _ in rest])
            raise

    async def _put(self, item: _Item) -> None:
        await self._queue.put(item)
        if item is None or self._queue.full():
            self._wake.set()  # the committer need not wait out its turn

    async def _wait_turn(self, wait: float) -> None:
        """Wait ``wait`` seconds for the next turn, or until the queue is full or the
        last episode is in."""
        if wait <= 0 or self._held[0] is None or self._queue.full() or self._ending:
            return
        self._wake.clear()
        # asyncio.timeout, not wait_for: in Python 3.11 wait_for can swallow a
        # cancellation that arrives as the event is set
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(wait):
                await self._wake.wait()

    async def _commit(self, items: list[tuple[EpisodeSummary, float]]) -> None:
        """Settle one batch, then record its costs and count it."""
        # renames, fsyncs and appends: off the event loop, in a thread that finishes the
        # batch even if the run is cancelled meanwhile
        if items:
            summaries = [summary for summary, _ in items]
            self._settling = asyncio.ensure_future(
                asyncio.to_thread(self._folder.settle, summaries)
            )
            await asyncio.shield(self._settling)
            self._settling = None
        for summary, bound in items:
            if self._gate is not None:
                await self._gate.finish(bound, recorded_cost([summary]))
            if self._progress is not None:
                self._progress.add(summary)


def _drain(queue: asyncio.Queue[T]) -> list[T]:
    """Everything waiting in ``queue`` now."""
    items = []
    while not queue.empty():
        items.append(queue.get_nowait())
    return items


__all__ = ["COMMIT_EVERY", "Committer"]
