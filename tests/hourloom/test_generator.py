"""The chamber generator as properties over many chambers (H1, H9-H18), and PLANNER
sealing every one inside its budgets.

The always-run sweep covers chambers 1-15 for a few seeds; the full sweep of the
acceptance list (100 seeds) is marked slow.
"""

from __future__ import annotations

from itertools import pairwise

import pytest

from harness.games.hourloom.difficulty import chamber_spec
from harness.games.hourloom.events import EchoHeld, GateCrossed, LapCompleted, TurnPaid
from harness.games.hourloom.generator import (
    MAX_ATTEMPTS,
    Generated,
    GenerationError,
    generate,
)
from harness.games.hourloom.generator import layout as layout_module
from harness.games.hourloom.grid import DIRECTIONS, manhattan, neighbour
from harness.games.hourloom.rules import step
from harness.games.hourloom.state import Chamber, State, state_json
from harness.games.hourloom.turn import chamber_start
from harness.games.hourloom.validate import state_from_json

CHAMBERS = range(1, 16)


def run_chambers(seed: int) -> list[Generated]:
    """Chambers 1-15 of the run of ``seed``, each drawn from the stream the last left."""
    out = []
    word = seed
    for number in CHAMBERS:
        built = generate(number, word)
        out.append(built)
        word = built.rng_state
    return out


def neighbours4(tile: int, n: int) -> list[int]:
    return [t for d in DIRECTIONS if (t := neighbour(tile, d, n, n)) is not None]


def pockets(built: Generated) -> dict[int, tuple[int, list[int], int]]:
    """Each gated lap's (keystone, gates inner first, entrance), read off the chamber."""
    c = built.chamber
    out = {}
    for lap in sorted(set(built.gate_laps)):
        gates = [c.gates[g].tile for g, gl in enumerate(built.gate_laps) if gl == lap]
        key = c.keystones[lap - 1]
        step_in = gates[0] - key
        last = gates[-1]
        out[lap] = (key, gates, last + step_in)
    return out


def check_h1(built: Generated) -> None:
    c = built.chamber
    spec = chamber_spec(c.number)
    assert (c.width, c.height) == (spec.size, spec.size)
    assert c.laps == spec.laps
    assert c.multiplier_pct == spec.multiplier_pct
    assert len(c.gates) == spec.gates
    assert [len(g.plates) for g in c.gates] == [2] * spec.two_plate_gates + [1] * (
        spec.gates - spec.two_plate_gates
    )
    assert len(c.flux) == spec.flux
    assert len(c.sparks) == spec.sparks
    assert len(c.lap_budgets) == c.laps


def check_h12(built: Generated) -> None:
    """Eligible laps only, the fewest gates first, holders distinct and earlier."""
    c = built.chamber
    count = [0] * (c.laps + 1)
    plates = [0] * (c.laps + 1)
    for g, lap in enumerate(built.gate_laps):
        k = len(c.gates[g].plates)
        eligible = [
            j
            for j in range(2 if k == 1 else 3, c.laps + 1)
            if count[j] < 2 and plates[j] + k <= j - 1
        ]
        assert lap in eligible
        assert count[lap] == min(count[j] for j in eligible)
        count[lap] += 1
        plates[lap] += k
    for lap in range(1, c.laps + 1):
        held = [h for g, gl in enumerate(built.gate_laps) if gl == lap for h in built.holders[g]]
        assert len(held) == len(set(held))
        assert all(1 <= h < lap for h in held)
    assert [len(h) for h in built.holders] == [len(g.plates) for g in c.gates]


def check_h10(built: Generated) -> None:
    c = built.chamber
    n = c.width
    walls = c.wall_set
    for key, gates, entrance in pockets(built).values():
        row, col = divmod(key, n)
        assert row in (0, n - 1) or col in (0, n - 1)  # on the rim
        assert (row, col) not in ((0, 0), (0, n - 1), (n - 1, 0), (n - 1, n - 1))
        corridor = [key, *gates, entrance]
        inward = gates[0] - key
        assert all(b - a == inward for a, b in pairwise(corridor))
        assert all(manhattan(a, b, n) == 1 for a, b in pairwise(corridor))
        assert entrance not in walls
        flanked = [key, *gates[:-1]]  # the keystone and any inner gate
        for tile in flanked:
            sides = [t for t in neighbours4(tile, n) if t not in corridor]
            assert len(sides) == 2
            assert all(s in walls for s in sides)
        outer_sides = [t for t in neighbours4(gates[-1], n) if t not in corridor]
        assert not any(s in walls for s in outer_sides)


