"""Playing a tournament: every (entrant, variant, seed, repetition) episode, many at once."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import math
import sys
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from harness.episode import run_episode
from harness.errors import ConfigError, FolderError
from harness.files import no_room, refusal
from harness.llm.cache import CACHE_FILE, CallCache, call_scope
from harness.llm.keys import check_keys
from harness.llm.options import ProviderOptions
from harness.llm.prompts import PromptSet
from harness.llm.seat import SeatFactory
from harness.protocol import GameEntry
from harness.records import RecordWriter
from harness.registry import get_game
from harness.report.digest import ExactSum
from harness.seating import build_seats, llm_providers, prompt_files
from harness.seats import Seat, close_seats
from harness.summary import EpisodeSummary
from harness.text import terminal_safe, write_control
from harness.tournament.budget import Admission, EpisodeBound, Stop, episode_bounds, require_prices
from harness.tournament.config import EntrantConfig, TournamentConfig
from harness.tournament.episode_setup import entrant_game_config, start_state
from harness.tournament.growth import (
    describe_growth,
    iter_superseded_lines,
    next_manifest,
    pending_entrants,
    recorded_cost,
    set_aside,
    sort_finished,
)
from harness.tournament.identity import (
    Carried,
    carry_identities,
    entrant_identities,
    identified,
    manifest_identities,
)
from harness.tournament.lock import FolderLock, check_place
from harness.tournament.manifest import JsonObject, Manifest
from harness.tournament.narrow import Narrowing, check_limit
from harness.tournament.plan import (
    DoneSet,
    EpisodePlan,
    PlanIndex,
    count_episodes,
    iter_episodes,
    parse_shard,
    plan_episodes,
)
from harness.tournament.pool import (
    CHUNK,
    ScriptedPool,
    WorkerSetup,
    check_workers,
    entrant_is_scripted,
)
from harness.tournament.progress import CLEAR_LINE, Progress
from harness.tournament.room import no_room_error
from harness.tournament.sources import agent_sources
from harness.tournament.store import ResultsFolder, summarize_played
from harness.validation import short_repr

T = TypeVar("T")
#: The shortest time between two commits of finished episodes, in seconds.
COMMIT_EVERY = 0.05


def game_of(config: TournamentConfig) -> GameEntry:
    """The game a config plays."""
    return get_game(config.game)


def prompt_hashes(config: TournamentConfig, game: GameEntry) -> dict[str, str]:
    """sha256 of every prompt file a seat of the config uses (models, Python agents), by path."""
    hashes = {}
    for entrant in config.entrants:
        for role, seat in entrant.seat_specs(game).values():
            files = prompt_files(game, role, seat)
            if files is not None:
                for prompt in vars(PromptSet.load(files)).values():
                    hashes[str(prompt.path)] = prompt.sha256
    return dict(sorted(hashes.items()))


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


def check_concurrency(value: int) -> int:
    """``value`` if it is a whole number of episodes at once (>= 1); else a ConfigError."""
    if type(value) is not int or value < 1:
        raise ConfigError(f"--concurrency: must be a whole number >= 1, got {short_repr(value)}")
    return value


def check_max_cost(value: float) -> float:
    """``value`` if it is a positive, finite number of US dollars; else a ConfigError."""
    if not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
        raise ConfigError(f"--max-cost: must be a positive number of US dollars, got {value!r}")
    return float(value)


async def run_tournament(
    config: TournamentConfig,
    out: Path,
    *,
    concurrency: int | None = None,
    shard: tuple[int, int] = (1, 1),
    progress: Progress | None = None,
    environ: Mapping[str, str] | None = None,
    config_file: str | None = None,
    max_cost: float | None = None,
    narrowing: Narrowing | None = None,
    cache: bool | None = None,
    workers: int = 0,
    keep_agent_episodes: bool = False,
) -> TournamentOutcome:
    """Play every episode of ``config`` that ``out`` lacks.

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
    width = check_concurrency(config.concurrency if concurrency is None else concurrency)
    processes = check_workers(workers)
    cap = config.max_cost if max_cost is None else check_max_cost(max_cost)
    narrowing = narrowing or Narrowing()
    if narrowing.limit is not None:
        check_limit(narrowing.limit)
    game = game_of(config)
    plans = PlanIndex(config, shard)
    planned = len(plans)
    check_place(out)
    hashes = prompt_hashes(config, game)
    sources = agent_sources(config, game)
    config_json: JsonObject = json.loads(config.canonical_json())
    identities = entrant_identities(game, config_json, hashes, sources)

    def carry(old: Manifest | None) -> Carried:
        return carry_identities(
            game,
            old,
            config=config_json,
            hashes=hashes,
            sources=sources,
            identities=identities,
            keep_agent_edits=keep_agent_episodes,
        )

    manifest = Manifest(
        game=game.name,
        config_hash=config.config_hash(),
        config=config_json,
        config_file=config_file,
        shard=f"{shard[0]}/{shard[1]}",
        prompts=hashes,
        sources=sources,
        episodes=planned,
        identities=identities,
        narrowing=narrowing.to_json(),
        max_cost_usd=cap,
        stopped=None,
    )
    folder = ResultsFolder(out)
    # Keys and prices are checked before the folder is touched, for every entrant with
    # something to play by the folder's lines as they are; checked again below, under
    # the lock, for what the folder really lacks.
    pending = pending_entrants(folder, game, plans, identities, lambda old: carry(old).lines)
    _check_can_play(config, game, [e for e in config.entrants if e.name in pending],
                    environ, cap)  # fmt: skip
    lock = FolderLock(out)
    await asyncio.to_thread(lock.acquire)
    written = False
    try:
        resuming = await asyncio.to_thread(folder.check_manifest, manifest)
        old = folder.manifest() if resuming else None
        repair = await asyncio.to_thread(folder.examine, game, plans)
        carried = carry(old)
        # the finished lines are read again one at a time: a done episode is a bit, and
        # their cost is summed on the way (exactly: math.fsum's float)
        cost = ExactSum()

        def costed(lines: Iterable[EpisodeSummary]) -> Iterator[EpisodeSummary]:
            for line in lines:
                for seat in line.seats.values():
                    cost.add(seat.cost_usd)
                yield line

        sorting = sort_finished(costed(repair.finished()), plans, identities, carried.lines)
        done = sorting.done

        def todo() -> Iterator[EpisodePlan]:
            return done.todo()

        entrants = _pending(config, plans, done)
        bounds = _check_can_play(config, game, entrants, environ, cap)
        spent = cost.value() + recorded_cost(iter_superseded_lines(out))
        calls = _call_cache(out) if (config.cache if cache is None else cache) else None
        built: dict[str, dict[str, Seat]] = {}
        async with (
            SeatFactory(environ, cache=calls, notify=_notifier(progress)) as factory,
            _closing(built),
        ):
            for entrant in entrants:
                built[entrant.name] = build_seats(
                    game, entrant.seat_specs(game), factory=factory, providers=config.providers
                )
            seats = {name: identified(bots, identities[name] or "") for name, bots in built.items()}
            warnings = [*repair.notes, *carried.notes, *await factory.preflight()]
            written = True
            manifest = carried.recorded_in(manifest)
            await asyncio.to_thread(folder.open, next_manifest(old, manifest))
            moved = await asyncio.to_thread(set_aside, folder, sorting.superseded)
            gone = frozenset(line.episode_id for line in sorting.superseded)
            await asyncio.to_thread(folder.apply, repair.without(gone))
            if calls is not None:
                await asyncio.to_thread(calls.open)
            if old is not None:
                warnings += describe_growth(
                    old.config,
                    config_json,
                    manifest_identities(game, old),
                    identities,
                    sorting,
                    moved,
                    carried.code_changed,
                )
            if progress is not None:
                for warning in warnings:
                    progress.stream.write(f"warning: {terminal_safe(warning, one_line=True)}\n")
                for line in factory.structured_output():
                    progress.stream.write(f"{line}\n")
                progress.total, progress.done, progress.started_with = (
                    planned,
                    len(done),
                    len(done),
                )
                progress.show()
            gate = Admission(cap_usd=cap, spent_usd=spent, limit=narrowing.limit)
            scripted = (
                {e.name for e in entrants if entrant_is_scripted(game, e)} if processes else set()
            )
            in_workers = started = 0
            try:
                async with contextlib.AsyncExitStack() as stack:
                    pool: ScriptedPool | None = None
                    if scripted:
                        setup = WorkerSetup(config, identities, out)
                        pool = await stack.enter_async_context(ScriptedPool(setup, processes))
                    await _play_all(
                        config,
                        game,
                        folder,
                        # a stream of one kind never scans the whole plan for nothing
                        (p for p in todo() if p.entrant.name not in scripted)
                        if len(scripted) < len(entrants)
                        else iter(()),
                        seats,
                        width,
                        progress,
                        gate,
                        bounds,
                        pool=pool,
                        pooled=(p for p in todo() if p.entrant.name in scripted),
                    )
                    if pool is not None:
                        in_workers, started = pool.played, pool.workers
            finally:
                if calls is not None:
                    calls.close()
            if gate.stop is not None:
                stopped = gate.stop.to_json(gate.spent_usd)
                kept = await asyncio.to_thread(folder.manifest)
                await asyncio.to_thread(
                    folder.write_manifest, kept.model_copy(update={"stopped": stopped})
                )
    except BaseException as exc:
        if not written:
            lock.abandon()  # nothing was written: leave the disk as it was found
        why = no_room(exc)
        if why is not None:  # a full disk: one line, and the folder resumes as it is
            raise no_room_error(out, why, exc) from None
        raise
    finally:
        lock.release()
    if progress is not None:
        progress.show(final=True)
    return TournamentOutcome(
        folder,
        planned,
        len(done),
        gate.admitted,
        repair.notes,
        set_aside=len(sorting.superseded),
        stopped=gate.stop,
        spent_usd=gate.spent_usd,
        in_workers=in_workers,
        workers=started,
    )


