"""A lap turn on hand-drawn chambers: order, jostles, gates, flux, despawns (H19-H25)."""

from __future__ import annotations

from harness.games.hourloom.events import EchoGone, EchoHeld, EchoMoved, GateCrossed, TurnPaid
from harness.games.hourloom.rules import step
from harness.games.hourloom.state import State
from tests.hourloom.hand import MOVE_E, MOVE_N, MOVE_S, MOVE_W, WAIT, draw, lap_start, tile_of

# A 5 x 3 room: lap 3 starts on (1,2) beside echo 1 on (1,1) and echo 2 on (1,0).
ROW = """
.....
213.X
.....
"""
ROW_KEYS = [(0, 0), (2, 0), (0, 4)]


def row_state(log1: str, log2: str) -> State:
    return lap_start(draw(ROW, keystones=ROW_KEYS), 3, [log1, log2])


def t(cell: tuple[int, int], width: int = 5) -> int:
    return tile_of(width, cell)


def holds(result: object) -> list[tuple[int, str, int | None]]:
    events = getattr(result, "events", ())
    return [(e.echo, e.cause, e.blocker) for e in events if isinstance(e, EchoHeld)]


def grains(result: object) -> int:
    return next(e.grains for e in getattr(result, "events", ()) if isinstance(e, TurnPaid))


def test_you_move_first_then_echo_1_then_echo_2():
    # You step E; echo 1 enters the tile you just left; echo 2 the one echo 1 just left.
    result = step(row_state("E WAIT", "E WAIT"), MOVE_E)
    assert result.ok
    assert result.state.player == t((1, 3))
    assert result.state.echoes == (t((1, 2)), t((1, 1)))
    moved = [(e.echo, e.origin, e.tile) for e in result.events if isinstance(e, EchoMoved)]
    assert moved == [(1, t((1, 1)), t((1, 2))), (2, t((1, 0)), t((1, 1)))]


def test_an_echo_cannot_enter_a_tile_a_later_echo_is_about_to_leave():
    # Echo 1 aims W at echo 2's tile; echo 2 leaves it only after echo 1 has resolved.
    result = step(row_state("W WAIT", "N WAIT"), WAIT)
    assert holds(result) == [(1, "echo", 2)]
    assert result.state.echoes == (t((1, 1)), t((0, 0)))
    assert grains(result) == 1  # an echo held by an echo costs you nothing


def test_you_can_never_enter_a_tile_an_echo_is_about_to_leave():
    state = row_state("N WAIT", "WAIT WAIT")  # echo 1 would step N off (1,1) this turn
    result = step(state, MOVE_W)
    assert (result.ok, result.reason) == (False, "echo_in_the_way")
    assert result.state is state


def test_a_jostle_costs_a_grain_per_echo_that_targets_you():
    chamber = draw("..2..\n.13.X\n.....", keystones=ROW_KEYS)
    # You wait on (1,2): echo 1 steps E into you, echo 2 comes down S into you.
    state = lap_start(chamber, 3, ["E WAIT", "S WAIT"])
    result = step(state, WAIT)
    assert holds(result) == [(1, "you", None), (2, "you", None)]
    paid = next(e for e in result.events if isinstance(e, TurnPaid))
    assert (paid.jostles, paid.grains) == (2, 3)
    assert result.state.sand == state.sand - 3
    # One echo into you (the other steps off the edge, which is free): one grain.
    assert grains(step(lap_start(chamber, 3, ["E WAIT", "N WAIT"]), WAIT)) == 2


def test_holds_against_walls_edges_gates_and_echoes_are_free():
    chamber = draw("2#a..\n1A3.X\n.....", keystones=[(2, 0), (2, 1), (0, 4)])
    state = lap_start(chamber, 3, ["E N WAIT", "E N WAIT"])
    # Echo 1 into gate A (nobody on plate a), echo 2 into the wall.
    first = step(state, MOVE_S)
    assert holds(first) == [(1, "gate_shut", None), (2, "wall", None)]
    # Echo 1 into echo 2's tile, echo 2 off the top edge.
    second = step(first.state, WAIT)
    assert holds(second) == [(1, "echo", 2), (2, "edge_of_chamber", None)]
    assert (grains(first), grains(second)) == (1, 1)


