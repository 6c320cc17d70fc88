"""Playing a tournament: every (entrant, variant, seed, repetition) episode, many at once.

A run is prepared first (:mod:`harness.tournament.prepare`: every check of its
arguments and its plan, nothing written), then executed here: under the folder's
lock, the folder is read (what is finished, what resuming repairs, what an earlier
config left), the seats are seated (:class:`~harness.seating.Seating`), the folder
is opened, and the episodes are played (:mod:`harness.tournament.playing`).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from typing_extensions import Unpack

from harness.errors import FolderError
from harness.files import no_room, refusal
from harness.llm.cache import CACHE_FILE, CallCache
from harness.llm.seat import Notify
from harness.report.digest import ExactSum
from harness.seating import Seating, check_seat_keys
from harness.seats import Seat
from harness.summary import EpisodeSummary
from harness.text import terminal_safe, write_control
from harness.tournament.budget import Admission, EpisodeBound, Stop, episode_bounds, require_prices
from harness.tournament.config import EntrantConfig, TournamentConfig
from harness.tournament.episode_setup import entrant_game_config
from harness.tournament.growth import (
    Sorting,
    describe_growth,
    iter_superseded_lines,
    next_manifest,
    pending_entrants,
    recorded_cost,
    set_aside,
    sort_finished,
)
from harness.tournament.identity import Carried, identified, manifest_identities
from harness.tournament.lock import FolderLock
from harness.tournament.manifest import Manifest
from harness.tournament.plan import (
    DoneSet,
    EpisodePlan,
    PlanIndex,
    count_episodes,
    iter_episodes,
    parse_shard,
    plan_episodes,
)
from harness.tournament.playing import play_all
from harness.tournament.pool import ScriptedPool, WorkerSetup, entrant_is_scripted
from harness.tournament.prepare import (
    Prepared,
    PrepareOptions,
    check_concurrency,
    check_max_cost,
    game_of,
    prepare,
    prompt_hashes,
)
from harness.tournament.progress import CLEAR_LINE, Progress
from harness.tournament.room import no_room_error
from harness.tournament.store import Repair, ResultsFolder


@dataclass
class TournamentOutcome:
    """What a run did; the results themselves are in ``folder`` (nothing is kept in memory)."""

    folder: ResultsFolder
    planned: int
    already_done: int
    played: int
    notes: list[str] = field(default_factory=list)
    """What resuming dropped or wrote again, and why (also shown as warnings)."""
    set_aside: int = 0
    """Finished episodes of an earlier spec of an entrant, moved to superseded/ now."""
    stopped: Stop | None = None
    """Why the run stopped before playing everything planned (a cost cap, --limit)."""
    spent_usd: float = 0.0
    """The folder's recorded cost at the end."""
    in_workers: int = 0
    """Of ``played``, the episodes worker processes played (all seats scripted)."""
    workers: int = 0
    """Worker processes started (0: every episode was played on the event loop)."""


async def run_tournament(
    config: TournamentConfig,
    out: Path,
    *,
    progress: Progress | None = None,
    environ: Mapping[str, str] | None = None,
    **options: Unpack[PrepareOptions],
) -> TournamentOutcome:
    """Play every episode of ``config`` that ``out`` lacks: :func:`prepare` it with
    ``options`` (``concurrency``, ``shard``, ``config_file``, ``max_cost``,
    ``narrowing``, ``cache``, ``workers``, ``keep_agent_episodes``), then
    :func:`execute` it.

    Everything that can be checked is checked before anything is written: the
    arguments, the place (:func:`check_place`), the API keys of every provider an
    entrant with episodes to play uses (all missing ones named at once), the prices a
    cost cap needs, the folder's lock (one writer per folder), its manifest and
    results lines, the seats and the providers' preflight. A run refused by any of
    these leaves no trace of itself on disk.

    The folder may hold an earlier run of another config (growth.py): finished
    episodes planned now and played by their entrant's current identity are reused,
    those of an earlier identity are set aside in ``superseded/``, and the manifest
    takes the config run now as the folder's plan. ``max_cost`` (default: the
    config's) caps the folder's recorded cost (budget.py); ``narrowing`` holds the
    command line's ``--seeds``/``--entrants`` (already applied to ``config``) and
    ``--limit``.

    Episodes whose seats are all scripted baselines are played by ``workers`` worker
    processes (pool.py); 0 plays them on the event loop like every other episode.

    Model answers are kept in ``DIR/calls.sqlite`` and replayed from it on a resume or
    rerun, unless ``cache`` (default: the config's ``cache``) is False.

    A Python agent's code is part of its entrant's identity: an edit plays the
    entrant's episodes again, unless ``keep_agent_episodes`` says the edit changed
    nothing of its play (the manifest records it; see identity.py).
    """
    return await execute(prepare(config, out, **options), progress=progress, environ=environ)


