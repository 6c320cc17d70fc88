"""Hourloom's viewer frames against the rules: a PLANNER run replayed step by step.

Each frame is checked against the rules' own state after the same action, made here
by :func:`~harness.games.hourloom.rules.step` from the record's actions: every echo's
next input is its lap's log at the turn, every gate open or shut as the rules' gate
check says for you, the sand, the laps; events come in words, never identifiers.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from harness.games.hourloom.events import (
    ChamberSealed,
    ChamberStarted,
    EchoGone,
    EchoHeld,
    EchoMoved,
    EchoWaited,
    Event,
    GateCrossed,
    KeystoneTaken,
    LapCompleted,
    LapStarted,
    RunEnded,
    SandglassEmpty,
    SparkTaken,
    TurnPaid,
    YouMoved,
    YouWaited,
    event_json,
)
from harness.games.hourloom.rules import END_RUN, new_game, step
from harness.games.hourloom.state import State
from harness.games.hourloom.turn import YOU, bodies_of, gate_open
from harness.games.hourloom.words import PHRASE_LIMIT, PHRASES, event_words
from harness.protocol.view import frame_docs
from harness.reader import open_record
from harness.registry import get_game
from harness.seats import BaselineSeat
from tests.hourloom.test_harness import Stubborn, play

GAME = get_game("hourloom")
#: An identifier such as youMoved or lapBudget: a lowercase run, then a capital.
CAMEL = re.compile(r"\b[a-z]+[A-Z][A-Za-z]*\b")
BODIES = "@123456789"


@pytest.fixture(scope="module")
def planner_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Any], list[State]]:
    """A PLANNER record of seed 0 under the default caps (6 chambers), read back from its
    file, and the rules' state after each of its ticks."""
    path = tmp_path_factory.mktemp("hl") / "planner.jsonl"
    outcome = play(BaselineSeat("planner"), path, seed=0)
    assert outcome.results.chambers_sealed == 6
    lines = open_record(path).lines()
    state = new_game(0)
    states = [state]
    for line in lines:
        if line.type == "tick":
            result = step(state, line.seats["player"].decision.model_dump())
            assert result.ok
            state = result.state
            if line.state.auto_end is not None:  # the harness's END_RUN, in the same tick
                state = step(state, END_RUN).state
            states.append(state)
    return lines, states


def holder(state: State, tile: int) -> str:
    who = bodies_of(state.player, state.echoes).get(tile)
    return "nobody" if who is None else "you" if who == YOU else f"echo {who}"


