"""``lighthouse leaderboard``: one Bradley-Terry scale over several folders.

The fit is checked against examples worked by hand; real folders that share an
entrant are put on one scale; folders that no seed connects are refused."""

from __future__ import annotations

import asyncio
import json
import math
from pathlib import Path

import numpy as np
import pytest

from harness.cli import main
from harness.errors import ConfigError
from harness.report.bradley_terry import ELO, fit
from harness.report.ratings import RatedInput, rate
from harness.results.leaderboard import leaderboard
from harness.tournament.config import load_tournament
from harness.tournament.run import run_tournament
from tests.results.test_schemas import problems

#: 400 log10(2): two to one.
TWO_TO_ONE = ELO * math.log10(2)


def entrant(name: str, scores: dict[int, float]) -> RatedInput:
    return RatedInput(
        name=name, folders=("f",), identity=None,
        cells={(seed, "default", "{}"): score for seed, score in scores.items()},
    )  # fmt: skip


def test_a_chain_worked_by_hand() -> None:
    # A beats B on two boards of three, B beats C on two of three; A and C never meet.
    # The likelihood's maximum has p_A / p_B = 2 and p_B / p_C = 2: B at 0, A and C
    # one doubling either side.
    ratings = rate(
        "lighthouse",
        ["f"],
        [
            entrant("A", {0: 1, 1: 1, 2: 0}),
            entrant("B", {0: 0, 1: 0, 2: 1, 3: 1, 4: 1, 5: 0}),
            entrant("C", {3: 0, 4: 0, 5: 1}),
        ],
        resamples=200,
    )
    by = {row.entrant: row for row in ratings.entrants}
    assert by["A"].rating == pytest.approx(TWO_TO_ONE, abs=1e-6)
    assert by["B"].rating == pytest.approx(0, abs=1e-6)
    assert by["C"].rating == pytest.approx(-TWO_TO_ONE, abs=1e-6)
    assert [row.entrant for row in ratings.entrants] == ["A", "B", "C"]
    assert (by["B"].wins, by["B"].ties, by["B"].losses, by["B"].meetings) == (3, 0, 3, 6)
    assert not ratings.regularized
    assert (ratings.boards, ratings.seeds) == (6, 6)


def test_a_tie_is_half_a_win_to_each() -> None:
    # one win and two ties: 2 wins to 1, two to one
    wins = np.array([[0.0, 1 + 2 * 0.5], [2 * 0.5, 0.0]])
    result = fit(wins)
    assert result.ratings[0] - result.ratings[1] == pytest.approx(TWO_TO_ONE, abs=1e-6)
    ratings = rate(
        "lighthouse",
        ["f"],
        [entrant("A", {0: 3, 1: 2, 2: 2}), entrant("B", {0: 1, 1: 2, 2: 2})],
        resamples=50,
    )
    by = {row.entrant: row for row in ratings.entrants}
    assert by["A"].rating - by["B"].rating == pytest.approx(TWO_TO_ONE, abs=1e-6)
    assert (by["A"].wins, by["A"].ties, by["A"].losses) == (1, 2, 0)


def test_an_entrant_that_never_loses_gets_a_finite_rating_and_a_flag() -> None:
    # 3 wins to none has no maximum; one tie more makes it 3.5 to 0.5: seven to one
    result = fit(np.array([[0.0, 3.0], [0.0, 0.0]]))
    assert result.regularized
    assert result.ratings[0] - result.ratings[1] == pytest.approx(ELO * math.log10(7), abs=1e-6)


def test_entrants_no_seed_connects_are_refused_by_group() -> None:
    with pytest.raises(ConfigError) as info:
        rate(
            "lighthouse",
            ["f"],
            [
                entrant("A", {0: 1, 1: 0}),
                entrant("B", {0: 0, 1: 1}),
                entrant("C", {5: 1, 6: 0}),
                entrant("D", {5: 0, 6: 1}),
            ],
        )
    assert "no seed connects these groups of entrants" in str(info.value)
    assert "{A, B}; {C, D}" in str(info.value)


def config(folder: Path, name: str, entrants: list[str], seeds: str, rules: str = "") -> Path:
    text = f'name = "{name}"\nseeds = {seeds}\nvariants = ["default", "spring"]\n{rules}\n'
    for keeper in entrants:
        text += f'\n[[entrants]]\nname = "{keeper}"\nkeeper = "{keeper}"\nrunners = "wallhug"\n'
    path = folder / f"{name}.toml"
    path.write_text(text)
    out = folder / name
    asyncio.run(run_tournament(load_tournament(path), out, environ={}))
    return out


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("leaderboard")
    seeds = "{ start = 0, stop = 6 }"
    return {
        "october": config(root, "october", ["silent", "lantern"], seeds),
        "november": config(root, "november", ["lantern", "pilot"], seeds),
        "apart": config(
            root,
            "apart",
            ["silent", "pilot"],
            "{ start = 20, stop = 26 }",
            "rules = { maxTicks = 40 }",
        ),
    }


def test_two_folders_sharing_an_entrant_are_put_on_one_scale(
    folders: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    ratings = leaderboard([folders["october"], folders["november"]])
    names = [row.entrant for row in ratings.entrants]
    assert sorted(names) == ["lantern", "pilot", "silent"]
    assert ratings.links == ["lantern"]
    by = {row.entrant: row for row in ratings.entrants}
    assert by["lantern"].folders == [str(folders["october"]), str(folders["november"])]
    assert by["pilot"].rating > by["lantern"].rating > by["silent"].rating
    assert sum(row.rating for row in ratings.entrants) == pytest.approx(0, abs=1e-6)
    for row in ratings.entrants:
        assert row.low is not None
        assert row.high is not None
        assert row.low <= row.rating <= row.high
    # silent and pilot, of different folders, meet on the boards both played
    assert by["silent"].meetings == 2 * 12
    assert main(["leaderboard", str(folders["october"]), str(folders["november"])]) == 0
    text = capsys.readouterr().out
    assert "Linked by: lantern" in text
    assert "| 1 | pilot |" in text
    assert (
        main(["leaderboard", str(folders["october"]), str(folders["november"]), "--format", "json"])
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert [row["entrant"] for row in data["entrants"]] == names
    assert problems("leaderboard", data) == []


def test_folders_no_seed_connects_are_refused_with_a_message(
    folders: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ConfigError) as info:
        leaderboard([folders["october"], folders["apart"]])
    text = str(info.value)
    assert "no seed connects these groups of entrants" in text
    # the same names, other rules: other entrants, told apart by their folders
    assert f"silent ({folders['apart']})" in text
    assert main(["leaderboard", str(folders["october"]), str(folders["apart"])]) != 0
    assert "no seed connects" in capsys.readouterr().err


def test_a_folder_given_twice_is_refused(folders: dict[str, Path]) -> None:
    with pytest.raises(ConfigError, match="is given twice"):
        leaderboard([folders["october"], folders["october"]])