async def execute(
    prepared: Prepared,
    *,
    progress: Progress | None = None,
    environ: Mapping[str, str] | None = None,
) -> TournamentOutcome:
    """Play every episode ``prepared`` plans that its folder lacks (see
    :func:`run_tournament`); ``environ`` is where API keys are read (default: the
    process's environment)."""
    folder = ResultsFolder(prepared.out)
    # Keys and prices are checked before the folder is touched, for every entrant with
    # something to play by the folder's lines as they are; checked again, under the
    # lock, for what the folder really lacks.
    pending = pending_entrants(
        folder,
        prepared.game,
        prepared.plans,
        prepared.identities,
        lambda old: prepared.carry(old).lines,
    )
    _check_can_play(prepared, [e for e in prepared.config.entrants if e.name in pending],
                    environ)  # fmt: skip
    lock = FolderLock(prepared.out)
    await asyncio.to_thread(lock.acquire)
    run = _Run(prepared, folder, progress, environ)
    try:
        outcome = await run.play()
    except BaseException as exc:
        if not run.written:
            lock.abandon()  # nothing was written: leave the disk as it was found
        why = no_room(exc)
        if why is not None:  # a full disk: one line, and the folder resumes as it is
            raise no_room_error(prepared.out, why, exc) from None
        raise
    finally:
        lock.release()
    if progress is not None:
        progress.show(final=True)
    return outcome


@dataclass(frozen=True)
class _Found:
    """What a run found in its folder, under the lock, before writing anything."""

    old: Manifest | None
    """The folder's manifest, when it holds a run already."""
    repair: Repair
    carried: Carried
    """What the run takes over from the folder about identities."""
    sorting: Sorting
    spent: float
    """The folder's recorded cost: its finished lines and those set aside earlier."""

    @property
    def done(self) -> DoneSet:
        """The episodes planned now that are finished."""
        return self.sorting.done


