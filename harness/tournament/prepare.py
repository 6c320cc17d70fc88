"""A tournament run prepared: every check of its arguments and its plan, writing nothing.

``lighthouse run`` and :func:`~harness.tournament.run.run_tournament` play what
:func:`prepare` gives them, and ``--dry-run`` describes it
(:mod:`harness.tournament.dryrun`), so a dry run shows exactly the run a run would
play. Preparing reads the config's prompt files (their hashes are part of each
entrant's identity) and looks at the results folder's place; it creates, locks and
sends nothing, and needs no API key.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from harness.errors import ConfigError
from harness.llm.prompts import PromptSet
from harness.protocol import GameEntry
from harness.registry import get_game
from harness.seating import prompt_files
from harness.tournament.config import TournamentConfig
from harness.tournament.identity import Carried, carry_identities, entrant_identities
from harness.tournament.lock import check_place
from harness.tournament.manifest import JsonObject, Manifest
from harness.tournament.narrow import Narrowing, check_limit
from harness.tournament.plan import PlanIndex
from harness.tournament.pool import check_workers
from harness.tournament.sources import agent_sources
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


@dataclass(frozen=True)
class Prepared:
    """A run checked and planned: what it plays, where, how wide, under what cap."""

    config: TournamentConfig
    """The config, already narrowed by ``--seeds`` and ``--entrants``."""
    out: Path
    game: GameEntry
    shard: tuple[int, int]
    """(I, N): this machine's share of the plan, the I-th of N."""
    plans: PlanIndex
    """This shard's episodes, in the order they are played."""
    identities: dict[str, str | None]
    """Each entrant's identity (its seats' specs, prompt files and agents' code, hashed)."""
    hashes: dict[str, str]
    """The sha256 of every prompt file the seats read, by path."""
    sources: dict[str, str]
    """The digest of every Python agent's code the seats run, by module."""
    config_json: JsonObject
    """The config as the manifest keeps it (its canonical JSON)."""
    manifest: Manifest
    """The manifest the run writes (before what the folder's history adds to it)."""
    width: int
    """Episodes with a model seat in play at once."""
    workers: int
    """Worker processes for the episodes whose seats are all scripted (0: none)."""
    cap: float | None
    """The cost cap in US dollars, or None."""
    narrowing: Narrowing
    cache: bool
    """Whether model answers are kept in, and replayed from, the folder's call cache."""
    keep_agent_episodes: bool = False
    """An agent's code changed in no way that decides its play: its entrants' finished
    episodes are kept (``--keep-agent-episodes``)."""

    @property
    def planned(self) -> int:
        """Episodes this shard plans."""
        return len(self.plans)

    def carry(self, old: Manifest | None) -> Carried:
        """What the run takes over, about identities, from a folder whose manifest is
        ``old`` (None: a new folder): how its finished lines count now."""
        return carry_identities(
            self.game,
            old,
            config=self.config_json,
            hashes=self.hashes,
            sources=self.sources,
            identities=self.identities,
            keep_agent_edits=self.keep_agent_episodes,
        )


class PrepareOptions(TypedDict, total=False):
    """The keyword arguments of :func:`prepare` that say how a run plays (each as
    :func:`prepare` takes and defaults it): what
    :func:`~harness.tournament.run.run_tournament` passes on."""

    concurrency: int | None
    shard: tuple[int, int]
    config_file: str | None
    max_cost: float | None
    narrowing: Narrowing | None
    cache: bool | None
    workers: int
    keep_agent_episodes: bool


def prepare(
    config: TournamentConfig,
    out: Path,
    *,
    concurrency: int | None = None,
    shard: tuple[int, int] = (1, 1),
    config_file: str | None = None,
    max_cost: float | None = None,
    narrowing: Narrowing | None = None,
    cache: bool | None = None,
    workers: int = 0,
    keep_agent_episodes: bool = False,
    flag: str = "--out",
    write: bool = True,
) -> Prepared:
    """Check a run's arguments and plan it (see the module's docstring).

    ``concurrency``, ``max_cost`` and ``cache`` default to the config's; ``narrowing``
    holds the command line's ``--seeds``/``--entrants`` (already applied to
    ``config``) and ``--limit``; ``keep_agent_episodes`` keeps the finished episodes of
    an entrant whose agent's code alone changed (see identity.py); ``flag`` names
    ``out`` in an error about its place, and ``write=False`` (a dry run) accepts a
    place this process may only read.
    """
    width = check_concurrency(config.concurrency if concurrency is None else concurrency)
    processes = check_workers(workers)
    cap = config.max_cost if max_cost is None else check_max_cost(max_cost)
    narrowing = narrowing or Narrowing()
    if narrowing.limit is not None:
        check_limit(narrowing.limit)
    game = game_of(config)
    plans = PlanIndex(config, shard)
    check_place(out, flag, write=write)
    hashes, sources = prompt_hashes(config, game), agent_sources(config, game)
    config_json: JsonObject = json.loads(config.canonical_json())
    identities = entrant_identities(game, config_json, hashes, sources)
    manifest = Manifest(
        game=game.name,
        config_hash=config.config_hash(),
        config=config_json,
        config_file=config_file,
        shard=f"{shard[0]}/{shard[1]}",
        prompts=hashes,
        sources=sources,
        episodes=len(plans),
        identities=identities,
        narrowing=narrowing.to_json(),
        max_cost_usd=cap,
        stopped=None,
    )
    return Prepared(
        config=config,
        out=out,
        game=game,
        shard=shard,
        plans=plans,
        identities=identities,
        hashes=hashes,
        sources=sources,
        config_json=config_json,
        manifest=manifest,
        width=width,
        workers=processes,
        cap=cap,
        narrowing=narrowing,
        cache=config.cache if cache is None else cache,
        keep_agent_episodes=keep_agent_episodes,
    )


__all__ = [
    "PrepareOptions",
    "Prepared",
    "check_concurrency",
    "check_max_cost",
    "game_of",
    "prepare",
    "prompt_hashes",
]
