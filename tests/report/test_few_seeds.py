"""An entrant with far fewer seeds than the others (a person's few episodes, an entrant
added late) is ranked apart, so that its seeds do not narrow every other rank."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main

ENTRANTS = """
[[entrants]]
name = "lantern"
keeper = { baseline = "lantern" }
runners = { baseline = "wallhug" }

[[entrants]]
name = "silent"
keeper = { baseline = "silent" }
runners = { baseline = "wallhug" }

[[entrants]]
name = "pilot"
keeper = { baseline = "pilot" }
runners = { baseline = "wallhug" }
"""
LATE = """
[[entrants]]
name = "late"
keeper = { baseline = "lantern" }
runners = { baseline = "scout" }
"""


def config(tmp_path: Path, late: bool) -> Path:
    path = tmp_path / ("late.toml" if late else "first.toml")
    head = 'name = "few"\nseeds = { start = 0, stop = 12 }\nvariants = ["default"]\n'
    path.write_text(head + ENTRANTS + (LATE if late else ""), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("few")
    out = tmp / "out"
    assert main(["run", str(config(tmp, late=False)), "--out", str(out), "--workers", "0"]) == 0
    # the late entrant plays 2 of the 12 seeds so far
    assert main(["run", str(config(tmp, late=True)), "--out", str(out), "--limit", "2",
                 "--workers", "0"]) == 0  # fmt: skip
    return out


def report(folder: Path, fmt: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    main(["report", str(folder), "--format", fmt])
    return capsys.readouterr().out


def test_an_entrant_with_few_seeds_is_ranked_apart_and_the_others_over_all_theirs(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(report(folder, "json", capsys))
    rows = {r["entrant"]: r for r in data["entrants"]}
    assert rows["late"]["fewSeeds"] is True
    assert rows["late"]["rank"] is None
    assert rows["late"]["seeds"] == 2
    # the others' ranks are over the 12 seeds they share, not over the late one's 2
    for name in ("lantern", "silent", "pilot"):
        assert rows[name]["fewSeeds"] is False
        assert rows[name]["rank"]["seeds"] == 12
    assert [r["entrant"] for r in data["entrants"]][-1] == "late"  # listed after the ranked
    # on the keeper board (runners: wallhug) it is not a member; the runners board
    # (keeper: lantern) that it would make with lantern has one member left: no board
    for board in data["leaderboards"]:
        assert "late" not in [r["entrant"] for r in board["rows"]]


def test_every_format_says_why_it_is_not_ranked(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    md = report(folder, "md", capsys)
    late = next(line for line in md.splitlines() if line.startswith("| late |"))
    assert "apart: too few seeds" in late  # the ranked table's own row
    assert "late (2 seeds)" in md
    csv_text = report(folder, "csv", capsys)
    header, *lines = csv_text.splitlines()
    column = header.split(",").index("few_seeds")
    by_name = {line.split(",")[0]: line.split(",") for line in lines}
    assert by_name["late"][column] == "true"
    assert by_name["pilot"][column] == "false"
