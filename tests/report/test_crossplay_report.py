"""The cross-play report: its matrix is the episodes' means, its decomposition adds up,
its test and gaps mean what they say, and the same results give the same bytes."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import random
from pathlib import Path

import numpy as np
import pytest

from harness.browse.crossplay import crossplay_html
from harness.commands.tournament import report_text
from harness.report.crossplay import CrossplayLayout, crossplay_section
from harness.report.crossplay_model import Crossplay
from harness.report.crossplay_render import crossplay_csv, crossplay_markdown
from harness.results import read_results
from harness.tournament.config import load_tournament
from harness.tournament.run import run_tournament

TINY = """
name = "tiny-crossplay"
seeds = { start = 0, stop = 4 }
variants = ["default", "spring"]

[crossplay.keeper]
silent = "silent"
pilot = "pilot"

[crossplay.runners]
wallhug = "wallhug"
scout = "scout"
mixed = ["scout", "wallhug", "wallhug"]
"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("crossplay")
    path = root / "tiny.toml"
    path.write_text(TINY)
    out = root / "out"
    asyncio.run(run_tournament(load_tournament(path), out, environ={}))
    return out


def section_of(out: Path) -> Crossplay:
    section = read_results(out).report.crossplay
    assert section is not None
    return section


def test_every_matrix_cell_is_the_mean_of_the_episodes_it_names(tiny: Path) -> None:
    section = section_of(tiny)
    assert section.rows == ["silent", "pilot"]
    assert section.columns == ["wallhug", "scout", "mixed"]
    assert (section.cells, section.seeds, section.missing) == (8, 4, [])
    lines = [json.loads(line) for line in (tiny / "episodes.jsonl").read_text().splitlines()]
    assert len(lines) == 6 * 8
    for cell in section.matrix:
        assert cell.entrant == f"{cell.row}+{cell.column}"
        scores = [line["score"] for line in lines if line["entrant"] == cell.entrant]
        assert len(scores) == 8
        assert cell.score.mean == pytest.approx(sum(scores) / len(scores), abs=1e-12)
        assert cell.score.low is not None
        assert cell.score.high is not None
        assert cell.score.mean is not None
        assert cell.score.low <= cell.score.mean <= cell.score.high


def test_the_decomposition_adds_back_to_the_cell_means(tiny: Path) -> None:
    section = section_of(tiny)
    grand = section.grand.mean
    rows = {e.member: e.effect.mean for e in section.row_effects}
    columns = {e.member: e.effect.mean for e in section.column_effects}
    inter = {(i.row, i.column): i.interaction.mean for i in section.interactions}
    assert grand is not None
    means = [c.score.mean for c in section.matrix]
    assert grand == pytest.approx(sum(m for m in means if m is not None) / len(means))
    for cell in section.matrix:
        row, column = rows[cell.row], columns[cell.column]
        interaction = inter[(cell.row, cell.column)]
        assert row is not None
        assert column is not None
        assert interaction is not None
        assert grand + row + column + interaction == pytest.approx(cell.score.mean, abs=1e-9)
    assert sum(v for v in rows.values() if v is not None) == pytest.approx(0, abs=1e-9)
    assert sum(v for v in columns.values() if v is not None) == pytest.approx(0, abs=1e-9)
    # partner-robust figures: the mean and the minimum of each row and column
    for robust in section.by_row:
        line = {c.column: c.score.mean for c in section.matrix if c.row == robust.member}
        assert robust.mean.mean == pytest.approx(sum(line.values()) / len(line))  # type: ignore[arg-type]
        assert robust.worst.mean == min(line.values())  # type: ignore[type-var]
        assert line[robust.worst_partner] == robust.worst.mean
    for robust in section.by_column:
        line = {c.row: c.score.mean for c in section.matrix if c.column == robust.member}
        assert robust.worst.mean == min(line.values())  # type: ignore[type-var]
    # every lead is the difference of its two cells
    cells = {(c.row, c.column): c.score.mean for c in section.matrix}
    (lead,) = section.leads
    for name, iv in lead.by_column.items():
        ahead, behind = cells[(lead.row, name)], cells[(lead.versus, name)]
        assert ahead is not None
        assert behind is not None
        assert iv.mean == pytest.approx(ahead - behind)


def test_the_same_results_give_the_same_bytes(tiny: Path) -> None:
    formats = ("md", "json", "crossplay-csv")
    expected = {fmt: report_text(tiny, fmt, None) for fmt in formats}
    assert "## Cross-play: keeper x runners" in expected["md"]
    assert '"crossplay": {' in expected["json"]
    rows = list(csv.reader(io.StringIO(expected["crossplay-csv"])))
    assert rows[0] == ["figure", "row", "column", "mean", "low", "high"]
    assert sum(1 for r in rows if r[0] == "cell") == 6
    lines = (tiny / "episodes.jsonl").read_bytes().splitlines(keepends=True)
    try:
        for seed in range(2):
            random.Random(seed).shuffle(lines)
            (tiny / "episodes.jsonl").write_bytes(b"".join(lines))
            assert {fmt: report_text(tiny, fmt, None) for fmt in formats} == expected
    finally:
        (tiny / "episodes.jsonl").write_bytes(b"".join(sorted(lines)))


def layout(
    rows: int, columns: int, same: frozenset[tuple[str, str]] = frozenset()
) -> CrossplayLayout:
    r = tuple(f"k{i}" for i in range(rows))
    c = tuple(f"t{j}" for j in range(columns))
    return CrossplayLayout(
        "keeper", "runners", r, c, {(a, b): f"{a}+{b}" for a in r for b in c}, same
    )