def check_h9_h11(built: Generated) -> None:
    c = built.chamber
    n = c.width
    entrances = [e for _, _, e in pockets(built).values()]
    gated = set(built.gate_laps)
    open_keys = [c.keystones[lap - 1] for lap in range(1, c.laps + 1) if lap not in gated]
    plates = [p for g in c.gates for p in g.plates]
    assert len(set(c.alcoves)) == c.laps
    for i, a in enumerate(c.alcoves):
        assert manhattan(a, c.exit, n) >= 3
        assert all(manhattan(a, b, n) >= 2 for b in c.alcoves[i + 1 :])
    for lap in range(1, c.laps + 1):
        if lap not in gated:
            key = c.keystones[lap - 1]
            assert manhattan(key, c.alcoves[lap - 1], n) >= 3
            assert manhattan(key, c.exit, n) >= 2
    for tile in [*c.alcoves, c.exit, *open_keys, *plates]:
        assert all(manhattan(tile, e, n) >= 2 for e in entrances)
    assert len(set(plates)) == len(plates)  # each plate links to exactly one gate
    assert all(manhattan(p, c.exit, n) >= 2 for p in plates)
    specials = [*c.alcoves, c.exit, *c.keystones, *(g.tile for g in c.gates), *plates]
    assert not set(specials) & c.wall_set


def check_h13(built: Generated) -> None:
    c = built.chamber
    n = c.width
    floor = [t for t in range(c.tiles) if t not in c.wall_set]
    seen = {floor[0]}
    frontier = [floor[0]]
    while frontier:
        here = frontier.pop()
        for t in neighbours4(here, n):
            if t not in c.wall_set and t not in seen:
                seen.add(t)
                frontier.append(t)
    assert len(seen) == len(floor)  # every floor tile 4-connected
    pocket_walls = sum(2 * len(gates) for _, gates, _ in pockets(built).values())
    assert len(c.walls) <= pocket_walls + n - 2
    entrances = {e for _, _, e in pockets(built).values()}
    pocket_tiles = {t for k, gates, _ in pockets(built).values() for t in (k, *gates)}
    plates = {p for g in c.gates for p in g.plates}
    barred = set(c.alcoves) | set(c.keystones) | {c.exit} | pocket_tiles | entrances | plates
    flux_tiles = {f.tile for f in c.flux}
    assert not flux_tiles & (barred | c.wall_set)
    assert all(0 <= f.phase <= 3 for f in c.flux)
    assert [f.tile for f in c.flux] == sorted(flux_tiles)
    assert not set(c.sparks) & (barred | flux_tiles | c.wall_set)


def check_planner_seals(built: Generated) -> None:
    """The plan through the real rules: every lap completes inside its budget, which is
    g + 4 + ceil(g/4) for the g grains it spends; no echo is ever held; it seals."""
    c: Chamber = built.chamber
    state: State = chamber_start(7, built.rng_state, c, 0)
    for lap, inputs in enumerate(built.plan, 1):
        spent = 0
        for i, entry in enumerate(inputs):
            action = {"type": "WAIT"} if entry == "WAIT" else {"type": "MOVE", "dir": entry}
            result = step(state, action)
            assert result.ok, (c.number, lap, i, result.message)
            assert not any(isinstance(e, EchoHeld) for e in result.events)
            for crossed in (e for e in result.events if isinstance(e, GateCrossed)):
                # H16: echoes hold every plate at turn t and still at turn t + 1.
                plates = c.gate_at[crossed.tile].plates
                assert set(plates) <= set(state.echoes)
                assert set(plates) <= set(result.state.echoes)
            spent += sum(e.grains for e in result.events if isinstance(e, TurnPaid))
            done = [e for e in result.events if isinstance(e, LapCompleted)]
            assert bool(done) == (i == len(inputs) - 1)
            state = result.state
            assert state.phase != "over"
        assert done[0].grains_left == c.lap_budgets[lap - 1] - spent > 0
        assert c.lap_budgets[lap - 1] == spent + 4 + -(-spent // 4)
        assert state_from_json(state_json(state)) == state
    assert state.phase == "sealed"


def check_all(built: Generated) -> None:
    check_h1(built)
    check_h12(built)
    check_h10(built)
    check_h9_h11(built)
    check_h13(built)
    check_planner_seals(built)


@pytest.mark.parametrize("seed", [0, 1, 2, 2**53 - 1])
def test_chambers_1_to_15_follow_the_decisions_and_planner_seals_them(seed: int):
    for built in run_chambers(seed):
        check_all(built)


@pytest.mark.slow
@pytest.mark.parametrize("first", range(0, 100, 10))
def test_the_full_sweep_100_seeds_of_chambers_1_to_15(first: int):
    # ten seeds a test: the whole sweep takes minutes, and each part stays well inside
    # the per-test timeout on a loaded machine
    for seed in range(first, first + 10):
        for built in run_chambers(seed):
            check_all(built)


def test_generation_is_deterministic_and_draws_from_the_stream():
    a = generate(6, 1234)
    b = generate(6, 1234)
    assert a == b
    assert a.rng_state != 1234
    assert generate(6, 1235).chamber != a.chamber


def test_500_failed_attempts_raise_a_generation_error_naming_the_chamber(
    monkeypatch: pytest.MonkeyPatch,
):
    calls = []

    def never(spec, stream):  # every placement fails: no valid tile for the exit
        calls.append(stream.word)
        raise layout_module.AttemptFailed("no valid tile")

    monkeypatch.setattr("harness.games.hourloom.generator.draw_layout", never)
    with pytest.raises(GenerationError, match=r"chamber 7 .*500 attempts"):
        generate(7, 99)
    assert len(calls) == MAX_ATTEMPTS == 500
