"""The report's words: episodes' ends named for what happened (the record keeps the
rules' reasons), the score's range, a legend under each table, and each game's
ceiling named once."""

from __future__ import annotations

import csv
import io
import json

import pytest

from harness.games.lighthouse.report import END_MEANINGS, end_name
from harness.registry import get_game
from harness.report.build import build_report
from harness.report.render import to_csv, to_json, to_markdown
from harness.summary import EpisodeSummary

LIGHTHOUSE = get_game("lighthouse")


@pytest.mark.parametrize(
    ("reason", "metrics", "named"),
    [
        ("complete", {"E": 3.0, "runners": 3.0, "clock": 40.0, "floodClock": 73.0}, "all escaped"),
        ("complete", {"E": 0.0, "runners": 3.0, "clock": 30.0, "floodClock": 73.0}, "all drowned"),
        ("complete", {"E": 1.0, "runners": 3.0, "clock": 50.0, "floodClock": 73.0},
         "escaped and drowned"),
        ("complete", {"E": 1.0, "runners": 3.0, "clock": 73.0, "floodClock": 73.0}, "flooded"),
        ("complete", {"E": 3.0, "runners": 3.0, "clock": 75.0, "floodClock": 73.0}, "all escaped"),
        ("timeup", {"E": 1.0}, "tick cap"),
        ("deadline", {}, "deadline"),
        ("complete", {}, "complete"),  # a line without the figures keeps the rules' word
    ],
)  # fmt: skip
def test_a_lighthouse_end_is_named_for_what_happened(
    reason: str, metrics: dict[str, float], named: str
) -> None:
    assert end_name(reason, metrics) == named
    assert named in END_MEANINGS or named == "complete"


def line(entrant: str, seed: int, reason: str, escaped: float) -> EpisodeSummary:
    seat = {"role": "runner", "agent": "wallhug", "turns": 10}
    return EpisodeSummary.model_validate(
        {
            "episodeId": f"{entrant}--default--s{seed}--r0", "entrant": entrant, "seed": seed,
            "variant": "default", "repetition": 0, "score": 10.0 * escaped + seed,
            "scores": [10.0 * escaped + seed] * 4, "reason": reason,
            "metrics": {"K": 1.0, "E": escaped, "runners": 3.0, "B": 0.0, "clock": 40.0,
                        "floodClock": 73.0},
            "seats": {"keeper": {"role": "keeper", "agent": entrant, "turns": 10},
                      "runner1": seat, "runner2": seat, "runner3": seat},
            "fallbackFree": True,
        }
    )  # fmt: skip


def test_the_report_names_ends_states_the_range_and_keeps_the_rules_reasons() -> None:
    lines = [line("lantern", s, "complete", 3.0) for s in range(3)]
    lines += [line("silent", 0, "timeup", 1.0), line("silent", 1, "complete", 0.0),
              line("silent", 2, "complete", 0.0)]  # fmt: skip
    report = build_report(LIGHTHOUSE, lines, order=["silent", "lantern"])
    rows = {r.entrant: r for r in report.entrants}
    assert rows["silent"].ends == {"all drowned": 2, "tick cap": 1}
    assert rows["silent"].reasons == {"complete": 2, "timeup": 1}  # the record's values
    assert report.max_score == 42.0
    md = to_markdown(report)
    table = md.split("## Entrants")[1].split("\n\n")[1]
    assert table.splitlines()[0].endswith("| ended |")
    assert "| all escaped 3 |" in table
    assert "| all drowned 2, tick cap 1 |" in table
    assert "Score (0 to 42, the most the rules allow)" in md
    assert "tick cap: the tick cap (maxTicks) was reached with a runner still on the board" in md
    assert "flooded:" not in md  # only the ends that happened are explained
    assert "characters / message" in md
    assert "runes" not in md
    data = json.loads(to_json(report))
    assert data["maxScore"] == 42.0
    assert data["entrants"][0]["reasons"] == {"complete": 3}
    csv_rows = {r["entrant"]: r for r in csv.DictReader(io.StringIO(to_csv(report)))}
    assert csv_rows["silent"]["reasons"] == "complete=2;timeup=1"


def test_hourloom_names_its_ceiling_once_and_relayroam_shows_no_column_twice() -> None:
    from harness.report.build import Ceiling

    hourloom = get_game("hourloom")
    seat = {"player": {"role": "player", "agent": "planner", "turns": 10}}

    def hl(entrant: str, seed: int, score: float) -> EpisodeSummary:
        return EpisodeSummary.model_validate(
            {
                "episodeId": f"{entrant}--default--s{seed}--r0", "entrant": entrant,
                "seed": seed, "variant": "default", "repetition": 0, "score": score,
                "scores": [score], "reason": "end_run",
                "metrics": {"score": score, "planned": 100.0, "sealed": 1.0, "laps": 2.0,
                            "episodes": 1.0},
                "seats": seat, "fallbackFree": True,
            }
        )  # fmt: skip

    lines = [hl("planner", s, 100.0) for s in range(3)] + [hl("t", s, 10.0 + s) for s in range(3)]
    ceiling = Ceiling("planner", {(s, "default"): 100.0 for s in range(3)})
    measured = to_markdown(build_report(hourloom, lines, ceiling=ceiling))
    assert "score / planner (95% CI)" in measured
    assert "score / planned" not in measured
    assert "| end run 3 |" in measured
    assert "end run: the player ended the run" in measured
    # without that ceiling the game's own column is the ceiling, named once
    plain = build_report(hourloom, lines)
    assert "| score / planned | chambers sealed | laps |" in to_markdown(plain)
    # CSV and JSON keep every column either way
    assert "ratio" in next(csv.reader(io.StringIO(to_csv(build_report(hourloom, lines,
                                                                      ceiling=ceiling)))))  # fmt: skip
    relayroam = get_game("relayroam")
    columns = {c.key: c.tables for c in build_report(relayroam, []).columns}
    assert columns == {"ratio": True, "cleared": True, "rescued": True, "depleted": False}