def test_every_frame_agrees_with_the_rules_state(
    planner_run: tuple[list[Any], list[State]],
) -> None:
    lines, states = planner_run
    frames: list[Any] = frame_docs(GAME.view.view_frames(lines))
    assert len(frames) == len(states) == 616
    seen_echoes = seen_open = 0
    for frame, state in zip(frames, states, strict=True):
        c = state.chamber
        assert (frame["chamber"], frame["lap"], frame["turn"]) == (c.number, state.lap, state.turn)
        assert (frame["sand"], frame["lapBudget"]) == (state.sand, state.lap_budget)
        assert (frame["score"], frame["phase"]) == (state.score, state.phase)
        assert frame["you"] == state.player
        for k, (echo, tile) in enumerate(zip(frame["echoes"], state.echoes, strict=True), 1):
            assert (echo["echo"], echo["tile"]) == (k, tile)
            if tile is None:
                assert echo["next"] is None
                continue
            seen_echoes += 1
            log = state.logs[k - 1]
            assert echo["next"] == log[state.turn]
            assert echo["left"] == len(log) - state.turn
        bodies = bodies_of(state.player, state.echoes)
        assert len(frame["gates"]) == len(c.gates)
        for shown, gate in zip(frame["gates"], c.gates, strict=True):
            assert shown["open"] is gate_open(gate, YOU, bodies)
            assert shown["by"] == [holder(state, p) for p in gate.plates]
            seen_open += shown["open"]
        # the ground: the record's glyphs wherever no body stands, and never a body
        for grid_row, ground_row in zip(frame["grid"], frame["terrain"], strict=True):
            for glyph, under in zip(grid_row, ground_row, strict=True):
                assert under not in BODIES
                assert glyph in BODIES or glyph == under
        now = [i + 1 for i, s in enumerate(frame["lapStatus"]) if s == "now"]
        assert now == ([state.lap] if state.phase == "lap" else [])
        if state.phase == "sealed":
            assert set(frame["lapStatus"]) == {"done"}
        assert "transmission" not in frame
        assert "note" not in frame
    assert seen_echoes > 100
    assert seen_open > 10
    assert frames[0]["terrain"][states[0].player // 7][states[0].player % 7] == "o"


def test_the_chambers_fixed_parts_travel_once(
    planner_run: tuple[list[Any], list[State]],
) -> None:
    lines, states = planner_run
    frames: list[Any] = frame_docs(GAME.view.view_frames(lines))
    chambers = frames[0]["chambers"]
    assert sorted(chambers, key=int) == [str(n) for n in range(1, 7)]
    assert all("chambers" not in f for f in frames[1:])
    for state in states:
        c = state.chamber
        fixed = chambers[str(c.number)]
        w = c.width
        assert [g["gate"] for g in fixed["gates"]] == list("ABCDE"[: len(c.gates)])
        for shown, gate in zip(fixed["gates"], c.gates, strict=True):
            assert shown["at"] == f"r{gate.tile // w} c{gate.tile % w}"
            assert shown["plates"] == [f"r{p // w} c{p % w}" for p in gate.plates]
        assert [lap["budget"] for lap in fixed["laps"]] == list(c.lap_budgets)
        assert fixed["laps"][0]["alcove"] == f"r{c.alcoves[0] // w} c{c.alcoves[0] % w}"


def test_the_events_are_told_in_words(planner_run: tuple[list[Any], list[State]]) -> None:
    lines, _ = planner_run
    frames: list[Any] = frame_docs(GAME.view.view_frames(lines))
    ticks = [line for line in lines if line.type == "tick"]
    told: set[str] = set()
    for frame, line in zip(frames[1:], ticks, strict=True):
        extra = 1 if line.state.auto_end else 0
        assert len(frame["events"]) == len(line.state.events) + extra
        for words in frame["events"]:
            assert not CAMEL.search(words), words
        told |= {e["type"] for e in line.state.events}
    # the run meets most kinds of event; each one said as a phrase of its own
    assert {"youMoved", "echoMoved", "lapCompleted", "chamberSealed", "chamberStarted"} <= told
    last = frames[-1]["events"]
    assert last[-2:] == [
        "the run ended with score 7902",
        "the harness ended the run: the last chamber it allows is sealed",
    ]
    assert frames[0]["events"][0].startswith("the run starts in chamber 1: 7 x 7, 3 laps")
    sealed = next(f for f in frames if f["phase"] == "sealed")
    assert any(w.startswith("chamber 1 sealed: +150") for w in sealed["events"])


ALL_EVENTS: list[Event] = [
    YouMoved("N", 9, 2),
    YouWaited(9),
    SparkTaken(9, 15),
    KeystoneTaken(9, 2, 25),
    GateCrossed("B", 9, 2, 50),
    EchoMoved(1, "E", 8, 9),
    EchoWaited(2, 9),
    EchoHeld(1, "S", 9, 16, "you"),
    EchoHeld(2, "W", 9, 8, "echo", 1),
    EchoHeld(3, "N", 2, None, "edge_of_chamber"),
    EchoGone(1, 9),
    TurnPaid(4, 5, 1, True, 20),
    LapCompleted(2, 7, 71),
    LapStarted(3, 9, 30),
    ChamberSealed(2, 188),
    SandglassEmpty(3, 400),
    RunEnded(400),
    ChamberStarted(3, 8, 4, 150, 27),
]


def test_every_kind_of_event_has_a_phrase() -> None:
    assert {type(e).KIND for e in ALL_EVENTS} == set(PHRASES)
    said = {type(e).KIND + str(i): event_words(event_json(e), 7) for i, e in enumerate(ALL_EVENTS)}
    for words in said.values():
        assert not CAMEL.search(words), words
        assert "event" not in words  # not the fallback
    assert said["youMoved0"] == "you moved north to r0 c2"
    assert said["echoHeld7"] == (
        "echo 1 could not move south (blocked by you (a jostle: a grain more for the turn)), "
        "held on r1 c2"
    )
    assert said["echoHeld8"] == "echo 2 could not move west (blocked by echo 1), held on r1 c2"
    assert said["turnPaid11"] == (
        "turn 4 cost 5 grains (1 for the turn, 1 for jostles, 3 for ending on lit flux); 20 left"
    )
    assert said["chamberStarted17"] == (
        "descended to chamber 3: 8 x 8, 4 laps, multiplier 150%, 27 grains for lap 1"
    )


@pytest.mark.parametrize(
    "event",
    [
        {"type": "youMoved"},  # a field missing
        {"type": "youMoved", "dir": ["N"], "tile": {"x": 1}, "origin": 3},
        {"type": "echoHeld", "echo": 1, "dir": "N", "tile": 3, "cause": ["wall"]},
        {"type": "teleported", "tile": 3},
        {"type": 7},
        "youMoved",
        {"type": "youWaited", "tile": "x" * 10_000},
        {"type": "turnPaid", "turn": 1, "grains": 1, "jostles": [], "flux": None, "sand": -4},
    ],
)
def test_a_damaged_event_is_said_plainly_and_briefly(event: Any) -> None:
    words = event_words(event, 7)
    assert 0 < len(words) <= PHRASE_LIMIT
    assert not CAMEL.search(words.split(":")[0]), words


def test_a_refused_action_and_the_action_cap_are_said_in_words() -> None:
    outcome = play(Stubborn(), max_actions=2)
    models = GAME.view.view_frames(outcome.lines)
    frames: list[Any] = frame_docs(models)
    assert frames[1]["events"] == [
        "MOVE south refused: a wall is in the way (a free no-op: no sand, no turn)"
    ]
    assert frames[2]["events"] == [
        "MOVE south refused: a wall is in the way (a free no-op: no sand, no turn)",
        "the run ended with score 0",
        "the harness ended the run: no actions left under its cap",
    ]
    assert frames[2]["status"] == "run over: ended by the harness's cap"
    drawn = models[1].text()
    assert "  MOVE south refused: a wall is in the way" in drawn


def test_a_record_that_departs_from_the_rules_is_drawn_from_its_own_states(
    planner_run: tuple[list[Any], list[State]], tmp_path: Path
) -> None:
    lines, _ = planner_run
    docs = [line.model_dump(mode="json", by_alias=True) for line in lines[:60]]
    docs[41]["state"]["sand"] += 1  # tick 40, edited by hand
    adapter = GAME.codec.record_adapter
    edited = [adapter.validate_python(doc) for doc in docs]
    frames: list[Any] = frame_docs(GAME.view.view_frames(edited))
    assert len(frames) == 60
    assert all("note" not in f for f in frames[:41])
    for frame in frames[41:]:
        assert frame["note"].startswith("from tick 40 on, the record departs")
        assert frame["lapStatus"] == []
        assert all(g["by"] == [] for g in frame["gates"])
        # the record's own glyphs, bodies drawn as floor
        for grid_row, ground_row in zip(frame["grid"], frame["terrain"], strict=True):
            for glyph, under in zip(grid_row, ground_row, strict=True):
                assert under == ("." if glyph in BODIES else glyph)
    assert frames[41]["sand"] == lines[41].state.sand + 1
    json.dumps(frames)  # JSON-able throughout
