"""Playing a tournament: every (entrant, variant, seed, repetition) episode, many at once."""

from __future__ import annotations

import asyncio
import json
import math
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.episode import run_episode
from harness.errors import ConfigError
from harness.game import GameEntry
from harness.llm.cache import CACHE_FILE, CallCache, call_scope
from harness.llm.deadlines import default_allowance, default_episode_timeout
from harness.llm.keys import check_keys
from harness.llm.options import ProviderOptions
from harness.llm.prompts import PromptSet
from harness.llm.seat import SeatFactory
from harness.records import RecordWriter
from harness.registry import get_game
from harness.seat_builder import build_seats, llm_providers, prompt_files
from harness.seat_spec import LLMSeatConfig
from harness.seats import Seat
from harness.summary import EpisodeSummary
from harness.tournament.budget import Admission, EpisodeBound, Stop, episode_bounds, require_prices
from harness.tournament.config import EntrantConfig, TournamentConfig
from harness.tournament.growth import (
    describe_growth,
    next_manifest,
    pending_entrants,
    recorded_cost,
    set_aside,
    sort_finished,
    superseded_lines,
)
from harness.tournament.identity import (
    entrant_identities,
    identified,
    legacy_identities,
    manifest_identities,
)
from harness.tournament.lock import FolderLock, check_place
from harness.tournament.narrow import Narrowing, check_limit
from harness.tournament.plan import (
    EpisodePlan,
    PlanIndex,
    count_episodes,
    iter_episodes,
    parse_shard,
    plan_episodes,
)
from harness.tournament.progress import Progress
from harness.tournament.store import Repair, ResultsFolder
from harness.validation import short_repr


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

    Model answers are kept in ``DIR/calls.sqlite`` and replayed from it on a resume or
    rerun, unless ``cache`` (default: the config's ``cache``) is False.
    """
    width = check_concurrency(config.concurrency if concurrency is None else concurrency)
    cap = config.max_cost if max_cost is None else check_max_cost(max_cost)
    narrowing = narrowing or Narrowing()
    if narrowing.limit is not None:
        check_limit(narrowing.limit)
    game = game_of(config)
    plans = PlanIndex(config, shard)
    planned = len(plans)
    check_place(out)
    hashes = prompt_hashes(config, game)
    config_json = json.loads(config.canonical_json())
    identities = entrant_identities(game, config_json, hashes)
    manifest = {
        "game": game.name,
        "configHash": config.config_hash(),
        "config": config_json,
        "configFile": config_file,
        "shard": f"{shard[0]}/{shard[1]}",
        "prompts": hashes,
        "episodes": planned,
        "identities": identities,
        "narrowing": narrowing.to_json(),
        "maxCostUsd": cap,
        "stopped": None,
    }
    folder = ResultsFolder(out)
    # Keys and prices are checked before the folder is touched, for every entrant with
    # something to play by the folder's lines as they are; checked again below, under
    # the lock, for what the folder really lacks.
    pending = pending_entrants(folder, game, plans, identities)
    _check_can_play(config, game, [e for e in config.entrants if e.name in pending],
                    environ, cap)  # fmt: skip
    lock = FolderLock(out)
    await asyncio.to_thread(lock.acquire)
    written = False
    try:
        resuming = await asyncio.to_thread(folder.check_manifest, manifest)
        old = folder.manifest() if resuming else None
        repair = await asyncio.to_thread(folder.examine, game, plans)
        legacy = legacy_identities(game, old) if old is not None else {}
        sorting = sort_finished(repair.finished, plans, identities, legacy)
        done_ids = {s.episode_id for s in sorting.done}

        def todo() -> Iterator[EpisodePlan]:
            return (p for p in plans.plans() if p.episode_id not in done_ids)

        entrants = _entrants(todo())
        bounds = _check_can_play(config, game, entrants, environ, cap)
        spent = recorded_cost(repair.finished) + recorded_cost(superseded_lines(out))
        calls = CallCache(out / CACHE_FILE) if (config.cache if cache is None else cache) else None
        async with SeatFactory(environ, cache=calls, notify=_notifier(progress)) as factory:
            seats = {
                entrant.name: identified(
                    build_seats(
                        game,
                        entrant.seat_specs(game),
                        factory=factory,
                        providers=config.providers,
                    ),
                    identities[entrant.name] or "",
                )
                for entrant in entrants
            }
            warnings = [*repair.notes, *await factory.preflight()]
            written = True
            if legacy:
                manifest["legacyIdentities"] = legacy
            await asyncio.to_thread(folder.open, next_manifest(old, manifest))
            moved = await asyncio.to_thread(set_aside, folder, sorting.superseded)
            await asyncio.to_thread(folder.apply, _without(repair, sorting.superseded))
            if calls is not None:
                await asyncio.to_thread(calls.open)
            if old is not None:
                warnings += describe_growth(
                    old.get("config"),
                    config_json,
                    manifest_identities(game, old),
                    identities,
                    sorting,
                    moved,
                )
            if progress is not None:
                for warning in warnings:
                    progress.stream.write(f"warning: {warning}\n")
                for line in factory.structured_output():
                    progress.stream.write(f"{line}\n")
                progress.total, progress.done, progress.started_with = (
                    planned,
                    len(done_ids),
                    len(done_ids),
                )
                progress.show()
            gate = Admission(cap_usd=cap, spent_usd=spent, limit=narrowing.limit)
            try:
                await _play_all(config, game, folder, todo(), seats, width, progress, gate, bounds)
            finally:
                if calls is not None:
                    calls.close()
            if gate.stop is not None:
                stopped = gate.stop.to_json(gate.spent_usd)
                await asyncio.to_thread(folder.update_manifest, {"stopped": stopped})
    except BaseException:
        if not written:
            lock.abandon()  # nothing was written: leave the disk as it was found
        raise
    finally:
        lock.release()
    if progress is not None:
        progress.show(final=True)
    return TournamentOutcome(
        folder,
        planned,
        len(done_ids),
        gate.admitted,
        repair.notes,
        set_aside=len(sorting.superseded),
        stopped=gate.stop,
        spent_usd=gate.spent_usd,
    )


def _without(repair: Repair, lines: list[EpisodeSummary]) -> Repair:
    """``repair`` less the lines that are set aside (episodes.jsonl is then rewritten)."""
    if not lines:
        return repair
    gone = {line.episode_id for line in lines}
    return Repair(
        [s for s in repair.keep if s.episode_id not in gone],
        [s for s in repair.add if s.episode_id not in gone],
        repair.notes,
        rewrite=True,
    )


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
) -> None:
    """Play ``todo`` with ``width`` workers, each pulling the next episode when it is free.

    A finished episode is committed (its record moved into place, its results line
    appended) in the order episodes finish, one commit at a time, while its worker
    already plays the next one; a worker waits for its previous commit before handing
    over another, so at most ``width`` episodes are in play and ``width`` commits
    pending, whatever the number of episodes. The first failure cancels everything.

    ``gate`` admits each episode before it starts (a cost cap, a limit): once it
    refuses one, every worker stops taking episodes, and those in play finish. An
    episode counts against the cap by its bound until its commit records its cost.
    """
    commits = asyncio.Lock()

    async def commit(plan: EpisodePlan, bound: float) -> None:
        # fsyncs and a re-read of the record: off the event loop, one at a time
        async with commits:
            summary = await asyncio.to_thread(
                folder.commit, game, plan.episode_id, plan.entrant.name, plan.repetition
            )
        if gate is not None:
            await gate.finish(bound, recorded_cost([summary]))
        if progress is not None:
            progress.add(summary)

    async def worker(group: asyncio.TaskGroup) -> None:
        pending: asyncio.Task[None] | None = None
        for plan in todo:  # one iterator shared by every worker: each takes the next plan
            found = (bounds or {}).get(plan.entrant.name)
            bound = (found.cost_usd or 0.0) if found is not None else 0.0
            if gate is not None and not await gate.admit(bound):
                break
            await _play_one(config, game, folder, plan, seats[plan.entrant.name])
            if pending is not None:
                await pending
            pending = group.create_task(commit(plan, bound))

    try:
        async with asyncio.TaskGroup() as group:
            for _ in range(width):
                group.create_task(worker(group))
    except BaseExceptionGroup as failed:
        raise _first(failed) from None


def _first(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The first failure of a task group (the one that cancelled the others)."""
    first = group.exceptions[0]
    return _first(first) if isinstance(first, BaseExceptionGroup) else first


def _entrants(plans: Iterable[EpisodePlan]) -> list[EntrantConfig]:
    """The entrants of ``plans``, in order of first appearance."""
    seen: dict[str, EntrantConfig] = {}
    for plan in plans:
        seen.setdefault(plan.entrant.name, plan.entrant)
    return list(seen.values())


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
        stream.write(("\r\x1b[2K" if live else "") + f"warning: {text}\n")
        stream.flush()
        if live and progress is not None:
            progress.show()

    return notify


def entrant_game_config(
    config: TournamentConfig, game: GameEntry, entrant: EntrantConfig, variant: str
) -> Any:
    """The rules of ``variant`` for ``entrant``: without a configured episode timeout, one
    that fits the entrant's model seats (see :mod:`harness.llm.deadlines`)."""
    base = config.game_config(variant)
    if config.episode_timeout_seconds is not None:
        return base
    models = [
        spec for _, spec in entrant.seat_specs(game).values() if isinstance(spec, LLMSeatConfig)
    ]
    allowances = [
        m.allowance_seconds or default_allowance(m.call_timeout_seconds, len(models))
        for m in models
    ]
    timeout = default_episode_timeout(base, allowances)
    return base if timeout is None else game.rules.make_config(variant, config.rules, timeout)


async def _play_one(
    config: TournamentConfig,
    game: GameEntry,
    folder: ResultsFolder,
    plan: EpisodePlan,
    seats: dict[str, Seat],
) -> None:
    state = game.rules.new_state(
        entrant_game_config(config, game, plan.entrant, plan.variant), plan.seed
    )
    # no reader follows a partial record: its lines need not be flushed one by one
    writer = RecordWriter(folder.partial_path(plan.episode_id), flush_lines=False)
    try:
        with call_scope(plan.episode_id):  # the cache keys this episode's calls apart
            await run_episode(
                game,
                state,
                seats,
                episode_id=plan.episode_id,
                seed=plan.seed,
                variant=plan.variant,
                writer=writer,
            )
    finally:
        await asyncio.to_thread(writer.close)  # flush and fsync off the event loop


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
