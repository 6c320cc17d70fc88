"""Reports of real results folders: byte-identical whatever the order of finishing, and
honest about what is missing."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

from harness.commands.tournament import report_text
from harness.results import read_results
from harness.tournament.config import TournamentConfig, load_tournament
from harness.tournament.run import run_tournament
from harness.tournament.store import ResultsFolder
from tests.in_process import lighthouse as cli
from tests.tournament.test_run import SMALL

FORMATS = ("md", "csv", "json")


def config_at(tmp_path: Path, text: str = SMALL) -> TournamentConfig:
    path = tmp_path / "small.toml"
    path.write_text(text)
    return load_tournament(path)


def run(config: TournamentConfig, out: Path, **kwargs: Any) -> Any:
    return asyncio.run(run_tournament(config, out, **kwargs))


def reports(out: Path) -> dict[str, str]:
    texts = {fmt: report_text(out, fmt, None) for fmt in FORMATS}
    texts["svg"] = read_results(out, keep=True).plot()
    return texts


def test_concurrency_and_the_order_of_lines_do_not_change_a_byte(tmp_path: Path) -> None:
    config = config_at(tmp_path)
    one, eight = tmp_path / "one", tmp_path / "eight"
    run(config, one, concurrency=1)
    run(config, eight, concurrency=8)
    expected = reports(one)
    assert reports(eight) == expected
    assert "(incomplete)" not in expected["md"]
    lines = (eight / "episodes.jsonl").read_bytes().splitlines(keepends=True)
    for seed in range(3):
        random.Random(seed).shuffle(lines)
        (eight / "episodes.jsonl").write_bytes(b"".join(lines))
        assert reports(eight) == expected
    # and through the command line, the plot included
    plots = [tmp_path / f"{name}.svg" for name in ("one", "eight")]
    outs = [
        cli("report", str(folder), "--format", "csv", "--plot", str(plot))
        for folder, plot in zip((one, eight), plots, strict=True)
    ]
    assert outs[0].returncode == outs[1].returncode == 0
    assert outs[0].stdout == outs[1].stdout == expected["csv"]
    assert plots[0].read_bytes() == plots[1].read_bytes()


def test_repetitions_of_deterministic_entrants_leave_every_interval_as_it_was(
    tmp_path: Path,
) -> None:
    once, thrice = tmp_path / "once", tmp_path / "thrice"
    run(config_at(tmp_path, SMALL.replace("repetitions = 2", "repetitions = 1")), once)
    run(config_at(tmp_path, SMALL.replace("repetitions = 2", "repetitions = 3")), thrice)
    a, b = (json.loads(report_text(p, "json", None)) for p in (once, thrice))
    for one, three in zip(a["entrants"], b["entrants"], strict=True):
        assert (one["episodes"], three["episodes"]) == (6, 18)
        assert one["cells"] == three["cells"] == 6
        assert (one["score"]["low"], one["score"]["high"]) == (
            three["score"]["low"],
            three["score"]["high"],
        )
    assert a["paired"] == b["paired"]
    # the boards alike but for how many episodes each score is over
    for board in (*a["leaderboards"], *b["leaderboards"]):
        for row in board["rows"]:
            row["score"]["episodes"] = 0
    assert a["leaderboards"] == b["leaderboards"]


def test_an_incomplete_folder_says_so_and_marks_its_intervals(tmp_path: Path) -> None:
    config, out = config_at(tmp_path), tmp_path / "out"
    run(config, out)
    complete = report_text(out, "md", None)
    assert "complete: 24/24 episodes" in complete
    assert "incomplete" not in complete.lower()
    lines = (out / "episodes.jsonl").read_bytes().splitlines(keepends=True)
    kept = sorted(lines)[:10]  # as if the run had stopped after ten episodes
    (out / "episodes.jsonl").write_bytes(b"".join(kept))
    md = report_text(out, "md", None)
    finished = {e: sum(json.loads(x)["entrant"] == e for x in kept) for e in ("lantern", "silent")}
    assert md.startswith("# Tournament small\n\n> **Incomplete: 10/24 episodes** (")
    assert f"lantern {finished['lantern']}/12, silent {finished['silent']}/12" in md
    cells = [c for c in md.split("|") if "[" in c and "," in c]
    assert cells
    assert all(c.endswith(" (incomplete) ") for c in cells)
    data = json.loads(report_text(out, "json", None))["completeness"]
    assert (data["complete"], data["finished"], data["planned"]) == (False, 10, 24)


def test_merging_one_of_two_shards_names_the_missing_one(tmp_path: Path) -> None:
    config = config_at(tmp_path)
    run(config, tmp_path / "a", shard=(1, 2))
    run(config, tmp_path / "b", shard=(2, 2))
    # a shard's own folder is complete: it holds all it was planned to
    shard_report = report_text(tmp_path / "a", "md", None)
    assert "(shard 1/2)" in shard_report
    assert "complete: 12/12 episodes" in shard_report
    assert "(incomplete)" not in shard_report
    half = cli("merge", str(tmp_path / "a"), "--out", str(tmp_path / "half"))
    assert half.returncode == 0, half.stderr
    assert "merged 1 folder into" in half.stderr
    assert "12 episodes; incomplete: 12/24 episodes (missing shard: 2/2)" in half.stderr
    manifest = ResultsFolder(tmp_path / "half").manifest()
    assert (manifest.shards, manifest.missing_shards, manifest.episodes) == (
        ["1/2"],
        ["2/2"],
        24,
    )
    md = report_text(tmp_path / "half", "md", None)
    assert "> **Incomplete: 12/24 episodes (missing shard: 2/2)**" in md
    both = cli("merge", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "all"))
    assert both.returncode == 0, both.stderr
    assert "24 episodes; complete: 24/24 episodes" in both.stderr
    whole = tmp_path / "whole"
    run(config, whole)
    assert "incomplete" not in report_text(tmp_path / "all", "md", None).lower()
    assert report_text(tmp_path / "all", "md", None) == report_text(whole, "md", None)


def test_the_smoke_reports_ranked_tables_list_pilot_lantern_silent(tmp_path: Path) -> None:
    """configs/smoke.toml's folder (kept as a golden folder): its entrants are in the
    config's order lantern, silent, pilot; every ranked table lists them by rank."""
    from tests.golden.folders import unpack

    root = unpack("smoke", tmp_path)
    assert [e.name for e in load_tournament(Path("configs/smoke.toml")).entrants] == [
        "lantern",
        "silent",
        "pilot",
    ]
    md = report_text(root, "md", None)

    def first_column(section: str, column: int) -> list[str]:
        table = next(x for x in section.split("\n\n") if x.startswith("| ")).splitlines()[2:]
        return [row.split(" | ")[column].strip("| ") for row in table]

    entrants = md.split("## Entrants")[1].split("\n## ")[0]
    assert first_column(entrants, 0) == ["pilot", "lantern", "silent"]
    board = md.split("## Keeper leaderboard")[1].split("\n## ")[0]
    assert first_column(board, 2) == ["pilot", "lantern", "silent"]