GATED = ".a...\n1A.2X\n....."  # gate A (1,1), plate a (0,1), lap 2 on (1,3)


def test_a_gate_opens_for_you_once_an_echo_holds_its_plate():
    chamber = draw(GATED, keystones=[(2, 4), (2, 0)])
    state = lap_start(chamber, 2, ["N E WAIT WAIT"])  # echo 1 climbs onto plate a
    near = step(state, MOVE_W)
    assert near.state.echoes == (t((0, 0)),)
    assert step(near.state, MOVE_W).reason == "gate_shut"
    waited = step(near.state, WAIT)
    assert waited.state.echoes == (t((0, 1)),)
    crossed = step(waited.state, MOVE_W)
    assert crossed.ok
    assert crossed.state.player == t((1, 1))
    gate = next(e for e in crossed.events if isinstance(e, GateCrossed))
    assert (gate.gate, gate.plates, gate.points) == ("A", 1, 25)


def test_your_own_body_on_the_plate_never_opens_the_gate_for_you():
    chamber = draw("1a...\n.A.2X\n.....", keystones=[(2, 4), (2, 0)])
    state = lap_start(chamber, 2, ["WAIT WAIT"], player=t((0, 1)))
    assert step(state, MOVE_S).reason == "gate_shut"


def test_your_body_on_a_plate_opens_its_gate_for_an_echo_but_not_the_echo_itself():
    chamber = draw(".a...\n.A...\n1.2.X", keystones=[(0, 4), (0, 3)])
    state = lap_start(chamber, 2, ["N E WAIT"], player=t((0, 1)))
    first = step(state, WAIT)  # echo 1 steps N to (1,0)
    second = step(first.state, WAIT)  # echo 1 steps E onto gate A: you hold plate a
    assert second.state.echoes == (t((1, 1)),)
    assert not any(isinstance(e, GateCrossed) for e in second.events)  # echoes earn nothing
    # An echo standing on the plate cannot open that gate for itself.
    own = lap_start(chamber, 2, ["S WAIT"], echoes=(t((0, 1)),))
    assert holds(step(own, WAIT)) == [(1, "gate_shut", None)]


def test_a_two_plate_gate_needs_both_plates_held_by_echoes_and_pays_one_award():
    chamber = draw("2a3..\n.A.4X\n1a...", keystones=[(2, 4), (0, 4), (2, 3), (2, 2)], pct=125)
    state = lap_start(chamber, 4, ["E WAIT", "E WAIT", "WAIT WAIT"], player=t((1, 2)))
    assert step(state, MOVE_W).reason == "gate_shut"  # nobody holds a or b yet
    half = lap_start(chamber, 4, ["E WAIT", "WAIT WAIT", "WAIT WAIT"], player=t((1, 2)))
    assert step(step(half, WAIT).state, MOVE_W).reason == "gate_shut"  # only one plate is held
    entered = step(step(state, WAIT).state, MOVE_W)
    assert entered.ok
    gate = next(e for e in entered.events if isinstance(e, GateCrossed))
    # 25 per plate, one award: 50 x 125% = 62.5 rounds to 63 (two awards would make 62).
    assert (gate.plates, gate.points) == (2, 63)


