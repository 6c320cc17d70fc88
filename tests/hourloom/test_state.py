"""The state's JSON shape (H7) and the structural check of a state given as JSON (H31)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from baselines.hourloom import planner, timestep
from harness.errors import HarnessError, RecordError
from harness.games.hourloom.observe import observe
from harness.games.hourloom.rules import END_RUN, new_game, step
from harness.games.hourloom.state import HourloomStateError, state_json
from harness.games.hourloom.validate import state_from_json, state_from_text

H7_KEYS = {"game", "version", "seed", "rngState", "chamber", "phase", "lap", "turn", "sand",
           "player", "hasKeystone", "sparksLeft", "logs", "log", "echoes", "score", "endReason"}  # fmt: skip
CHAMBER_KEYS = {"number", "width", "height", "laps", "multiplierPct", "walls", "exit",
                "alcoves", "keystones", "gates", "flux", "sparks", "lapBudgets"}  # fmt: skip


def planner_states(seed: int, count: int) -> list[Any]:
    state = new_game(seed)
    out = [state]
    for _ in range(count):
        if state.phase == "over":
            break
        state = step(state, planner(state)).state
        out.append(state)
    return out


def test_the_json_has_exactly_h7s_fields():
    data: Any = state_json(new_game(3))
    assert set(data) == H7_KEYS
    assert set(data["chamber"]) == CHAMBER_KEYS
    assert data["game"] == "hourloom"
    assert data["version"] == 1
    assert isinstance(data["rngState"], str)
    assert len(data["rngState"]) == 16
    assert data["rngState"] == data["rngState"].lower()
    assert data["phase"] == "lap"
    assert data["endReason"] is None
    assert json.loads(json.dumps(data)) == data


def test_every_state_of_a_played_run_round_trips_through_json():
    states = planner_states(4, 90)  # chamber 1 sealed, a DESCEND, chamber 2 under way
    phases = {s.phase for s in states}
    assert {"lap", "sealed"} <= phases
    states.append(step(states[-1], END_RUN).state)
    for state in states:
        text = json.dumps(state_json(state))
        assert state_from_text(text) == state
    logged: list[Any] = [state_json(s) for s in states if s.logs]
    entries = {entry for d in logged for log in d["logs"] for entry in log}
    assert entries <= {"N", "E", "S", "W", "WAIT"}
    assert "WAIT" in entries


# A lap-2 state written out by hand, as another implementation might send it.
FOREIGN: dict[str, Any] = {
    "game": "hourloom",
    "version": 1,
    "seed": 12,
    "rngState": "00000000000000ff",
    "chamber": {
        "number": 2,
        "width": 5,
        "height": 3,
        "laps": 2,
        "multiplierPct": 125,
        "walls": [0],
        "exit": 9,
        "alcoves": [5, 7],
        "keystones": [13, 11],
        "gates": [{"tile": 6, "plates": [1]}],
        "flux": [{"tile": 12, "phase": 3}],
        "sparks": [14, 2],
        "lapBudgets": [9, 9],
    },
    "phase": "lap",
    "lap": 2,
    "turn": 1,
    "sand": 8,
    "player": 8,
    "hasKeystone": False,
    "sparksLeft": [14],
    "logs": [["S", "E", "E", "N", "E", "E"]],
    "log": ["E"],
    "echoes": [10],
    "score": 19,
    "endReason": None,
}


def test_a_state_from_another_implementation_is_accepted_and_played():
    state = state_from_json(FOREIGN)
    assert state_json(state) == FOREIGN
    result = step(state, {"type": "MOVE", "dir": "S"})
    assert result.ok
    assert result.state.player == 13


def bad(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def apply(data: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        here: Any = data
        for key in parents:
            here = here[int(key)] if key.isdigit() else here[key]
        if value is DELETE:
            del here[last]
        else:
            here[int(last) if last.isdigit() else last] = value

    return apply


DELETE = object()


def both(*changes: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    def apply(data: dict[str, Any]) -> None:
        for change in changes:
            change(data)

    return apply


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (bad("turn", DELETE), "missing field(s) turn"),
        (bad("extra", 1), "unknown field(s) extra"),
        (bad("game", "relayroam"), "state.game"),
        (bad("version", True), "state.version"),
        (bad("seed", -1), "state.seed"),
        (bad("seed", 2**53), "state.seed"),
        (bad("seed", 1.0), "state.seed: must be an integer"),
        (bad("rngState", "00000000000000FF"), "state.rngState"),
        (bad("rngState", 255), "state.rngState"),
        (bad("chamber", []), "state.chamber: must be a JSON object"),
        (bad("chamber.width", 1), "state.chamber.width"),
        (bad("chamber.height", 17), "state.chamber.height"),
        (bad("chamber.laps", 7), "state.chamber.laps"),
        (bad("chamber.multiplierPct", 50), "state.chamber.multiplierPct"),
        (bad("chamber.walls", [15]), "state.chamber.walls[0]"),
        (bad("chamber.walls", [0, 0]), "lists a tile twice"),
        (bad("chamber.alcoves", [5]), "state.chamber.alcoves: needs exactly 2"),
        (bad("chamber.gates", [{"tile": t, "plates": [1]} for t in range(6)]), "at most 5"),
        (bad("chamber.gates.0.plates", []), "1 or 2 plates"),
        (bad("chamber.gates.0.plates", [1, 2, 3]), "at most 2"),
        (bad("chamber.gates.0.tile", 1), "plate lies on a gate"),
        (bad("chamber.flux.0.phase", 4), "state.chamber.flux[0].phase"),
        (bad("chamber.lapBudgets", [0, 9]), "state.chamber.lapBudgets[0]"),
        (bad("chamber.exit", 0), "exit on wall"),
        (bad("phase", "playing"), "state.phase"),
        (bad("endReason", "banked"), "state.endReason"),
        (bad("hasKeystone", "no"), "state.hasKeystone"),
        (bad("lap", 3), "state.lap"),
        (bad("score", -1), "state.score"),
        (bad("log", ["e"]), "state.log[0]"),
        (bad("log", []), "one input per turn"),
        (both(bad("logs", []), bad("echoes", [])), "needs 1 finished logs"),
        (bad("logs", [[]]), "log is empty"),
        (bad("echoes", []), "echoes has 0 entries"),
        (bad("echoes", [None]), "echo 1 is gone at turn 1"),
        (bad("echoes", [8]), "two bodies share a tile"),
        (bad("player", 0), "a body stands on wall"),
        (bad("player", 15), "state.player"),
        (bad("sand", 9), "sand 9 is more than"),
        (bad("sand", 0), "sand is 0 exactly"),
        (bad("phase", "over"), "does not fit phase over"),
        (bad("phase", "sealed"), "a sealed chamber has"),
        (bad("sparksLeft", [3]), "sparksLeft"),
    ],
)
def test_a_malformed_state_is_an_error_naming_the_field(change: Any, message: str):
    data = copy.deepcopy(FOREIGN)
    change(data)
    with pytest.raises(HourloomStateError) as caught:
        state_from_json(data)
    assert message in str(caught.value)
    assert isinstance(caught.value, RecordError)
    assert isinstance(caught.value, HarnessError)


@pytest.mark.parametrize("value", [None, [], "state", 3])
def test_a_state_that_is_not_an_object_is_an_error(value: Any):
    with pytest.raises(HourloomStateError, match="must be a JSON object"):
        state_from_json(value)


@pytest.mark.parametrize(
    "text",
    ['{"a": NaN}', '{"a": 1, "a": 2}', "[" * 100_000 + "]" * 100_000, "{", ""],
)
def test_text_that_is_not_strict_json_is_an_error(text: str):
    with pytest.raises(HourloomStateError, match="not strict JSON"):
        state_from_text(text)


def test_huge_arrays_are_refused_before_they_are_walked():
    data = copy.deepcopy(FOREIGN)
    data["chamber"]["walls"] = list(range(10**6))
    with pytest.raises(HourloomStateError, match="at most 15 entries"):
        state_from_json(data)


def test_a_sealed_and_an_ended_state_check_their_own_shapes():
    states = planner_states(6, 200)
    sealed = next(s for s in states if s.phase == "sealed")
    data: Any = state_json(sealed)
    assert state_from_json(data) == sealed
    data["echoes"][0] = sealed.chamber.alcoves[0]
    with pytest.raises(HourloomStateError, match="no echoes"):
        state_from_json(data)
    ended = step(sealed, END_RUN).state
    assert state_from_json(state_json(ended)) == ended


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside ``value`` (dict keys and list indices)."""
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out.extend(_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out.extend(_paths(item, (*prefix, i)))
    return out


SCALARS = hs.one_of(
    hs.none(),
    hs.booleans(),
    hs.integers(min_value=-3, max_value=90),
    hs.sampled_from([2**53, 10**6, "N", "WAIT", "lap", "sealed", "over", "end_run"]),
)
JSON_VALUES = hs.recursive(SCALARS, lambda inner: hs.lists(inner, max_size=4), max_leaves=8)
WORDS = ["N", "E", "S", "W", "WAIT", "lap", "sealed", "over", "end_run", "sandglass_empty"]
BASES = [FOREIGN, *(state_json(s) for s in planner_states(2, 60)[::15])]


def _near(data: hs.DataObject, old: Any) -> Any:
    """A value like ``old`` (so that many mutated states stay valid), or any JSON value."""
    if data.draw(hs.integers(min_value=0, max_value=4)) == 0:
        return data.draw(JSON_VALUES)
    if isinstance(old, bool):
        return not old
    if isinstance(old, int):
        return old + data.draw(hs.integers(min_value=-3, max_value=3))
    if isinstance(old, str):
        return data.draw(hs.sampled_from(WORDS))
    if isinstance(old, list) and old:
        i = data.draw(hs.integers(min_value=0, max_value=len(old) - 1))
        return old[:i] + old[i + 1 :] if data.draw(hs.booleans()) else [*old, old[i]]
    return data.draw(JSON_VALUES)


@settings(max_examples=300, deadline=None)
@given(data=hs.data())
def test_any_mutated_state_is_refused_cleanly_or_plays(data: hs.DataObject):
    base = copy.deepcopy(data.draw(hs.sampled_from(BASES)))
    path = data.draw(hs.sampled_from([p for p in _paths(base) if p]))
    here: Any = base
    for key in path[:-1]:
        here = here[key]
    here[path[-1]] = _near(data, here[path[-1]])
    try:
        state = state_from_json(base)
    except HourloomStateError:
        return
    observe(state)
    for action in (*({"type": "MOVE", "dir": d} for d in "NESW"), {"type": "WAIT"}, END_RUN):
        result = step(state, action)
        assert result.ok or result.state is state
        observe(result.state)
    if state.phase == "lap":
        timestep(state)
