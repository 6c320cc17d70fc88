"""The ceiling a report measures entrants against: a strong baseline team's scores.

A game's registry entry names its ceiling baseline (:attr:`GameEntry.ceiling`;
Lighthouse: PILOT).
The ceiling *team* of a baseline plays it in every seat group whose role has it and
the role's default baseline elsewhere (PILOT keeps, WALLHUG runs). The ceiling's
scores come, in this order, from:

1. the entrant named by ``--ceiling``, when the tournament has one of that name;
2. an entrant of the tournament that is exactly the ceiling team;
3. the team played as a *hidden* entrant on every (seed, variant) the results folder
   holds, with the tournament's own rules, when ``--ceiling`` asks for it. Its scores
   are kept in ``DIR/ceiling-<baseline>.json`` (scores only, no records: a baseline
   team is deterministic and ``lighthouse play`` shows any of its games), so a later
   ``report`` reuses them without being asked again.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from harness.defaults import MAX_EPISODE_TIMEOUT_SECONDS
from harness.episode import run_episode
from harness.errors import ConfigError, RecordError
from harness.files import MAX_SMALL_FILE_BYTES, read_regular
from harness.protocol import GameEntry
from harness.report.build import Ceiling
from harness.report.cells import Cell, CellMeans, as_given
from harness.report.digest import Digest
from harness.seats import BaselineSeat, Seat
from harness.summary import EpisodeSummary
from harness.tournament.manifest import Manifest, RunConfig
from harness.tournament.store import write_atomically
from harness.version import harness_version


class _Score(BaseModel):
    seed: int
    variant: str
    score: float


class _HiddenScores(BaseModel):
    """The file a hidden ceiling's scores are kept in."""

    baseline: str
    team: dict[str, str]
    harness: str
    scores: list[_Score]


def ceiling_team(game: GameEntry, baseline: str) -> dict[str, str]:
    """Each seat group's baseline in ``baseline``'s team; ConfigError if no role has it."""
    groups = game.seat_groups
    if not any(baseline in game.baseline_names(g.role) for g in groups):
        names = sorted({name for g in groups for name in game.baseline_names(g.role)})
        raise ConfigError(
            f"--ceiling: {baseline!r} is neither an entrant nor a baseline of {game.name} "
            f"(baselines: {', '.join(names)})"
        )
    return {
        g.key: baseline
        if baseline in game.baseline_names(g.role)
        else game.baseline_names(g.role)[0]
        for g in groups
    }


def _plain_mean(values: list[float]) -> float:
    # the ceiling's means have always been plain sums over the count (not fsum, as the
    # entrants' are): kept, so that a report on the same results stays the same
    return sum(values) / len(values)


def _cell_means(summaries: Sequence[EpisodeSummary] | Digest, entrant: str) -> CellMeans:
    if isinstance(summaries, Digest):
        found = summaries.entrants.get(entrant)
        if found is None:
            return CellMeans.empty()
        return CellMeans.of_entrant(found, summaries.variant_names, mean=_plain_mean)
    return CellMeans.of_pairs(
        (((ep.seed, ep.variant), ep.score) for ep in summaries if ep.entrant == entrant),
        mean=_plain_mean,
    )


def _cells(summaries: Sequence[EpisodeSummary] | Digest) -> Iterator[Cell]:
    """Every cell of the folder, in natural order."""
    if isinstance(summaries, Digest):
        names = summaries.variant_names
        tables = [CellMeans.of_entrant(e, names) for e in summaries.entrants.values()]
        return CellMeans.union(tables)
    return iter(sorted({(ep.seed, ep.variant) for ep in summaries}))


def find_ceiling(
    game: GameEntry,
    root: Path,
    manifest: Manifest,
    summaries: Sequence[EpisodeSummary] | Digest,
    asked: str | None = None,
) -> Ceiling | None:
    """The ceiling of the results folder ``root`` (see the module docstring), or None.

    Plays the hidden ceiling team on the folder's cells only when ``asked`` names a
    baseline that no entrant plays; without ``asked``, a hidden ceiling kept from an
    earlier ``--ceiling`` is reused. ``summaries`` may be a report's :class:`Digest`.
    """
    run = manifest.run
    if asked is not None and asked in run.entrant_names:
        return Ceiling(asked, _cell_means(summaries, asked))
    baseline = asked or game.ceiling
    if baseline is None:
        return None
    team = ceiling_team(game, baseline)
    for entrant in run.entrants:
        if entrant.baseline_team() == team:
            return Ceiling(entrant.name, _cell_means(summaries, entrant.name))
    path = root / f"ceiling-{baseline}.json"
    kept = _read_hidden(path, root, baseline, team)
    if asked is None:
        return Ceiling(baseline, CellMeans.of(kept), hidden=True) if kept else None
    missing = [cell for cell in _cells(summaries) if cell not in kept]
    if missing:
        kept |= asyncio.run(_play(game, run, team, missing))
        _write_hidden(path, baseline, team, kept)
    scores = CellMeans.of_pairs(((cell, kept[cell]) for cell in _cells(summaries)), mean=as_given)
    return Ceiling(baseline, scores, hidden=True)


async def _play(
    game: GameEntry, run: RunConfig, team: Mapping[str, str], cells: list[Cell]
) -> dict[Cell, float]:
    """The team's score on each cell, under the tournament's rules (one at a time: they
    are scripted, so there is nothing to wait for)."""
    scores: dict[Cell, float] = {}
    timeout = run.episode_timeout_seconds
    if timeout is not None and not timeout <= MAX_EPISODE_TIMEOUT_SECONDS:
        # a folder from before timeouts were bounded: scripted seats never wait anyway
        timeout = MAX_EPISODE_TIMEOUT_SECONDS
    for seed, variant in cells:
        config = game.rules.make_config(variant, run.rules, timeout)
        state = game.rules.new_state(config, seed)
        seats: dict[str, Seat] = {
            seat: BaselineSeat(team[group.key])
            for group in game.seat_groups
            for seat in group.seats
        }
        outcome = await run_episode(
            game, state, seats, episode_id=f"ceiling--{variant}--s{seed}", seed=seed
        )
        results: Any = outcome.results  # every game's results carry ``scores``
        scores[(seed, variant)] = float(results.scores[0])
    return scores


def _read_hidden(
    path: Path, root: Path, baseline: str, team: Mapping[str, str]
) -> dict[Cell, float]:
    """The scores kept at ``path``; none when absent, damaged, from another version, or
    not a regular file of the folder ``root`` (:mod:`harness.files`)."""
    try:
        data = read_regular(path, root, limit=MAX_SMALL_FILE_BYTES)
        kept = _HiddenScores.model_validate_json(data)
    except (OSError, RecordError, ValidationError):
        return {}
    if (kept.baseline, kept.team, kept.harness) != (baseline, dict(team), harness_version()):
        return {}
    return {(s.seed, s.variant): s.score for s in kept.scores}


def _write_hidden(
    path: Path, baseline: str, team: Mapping[str, str], scores: Mapping[Cell, float]
) -> None:
    doc = _HiddenScores(
        baseline=baseline,
        team=dict(team),
        harness=harness_version(),
        scores=[_Score(seed=s, variant=v, score=x) for (s, v), x in sorted(scores.items())],
    )
    write_atomically(path, json.dumps(doc.model_dump(), indent=1) + "\n")


__all__ = ["ceiling_team", "find_ceiling"]
