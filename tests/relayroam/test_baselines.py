"""GREEDY and vent-aware GREEDY (RR21) and their RR22 calibration scores."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from baselines.relayroam.greedy import greedy, vent_aware_greedy
from harness.errors import RulesError
from harness.games.relayroam.observe import Observation, observe
from harness.games.relayroam.rng import MAX_SEED
from harness.games.relayroam.rules import Action, legal_actions, new_game, step
from harness.games.relayroam.solver import solve_seeded_chamber
from harness.games.relayroam.state import State, chamber_start

Policy = Callable[[Observation], Action]
MAX_CHAMBER_ACTIONS = 1_000


def run_chamber(policy: Policy, chamber: int, seed: int = 0) -> State:
    """Play one chamber from its start until it is clear or the run ends."""
    state = chamber_start(seed, chamber, cleared_chamber_count=chamber - 1)
    # Every move or wait costs charge, so a chamber lasts far fewer actions than this.
    for _ in range(MAX_CHAMBER_ACTIONS):
        if state.phase != "playing":
            return state
        action = policy(observe(state))
        assert action in legal_actions(state)
        result = step(state, action)
        assert result.ok, result.message
        state = result.state
    pytest.fail(f"chamber {chamber} still in play after {MAX_CHAMBER_ACTIONS} actions")


@pytest.mark.parametrize(
    ("chamber", "score", "phase"),
    [(1, 455, "chamber-clear"), (2, 200, "ended"), (3, 356, "chamber-clear")],
)
def test_greedy_calibration_rr22(chamber: int, score: int, phase: str) -> None:
    end = run_chamber(greedy, chamber)
    assert (end.score, end.phase) == (score, phase)
    if phase == "ended":
        assert end.end_reason == "depleted"


@pytest.mark.parametrize(
    ("chamber", "score", "phase"),
    [(1, 455, "chamber-clear"), (2, 200, "ended"), (3, 443, "chamber-clear")],
)
def test_vent_aware_greedy_calibration_rr22(chamber: int, score: int, phase: str) -> None:
    end = run_chamber(vent_aware_greedy, chamber)
    assert (end.score, end.phase) == (score, phase)
    if phase == "ended":
        assert end.end_reason == "depleted"


# seed 0 in the default run, seeds 1 and 2 with the slow sweeps
@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow),
                                  pytest.param(2, marks=pytest.mark.slow)])  # fmt: skip
@pytest.mark.parametrize("policy", [greedy, vent_aware_greedy])
def test_baselines_never_beat_the_optimum(policy: Policy, seed: int) -> None:
    for chamber in range(1, 7):
        assert run_chamber(policy, chamber, seed).score <= solve_seeded_chamber(seed, chamber).score


def test_ties_go_to_relays_first() -> None:
    # From A's start, relay R2 (down) and helper H1 (up) are both 2 steps away.
    assert greedy(observe(new_game(0))) == {"type": "move", "direction": "down"}


def test_ties_between_relays_go_in_id_order() -> None:
    # On layout C, R1 (6, 2) and R2 (0, 4) are both 4 steps from vent V1 at (2, 2)...
    state = replace(
        chamber_start(0, 3, cleared_chamber_count=2),
        player=(2, 2),
        used_helpers=frozenset({"H1"}),
        score=80,
        total_rescued=1,
        turn=8,
        charge=20,
    )
    assert greedy(observe(state)) == {"type": "move", "direction": "right"}  # ... R1 first
    mirrored = replace(state, reflected=True, player=(4, 2))  # IDs stay with their objects
    assert greedy(observe(mirrored)) == {"type": "move", "direction": "left"}
    # With R1 repaired, R2 is the target and the way is left.
    state = replace(state, used_relays=frozenset({"R1"}), score=140)
    assert greedy(observe(state)) == {"type": "move", "direction": "left"}


def test_then_the_exit_and_the_first_shortest_step_in_rr13_order() -> None:
    state = replace(
        new_game(0),
        player=(3, 0),
        used_relays=frozenset({"R1", "R2"}),
        used_helpers=frozenset({"H1", "H2"}),
        score=280,
        total_rescued=2,
        turn=10,
        charge=15,
    )
    # The exit (6, 2) is 5 steps away round the right of the ring only.
    assert greedy(observe(state)) == {"type": "move", "direction": "right"}
    # From (3, 2), down to (3, 4) then right, or up to (3, 0) then right: both shortest,
    # and up comes first in RR13 order.
    state = replace(state, player=(3, 2))
    assert greedy(observe(state)) == {"type": "move", "direction": "up"}


def test_greedy_plays_next_in_chamber_clear_and_refuses_an_ended_run() -> None:
    state = chamber_start(0, 1)
    for action in solve_seeded_chamber(0, 1).actions:
        state = step(state, action).state
    assert greedy(observe(state)) == {"type": "next"}
    assert vent_aware_greedy(observe(state)) == {"type": "next"}
    ended = step(state, {"type": "bank"}).state
    with pytest.raises(RulesError, match="the run has ended"):
        greedy(observe(ended))


def test_vent_aware_greedy_waits_rather_than_step_onto_a_sparking_vent() -> None:
    # Layout A, V1 at (6, 1) with offset 0; from R1 at (6, 0) greedy heads down for H2.
    base = replace(
        new_game(0),
        player=(6, 0),
        used_relays=frozenset({"R1"}),
        used_helpers=frozenset({"H1"}),
        score=140,
        total_rescued=1,
        charge=20,
    )
    sparking = replace(base, turn=5)  # (5 + 1 + 0) % 3 == 0: V1 sparks on this action
    assert greedy(observe(sparking)) == {"type": "move", "direction": "down"}
    assert vent_aware_greedy(observe(sparking)) == {"type": "wait"}
    quiet = replace(base, turn=6)
    assert vent_aware_greedy(observe(quiet)) == {"type": "move", "direction": "down"}


@settings(max_examples=40, deadline=None)
@given(seed=hs.integers(0, MAX_SEED), warmup=hs.lists(hs.integers(0, 6), max_size=15))
def test_baselines_always_choose_a_legal_action(seed: int, warmup: list[int]) -> None:
    state = new_game(seed)
    for pick in warmup:  # wander a little first, through legal moves and waits only
        moves = [a for a in legal_actions(state) if a["type"] in ("move", "wait")]
        if not moves:
            break
        state = step(state, moves[pick % len(moves)]).state
    for policy in (greedy, vent_aware_greedy):
        current = state
        for _ in range(150):
            if current.phase == "ended" or current.chamber > 4:
                break
            action = policy(observe(current))
            assert action in legal_actions(current)
            current = step(current, action).state