@dataclass
class _Run:
    """One run under its folder's lock: read the folder, seat, open the folder, play."""

    prepared: Prepared
    folder: ResultsFolder
    progress: Progress | None
    environ: Mapping[str, str] | None
    written: bool = False
    """Whether anything was written to the folder (a refused run leaves no trace)."""

    async def play(self) -> TournamentOutcome:
        """Play what the folder lacks; what the run did."""
        p = self.prepared
        found = await self._read_folder()
        entrants = _pending(p.config, p.plans, found.done)
        bounds = _check_can_play(p, entrants, self.environ)
        calls = _call_cache(p.out) if p.cache else None
        async with Seating(
            p.game,
            providers=p.config.providers,
            environ=self.environ,
            cache=calls,
            notify=_notifier(self.progress),
        ) as seating:
            seats = {
                e.name: identified(seating.seat(e.seat_specs(p.game)), p.identities[e.name] or "")
                for e in entrants
            }
            warnings = [*found.repair.notes, *found.carried.notes, *await seating.preflight()]
            warnings += _left_to_people(p.config, p.plans, found.done)
            self.written = True
            warnings += await self._open_folder(found, calls)
            self._show_start(warnings, seating.structured_output(), len(found.done))
            gate = Admission(cap_usd=p.cap, spent_usd=found.spent, limit=p.narrowing.limit)
            in_workers, started = await self._play(entrants, seats, found.done, gate, bounds)
        if gate.stop is not None:
            stopped = gate.stop.to_json(gate.spent_usd)
            kept = await asyncio.to_thread(self.folder.manifest)
            await asyncio.to_thread(
                self.folder.write_manifest, kept.model_copy(update={"stopped": stopped})
            )
        return TournamentOutcome(
            self.folder,
            p.planned,
            len(found.done),
            gate.admitted,
            found.repair.notes,
            set_aside=len(found.sorting.superseded),
            stopped=gate.stop,
            spent_usd=gate.spent_usd,
            in_workers=in_workers,
            workers=started,
        )

    async def _read_folder(self) -> _Found:
        """The folder's manifest, what resuming repairs, and its finished episodes sorted."""
        p, folder = self.prepared, self.folder
        resuming = await asyncio.to_thread(folder.check_manifest, p.manifest)
        old = folder.manifest() if resuming else None
        repair = await asyncio.to_thread(folder.examine, p.game, p.plans)
        carried = p.carry(old)
        # the finished lines are read again one at a time: a done episode is a bit, and
        # their cost is summed on the way (exactly: math.fsum's float)
        cost = ExactSum()

        def costed(lines: Iterable[EpisodeSummary]) -> Iterator[EpisodeSummary]:
            for line in lines:
                for seat in line.seats.values():
                    cost.add(seat.cost_usd)
                yield line

        sorting = sort_finished(costed(repair.finished()), p.plans, p.identities, carried.lines)
        spent = cost.value() + recorded_cost(iter_superseded_lines(p.out))
        return _Found(old, repair, carried, sorting, spent)

    async def _open_folder(self, found: _Found, calls: CallCache | None) -> list[str]:
        """Write the manifest, set aside what an earlier spec played, apply the repair,
        open the call cache; what growing the folder changed, as warnings."""
        p, folder = self.prepared, self.folder
        manifest = found.carried.recorded_in(p.manifest)
        await asyncio.to_thread(folder.open, next_manifest(found.old, manifest))
        moved = await asyncio.to_thread(set_aside, folder, found.sorting.superseded)
        gone = frozenset(line.episode_id for line in found.sorting.superseded)
        await asyncio.to_thread(folder.apply, found.repair.without(gone))
        if calls is not None:
            await asyncio.to_thread(calls.open)
        if found.old is None:
            return []
        return describe_growth(
            found.old.config,
            p.config_json,
            manifest_identities(p.game, found.old),
            p.identities,
            found.sorting,
            moved,
            found.carried.code_changed,
            found.carried.relaid(found.sorting.superseded),
        )

    def _show_start(self, warnings: list[str], structured: list[str], done: int) -> None:
        """The warnings and each model's structured output, then the progress line."""
        progress = self.progress
        if progress is None:
            return
        for warning in warnings:
            progress.stream.write(f"warning: {terminal_safe(warning, one_line=True)}\n")
        for line in structured:
            progress.stream.write(f"{line}\n")
        progress.total, progress.done, progress.started_with = self.prepared.planned, done, done
        progress.show()

    async def _play(
        self,
        entrants: list[EntrantConfig],
        seats: dict[str, dict[str, Seat]],
        done: DoneSet,
        gate: Admission,
        bounds: Mapping[str, EpisodeBound],
    ) -> tuple[int, int]:
        """Play what is left: scripted entrants in worker processes (when the run has
        any), the rest on the event loop. Episodes the workers played, and workers."""
        p = self.prepared
        scripted = (
            {e.name for e in entrants if entrant_is_scripted(p.game, e)} if p.workers else set()
        )
        # a human entrant's episodes are left for the page to play
        people = {e.name for e in p.config.entrants if e.has_human()}
        async with contextlib.AsyncExitStack() as stack:
            pool: ScriptedPool | None = None
            if scripted:
                setup = WorkerSetup(p.config, p.identities, p.out)
                pool = await stack.enter_async_context(ScriptedPool(setup, p.workers))
            await play_all(
                p.config,
                p.game,
                self.folder,
                # a stream of one kind never scans the whole plan for nothing
                (
                    plan
                    for plan in done.todo()
                    if plan.entrant.name not in scripted and plan.entrant.name not in people
                )
                if len(scripted) < len(entrants)
                else iter(()),
                seats,
                p.width,
                self.progress,
                gate,
                bounds,
                pool=pool,
                pooled=(plan for plan in done.todo() if plan.entrant.name in scripted),
            )
            return (pool.played, pool.workers) if pool is not None else (0, 0)


