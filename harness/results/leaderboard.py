"""The entrants of several results folders, as ``lighthouse leaderboard`` rates them.

Each folder is read as ``lighthouse report`` reads it (:func:`read_results`: the
episodes planned now and played by each entrant's identity now). An entrant is known
by its identity (:mod:`harness.tournament.identity`), so the same entrant in two
folders is one entrant, which links them; entrants whose identity cannot be told stay
apart, one per folder. Every cell is keyed by the board it was played on: seed,
variant and the rules the folder's config overrides.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from harness.errors import ConfigError
from harness.report.build import not_own_of
from harness.report.cells import CellMeans
from harness.report.model import NotOwnCount
from harness.report.ratings import Board, RatedInput, Ratings, rate
from harness.results.folder import read_results
from harness.tournament.identity import manifest_identities


def leaderboard(roots: Sequence[Path]) -> Ratings:
    """One Bradley-Terry scale over every entrant of the folders at ``roots``.

    Raises :class:`ConfigError` for folders of different games, a folder given twice,
    and entrants that no seed connects (:func:`harness.report.ratings.rate`).
    """
    if not roots:
        raise ConfigError("leaderboard: name at least one results folder")
    resolved = [root.resolve() for root in roots]
    twice = sorted({str(r) for r in roots if resolved.count(r.resolve()) > 1})
    if twice:
        raise ConfigError(f"leaderboard: {twice[0]} is given twice")
    games: set[str] = set()
    names: dict[str, set[str]] = defaultdict(set)
    folders: dict[str, list[str]] = defaultdict(list)
    boards: dict[str, dict[Board, list[float]]] = defaultdict(lambda: defaultdict(list))
    not_own: dict[str, dict[str, NotOwnCount]] = defaultdict(dict)
    incomplete = []
    for root in roots:
        label = str(root)
        results = read_results(root)
        games.add(results.game.name)
        if len(games) > 1:
            raise ConfigError(
                f"leaderboard: {label} is a folder of {results.game.name}, the others of "
                f"{sorted(games - {results.game.name})[0]}; a scale is over one game"
            )
        if not results.completeness.complete:
            incomplete.append(label)
        rules = json.dumps(results.manifest.run.rules, sort_keys=True)
        identities = manifest_identities(results.game, results.manifest)
        variants = results.digest.variant_names
        for name, entry in sorted(results.digest.entrants.items()):
            key = identities.get(name) or f"{label}\0{name}"
            names[key].add(name)
            folders[key].append(label)
            mine = not_own[key]
            for group, count in not_own_of(results.game, entry).items():
                mine[group] = _sum(mine.get(group), count)
            for (seed, variant), mean in CellMeans.of_entrant(entry, variants).items():
                boards[key][(seed, variant, rules)].append(mean)
    taken: dict[str, int] = defaultdict(int)
    for key in names:
        for name in names[key]:
            taken[name] += 1
    inputs = []
    for key in names:
        name = "/".join(sorted(names[key]))
        if taken[name] > 1 or (len(names[key]) > 1 and any(taken[n] > 1 for n in names[key])):
            name = f"{name} ({', '.join(folders[key])})"
        inputs.append(
            RatedInput(
                name=name,
                folders=tuple(folders[key]),
                identity=None if "\0" in key else key,
                cells={board: sum(v) / len(v) for board, v in boards[key].items()},
                not_own=not_own[key],
            )
        )
    return rate(games.pop(), [str(r) for r in roots], inputs, incomplete=incomplete)


def _sum(a: NotOwnCount | None, b: NotOwnCount) -> NotOwnCount:
    """Two folders' counts of one seat group, added."""
    if a is None:
        return b
    sources = dict(a.sources)
    for source, n in b.sources.items():
        sources[source] = sources.get(source, 0) + n
    return NotOwnCount(
        turns=a.turns + b.turns,
        not_own=a.not_own + b.not_own,
        sources=dict(sorted(sources.items())),
    )


__all__ = ["leaderboard"]
