"""Playing a tournament: every (entrant, variant, seed, repetition) episode, many at once."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.episode import run_episode
from harness.errors import ConfigError
from harness.game import Game
from harness.games.registry import get_game
from harness.llm.keys import check_keys
from harness.llm.options import ProviderOptions
from harness.llm.prompts import PromptSet, default_prompt_files
from harness.llm.seat import SeatFactory
from harness.records import RecordWriter
from harness.seats import BaselineSeat, Seat
from harness.tournament.budget import Admission, EpisodeBound, Stop, episode_bounds, require_prices
from harness.tournament.config import (
    BaselineSeatConfig,
    EntrantConfig,
    LLMSeatConfig,
    TournamentConfig,
)
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
from harness.tournament.progress import Progress
from harness.tournament.store import Repair, ResultsFolder
from harness.tournament.summary import EpisodeSummary, episode_id
from harness.validation import short_repr


@dataclass(frozen=True)
class EpisodePlan:
    """One episode of the tournament. Its id is derived from what defines it."""

    entrant: EntrantConfig
    variant: str
    seed: int
    repetition: int

    @property
    def episode_id(self) -> str:
        """``<entrant>--<variant>--s<seed>--r<repetition>``: stable across reruns."""
        return episode_id(self.entrant.name, self.variant, self.seed, self.repetition)


def parse_shard(text: str) -> tuple[int, int]:
    """``"I/N"`` -> (I, N), 1 <= I <= N."""
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise ConfigError(f"--shard: {text!r} is not I/N, e.g. 1/4") from None
    if not 1 <= index <= count:
        raise ConfigError(f"--shard: {text!r}: need 1 <= I <= N")
    return index, count


def plan_episodes(config: TournamentConfig, shard: tuple[int, int] = (1, 1)) -> list[EpisodePlan]:
    """Every episode, ordered so that entrants advance together; then this shard's share.

    The shard split is by position in that order (every N-th episode), so it is the
    same on every machine.
    """
    plans = [
        EpisodePlan(entrant, variant, seed, rep)
        for rep in range(config.repetitions)
        for variant in config.variant_list()
        for seed in config.seed_list()
        for entrant in config.entrants
    ]
    index, count = shard
    return [p for i, p in enumerate(plans) if i % count == index - 1]


def game_of(config: TournamentConfig) -> Game[Any]:
    """The game a config plays."""
    return get_game(config.game)


def prompt_hashes(config: TournamentConfig, game: Game[Any]) -> dict[str, str]:
    """sha256 of every prompt file an LLM seat of the config uses, by path."""
    hashes = {}
    for entrant in config.entrants:
        for role, seat in entrant.seat_specs(game).values():
            if isinstance(seat, LLMSeatConfig):
                files = seat.prompts or default_prompt_files(game.name, role)
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
    """
    width = check_concurrency(config.concurrency if concurrency is None else concurrency)
    cap = config.max_cost if max_cost is None else check_max_cost(max_cost)
    narrowing = narrowing or Narrowing()
    if narrowing.limit is not None:
        check_limit(narrowing.limit)
    game = game_of(config)
    plans = plan_episodes(config, shard)
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
        "episodes": len(plans),
        "identities": identities,
        "narrowing": narrowing.to_json(),
        "maxCostUsd": cap,
        "stopped": None,
    }
    folder = ResultsFolder(out)
    by_id = {p.episode_id: p for p in plans}
    # Keys and prices are checked before the folder is touched, for every entrant with
    # something to play by the folder's lines as they are; checked again below, under
    # the lock, for what the folder really lacks.
    pending = pending_entrants(folder, game, {i: p.entrant.name for i, p in by_id.items()},
                               identities)  # fmt: skip
    _check_can_play(config, game, [p for p in plans if p.entrant.name in pending], environ, cap)
    lock = FolderLock(out)
    await asyncio.to_thread(lock.acquire)
    written = False
    try:
        owners = {i: (p.entrant.name, p.repetition) for i, p in by_id.items()}
        resuming = await asyncio.to_thread(folder.check_manifest, manifest)
        old = folder.manifest() if resuming else None
        repair = await asyncio.to_thread(folder.examine, game, owners)
        legacy = legacy_identities(game, old) if old is not None else {}
        sorting = sort_finished(repair.finished, by_id, identities, legacy)
        done_ids = {s.episode_id for s in sorting.done}
        todo = [p for p in plans if p.episode_id not in done_ids]
        bounds = _check_can_play(config, game, todo, environ, cap)
        spent = recorded_cost(repair.finished) + recorded_cost(superseded_lines(out))
        factory = SeatFactory(environ)
        try:
            seats = {
                name: identified(built, identities[name] or "")
                for name, built in _build_seats(config, game, factory, todo).items()
            }
            warnings = [*repair.notes, *await factory.preflight()]
            written = True
            if legacy:
                manifest["legacyIdentities"] = legacy
            await asyncio.to_thread(folder.open, next_manifest(old, manifest))
            moved = await asyncio.to_thread(set_aside, folder, sorting.superseded)
            await asyncio.to_thread(folder.apply, _without(repair, sorting.superseded))
            if old is not None:
                old_ids = manifest_identities(game, old)
                warnings += describe_growth(
                    old.get("config"), config_json, old_ids, identities, sorting, moved
                )
            if progress is not None:
                for warning in warnings:
                    progress.stream.write(f"warning: {warning}\n")
                progress.total, progress.done, progress.started_with = (
                    len(plans),
                    len(done_ids),
                    len(done_ids),
                )
                progress.show()
            gate = Admission(cap_usd=cap, spent_usd=spent, limit=narrowing.limit)
            await _play_all(config, game, folder, todo, seats, width, progress, gate, bounds)
            stopped = gate.stop.to_json(gate.spent_usd) if gate.stop is not None else None
            if stopped is not None:
                await asyncio.to_thread(folder.update_manifest, {"stopped": stopped})
        finally:
            await factory.aclose()
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
        len(plans),
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
    game: Game[Any],
    plans: list[EpisodePlan],
    environ: Mapping[str, str] | None,
    cap: float | None,
) -> dict[str, EpisodeBound]:
    """Every key the plans' providers need (all problems at once), and, under a cost
    cap, a price for every model; the plans' entrants' episode bounds."""
    check_keys(_providers(config, game, plans), environ)
    entrants = list({p.entrant.name: p.entrant for p in plans}.values())
    bounds = episode_bounds(config, game, entrants)
    if cap is not None:
        require_prices(bounds)
    return bounds