@contextlib.asynccontextmanager
async def _closing(built: Mapping[str, Mapping[str, Seat]]) -> AsyncIterator[None]:
    """Close the seats in ``built`` (each entrant's, by seat id) when the block ends: a
    Python agent's worker processes end with the run."""
    try:
        yield
    finally:
        await close_seats(seat for seats in built.values() for seat in seats.values())


def _call_cache(out: Path) -> CallCache:
    """The folder's call cache; refused (FolderError) when its file is there but is not
    a regular file of the folder (a FIFO would block SQLite's first read for ever)."""
    path = out / CACHE_FILE
    unread = refusal(path, out)
    if unread not in (None, "missing"):
        raise FolderError(f"{path}: {unread}; remove it (the answers kept in it are lost)")
    return CallCache(path)


def _check_can_play(
    config: TournamentConfig,
    game: GameEntry,
    entrants: list[EntrantConfig],
    environ: Mapping[str, str] | None,
    cap: float | None,
) -> dict[str, EpisodeBound]:
    """Every key the entrants' providers need (all problems at once), and, under a cost
    cap, a price for every model; the entrants' episode bounds."""
    check_keys(_providers(config, game, entrants), environ)
    bounds = episode_bounds(config, game, entrants)
    if cap is not None:
        require_prices(bounds)
    return bounds


