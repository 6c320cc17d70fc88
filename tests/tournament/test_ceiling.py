"""The ceiling column: each entrant's mean score as a share of PILOT's on the same cells."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from harness.commands.tournament import report_text
from harness.episode import run_episode
from harness.errors import ConfigError
from harness.registry import get_game
from harness.report.build import Ceiling, build_report
from harness.report.model import CeilingInfo
from harness.report.render import to_csv, to_markdown
from harness.seats import BaselineSeat
from harness.tournament.ceiling import ceiling_team
from harness.tournament.config import load_tournament
from harness.tournament.run import run_tournament
from harness.tournament.store import ResultsFolder
from tests.in_process import lighthouse
from tests.report.test_stats import SUMMARIES

GAME = get_game("lighthouse")
TOURNAMENT = """
name = "ceiling"
seeds = [3, 4]
variants = ["default", "spring"]
repetitions = 2
rules = {{ maxTicks = 30 }}

[[entrants]]
name = "lantern"
keeper = {{ baseline = "lantern" }}
runners = {{ baseline = "wallhug" }}
{extra}
"""
PILOT_ENTRANT = """
[[entrants]]
name = "best"
keeper = { baseline = "pilot" }
runners = { baseline = "wallhug" }
"""


def played(tmp_path: Path, extra: str = "") -> Path:
    config_path = tmp_path / "ceiling.toml"
    config_path.write_text(TOURNAMENT.format(extra=extra))
    out = tmp_path / "out"
    asyncio.run(run_tournament(load_tournament(config_path), out))
    return out


def json_report(out: Path, ceiling: str | None = None) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(report_text(out, "json", None, ceiling))
    return report


def pilot_score(variant: str, seed: int, rules: dict[str, Any]) -> float:
    """PILOT + WALLHUG played directly, for comparison."""
    state = GAME.rules.new_state(GAME.rules.make_config(variant, rules), seed)
    seats = {"keeper": BaselineSeat("pilot")} | {
        f"runner{i}": BaselineSeat("wallhug") for i in (1, 2, 3)
    }
    outcome = asyncio.run(run_episode(GAME, state, seats, episode_id="direct"))
    results: Any = outcome.results
    return float(results.scores[0])


def test_the_share_by_hand() -> None:
    ceiling = Ceiling("pilot", {(0, "default"): 20.0, (1, "default"): 10.0, (2, "default"): 40.0})
    report = build_report(GAME, SUMMARIES, order=["ref", "model"], ceiling=ceiling)
    ref, model = report.entrants
    # model: seed 0 twice (10, 12: its cell mean is 11), seed 1 (5), seed 2 (20), over
    # seeds as every statistic is (one variant: a seed is a cell), against 20 + 10 + 40
    assert model.ceiling_share == pytest.approx(36 / 70)
    # ref: seeds 0-2 (9, 5, 25) against 20 + 10 + 40; seed 3 has no ceiling: left out
    assert ref.ceiling_share == pytest.approx(39 / 70)
    # the fallback-free rows measure only their own episodes (model loses a seed-0 game)
    clean_model = report.fallback_free.entrants[1]
    assert clean_model.ceiling_share == pytest.approx(35 / 70)
    assert report.ceiling == CeilingInfo(name="pilot", hidden=False, cells=3)
    md = to_markdown(report)
    assert (
        "| entrant | keeper | runners | episodes | seeds | score (95% CI) | IQM (95% CI) | "
        "score / pilot (95% CI) |"
    ) in md
    # three seeds: an interval, but as wide as three seeds make it
    assert "| 51.4% [" in md
    assert model.ceiling_ratio is not None
    assert model.ceiling_ratio.method == "linearized skew-corrected t over seeds"
    assert model.ceiling_ratio.seeds == 3
    rows = to_csv(report).splitlines()
    row = dict(zip(rows[0].split(","), rows[2].split(","), strict=True))
    assert row["ceiling"] == "pilot"
    assert float(row["ceiling_share"]) == pytest.approx(36 / 70)


def test_no_ceiling_no_column() -> None:
    report = build_report(GAME, SUMMARIES, order=["ref", "model"])
    assert report.ceiling is None
    assert "score /" not in to_markdown(report)


def test_a_ceiling_with_no_positive_score_has_no_share() -> None:
    report = build_report(GAME, SUMMARIES, ceiling=Ceiling("zero", {(0, "default"): 0.0}))
    assert all(r.ceiling_share is None for r in report.entrants)
    assert "| - |" in to_markdown(report)


def test_the_ceiling_team_is_pilot_keeping_and_wallhug_running() -> None:
    assert GAME.ceiling == "pilot"
    assert ceiling_team(GAME, "pilot") == {"keeper": "pilot", "runners": "wallhug"}
    assert ceiling_team(GAME, "wallhug") == {"keeper": "lantern", "runners": "wallhug"}
    with pytest.raises(ConfigError, match="'nobody' is neither an entrant nor a baseline"):
        ceiling_team(GAME, "nobody")


def test_an_entrant_playing_the_ceiling_team_is_the_ceiling(tmp_path: Path) -> None:
    out = played(tmp_path, PILOT_ENTRANT)
    report = json_report(out)
    assert report["ceiling"] == {"name": "best", "hidden": False, "cells": 4}
    summaries = ResultsFolder(out).summaries()
    mean = {
        name: sum(s.score for s in summaries if s.entrant == name) / 8
        for name in ("lantern", "best")
    }
    lantern, best = (next(e for e in report["entrants"] if e["entrant"] == n)
                     for n in ("lantern", "best"))  # fmt: skip
    assert lantern["ceilingShare"] == pytest.approx(mean["lantern"] / mean["best"])
    assert best["ceilingShare"] == pytest.approx(1.0)
    assert not (out / "ceiling-pilot.json").exists()  # nothing hidden was played
    assert "score / best" in report_text(out, "md", None)


def test_asked_for_it_plays_pilot_hidden_on_the_same_cells_and_keeps_it(tmp_path: Path) -> None:
    out = played(tmp_path)
    assert json_report(out)["ceiling"] is None  # not asked, no PILOT entrant: no column
    report = json_report(out, "pilot")
    assert report["ceiling"] == {"name": "pilot", "hidden": True, "cells": 4}
    kept = json.loads((out / "ceiling-pilot.json").read_text())
    assert kept["team"] == {"keeper": "pilot", "runners": "wallhug"}
    scores = {(s["seed"], s["variant"]): s["score"] for s in kept["scores"]}
    assert sorted(scores) == [(s, v) for s in (3, 4) for v in ("default", "spring")]
    for (seed, variant), score in scores.items():
        assert score == pilot_score(variant, seed, {"maxTicks": 30})  # the tournament's rules
    summaries = [s for s in ResultsFolder(out).summaries() if s.entrant == "lantern"]
    share = sum(s.score for s in summaries) / sum(scores[(s.seed, s.variant)] for s in summaries)
    assert report["entrants"][0]["ceilingShare"] == pytest.approx(share)
    assert [e["entrant"] for e in report["entrants"]] == ["lantern"]  # hidden: no row
    # A later report reuses what was kept, asked or not, and plays nothing again.
    before = (out / "ceiling-pilot.json").stat().st_mtime_ns
    assert json_report(out)["ceiling"] == report["ceiling"]
    assert json_report(out, "pilot")["entrants"] == report["entrants"]
    assert (out / "ceiling-pilot.json").stat().st_mtime_ns == before
    # A damaged file is played again, not trusted.
    (out / "ceiling-pilot.json").write_text('{"baseline": "pilot", "scores": [')
    assert json_report(out)["ceiling"] is None
    assert json_report(out, "pilot")["entrants"] == report["entrants"]


def test_asked_for_an_entrant_it_measures_against_that_entrant(tmp_path: Path) -> None:
    out = played(tmp_path, PILOT_ENTRANT)
    report = json_report(out, "lantern")
    assert report["ceiling"]["name"] == "lantern"
    lantern = next(e for e in report["entrants"] if e["entrant"] == "lantern")
    assert lantern["ceilingShare"] == pytest.approx(1.0)


def test_the_command_line_takes_ceiling_on_run_and_report(tmp_path: Path) -> None:
    config = tmp_path / "ceiling.toml"
    config.write_text(TOURNAMENT.format(extra=""))
    out = tmp_path / "out"
    # the flags are what is tested: in this process, the scripted episodes on its loop
    proc = lighthouse("run", config, "--out", out, "--ceiling", "pilot", "--workers", "0")
    assert proc.returncode == 0, proc.stderr
    assert "| score / pilot (95% CI) |" in proc.stdout
    assert "pilot's (played for this report, not an entrant)" in proc.stdout
    proc = lighthouse("report", out, "--ceiling", "nobody")
    assert proc.returncode == 2
    assert "--ceiling: 'nobody' is neither an entrant nor a baseline of lighthouse" in proc.stderr
    assert "Traceback" not in proc.stderr
