"""Playing a tournament: every (entrant, variant, seed, repetition) episode, many at once."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.episode import run_episode
from harness.errors import ConfigError
from harness.game import Game
from harness.games.registry import get_game
from harness.llm.cache import CACHE_FILE, CallCache, call_scope
from harness.llm.deadlines import default_allowance, default_episode_timeout
from harness.llm.keys import check_keys
from harness.llm.options import LLMSeatOptions, ProviderOptions
from harness.llm.prompts import PromptSet, default_prompt_files
from harness.llm.seat import SeatFactory
from harness.records import RecordWriter
from harness.seats import BaselineSeat, Seat
from harness.tournament.config import (
    BaselineSeatConfig,
    EntrantConfig,
    LLMSeatConfig,
    TournamentConfig,
)
from harness.tournament.lock import FolderLock, check_place
from harness.tournament.progress import Progress
from harness.tournament.store import ResultsFolder
from harness.tournament.summary import episode_id
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


def check_concurrency(value: int) -> int:
    """``value`` if it is a whole number of episodes at once (>= 1); else a ConfigError."""
    if type(value) is not int or value < 1:
        raise ConfigError(f"--concurrency: must be a whole number >= 1, got {short_repr(value)}")
    return value


async def run_tournament(
    config: TournamentConfig,
    out: Path,
    *,
    concurrency: int | None = None,
    shard: tuple[int, int] = (1, 1),
    progress: Progress | None = None,
    environ: Mapping[str, str] | None = None,
    config_file: str | None = None,
    cache: bool | None = None,
) -> TournamentOutcome:
    """Play every episode of ``config`` not yet finished in ``out``.

    Everything that can be checked is checked before anything is written: the
    arguments, the place (:func:`check_place`), the folder's lock (one writer per
    folder), its manifest and results lines, the seats and the providers' preflight.
    A run refused by any of these leaves no trace of itself on disk.

    Model answers are kept in ``DIR/calls.sqlite`` and replayed from it on a resume or
    rerun, unless ``cache`` (default: the config's ``cache``) is False.
    """
    width = check_concurrency(config.concurrency if concurrency is None else concurrency)
    game = game_of(config)
    plans = plan_episodes(config, shard)
    check_place(out)
    manifest = {
        "game": game.name,
        "configHash": config.config_hash(),
        "config": json.loads(config.canonical_json()),
        "configFile": config_file,
        "shard": f"{shard[0]}/{shard[1]}",
        "prompts": prompt_hashes(config, game),
        "episodes": len(plans),
    }
    folder = ResultsFolder(out)
    # Keys are checked before the folder is touched; a missing one only matters when
    # there is something to play, which a fresh folder always has.
    check_keys(_providers(config, game, plans), environ, require=not folder.manifest_path.exists())
    lock = FolderLock(out)
    await asyncio.to_thread(lock.acquire)
    written = False
    try:
        by_id = {p.episode_id: p for p in plans}
        owners = {i: (p.entrant.name, p.repetition) for i, p in by_id.items()}
        await asyncio.to_thread(folder.check_manifest, manifest)
        repair = await asyncio.to_thread(folder.examine, game, owners)
        done_ids = {s.episode_id for s in repair.finished}
        todo = [p for p in plans if p.episode_id not in done_ids]
        calls = CallCache(out / CACHE_FILE) if (config.cache if cache is None else cache) else None
        factory = SeatFactory(environ, cache=calls, notify=_notifier(progress))
        try:
            seats = _build_seats(config, game, factory, todo)
            warnings = [*repair.notes, *await factory.preflight()]
            written = True
            await asyncio.to_thread(folder.open, manifest)
            await asyncio.to_thread(folder.apply, repair)
            if calls is not None:
                await asyncio.to_thread(calls.open)
            if progress is not None:
                for warning in warnings:
                    progress.stream.write(f"warning: {warning}\n")
                for line in factory.structured_output():
                    progress.stream.write(f"{line}\n")
                progress.total, progress.done, progress.started_with = (
                    len(plans),
                    len(done_ids),
                    len(done_ids),
                )
                progress.show()
            await _play_all(config, game, folder, todo, seats, width, progress)
        finally:
            await factory.aclose()
            if calls is not None:
                calls.close()
    except BaseException:
        if not written:
            lock.abandon()  # nothing was written: leave the disk as it was found
        raise
    finally:
        lock.release()
    if progress is not None:
        progress.show(final=True)
    return TournamentOutcome(folder, len(plans), len(done_ids), len(todo), repair.notes)


async def _play_all(
    config: TournamentConfig,
    game: Game[Any],
    folder: ResultsFolder,
    todo: list[EpisodePlan],
    seats: dict[str, dict[str, Seat]],
    width: int,
    progress: Progress | None,
) -> None:
    slots = asyncio.Semaphore(width)
    commits = asyncio.Lock()

    async def play(plan: EpisodePlan) -> None:
        async with slots:
            await _play_one(config, game, folder, plan, seats[plan.entrant.name])
        # fsyncs and a re-read of the record: off the event loop, one at a time
        async with commits:
            summary = await asyncio.to_thread(
                folder.commit, game, plan.episode_id, plan.entrant.name, plan.repetition
            )
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


def entrant_options(
    config: TournamentConfig, game: Game[Any], entrant: EntrantConfig
) -> dict[str, LLMSeatOptions]:
    """An entrant's LLM seats' options, each allowance defaulted to fit its model seats."""
    specs = {
        seat_id: spec
        for seat_id, (_, spec) in entrant.seat_specs(game).items()
        if isinstance(spec, LLMSeatConfig)
    }
    out = {}
    for seat_id, spec in specs.items():
        options = config.seat_options(spec)
        if options.allowance_seconds is None:
            allowance = default_allowance(options.call_timeout_seconds, len(specs))
            options = options.model_copy(update={"allowance_seconds": allowance})
        out[seat_id] = options
    return out


def entrant_game_config(
    config: TournamentConfig, game: Game[Any], entrant: EntrantConfig, variant: str
) -> Any:
    """The rules of ``variant`` for ``entrant``: without a configured episode timeout, one
    that fits the entrant's model seats (see :mod:`harness.llm.deadlines`)."""
    base = config.game_config(variant)
    if config.episode_timeout_seconds is not None:
        return base
    allowances = [
        o.allowance_seconds or 0.0 for o in entrant_options(config, game, entrant).values()
    ]
    timeout = default_episode_timeout(base, allowances)
    return base if timeout is None else game.make_config(variant, config.rules, timeout)


def _build_seats(
    config: TournamentConfig, game: Game[Any], factory: SeatFactory, todo: list[EpisodePlan]
) -> dict[str, dict[str, Seat]]:
    """Each entrant's seats, built once and shared by its episodes (they keep no state)."""
    out: dict[str, dict[str, Seat]] = {}
    for entrant in {p.entrant.name: p.entrant for p in todo}.values():
        seats: dict[str, Seat] = {}
        models = entrant_options(config, game, entrant)
        for seat_id, (role, spec) in entrant.seat_specs(game).items():
            if isinstance(spec, BaselineSeatConfig):
                seats[seat_id] = BaselineSeat(spec.baseline)
            else:
                seats[seat_id] = factory.seat(game, role, models[seat_id])
        out[entrant.name] = seats
    return out


async def _play_one(
    config: TournamentConfig,
    game: Game[Any],
    folder: ResultsFolder,
    plan: EpisodePlan,
    seats: dict[str, Seat],
) -> None:
    state = game.new_state(entrant_game_config(config, game, plan.entrant, plan.variant), plan.seed)
    writer = RecordWriter(folder.partial_path(plan.episode_id))
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
    "entrant_game_config",
    "entrant_options",
    "game_of",
    "parse_shard",
    "plan_episodes",
    "run_tournament",
]