async def _play_all(
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
    """Play ``todo`` on the event loop with ``width`` workers, and ``pooled`` (scripted
    episodes) in ``pool``'s processes; each worker pulls the next episode when it is free.

    Finished episodes are committed (records fsynced and moved into place, results
    lines appended) by one committer, in the order they finish, in batches at most
    every :data:`COMMIT_EVERY` seconds: whatever finished meanwhile goes into the next,
    with one fsync of the records folder and one of episodes.jsonl per batch. A worker
    hands its finished episode to the committer and plays the next, so at most
    ``width`` episodes are in play on the loop and two per pool process (one played,
    one queued), and a bounded number wait to be committed, whatever the number of
    episodes. When the run is cancelled (Ctrl-C), episodes already handed over are
    still committed. The first failure cancels everything.

    ``gate`` admits each episode before it starts (a cost cap, a limit): once it
    refuses one, every worker stops taking episodes, and those in play finish. An
    episode counts against the cap by its bound until its commit records its cost.
    """
    in_pool = 0 if pool is None else 2 * pool.workers
    scripted = iter(pooled)
    # room for what finishes while a batch waits its turn (COMMIT_EVERY) and settles;
    # a full queue holds the workers back until the committer catches up
    finished: asyncio.Queue[tuple[EpisodeSummary, float] | None] = asyncio.Queue(
        maxsize=4 * (width + in_pool)
    )

    wake = asyncio.Event()

    ending: list[bool] = []  # holds True once the last episode is handed over

    async def hand_over(item: tuple[EpisodeSummary, float] | None) -> None:
        if item is None:
            ending.append(True)
        await finished.put(item)
        if item is None or finished.full():
            wake.set()  # the committer need not wait out its turn

    async def commit_all() -> None:
        loop = asyncio.get_running_loop()
        last = -math.inf
        held: list[tuple[EpisodeSummary, float] | None] = []  # taken, not yet settling
        settling: asyncio.Future[None] | None = None
        try:
            while True:
                held = [await finished.get()]
                # at most one batch every COMMIT_EVERY seconds: when scripted episodes
                # finish by the hundred a second, they share their fsyncs
                wait = last + COMMIT_EVERY - loop.time()
                if wait > 0 and held[0] is not None and not finished.full() and not ending:
                    wake.clear()
                    # or until the queue is full, or the last episode is in
                    # asyncio.timeout, not wait_for: in Python 3.11 wait_for can swallow a
                    # cancellation that arrives as the event is set
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(wait):
                            await wake.wait()
                held += _drain(finished)
                last = loop.time()
                items = [item for item in held if item is not None]
                done, held = len(items) < len(held), []
                # renames, fsyncs and appends: off the event loop, in a thread that
                # finishes the batch even if the run is cancelled meanwhile
                if items:
                    summaries = [summary for summary, _ in items]
                    settling = asyncio.ensure_future(asyncio.to_thread(folder.settle, summaries))
                    await asyncio.shield(settling)
                    settling = None
                for summary, bound in items:
                    if gate is not None:
                        await gate.finish(bound, recorded_cost([summary]))
                    if progress is not None:
                        progress.add(summary)
                if done:
                    return
        except asyncio.CancelledError:
            # the batch settling is waited for (the folder's lock is not let go while its
            # thread writes), and whatever else finished is settled now: nothing is lost
            if settling is not None:
                await settling
            rest = [item for item in [*held, *_drain(finished)] if item is not None]
            folder.settle([summary for summary, _ in rest])
            raise

    def bound_of(plan: EpisodePlan) -> float:
        found = (bounds or {}).get(plan.entrant.name)
        return (found.cost_usd or 0.0) if found is not None else 0.0

    async def loop_worker() -> None:
        for plan in todo:  # one iterator shared by every worker: each takes the next plan
            bound = bound_of(plan)
            if gate is not None and not await gate.admit(bound):
                break
            summary = await _play_one(config, game, folder, plan, seats[plan.entrant.name])
            await hand_over((summary, bound))

    async def pool_worker(pool: ScriptedPool) -> None:
        while True:
            chunk: list[tuple[EpisodePlan, float]] = []
            for plan in itertools.islice(scripted, CHUNK):  # shared like todo
                bound = bound_of(plan)
                if gate is not None and not await gate.admit(bound):
                    break
                chunk.append((plan, bound))
            if not chunk:
                return
            summaries = await pool.play([plan for plan, _ in chunk])
            for summary, (_, bound) in zip(summaries, chunk, strict=True):
                await hand_over((summary, bound))

    async def play_all() -> None:
        async with asyncio.TaskGroup() as players:
            for _ in range(width):
                players.create_task(loop_worker())
            if pool is not None:
                for _ in range(in_pool):
                    players.create_task(pool_worker(pool))
        await hand_over(None)  # everything played: the committer ends

    try:
        async with asyncio.TaskGroup() as group:
            group.create_task(commit_all())
            group.create_task(play_all())
    except BaseExceptionGroup as failed:
        raise _first(failed) from None


def _drain(queue: asyncio.Queue[T]) -> list[T]:
    """Everything waiting in ``queue`` now."""
    items = []
    while not queue.empty():
        items.append(queue.get_nowait())
    return items


def _first(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The first failure of a task group (the one that cancelled the others)."""
    first = group.exceptions[0]
    return _first(first) if isinstance(first, BaseExceptionGroup) else first


def _pending(config: TournamentConfig, plans: PlanIndex, done: DoneSet) -> list[EntrantConfig]:
    """The entrants with episodes left to play, in config order: counted, not listed (a
    million-seed plan is not walked to find them)."""
    planned = plans.entrant_counts()
    return [e for e in config.entrants if done.count(e.name) < planned.get(e.name, 0)]


def _providers(
    config: TournamentConfig, game: GameEntry, entrants: Iterable[EntrantConfig]
) -> list[ProviderOptions]:
    """The provider options of every LLM seat of ``entrants``."""
    specs = (spec for entrant in entrants for _, spec in entrant.seat_specs(game).values())
    return llm_providers(specs, config.providers)


def _notifier(progress: Progress | None) -> Any:
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


async def _play_one(
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
        with call_scope(plan.episode_id):  # the cache keys this episode's calls apart
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


__all__ = [
    "EpisodePlan",
    "TournamentOutcome",
    "check_concurrency",
    "check_max_cost",
    "count_episodes",
    "entrant_game_config",
    "game_of",
    "iter_episodes",
    "parse_shard",
    "plan_episodes",
    "run_tournament",
]
