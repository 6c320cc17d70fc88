"""How a chamber's plan is drawn and settled: the draw order (H14), routes (H15), the
timing rule (H16) and the replay's repairs (H17)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from harness.games.hourloom.difficulty import chamber_spec
from harness.games.hourloom.generator import generate, settle
from harness.games.hourloom.generator.finish import chamber_of, extra_walls, tolls_and_sparks
from harness.games.hourloom.generator.layout import AttemptFailed, draw_layout
from harness.games.hourloom.generator.playback import Repair, Replayed, replay
from harness.games.hourloom.generator.routes import draw_routes, held_plates
from harness.games.hourloom.generator.schedule import inputs_of, move_turns, schedule
from harness.games.hourloom.grid import Input, manhattan
from harness.games.hourloom.rng import Stream
from tests.hourloom.hand import draw


def plan(*laps: str) -> tuple[tuple[Input, ...], ...]:
    return tuple(tuple(lap.split()) for lap in laps)  # type: ignore[arg-type]


def test_one_attempt_draws_in_h14s_order_and_settling_draws_nothing():
    number, word = 6, next(w for w in range(50) if generate(6, w).attempts == 1)
    built = generate(number, word)
    stream = Stream(word)
    layout = draw_layout(chamber_spec(number), stream)
    routes = draw_routes(layout, stream)
    before = stream.word
    planned, _ = settle(layout, routes)
    assert stream.word == before  # scheduling and replay draw nothing
    walls = extra_walls(layout, routes, stream)
    flux, sparks = tolls_and_sparks(layout.spec, layout, walls, stream)
    chamber = chamber_of(layout, walls, flux, sparks, built.chamber.lap_budgets)
    assert chamber == built.chamber
    assert planned == built.plan
    assert stream.word == built.rng_state


@pytest.mark.parametrize("number", [3, 6, 9, 12])
def test_routes_walk_alcove_keystone_plates_in_crosser_order_then_exit(number: int):
    checked = 0
    for word in range(12):
        stream = Stream(word)
        try:
            layout = draw_layout(chamber_spec(number), stream)
            routes = draw_routes(layout, stream)
        except AttemptFailed:
            continue
        checked += 1
        gates = set(layout.gate_tiles)
        pocket_keys = {p.keystone for p in layout.pockets}
        for route in routes:
            tiles = route.tiles
            assert tiles[0] == layout.alcoves[route.lap - 1]
            assert tiles[-1] == layout.exit
            assert layout.exit not in tiles[:-1]  # the exit only as the last tile
            assert all(manhattan(a, b, layout.n) == 1 for a, b in pairwise(tiles))
            assert not set(tiles) & layout.walls
            pocket = layout.pocket_of(route.lap)
            own = {pocket.keystone, *pocket.gates} if pocket else set()
            assert set(tiles) & (gates | pocket_keys) <= own  # other laps' pockets stay shut
            key_at = tiles.index(layout.keystones[route.lap - 1])
            visits = [route.plate_moves[gs] + 1 for gs in held_plates(layout, route.lap)]
            assert all(key_at < v for v in visits)
            assert visits == sorted(visits)  # in increasing order of the lap needing them
            if pocket is not None:  # in and out through its own gates
                k = len(pocket.gates)
                assert tiles[key_at - k - 1 : key_at + k + 2] == (
                    pocket.entrance, *reversed(pocket.gates), pocket.keystone,
                    *pocket.gates, pocket.entrance,
                )  # fmt: skip
    assert checked >= 3


@pytest.mark.parametrize("number", [2, 6, 10])
def test_the_timing_rule_puts_holders_on_plates_at_t_and_t_plus_1(number: int):
    for word in range(6):
        stream = Stream(word)
        try:
            layout = draw_layout(chamber_spec(number), stream)
            routes = draw_routes(layout, stream)
        except AttemptFailed:
            continue
        waits = schedule(layout, routes, {})
        for crosser in routes:
            for move, gate in crosser.gate_moves:
                t = move_turns(waits[crosser.lap - 1])[move]
                for slot, holder in enumerate(layout.gate_holders[gate]):
                    arrive = routes[holder - 1].plate_moves[(gate, slot)]
                    held = move_turns(waits[holder - 1])
                    # On the plate from the start of turn held[arrive] + 1 to that of
                    # turn held[arrive + 1]: it must cover turns t and t + 1.
                    assert held[arrive] + 1 <= t
                    assert t + 1 <= held[arrive + 1]
        for route, lap_waits in zip(routes, waits, strict=True):
            inputs = inputs_of(route, lap_waits)
            assert len(inputs) == route.moves + sum(lap_waits)


ROW = draw("1...X\n.2...", keystones=[(0, 2), (1, 3)])


def test_a_move_refused_by_an_echo_waits_as_long_as_the_echo_stays():
    # Echo 1 reaches (0,1) on turn 0 and leaves it on turn 4; lap 2 wants it on turn 1.
    chamber = draw("1...X\n2....", keystones=[(0, 2), (1, 3)])
    outcome = replay(chamber, plan("E WAIT WAIT WAIT E E E", "E N E E S E N"))
    assert outcome == Repair(lap=2, move=1, waits=4)


def test_an_echo_held_by_you_who_just_stepped_in_makes_you_yield():
    # Lap 2 steps N onto (0,1) on turn 0 just as echo 1 steps E onto it.
    outcome = replay(ROW, plan("E E E E", "N E E"))
    assert outcome == Repair(lap=2, move=0, waits=2)


def test_an_echo_held_by_you_standing_delays_the_echos_own_lap():
    chamber = draw("1.2.X\n.....", keystones=[(0, 3), (1, 4)])
    # You wait on your alcove (0,2) until turn 2; echo 1 wants it on turn 1.
    outcome = replay(chamber, plan("E E E E", "WAIT WAIT S E E N"))
    assert outcome == Repair(lap=1, move=1, waits=1)


def test_an_echo_held_by_a_later_echo_that_is_leaving_delays_the_held_echos_lap():
    # Lap 1 walks one step behind lap 2; on lap 3 echo 1 resolves before echo 2 moves on.
    chamber = draw("12...X\n3.....", keystones=[(0, 3), (0, 4), (1, 3)])
    outcome = replay(chamber, plan("E E E E E", "E E E E", "WAIT E E"))
    assert outcome == Repair(lap=1, move=0, waits=1)


def test_a_head_on_meeting_abandons_the_attempt():
    chamber = draw("1..2X\n.....", keystones=[(0, 2), (1, 0)])
    with pytest.raises(AttemptFailed, match="head-on"):
        replay(chamber, plan("E E E E", "W W S W"))


def test_a_clean_plan_replays_to_its_grains():
    outcome = replay(ROW, plan("E E E E", "WAIT WAIT WAIT WAIT E E E N"))
    assert isinstance(outcome, Replayed)
    assert outcome.grains == (4, 8)
    assert outcome.final.phase == "sealed"