def test_a_body_on_a_gate_tile_when_it_shuts_stays():
    chamber = draw(GATED, keystones=[(2, 4), (2, 0)])
    # Echo 1 reaches plate a (N, E), holds it one more turn, then steps off E.
    state = lap_start(chamber, 2, ["N E WAIT E WAIT WAIT"], player=t((1, 2)))
    ready = step(step(state, WAIT).state, WAIT)
    on_gate = step(ready.state, MOVE_W)
    assert on_gate.ok
    assert on_gate.state.player == t((1, 1))
    shut = step(on_gate.state, WAIT)  # echo 1 leaves the plate: the gate shuts around you
    assert shut.ok
    assert shut.state.player == t((1, 1))
    assert shut.state.echoes == (t((0, 2)),)
    off = step(shut.state, MOVE_E)  # gates block entry, not existence: leaving is fine
    assert off.ok
    assert step(off.state, MOVE_W).reason == "gate_shut"


def test_every_step_onto_a_gate_pays_going_in_and_coming_out():
    chamber = draw(".....\n.....\n..B..\n1.b2X", keystones=[(0, 0), (0, 4)])
    state = lap_start(chamber, 2, ["E E WAIT WAIT WAIT WAIT"], player=t((2, 1)))
    ready = step(step(state, WAIT).state, WAIT)  # echo 1 is on plate b
    into = step(ready.state, MOVE_E)
    out = step(into.state, MOVE_W)
    back = step(out.state, MOVE_E)
    paid = [e.points for r in (into, out, back) for e in r.events if isinstance(e, GateCrossed)]
    assert paid == [25, 25]
    assert back.state.score == 50


def test_flux_is_lit_when_turn_plus_phase_mod_4_is_at_least_2():
    chamber = draw("1....\n....X", keystones=[(1, 0)], flux={(0, 1): 1, (0, 2): 0})
    assert [chamber.lit(t((0, 1)), turn) for turn in range(8)] == [
        False, True, True, False, False, True, True, False,
    ]  # fmt: skip
    assert [chamber.lit(t((0, 2)), turn) for turn in range(4)] == [False, False, True, True]
    assert not chamber.lit(t((0, 3)), 2)  # not a flux tile


def test_flux_saps_on_a_move_and_on_a_wait_but_never_for_an_echo():
    chamber = draw("1....\n...2X", keystones=[(1, 0), (1, 1)], flux={(0, 1): 0})
    state = lap_start(chamber, 1)
    calm = step(state, MOVE_E)  # turn 0: phase 0 is calm
    assert grains(calm) == 1
    waited = step(calm.state, WAIT)  # turn 1: calm
    lit = step(waited.state, WAIT)  # turn 2: lit, and staying counts
    paid = next(e for e in lit.events if isinstance(e, TurnPaid))
    assert (paid.flux, paid.grains) == (True, 4)
    # Echo 1 stands on the flux through its lit turns: you pay 1 a turn.
    lap2 = lap_start(chamber, 2, ["E WAIT WAIT WAIT"])
    after = step(step(step(lap2, WAIT).state, WAIT).state, WAIT)
    assert after.state.echoes == (t((0, 1)),)
    assert after.state.sand == lap2.sand - 3


def test_an_echo_despawns_at_the_end_of_the_turn_of_its_last_input():
    chamber = draw(".....\n123.X\n.....", keystones=[(0, 0), (2, 0), (0, 4)])
    state = lap_start(chamber, 3, ["WAIT WAIT WAIT", "WAIT"])  # echo 2 has one input
    first = step(state, WAIT)
    assert first.state.echoes == (t((1, 0)), None)
    gone = [(e.echo, e.tile) for e in first.events if isinstance(e, EchoGone)]
    assert gone == [(2, t((1, 1)))]
    second = step(first.state, MOVE_W)  # the tile echo 2 stood on is free now
    assert second.ok
    assert second.state.player == t((1, 1))


def test_a_despawning_echo_still_blocks_later_echoes_that_turn():
    chamber = draw(".....\n213.X\n.....", keystones=[(0, 0), (2, 0), (0, 4)])
    # Echo 1 plays its last input on turn 0; echo 2 aims at its tile that same turn.
    result = step(lap_start(chamber, 3, ["WAIT", "E WAIT"]), MOVE_N)
    assert holds(result) == [(2, "echo", 1)]
    assert result.state.echoes == (None, t((1, 0)))
