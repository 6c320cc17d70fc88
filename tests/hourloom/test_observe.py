"""What a player sees (H29, H30) and the response object (H28)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from harness.games.hourloom.observe import LEGEND, glyph_rows, observation_json, observe
from harness.games.hourloom.response import init_json, result_json
from harness.games.hourloom.rules import legal_actions, new_game, step
from harness.games.hourloom.state import state_json
from tests.hourloom.hand import MOVE_W, WAIT, draw, lap_start, tile_of

CHAMBER = draw(
    "#a...\n1A3.X\n..2..",
    keystones=[(2, 3), (0, 4), (0, 2)],
    sparks=[(0, 3), (2, 1)],
    flux={(2, 0): 2, (2, 4): 0},
    pct=150,
    number=3,
    budgets=[20, 21, 22],
)
STATE = lap_start(CHAMBER, 3, ["WAIT WAIT WAIT", "E"])


def test_the_glyphs_of_a_hand_drawn_lap():
    assert glyph_rows(STATE) == ("#aK*.", "1A@.X", "~*2.-")


def test_flux_glyphs_show_the_coming_turn():
    assert [row[0] + row[4] for row in glyph_rows(replace(STATE, turn=1, log=("WAIT",)))][2] == "~-"
    turn2 = replace(STATE, turn=2, log=("WAIT", "WAIT"), echoes=(STATE.echoes[0], None))
    assert glyph_rows(turn2)[2] == "-*o.~"  # echo 2 has gone: its alcove shows


def test_the_first_glyph_in_h30s_order_wins():
    on_plate = replace(STATE, echoes=(tile_of(5, (0, 1)), STATE.echoes[1]))
    assert glyph_rows(on_plate)[0] == "#1K*."  # an echo over its plate
    held = replace(STATE, has_keystone=True, sparks_left=())
    assert glyph_rows(held)[0] == "#a..."  # the keystone held, the sparks taken
    plate_over_spark = replace(STATE, chamber=replace(CHAMBER, sparks=(1,)), sparks_left=(1,))
    assert glyph_rows(plate_over_spark)[0][1] == "a"
    flux_on_alcove = replace(CHAMBER, flux=(replace(CHAMBER.flux[0], tile=tile_of(5, (1, 2))),))
    away = replace(STATE, chamber=flux_on_alcove, player=tile_of(5, (1, 3)))
    assert glyph_rows(away)[1] == "1A~@X"  # flux over the alcove you left, you over floor


def test_the_text_holds_the_whole_chamber_and_every_echo_gate_flux_and_lap():
    text = observe(STATE).text
    lines = text.splitlines()
    assert lines[0].startswith("Chamber 3 (5 x 3), multiplier 150%")
    assert "lap 3/3, turn 0, sand 22/22" in lines[0]
    assert "keystone not held (tile 2)" in lines[0]
    assert "score 0" in lines[0]
    assert lines[1] == "   01234"
    assert lines[2:5] == [" 0 #aK*.", " 1 1A@.X", " 2 ~*2.-"]
    assert lines[5] == LEGEND
    assert "  1: on 5 (r1 c0), next WAIT, 3 inputs left" in lines
    assert "  2: on 12 (r2 c2), next MOVE E, 1 inputs left" in lines
    assert "  A on 6 (r1 c1) (shut for you): a 1 (r0 c1) held by nobody" in lines
    assert "  10 (r2 c0) phase 2, lit on turn 0" in lines
    assert "  14 (r2 c4) phase 0, calm on turn 0" in lines
    assert "  1: alcove 5, keystone 13, budget 20, done" in lines
    assert "  3: alcove 7, keystone 2, budget 22, now" in lines


def test_the_text_names_who_holds_each_plate_and_which_echoes_are_gone():
    gone = replace(STATE, turn=1, log=("WAIT",), echoes=(tile_of(5, (0, 1)), None))
    lines = observe(gone).text.splitlines()
    assert "  2: gone" in lines
    assert "  A on 6 (r1 c1) (open for you): a 1 (r0 c1) held by echo 1" in lines
    mine = replace(STATE, player=tile_of(5, (0, 1)))
    assert any(
        "held by you" in line and "shut for you" in line for line in observe(mine).text.splitlines()
    )


def test_the_structured_fields_sit_beside_the_text():
    obs = observation_json(observe(STATE))
    assert {k: obs[k] for k in ("chamber", "phase", "lap", "laps", "turn", "sand")} == {
        "chamber": 3, "phase": "lap", "lap": 3, "laps": 3, "turn": 0, "sand": 22,
    }  # fmt: skip
    assert (obs["lapBudget"], obs["hasKeystone"], obs["multiplierPct"]) == (22, False, 150)
    assert obs["grid"] == ["#aK*.", "1A@.X", "~*2.-"]


def test_every_response_carries_h28s_fields():
    state = new_game(2)
    started = init_json(state)
    assert started["ok"]
    assert started["events"] == []
    assert not started["gameOver"]
    result = step(state, legal_actions(state)[0])
    out: Any = result_json(result)
    assert set(out) == {"ok", "state", "observation", "legalActions", "score", "gameOver",
                        "events", "message"}  # fmt: skip
    assert out["state"] == state_json(result.state)
    assert out["events"][0]["type"] == "youMoved"
    assert out["events"][-1]["type"] == "turnPaid"
    refused: Any = result_json(step(STATE, {"type": "MOVE", "dir": "Q"}))
    assert refused["ok"] is False
    assert refused["reason"] == "bad_direction"
    assert refused["events"] == []
    assert "Legal now" in refused["message"]
    assert refused["legalActions"] == legal_actions(STATE)


def test_events_name_what_happened_in_camel_case():
    out: Any = result_json(step(STATE, MOVE_W))
    assert out["ok"] is False
    assert out["reason"] == "gate_shut"
    waited: Any = result_json(step(STATE, WAIT))
    kinds = [e["type"] for e in waited["events"]]
    assert kinds == ["youWaited", "echoWaited", "echoMoved", "echoGone", "turnPaid"]
    paid = waited["events"][-1]
    assert paid == {
        "type": "turnPaid",
        "turn": 0,
        "grains": 1,
        "jostles": 0,
        "flux": False,
        "sand": 21,
    }
