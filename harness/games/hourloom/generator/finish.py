"""The chamber around a settled plan: extra walls, flux, sparks (H13) and budgets (H18).

Extra walls go only where no planned route or special tile is, so they never touch
the plan; flux is a toll, never a wall, and may lie on routes; sparks persist until
you take them. Budgets come from the grains the plan's laps cost in a replay through
the real turn rules.
"""

from __future__ import annotations

from harness.games.hourloom.difficulty import ChamberSpec
from harness.games.hourloom.generator.layout import AttemptFailed, Layout
from harness.games.hourloom.generator.paths import connected
from harness.games.hourloom.generator.routes import Route
from harness.games.hourloom.rng import Stream
from harness.games.hourloom.state import FLUX_PERIOD, Chamber, Flux, Gate

#: Budgets a replay runs under before the real ones are known: far above any lap.
REPLAY_BUDGET = 100_000


def lap_budget(grains: int) -> int:
    """H18: g + 4 + ceil(g / 4) for a lap the plan finishes in ``grains`` grains."""
    return grains + 4 + -(-grains // 4)


def special_tiles(layout: Layout) -> frozenset[int]:
    """Alcoves, exit, keystones, gates, plates, entrances and every pocket's footprint."""
    plates = (p for ps in layout.gate_plates for p in ps)
    pockets = (t for p in layout.pockets for t in p.footprint)
    return frozenset(
        (*layout.alcoves, layout.exit, *layout.keystones, *layout.gate_tiles, *plates, *pockets)
    )


def extra_walls(layout: Layout, routes: tuple[Route, ...], stream: Stream) -> frozenset[int]:
    """H13: N - 2 tiles drawn (a shuffle) off every route and special tile, each kept only
    if every floor tile stays 4-connected."""
    n = layout.n
    off = special_tiles(layout) | {t for r in routes for t in r.tiles}
    walls = set(layout.walls)
    candidates = [t for t in range(n * n) if t not in walls and t not in off]
    for tile in stream.shuffle(candidates)[: n - 2]:
        trial = walls | {tile}
        if connected(n, [t not in trial for t in range(n * n)]):
            walls = trial
    return frozenset(walls)


def tolls_and_sparks(
    spec: ChamberSpec, layout: Layout, walls: frozenset[int], stream: Stream
) -> tuple[tuple[Flux, ...], tuple[int, ...]]:
    """H13: flux on floor that is not alcove, keystone, exit, pocket, entrance or plate
    (a shuffle, then phases 0..3 in tile order); sparks among the rest (a shuffle)."""
    n = layout.n
    plates = {p for ps in layout.gate_plates for p in ps}
    pockets = {t for p in layout.pockets for t in (p.keystone, *p.gates)}
    excluded = (
        walls
        | set(layout.alcoves)
        | set(layout.keystones)
        | {layout.exit}
        | pockets
        | layout.entrances
        | plates
    )
    floor = [t for t in range(n * n) if t not in excluded]
    if len(floor) < spec.flux + spec.sparks:
        raise AttemptFailed("too little floor for flux and sparks")
    flux_tiles = sorted(stream.shuffle(floor)[: spec.flux])
    flux = tuple(Flux(t, stream.below(FLUX_PERIOD)) for t in flux_tiles)
    rest = [t for t in floor if t not in flux_tiles]
    sparks = tuple(sorted(stream.shuffle(rest)[: spec.sparks]))
    return flux, sparks


def chamber_of(
    layout: Layout,
    walls: frozenset[int],
    flux: tuple[Flux, ...],
    sparks: tuple[int, ...],
    budgets: tuple[int, ...],
) -> Chamber:
    """The H7 chamber of ``layout`` with these walls, flux, sparks and budgets."""
    spec = layout.spec
    return Chamber(
        number=spec.number,
        width=spec.size,
        height=spec.size,
        laps=spec.laps,
        multiplier_pct=spec.multiplier_pct,
        walls=tuple(sorted(walls)),
        exit=layout.exit,
        alcoves=layout.alcoves,
        keystones=layout.keystones,
        gates=tuple(
            Gate(tile, plates)
            for tile, plates in zip(layout.gate_tiles, layout.gate_plates, strict=True)
        ),
        flux=flux,
        sparks=sparks,
        lap_budgets=budgets,
    )


__all__ = [
    "REPLAY_BUDGET",
    "chamber_of",
    "extra_walls",
    "lap_budget",
    "special_tiles",
    "tolls_and_sparks",
]
