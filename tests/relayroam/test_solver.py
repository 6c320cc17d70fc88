"""The exact chamber solver and the RR22 calibration optima (RR20-RR22)."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from typing import Any

import pytest

from harness.games.relayroam.layouts import layout_for
from harness.games.relayroam.rules import legal_actions, step
from harness.games.relayroam.solver import (
    ChamberOptimum,
    _Chamber,
    episode_optimum,
    solve_chamber,
    solve_seeded_chamber,
)
from harness.games.relayroam.state import (
    CHARGE_CAP,
    VENT_PERIOD,
    State,
    chamber_setup,
    chamber_start,
)

#: RR22: the optimum of chambers 1 (A), 2 (B) and 3 (C) with their RR9 offsets.
CALIBRATION = {1: 544, 2: 508, 3: 452}


def replay(start: State, optimum: ChamberOptimum) -> State:
    """Play ``optimum.actions`` through the rules, checking each is legal."""
    state = start
    for action in optimum.actions:
        assert action in legal_actions(state)
        result = step(state, action)
        assert result.ok, result.message
        state = result.state
    return state


@pytest.mark.parametrize(("chamber", "score"), sorted(CALIBRATION.items()))
def test_calibration_optima_rr22(chamber: int, score: int) -> None:
    setup = chamber_setup(0, chamber)
    optimum = solve_chamber(chamber, setup.reflected, setup.vent_offsets)
    assert optimum.score == score
    assert optimum.clears
    assert (optimum.chamber, optimum.reflected, optimum.vent_offsets) == (
        chamber, False, setup.vent_offsets,
    )  # fmt: skip


@pytest.mark.parametrize(("chamber", "score"), sorted(CALIBRATION.items()))
def test_each_optimal_sequence_replays_to_its_score(chamber: int, score: int) -> None:
    start = chamber_start(0, chamber, cleared_chamber_count=chamber - 1)
    end = replay(start, solve_seeded_chamber(0, chamber))
    assert end.phase == "chamber-clear"
    assert end.score == score


# every offset set of a chamber: 3 ** vents solves; chambers 2 and 3 are the slow sweeps
@pytest.mark.parametrize(
    "chamber", [1, pytest.param(2, marks=pytest.mark.slow), pytest.param(3, marks=pytest.mark.slow)]
)
def test_reflection_never_changes_an_optimum(chamber: int) -> None:
    vents = len(layout_for(chamber, False).vents)
    for offsets in itertools.product(range(3), repeat=vents):
        plain = solve_chamber(chamber, False, offsets)
        mirrored = solve_chamber(chamber, True, offsets)
        assert plain.score == mirrored.score, offsets
        # RR20: clearing beats every non-clearing end, for every offset set.
        assert plain.clears
        assert mirrored.clears


@pytest.mark.parametrize("seed", [0, 3, 77, 2**40 + 5])
def test_seeded_optimal_sequences_replay_to_their_score(seed: int) -> None:
    for chamber in (4, 5, 6):
        setup = chamber_setup(seed, chamber)
        optimum = solve_seeded_chamber(seed, chamber)
        assert optimum.reflected == setup.reflected
        assert optimum.vent_offsets == setup.vent_offsets
        start = chamber_start(seed, chamber, cleared_chamber_count=chamber - 1)
        end = replay(start, optimum)
        assert end.phase == "chamber-clear"
        assert end.score == optimum.score


def test_layouts_repeat_so_chamber_four_matches_chamber_one_when_set_alike() -> None:
    assert solve_chamber(4, False, (0,)).score == 544
    assert solve_chamber(7, True, (0,)).score == 544
    assert solve_chamber(5, False, (0, 1)).score == 508
    assert solve_chamber(6, True, (0, 1, 2)).score == 452


def test_episode_optimum_is_the_sum_of_chamber_optima_rr20() -> None:
    assert episode_optimum(123, 3) == 544 + 508 + 452
    assert episode_optimum(123, 6) == sum(solve_seeded_chamber(123, n).score for n in range(1, 7))
    assert episode_optimum(123, 0) == 0


def test_a_whole_episode_of_optimal_chambers_reaches_the_episode_optimum() -> None:
    seed = 4242
    state = chamber_start(seed, 1)
    for chamber in range(1, 7):
        state = replay(state, solve_seeded_chamber(seed, chamber))
        assert state.phase == "chamber-clear"
        if chamber < 6:
            state = step(state, {"type": "next"}).state
    assert state.score == episode_optimum(seed, 6)


def test_the_solver_expands_each_node_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # The solver's cost is the number of nodes it expands: memoised, each node of
    # (cell, charge, turn mod 3, used objects, shocked) is expanded at most once.
    models: list[_Chamber] = []
    expanded: list[object] = []
    real_init, real_edges = _Chamber.__init__, _Chamber.edges

    def init(self: _Chamber, *args: Any) -> None:
        real_init(self, *args)
        models.append(self)

    def edges(self: _Chamber, node: Any) -> Any:
        expanded.append(node)
        return real_edges(self, node)

    monkeypatch.setattr(_Chamber, "__init__", init)
    monkeypatch.setattr(_Chamber, "edges", edges)
    for chamber in (1, 2, 3):
        models.clear()
        expanded.clear()
        layout = layout_for(chamber, False)
        optimum = solve_chamber(chamber, False, (2,) * len(layout.vents))
        (model,) = models
        walked = [a for a in optimum.actions if a["type"] != "bank"]
        # value() expands each memoised node once; rebuilding the play walks its path once.
        assert len(expanded) == len(model.memo) + len(walked)
        assert len(set(expanded)) == len(model.memo)
        space = len(layout.floor) * (CHARGE_CAP + 1) * VENT_PERIOD * 2 ** len(layout.objects) * 2
        assert 0 < len(model.memo) < space


def test_the_solver_refuses_offsets_that_do_not_fit() -> None:
    with pytest.raises(ValueError, match="layout A has 1 vents, got 2 offsets"):
        solve_chamber(1, False, (0, 0))
    with pytest.raises(ValueError, match="vent offsets must be 0, 1 or 2"):
        solve_chamber(2, False, (0, 3))


def test_the_optimal_sequence_is_deterministic() -> None:
    # The same optimum, action for action, from fresh interpreters with other hash seeds.
    here = solve_chamber(2, True, (1, 2))
    code = (
        "import json, sys; from harness.games.relayroam.solver import solve_chamber; "
        "o = solve_chamber(2, True, (1, 2)); "
        "sys.stdout.write(json.dumps([o.score, list(o.actions)]))"
    )
    for hash_seed in ("0", "4242"):
        done = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
        )
        assert json.loads(done.stdout) == [here.score, list(here.actions)]