async def _play_all(
    config: TournamentConfig,
    game: Game[Any],
    folder: ResultsFolder,
    todo: list[EpisodePlan],
    seats: dict[str, dict[str, Seat]],
    width: int,
    progress: Progress | None,
    gate: Admission,
    bounds: dict[str, EpisodeBound],
) -> None:
    slots = asyncio.Semaphore(width)
    commits = asyncio.Lock()

    async def play(plan: EpisodePlan) -> None:
        bound = bounds[plan.entrant.name].cost_usd or 0.0
        async with slots:
            if not await gate.admit(bound):
                return
            summary: EpisodeSummary | None = None
            try:
                await _play_one(config, game, folder, plan, seats[plan.entrant.name])
                # fsyncs and a re-read of the record: off the event loop, one at a time
                async with commits:
                    summary = await asyncio.to_thread(
                        folder.commit, game, plan.episode_id, plan.entrant.name, plan.repetition
                    )
            finally:
                await gate.finish(bound, recorded_cost([summary] if summary else []))
        if progress is not None:
            progress.add(summary)

    tasks = [asyncio.ensure_future(play(p)) for p in todo]
    try:
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()


def _providers(
    config: TournamentConfig, game: Game[Any], plans: list[EpisodePlan]
) -> list[ProviderOptions]:
    """The provider options of every LLM seat the plans use."""
    entrants = {p.entrant.name: p.entrant for p in plans}.values()
    return [
        config.seat_options(spec).provider
        for entrant in entrants
        for _, spec in entrant.seat_specs(game).values()
        if isinstance(spec, LLMSeatConfig)
    ]


def _build_seats(
    config: TournamentConfig, game: Game[Any], factory: SeatFactory, todo: list[EpisodePlan]
) -> dict[str, dict[str, Seat]]:
    """Each entrant's seats, built once and shared by its episodes (they keep no state)."""
    out: dict[str, dict[str, Seat]] = {}
    for entrant in {p.entrant.name: p.entrant for p in todo}.values():
        seats: dict[str, Seat] = {}
        for seat_id, (role, spec) in entrant.seat_specs(game).items():
            if isinstance(spec, BaselineSeatConfig):
                seats[seat_id] = BaselineSeat(spec.baseline)
            else:
                seats[seat_id] = factory.seat(game, role, config.seat_options(spec))
        out[entrant.name] = seats
    return out


async def _play_one(
    config: TournamentConfig,
    game: Game[Any],
    folder: ResultsFolder,
    plan: EpisodePlan,
    seats: dict[str, Seat],
) -> None:
    state = game.new_state(config.game_config(plan.variant), plan.seed)
    writer = RecordWriter(folder.partial_path(plan.episode_id))
    try:
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
    "game_of",
    "parse_shard",
    "plan_episodes",
    "run_tournament",
]
