"""One rating scale over the entrants of several results folders (``lighthouse leaderboard``).

The input is each entrant's cell means, keyed by the board they were played on: the
(seed, variant) cell and the rules it was played under (folders with other rules
overrides do not meet on a seed). Entrants of any folder that played the same board
meet there; an entrant found in several folders (the same identity) is one entrant,
its cells pooled (a cell it played in two folders counts as the mean of both). The
ratings are a Bradley-Terry fit (:mod:`harness.report.bradley_terry`) over all the
meetings, with intervals that resample seeds.

Entrants that no chain of meetings connects have no common scale: the join refuses
them, naming the groups.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from pydantic import Field

from harness.errors import ConfigError
from harness.models import JsonObject, StrictModel
from harness.report.bradley_terry import bootstrap, fit, percentile_bounds
from harness.report.model import NotOwnCount
from harness.report.servers import flags_of, mostly_not_own, worst
from harness.report.stats import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, LEVEL, TIE_TOLERANCE

#: A board: a seed, a variant and the rules (canonical JSON) it was played under.
Board = tuple[int, str, str]
#: Cells compared at a time (what one step holds: this many E x E matrices).
CHUNK = 512


@dataclass(frozen=True)
class RatedInput:
    """One entrant to rate: its name as shown, the folders it is in, its cells."""

    name: str
    folders: tuple[str, ...]
    identity: str | None
    cells: Mapping[Board, float]
    not_own: Mapping[str, NotOwnCount] = field(default_factory=dict)
    """By seat group: its turns, and those the entrant did not play itself."""


class RatedEntrant(StrictModel):
    """One entrant on the common scale."""

    entrant: str
    identity: str | None
    folders: list[str]
    rank: int
    rating: float = Field(description="Elo scale (400 log10 of the strength), mean 0.")
    low: float | None
    high: float | None
    meetings: int = Field(description="Boards shared with another entrant, counted per pair.")
    wins: int
    ties: int
    losses: int
    not_own: dict[str, NotOwnCount] = Field(
        default_factory=dict,
        description="By seat group: its turns, and those the entrant did not play itself "
        "(its role's baseline answered), over every folder it is in.",
    )
    mostly_not_own: bool = Field(
        False,
        description="More than half of some seat group's turns were not its own: ranked "
        "below every entrant that played its own turns, whatever its rating.",
    )
    flag: str = Field(
        "", description="The fallback flag, as a report's (empty: none, or 10% or less)."
    )


class Ratings(StrictModel):
    """A Bradley-Terry scale over the entrants of several folders."""

    folders: list[str]
    incomplete: list[str] = Field(description="Folders whose plan is not finished.")
    game: str
    links: list[str] = Field(description="Entrants found in more than one folder.")
    boards: int = Field(description="(seed, variant, rules) boards two entrants shared.")
    seeds: int = Field(description="The seeds of those boards: the unit resampled.")
    method: str
    regularized: bool = Field(description="Whether the fit needed one tie more per pair.")
    regularized_share: float = Field(description="The share of resamples that did.")
    left_out_share: float = Field(
        description="The share of resamples left out: their seeds left some entrant "
        "without a chain of meetings to the rest."
    )
    entrants: list[RatedEntrant]


def ratings_schema() -> JsonObject:
    """The JSON Schema of ``lighthouse leaderboard --format json``
    (docs/schemas/leaderboard.schema.json)."""
    return Ratings.model_json_schema(by_alias=True, mode="serialization")


def method_text(resamples: int, seed: int) -> str:
    """How the scale and its intervals are made."""
    return (
        "Bradley-Terry maximum likelihood on paired per-board outcomes (the higher "
        f"cell mean wins; equal means within {TIE_TOLERANCE:g} are a tie, half a win each); "
        f"{LEVEL:.0%} percentile bootstrap over seeds (each seed carries all its "
        f"boards and meetings), {resamples:,} resamples, seed {seed}"
    )


def _components(meet: np.ndarray) -> list[list[int]]:
    """The groups of entrants that chains of meetings connect, in index order."""
    size = meet.shape[0]
    seen = [-1] * size
    groups: list[list[int]] = []
    for start in range(size):
        if seen[start] >= 0:
            continue
        group, stack = [], [start]
        seen[start] = len(groups)
        while stack:
            node = stack.pop()
            group.append(node)
            for other in np.flatnonzero(meet[node]):
                if seen[other] < 0:
                    seen[other] = len(groups)
                    stack.append(int(other))
        groups.append(sorted(group))
    return groups


@dataclass(frozen=True)
class Meetings:
    """Every meeting of the entrants: wins by seed (ties as halves), and the counts."""

    by_seed: np.ndarray
    """(S, E, E): on the seed's boards, i's wins over j, a tie counting half."""
    seeds: list[int]
    boards: int
    """Boards at least two entrants played."""
    won: np.ndarray
    """(E, E): boards i won against j."""
    tied: np.ndarray
    """(E, E): boards i and j tied."""


def meeting_matrices(entrants: Sequence[RatedInput]) -> Meetings:
    """Every meeting of ``entrants`` on the boards they share."""
    boards = sorted({b for e in entrants for b in e.cells})
    seeds = sorted({b[0] for b in boards})
    place = {s: i for i, s in enumerate(seeds)}
    size = len(entrants)
    by_seed = np.zeros((len(seeds), size, size))
    won_count = np.zeros((size, size), dtype=np.int64)
    tied_count = np.zeros((size, size), dtype=np.int64)
    shared = 0
    others = ~np.eye(size, dtype=bool)[None]
    for start in range(0, len(boards), CHUNK):
        part = boards[start : start + CHUNK]
        scores = np.array(
            [[e.cells.get(b, np.nan) for e in entrants] for b in part], dtype=np.float64
        )
        present = ~np.isnan(scores)
        shared += int((present.sum(axis=1) >= 2).sum())
        diff = scores[:, :, None] - scores[:, None, :]
        both = present[:, :, None] & present[:, None, :] & others
        won = (diff > TIE_TOLERANCE) & both
        tied = (np.abs(diff) <= TIE_TOLERANCE) & both
        won_count += won.sum(axis=0)
        tied_count += tied.sum(axis=0)
        np.add.at(by_seed, [place[b[0]] for b in part], won + 0.5 * tied)
    return Meetings(by_seed, seeds, shared, won_count, tied_count)


def rate(
    game: str,
    folders: Sequence[str],
    entrants: Sequence[RatedInput],
    *,
    incomplete: Sequence[str] = (),
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = BOOTSTRAP_SEED,
) -> Ratings:
    """One scale over ``entrants``; a :class:`ConfigError` when no chain of meetings
    connects them all (or fewer than two are given)."""
    if len(entrants) < 2:
        raise ConfigError("leaderboard: a scale needs at least two entrants with finished episodes")
    meetings = meeting_matrices(entrants)
    wins = meetings.by_seed.sum(axis=0)
    groups = _components((wins + wins.T) > 0)
    if len(groups) > 1:
        described = "; ".join(
            "{" + ", ".join(entrants[i].name for i in group) + "}" for group in groups
        )
        raise ConfigError(
            "leaderboard: no seed connects these groups of entrants, so they have no "
            f"common scale: {described}. Entrants meet on a (seed, variant) cell both "
            "played under the same rules, and folders through an entrant (the same "
            "identity) they share; play one entrant of each group on the other's seeds"
        )
    point = fit(wins)
    low = high = None
    share = left_out = 0.0
    if len(meetings.seeds) >= 2:
        draws, share, left_out = bootstrap(meetings.by_seed, resamples=resamples, seed=seed)
        if left_out < 1:
            low, high = percentile_bounds(draws)
    # an entrant mostly not its own is rated (its meetings were played), but ranked
    # below every entrant that played its own turns: never beside its baseline
    apart = [mostly_not_own(e.not_own) for e in entrants]
    order = sorted(
        range(len(entrants)), key=lambda i: (apart[i], -point.ratings[i], entrants[i].name)
    )
    flags = flags_of({e.name: worst(e.not_own) for e in entrants})
    won, tied = meetings.won, meetings.tied
    rows = [
        RatedEntrant(
            entrant=entrants[i].name,
            identity=entrants[i].identity,
            folders=list(entrants[i].folders),
            rank=rank,
            rating=float(point.ratings[i]),
            low=None if low is None else float(low[i]),
            high=None if high is None else float(high[i]),
            meetings=int(won[i].sum() + won[:, i].sum() + tied[i].sum()),
            wins=int(won[i].sum()),
            ties=int(tied[i].sum()),
            losses=int(won[:, i].sum()),
            not_own=dict(entrants[i].not_own),
            mostly_not_own=apart[i],
            flag=flags.get(entrants[i].name, ""),
        )
        for rank, i in enumerate(order, start=1)
    ]
    return Ratings(
        folders=list(folders),
        incomplete=list(incomplete),
        game=game,
        links=sorted(e.name for e in entrants if len(e.folders) > 1),
        boards=meetings.boards,
        seeds=len(meetings.seeds),
        method=method_text(resamples, seed),
        regularized=point.regularized,
        regularized_share=share,
        left_out_share=left_out,
        entrants=rows,
    )


def ratings_markdown(ratings: Ratings) -> str:
    """The scale as Markdown."""
    mark = " (incomplete)" if ratings.incomplete else ""
    lines = [
        f"# Leaderboard over {len(ratings.folders)} folders{mark}",
        "",
        f"{ratings.game}: {len(ratings.entrants)} entrants on one scale, from "
        f"{ratings.boards} boards of {ratings.seeds} seeds that two or more of them "
        f"played. {ratings.method}.",
        "",
        "Folders: " + ", ".join(f"`{f}`" for f in ratings.folders) + ".",
        "Linked by: "
        + (", ".join(ratings.links) if ratings.links else "no entrant in two folders")
        + " (entrants with the same identity in more than one folder); entrants of "
        "different folders also meet on every board they share.",
    ]
    if ratings.incomplete:
        lines.append(
            "**Incomplete**: "
            + ", ".join(f"`{f}`" for f in ratings.incomplete)
            + " have episodes still to play; the ratings may move."
        )
    if ratings.regularized or ratings.regularized_share:
        where = "" if ratings.regularized else f" in {ratings.regularized_share:.0%} of resamples"
        lines.append(
            f"**Regularized**: some entrants won or tied every meeting with the rest{where}; "
            "each pair that met was given one tie more there, so that every rating is finite."
        )
    if ratings.left_out_share:
        lines.append(
            f"**Note**: {ratings.left_out_share:.0%} of resamples drew seeds that left some "
            "entrant without a chain of meetings to the rest, and were left out of the "
            "intervals; the folders share few seeds."
        )
    lines += [
        "",
        "| rank | entrant | rating (95% CI) | wins | ties | losses | folders |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in ratings.entrants:
        band = "" if row.low is None or row.high is None else f" [{row.low:.0f}, {row.high:.0f}]"
        name = f"{row.entrant} ⚠ {row.flag}" if row.flag else row.entrant
        rank = f"{row.rank} (below: not its own play)" if row.mostly_not_own else str(row.rank)
        lines.append(
            f"| {rank} | {name} | {row.rating:.0f}{band}{mark} | {row.wins} | "
            f"{row.ties} | {row.losses} | {', '.join(row.folders)} |"
        )
    lines += ["", *_legend(ratings)]
    return "\n".join(lines) + "\n"


def _legend(ratings: Ratings) -> list[str]:
    """What the table's columns and marks mean."""
    text = (
        "*rank: by rating, highest first. rating: the entrant's strength on the Elo scale "
        "(a 400-point lead means ten to one odds of the higher cell mean on a shared "
        "board), with its 95% bootstrap interval over seeds. wins, ties, losses: boards "
        "shared with another entrant, counted per pair."
    )
    if any(r.flag or r.mostly_not_own for r in ratings.entrants):
        text += (
            " ⚠: more than 10% of a seat group's turns were not the entrant's own (its "
            "role's baseline answered: the entrant's model or Python agent gave no usable "
            "answer); an entrant with more than half not its own is ranked below every "
            "entrant that played its own turns, whatever its rating, so that it never "
            "shares a rank with the baseline that played for it."
        )
    return [text + "*"]


__all__ = [
    "Board",
    "Meetings",
    "RatedEntrant",
    "RatedInput",
    "Ratings",
    "meeting_matrices",
    "rate",
    "ratings_markdown",
    "ratings_schema",
]