def _call_cache(out: Path) -> CallCache:
    """The folder's call cache; refused (FolderError) when its file is there but is not
    a regular file of the folder (a FIFO would block SQLite's first read for ever)."""
    path = out / CACHE_FILE
    unread = refusal(path, out)
    if unread not in (None, "missing"):
        raise FolderError(f"{path}: {unread}; remove it (the answers kept in it are lost)")
    return CallCache(path)


def _check_can_play(
    prepared: Prepared, entrants: list[EntrantConfig], environ: Mapping[str, str] | None
) -> dict[str, EpisodeBound]:
    """Every key the entrants' providers need (all problems at once), and, under a cost
    cap, a price for every model; the entrants' episode bounds."""
    config, game = prepared.config, prepared.game
    specs = (spec for entrant in entrants for _, spec in entrant.seat_specs(game).values())
    check_seat_keys(specs, config.providers, environ)
    bounds = episode_bounds(config, game, entrants)
    if prepared.cap is not None:
        require_prices(bounds)
    return bounds


def _pending(config: TournamentConfig, plans: PlanIndex, done: DoneSet) -> list[EntrantConfig]:
    """The entrants with episodes left to play, in config order: counted, not listed (a
    million-seed plan is not walked to find them). A human entrant has none a run can
    play (decision L4)."""
    planned = plans.entrant_counts()
    return [
        e
        for e in config.entrants
        # a person's episodes are played on a page and joined by lighthouse add
        if done.count(e.name) < planned.get(e.name, 0) and not e.has_human()
    ]


def _left_to_people(config: TournamentConfig, plans: PlanIndex, done: DoneSet) -> list[str]:
    """A warning for each human entrant with episodes left: a run does not play them."""
    planned = plans.entrant_counts()
    return [
        f"entrant {e.name!r} is a person's: a run does not play its "
        f"{planned.get(e.name, 0) - done.count(e.name)} episode(s) left; play them on the "
        "page of lighthouse serve, then lighthouse add each record (docs/human.md)"
        for e in config.entrants
        if e.has_human() and done.count(e.name) < planned.get(e.name, 0)
    ]


def _notifier(progress: Progress | None) -> Notify:
    """Where a seat's first failure is written: the progress stream, as a warning."""

    def notify(text: str) -> None:
        stream = progress.stream if progress is not None else sys.stderr
        live = progress is not None and progress.live
        # on a terminal, clear the status line first and draw it again after
        if live:
            write_control(stream, CLEAR_LINE)
        # a server's message is quoted in it: one line, its control characters shown
        stream.write(f"warning: {terminal_safe(text, one_line=True)}\n")
        stream.flush()
        if live and progress is not None:
            progress.show()

    return notify


__all__ = [
    "EpisodePlan",
    "TournamentOutcome",
    "check_concurrency",
    "check_max_cost",
    "count_episodes",
    "entrant_game_config",
    "execute",
    "game_of",
    "iter_episodes",
    "parse_shard",
    "plan_episodes",
    "prepare",
    "prompt_hashes",
    "run_tournament",
]