def cells_of(values: np.ndarray) -> dict[str, dict[tuple[int, str], float]]:
    """Entrant cell means from an array (seeds, rows, columns), one variant."""
    seeds, rows, columns = values.shape
    return {
        f"k{i}+t{j}": {(s, "default"): float(values[s, i, j]) for s in range(seeds)}
        for i in range(rows)
        for j in range(columns)
    }


def test_an_additive_matrix_has_no_interaction_and_a_crossed_one_has_a_clear_one() -> None:
    rng = np.random.default_rng(5)
    board = rng.normal(0, 3, size=(30, 1, 1))  # how hard each board is, for everyone
    additive = board + np.array([[0.0], [4.0]]) + np.array([[0.0, 2.0, 5.0]])
    section = crossplay_section(layout(2, 3), cells_of(additive), resamples=400)
    test = section.interaction_test
    assert test is not None
    assert test.statistic == pytest.approx(0, abs=1e-18)
    assert test.p == 1.0
    assert test.share.mean == pytest.approx(0, abs=1e-12)
    crossed = (
        additive
        + np.array([[3.0, -3.0, 0.0], [-3.0, 3.0, 0.0]])
        + rng.normal(0, 0.5, size=(30, 2, 3))
    )
    section = crossplay_section(layout(2, 3), cells_of(crossed), resamples=400)
    test = section.interaction_test
    assert test is not None
    assert test.p is not None
    assert test.p == pytest.approx(1 / 401)  # no sign flip comes near it
    assert test.share.low is not None
    assert test.share.low > 0.3


def test_the_self_play_gap_is_the_pair_against_the_rest_of_its_row_and_column() -> None:
    values = np.zeros((5, 2, 2)) + np.array([[10.0, 4.0], [6.0, 2.0]])
    values += np.arange(5)[:, None, None]  # boards of different difficulty
    section = crossplay_section(
        layout(2, 2, frozenset({("k0", "t0")})), cells_of(values), resamples=200
    )
    (gap,) = section.self_play
    assert (gap.row, gap.column) == ("k0", "t0")
    assert gap.self_play.mean == pytest.approx(12.0)
    assert gap.cross_play.mean == pytest.approx((4 + 6) / 2 + 2)
    assert gap.gap.mean == pytest.approx(5.0)
    assert gap.gap.low == pytest.approx(5.0)
    assert gap.gap.high == pytest.approx(5.0)


def test_a_matrix_with_a_hole_says_so_and_decomposes_nothing() -> None:
    cells = cells_of(np.ones((3, 2, 2)))
    del cells["k1+t1"]
    section = crossplay_section(layout(2, 2), cells, resamples=50)
    assert section.missing == ["k1+t1"]
    assert section.matrix == []
    assert section.interaction_test is None
    text = "\n".join(crossplay_markdown(section))
    assert "**Incomplete**: no finished episode yet for k1+t1" in text
    assert crossplay_csv(section).splitlines() == ["figure,row,column,mean,low,high"]


def test_cells_not_every_entrant_finished_are_left_out_and_marked() -> None:
    cells = cells_of(np.arange(12.0).reshape(3, 2, 2))
    del cells["k0+t1"][(2, "default")]
    section = crossplay_section(layout(2, 2), cells, resamples=50)
    assert (section.cells, section.all_cells) == (2, 3)
    assert section.matrix[0].score.mean == pytest.approx((0 + 4) / 2)
    assert "**Incomplete**: 1 of the 3 cells" in "\n".join(crossplay_markdown(section))


def test_the_heat_map_escapes_every_name_and_shows_each_interval() -> None:
    hostile = '<script>alert("x")</script>'
    base = layout(2, 2)
    named = CrossplayLayout(
        "keeper",
        "runners",
        (hostile, "k1"),
        base.columns,
        {(a, b): f"{a}+{b}" for a in (hostile, "k1") for b in base.columns},
    )
    values = cells_of(np.arange(12.0).reshape(3, 2, 2) ** 1.5)
    values = {k.replace("k0", hostile): v for k, v in values.items()}
    page = "\n".join(crossplay_html(crossplay_section(named, values, resamples=50)))
    assert "<script" not in page
    assert "&lt;script&gt;" in page
    assert page.count('class="num heat"') == 4
    assert 'title="' in page
    assert "<small>[" in page
    assert crossplay_html(None) == []


def test_every_cross_play_table_has_its_legend_under_it() -> None:
    values = np.zeros((4, 2, 2)) + np.array([[10.0, 4.0], [6.0, 2.0]]) + np.arange(4)[:, None, None]
    section = crossplay_section(
        layout(2, 2, frozenset({("k0", "t0")})), cells_of(values), resamples=50
    )
    lines = crossplay_markdown(section)
    tables = [i for i, line in enumerate(lines) if line.startswith("| ")]
    assert len(tables) == 4  # matrix, decomposition, leads, self-play
    for i in tables:
        # the table's block, a blank line, then its legend in italics
        assert lines[i + 1] == "", lines[i]
        legend = lines[i + 2]
        assert legend.startswith("*"), legend
        assert legend.endswith("*"), legend
    legends = [lines[i + 2] for i in tables]
    assert "worst partner" in legends[0]
    assert "interaction" in legends[1]
    assert "change of the lead" in legends[2]
    assert "gap, self-play less cross-play" in legends[3]
    page = "\n".join(crossplay_html(section))
    # in the page, each table (the heat map and the columns' table share one) is followed
    # by a legend, and the leads' legend names no column the page does not show
    assert page.count('<p class="legend">') == 4
    assert "change of the lead" not in page
