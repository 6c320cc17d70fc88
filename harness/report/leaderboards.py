"""Leaderboards of one seat group, and entrants that are the same entrant twice.

A leaderboard of a seat group (Lighthouse: the keeper) ranks entrants that differ in
that group and in nothing else: entrants are grouped by their specs for every other
seat group (for a keeper leaderboard, the same runners), and each such group whose
members differ in the ranked group gets its own board. So a board never pools
entrants whose other seats differ. Entrants with the same spec for every seat group
are the same entrant under two names; they are flagged.

An entrant's spec for a group is the config's spec (prompt files replaced by their
contents' sha256, as the manifest records them: :data:`Specs`), or, when the folder's
manifest has no readable config, the agents named in its episodes.

A board ranks its entrants over the seeds all of them finished in every variant all
of them played, and reads its rank intervals off the stars of a Holm family of its
own entrants (:func:`harness.report.estimates.ranks_of`): a board's ranks hold
together at 95%, whatever the other boards say.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence

from harness.protocol import GameEntry
from harness.report.estimates import ranks_of, shared_scores
from harness.report.methods import Family, SeedTable
from harness.report.model import BoardRow, Leaderboard

#: entrant -> seat group key -> a canonical text of its spec
#: (:func:`harness.results.specs.entrant_specs` reads them from a folder's manifest)
Specs = Mapping[str, Mapping[str, str]]


def identical_entrants(names: Sequence[str], specs: Specs) -> list[list[str]]:
    """Groups of entrants (in ``names`` order) with the same spec for every seat group."""
    groups: dict[str, list[str]] = {}
    for name in names:
        if name in specs:
            key = json.dumps(sorted(specs[name].items()))
            groups.setdefault(key, []).append(name)
    return [members for members in groups.values() if len(members) > 1]


def _board(
    group: str,
    others: Sequence[str],
    members: list[str],
    labels: Mapping[str, Mapping[str, str]],
    same: Mapping[str, list[str]],
    table: SeedTable,
    family: Family | None,
) -> Leaderboard | None:
    """The board of ``members`` in ``group``: ranked over the seeds all of them share,
    with intervals from a Holm family of their own (``family`` when it is theirs)."""
    given = family if family is not None and family.entrants == tuple(members) else None
    ranks, used = ranks_of(table, members, given)
    if not ranks or used is None:
        return None
    scores = shared_scores(table, members)
    rows = [
        BoardRow(
            entrant=m,
            agent=labels[m][group],
            same_as=[o for o in same.get(m, []) if o != m and o in members],
            rank=ranks[m].rank,
            rank_low=ranks[m].rank_low,
            rank_high=ranks[m].rank_high,
            cells=ranks[m].cells,
            score=scores[m],
        )
        for m in members
    ]
    rows.sort(key=lambda r: (r.rank, r.entrant))
    return Leaderboard(
        group=group,
        context={k: labels[members[0]][k] for k in others},
        cells=rows[0].cells,
        rows=rows,
        seeds=ranks[members[0]].seeds,
        note=used.note(),
    )


def leaderboards(
    game: GameEntry,
    names: Sequence[str],
    labels: Mapping[str, Mapping[str, str]],
    specs: Specs,
    table: SeedTable,
    family: Family | None = None,
    apart: Collection[str] = (),
    few: Collection[str] = (),
) -> list[Leaderboard]:
    """One board per seat group and per set of entrants alike in every other group.

    ``family``: the Holm family of every entrant in ``names``, reused by a board of
    all of them rather than computed again. ``apart``: entrants mostly not their own
    (:func:`harness.report.servers.mostly_not_own`), ranked on no board but named
    under the boards they would be on; ``few``: entrants with too few seeds
    (:func:`harness.report.build.few_seeds`), likewise.
    """
    same: dict[str, list[str]] = {}
    for twins in identical_entrants(names, specs):
        same.update(dict.fromkeys(twins, twins))
    boards = []
    for group in game.seat_groups:
        others = [g.key for g in game.seat_groups if g.key != group.key]
        contexts: dict[tuple[str, ...], list[str]] = {}
        for name in names:
            if name in specs:
                contexts.setdefault(tuple(specs[name][k] for k in others), []).append(name)
        for everyone in contexts.values():
            members = [m for m in everyone if m not in apart and m not in few]
            if len({specs[m][group.key] for m in members}) < 2:
                continue  # nothing differs in this group: nothing to rank
            board = _board(group.key, others, members, labels, same, table, family)
            if board is not None:
                left = sorted(m for m in everyone if m in apart)
                short = sorted(m for m in everyone if m in few)
                boards.append(board.model_copy(update={"apart": left, "few_seeds": short}))
    return boards


__all__ = ["Specs", "identical_entrants", "leaderboards"]
