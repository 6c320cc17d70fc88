"""Figures named as people say them, and a row number that means one row everywhere.

The terminal's results line spells the score out as its sum (so it is its own legend),
the report's CSV and JSON name the game's columns in words with a one-line legend, and
the water is told in the row numbers printed beside the board, which are the keeper's.
"""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any

import pytest

import harness
from harness.games.lighthouse.observe import observe_keeper, render_keeper
from harness.games.lighthouse.state import GameState
from harness.games.lighthouse.view import numbered, water_text
from harness.protocol.view import frame_docs
from harness.registry import get_game
from harness.report.build import build_report
from harness.report.model import Report
from harness.report.render import to_csv, to_json, to_markdown
from tests.report.test_report_many import line

GAME = get_game("lighthouse")
RESULTS = re.compile(
    r"^score (?P<score>[\d.]+) = 6 x (?P<k>\d+)/(?P<n>\d+) keys \+ 10 x (?P<e>\d) escaped "
    r"\+ 6 x (?P<b>[\d.]+) time bonus; clock (?P<clock>\d+) of (?P<flood>\d+), "
    r"(?P<ticks>\d+) ticks; ended: (?P<words>[a-z ]+?)(?: \((?P<reason>\w+)\))?$"
)


def parsed(lines: list[dict[str, Any]]) -> list[Any]:
    adapter = GAME.codec.record_adapter
    return [adapter.validate_python(doc) for doc in lines]


@pytest.mark.parametrize(("seed", "variant"), [(7, "default"), (3, "spring"), (12, "default")])
def test_the_results_line_adds_up_to_the_score(seed: int, variant: str) -> None:
    result = harness.play("lighthouse", seed, variant=variant)
    found = RESULTS.match(result.summary)
    assert found, result.summary
    end = result.lines[-1]["results"]
    k, n, e, b = (float(found[name]) for name in ("k", "n", "e", "b"))
    assert (k, n, e) == (end["K"], end["keyCount"], end["E"])
    assert float(found["score"]) == pytest.approx(end["teamScore"], abs=5e-4)
    # the words are the legend: the sum they spell is the score, to the shown digits
    assert 6 * k / n + 10 * e + 6 * b == pytest.approx(end["teamScore"], abs=6 * 5e-4)
    assert (int(found["clock"]), int(found["ticks"])) == (end["clock"], end["ticks"])
    # the end in words, and the rules' reason beside them where the words differ
    assert (found["reason"] or found["words"]) == end["reason"]
    assert "K " not in result.summary
    assert "teamScore" not in result.summary


@pytest.mark.parametrize(
    ("water_line", "said"),
    [
        (9, "water: no row flooded"),
        (8, "water: row y=8 flooded"),
        (6, "water: rows y=6-8 flooded"),
        (0, "water: every row flooded (y=0-8)"),
    ],
)
def test_the_water_is_said_in_rows_the_board_has(water_line: int, said: str) -> None:
    assert water_text(water_line, 9) == said


def rows_under(text: str, height: int) -> dict[int, str]:
    """The board rows printed under their y in ``text`` (as :func:`numbered` prints them)."""
    found = {}
    for raw in text.splitlines():
        match = re.match(r"^\s*(\d+) ([#.~KEO123]+)(?:\s|$)", raw)
        if match and int(match[1]) < height:
            found[int(match[1])] = match[2]
    return found


def test_the_flooded_rows_named_are_the_rows_shown_flooded_under_that_number() -> None:
    result = harness.play("lighthouse", 3, variant="spring")
    lines = parsed(list(result.lines))
    view = GAME.view
    checked = 0
    for tick in (x for x in lines if x.type == "tick"):
        text = view.render_tick(tick)
        height = len(tick.state.grid)
        board = rows_under(text, height)
        assert list(board.values()) == list(tick.state.grid)
        said = re.search(r"water: (.*)", text.splitlines()[0])
        assert said
        flooded = {y for y in board if y >= tick.state.water_line}
        for y, row in board.items():
            # a flooded row shows no dry floor; a dry one no water
            assert ("." not in row) if y in flooded else ("~" not in row), (tick.tick, y)
        if flooded:
            assert f"y={min(flooded)}" in said[1]
            checked += 1
        else:
            assert said[1] == "no row flooded"
        for runner in tick.state.runners:
            if runner.move is not None and runner.status.value == "active":
                x, y = runner.pos
                assert f"-> x={x}, y={y}" in text
                assert board[y][x] == str(runner.seat)
    assert checked > 5  # the spring tide floods rows before the game ends


def test_the_board_is_numbered_as_the_keeper_reads_it() -> None:
    state = GAME.rules.new_state(GAME.rules.make_config("default", {}), 7)
    assert isinstance(state, GameState)
    prompt = render_keeper(observe_keeper(state))
    for row in numbered(state.board.to_ascii())[1:]:
        assert row in GAME.view.render_board(state, 7, "default")
    # the keeper's map carries the same numbered lines (the tiles differ only by what
    # the keeper is shown: a start is a runner there)
    now = prompt.split("Map now:")[1]
    assert numbered(list(observe_keeper(state).grid)) == [
        ln for ln in now.splitlines() if re.match(r"^(    \d|\s*\d+ [#.~KEO123])", ln)
    ]
    # the walls it is shown first are the same board, without what moves on it
    walls = prompt.split("Map legend:")[0]
    assert numbered(list(state.board.terrain))[1:] != []
    assert len([ln for ln in walls.splitlines() if re.match(r"^\s*\d+ [#.E]+$", ln)]) == (
        state.board.height
    )


def report() -> Report:
    summaries = [line(name, seed, 10.0 + seed) for name in ("a", "b") for seed in range(3)]
    return build_report(GAME, summaries, order=["a", "b"], reference="a")


def test_the_report_names_its_columns_in_words_with_a_legend() -> None:
    doc = json.loads(to_json(report()))
    keys = [c["key"] for c in doc["columns"]]
    assert keys[:3] == ["keys", "escape_rate", "time_bonus"]
    assert not {"K", "E", "B"} & set(keys)
    assert doc["entrants"][0]["columns"]["keys"] == 1.0
    assert doc["entrants"][0]["columns"]["time_bonus"] == pytest.approx(0.1)
    assert doc["legend"].startswith("keys: keys the team collected; escape rate: ")
    assert "\n" not in doc["legend"]
    header = next(csv.reader(io.StringIO(to_csv(report()))))
    assert {"keys", "escape_rate", "time_bonus"} <= set(header)
    assert not {"K", "E", "B"} & set(header)
    md = to_markdown(report())
    assert f"*{doc['legend']}.*" in md.splitlines()


def test_the_viewers_frames_tell_the_water_in_the_same_words() -> None:
    result = harness.play("lighthouse", 3, variant="spring")
    frames: list[Any] = frame_docs(GAME.view.view_frames(parsed(list(result.lines))))
    assert frames[0]["water"] == "water: no row flooded"
    assert all(f["water"] == water_text(f["waterLine"], len(f["grid"])) for f in frames)
    assert any(f["water"].startswith("water: rows y=") for f in frames)
    assert "frame.water" in GAME.view.viewer_script()
