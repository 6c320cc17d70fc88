"""Cell-means tables and seed tables: the same cells and means as the per-cell dicts they
replace, in memory that holds a few flat arrays (and a resampling's working set that
does not grow with the folder)."""

from __future__ import annotations

import math
import random
import statistics
import tracemalloc
from array import array
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.registry import get_game
from harness.report.build import build_report
from harness.report.cells import Cell, CellMeans
from harness.report.digest import Digest, digest
from harness.report.methods import SeedTable, compare_all, paired_difference
from harness.report.render import to_markdown
from harness.report.seeds import CEILING_ROW, seed_table
from harness.summary import EpisodeSummary, SeatStats
from harness.tournament.ceiling import find_ceiling
from harness.tournament.manifest import Manifest

GAME = get_game("lighthouse")


def cell_means(values: Iterable[tuple[Cell, float]]) -> dict[Cell, float]:
    """Each cell's mean over its repetitions, cells in their natural order: the
    definition, over plain pairs."""
    groups: dict[Cell, list[float]] = defaultdict(list)
    for cell, value in values:
        groups[cell].append(value)
    return {cell: statistics.fmean(groups[cell]) for cell in sorted(groups)}


def line(
    entrant: str, seed: int, score: float, *, variant: str = "default", rep: int = 0,
    free: bool = True, keeper: str = "lantern",
) -> EpisodeSummary:  # fmt: skip
    seats = {"keeper": SeatStats(role="keeper", agent=keeper, turns=30)}
    seats |= {f"runner{i}": SeatStats(role="runner", agent="wallhug", turns=30) for i in (1, 2, 3)}
    return EpisodeSummary(
        episode_id=f"{entrant}--{variant}--s{seed}--r{rep}",
        entrant=entrant,
        seed=seed,
        variant=variant,
        repetition=rep,
        score=score,
        scores=[score] * 4,
        reason="complete",
        metrics={"K": 1.0, "E": 0.5, "runners": 3.0},
        seats=seats,
        fallback_free=free,
    )


def test_a_selection_whose_marks_end_early_leaves_the_later_episodes_out() -> None:
    # the first episode is fallback-free, the nine after it are not: the selection's
    # marks end in the first byte, and the episodes past it are not in the selection
    lines = [line("a", seed, float(seed), free=seed == 0) for seed in range(10)]
    folded = digest(GAME, lines)
    clean = folded.clean["a"]
    assert len(clean.marks) == 1
    assert list(clean.cell_scores(folded.variant_names)) == [((0, "default"), 0.0)]
    report = build_report(GAME, folded)
    (row,) = report.fallback_free.entrants
    assert (row.episodes, row.cells, row.score.mean) == (1, 1, 0.0)


# seeds around the edges of 64 bits (past them, a digest keeps its seeds as ints),
# variant names whose first-seen order is not their sorted order
SEEDS = [0, 1, 2, 7, -1, -3, 2**40, -(2**63), 2**63 - 1]
WIDE_SEEDS = [*SEEDS, 2**63, -(2**63) - 1, 10**30]
VARIANTS = ["spring", "default", "Zed", "b", "aa"]
SCORES = st.floats(min_value=-1e12, max_value=1e12) | st.sampled_from(
    [0.0, -0.0, 0.1, 1 / 3, 1e16, -1e16, 1.0]
)
ROWS = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", "c"]),
        st.sampled_from(WIDE_SEEDS),
        st.sampled_from(VARIANTS),
        SCORES,
        st.booleans(),
    ),
    max_size=60,
)


def reprs(values: Iterable[float]) -> list[str]:
    """Floats by repr: 0.0 and -0.0 told apart, as a report's JSON would."""
    return [repr(v) for v in values]


def same_table(table: CellMeans, expected: dict[Cell, float]) -> None:
    assert list(table) == list(expected)  # the cells, in natural order
    assert reprs(table.means) == reprs(expected.values())
    assert len(table) == len(expected)
    for cell, value in expected.items():
        assert cell in table
        assert repr(table[cell]) == repr(value)


def lines_of(rows: list[tuple[str, int, str, float, bool]]) -> list[EpisodeSummary]:
    return [
        line(entrant, seed, score, variant=variant, rep=i, free=free)
        for i, (entrant, seed, variant, score, free) in enumerate(rows)
    ]


@settings(max_examples=150, deadline=None)
@given(ROWS)
def test_a_digests_tables_are_the_cell_means_of_its_episodes(
    rows: list[tuple[str, int, str, float, bool]],
) -> None:
    lines = lines_of(rows)
    folded = digest(GAME, lines)
    names = folded.variant_names
    tables: dict[str, CellMeans] = {}
    expected: dict[str, dict[Cell, float]] = {}
    for name, entry in folded.entrants.items():
        mine = [s for s in lines if s.entrant == name]
        tables[name] = CellMeans.of_entrant(entry, names)
        expected[name] = cell_means(((s.seed, s.variant), s.score) for s in mine)
        same_table(tables[name], expected[name])
        clean = [s for s in mine if s.fallback_free]
        if name in folded.clean:
            picked = CellMeans.of_entrant(folded.clean[name], names)
            same_table(picked, cell_means(((s.seed, s.variant), s.score) for s in clean))
        else:
            assert not clean
        # the same pairs given one at a time, and as a dict of their means
        same_table(CellMeans.of_pairs(((s.seed, s.variant), s.score) for s in mine), expected[name])
        assert CellMeans.of(expected[name]) == expected[name]
    assert (99, "default") not in CellMeans.of_pairs([])
    every = list(tables.values())
    sets = [set(t) for t in every]
    # the union and intersections over the same tables, against sets of cells
    assert CellMeans.union_size(every) == len(set().union(*sets))
    assert list(CellMeans.union(every)) == sorted(set().union(*sets))
    shared = CellMeans.common(every)
    assert list(shared) == sorted(set.intersection(*sets) if sets else set())
    for name, table in tables.items():
        assert reprs(table.on(shared)) == reprs(expected[name][c] for c in shared)
        # a table from a dict has only its own variant names: the cells still line up
        mixed = CellMeans.common([CellMeans.of(expected[name]), *every])
        assert list(mixed) == list(shared)
        assert mixed.same_cells(shared)


def first(values: list[float]) -> float:
    """A cell's first repetition: tells whether a table keeps the rows' order."""
    return values[0]


def one_order(rows: list[tuple[int, str, float]]) -> None:
    names = list(dict.fromkeys(v for _, v, _ in rows))
    number = {v: i for i, v in enumerate(names)}

    def table(order: list[tuple[int, str, float]], **how: Any) -> CellMeans:
        return CellMeans.of_rows(
            array("q", [s for s, _, _ in order]),
            array("I", [number[v] for _, v, _ in order]),
            array("d", [x for _, _, x in order]),
            names,
            **how,
        )

    # the rows sorted by cell (no sort needed) and in the order given (sorted first)
    for order in (rows, sorted(rows, key=lambda r: (r[0], r[1]))):
        expected = cell_means(((s, v), x) for s, v, x in order)
        same_table(table(order), expected)
        firsts: dict[Cell, float] = {}
        for s, v, x in order:
            firsts.setdefault((s, v), x)
        assert reprs(table(order, mean=first).means) == reprs(firsts[c] for c in expected)


CELL_ROWS = st.tuples(st.sampled_from(SEEDS), st.sampled_from(VARIANTS), SCORES)
NEAR_ROWS = st.tuples(st.integers(-3, 12), st.sampled_from(VARIANTS), SCORES)


@settings(max_examples=100, deadline=None)
@given(st.lists(CELL_ROWS), st.lists(NEAR_ROWS))
def test_rows_in_any_order_give_one_table(
    far: list[tuple[int, str, float]], near: list[tuple[int, str, float]]
) -> None:
    """Seeds far apart are sorted as integers; seeds close together are counted into
    place. Either way: the cells in natural order, a cell's rows in their order."""
    one_order(far)
    one_order(near)


def test_a_cells_mean_is_the_exact_sum_of_its_repetitions_over_their_count() -> None:
    # in the order read, 1e16 + 1.0 - 1e16 sums to 0.0 in floats; exactly it is 1.0
    lines = [line("a", 5, x, rep=i) for i, x in enumerate([1e16, 1.0, -1e16])]
    lines += [line("a", -5, 2.0, variant="spring"), line("b", 5, 1.0)]
    folded = digest(GAME, lines)
    table = CellMeans.of_entrant(folded.entrants["a"], folded.variant_names)
    assert list(table.items()) == [((-5, "spring"), 2.0), ((5, "default"), 1 / 3)]
    report = build_report(GAME, folded, reference="b")
    assert report.cells == 2
    assert {r.entrant: r.cells for r in report.entrants} == {"a": 2, "b": 1}
    (paired,) = report.paired
    assert (paired.pairs, paired.difference.mean) == (1, 1 / 3 - 1.0)


def test_a_mapping_keeps_its_values_as_they_are() -> None:
    # a mean over one repetition is fsum's: 0.0 for -0.0; a mapping's value is kept
    given_values = {(3, "b"): -0.0, (-(2**63), "a"): 1.5, (10**30, "a"): 2.0}
    table = CellMeans.of(given_values)
    assert list(table.items()) == sorted(given_values.items())
    assert repr(table[(3, "b")]) == "-0.0"
    assert CellMeans.of(table) is table
    assert repr(CellMeans.of_pairs([((3, "b"), -0.0)])[(3, "b")]) == "0.0"
    assert (3, "a") not in table
    odd: object = ("x", "a")  # a seed that is not one
    assert odd not in table
    with pytest.raises(KeyError):
        table[(3, "c")]
    with pytest.raises(KeyError):  # on() asks only for cells the table holds
        CellMeans.of({(3, "b"): 1.0}).on(table)
    with pytest.raises(ValueError, match="distinct"):
        CellMeans.of_rows([1], [0], [1.0], ["a", "a"])


@settings(max_examples=120, deadline=None)
@given(ROWS)
def test_a_digests_seed_table_is_the_cell_means_of_its_episodes(
    rows: list[tuple[str, int, str, float, bool]],
) -> None:
    """Seeds past 64 bits become their ranks (the same order); a selection of the
    fallback-free episodes reads its bitmap; a ceiling's cells are one more row."""
    lines = lines_of(rows)
    folded = digest(GAME, lines)
    ceiling = {(seed, "default"): 1.5 for seed in (0, 2**70)}
    for entries, picked in ((folded.entrants, None), (folded.clean, True)):
        table = seed_table(entries, folded.variant_names, ceiling)
        assert table.entrants == (*entries, CEILING_ROW)
        kept = [s for s in lines if s.entrant in entries and (picked is None or s.fallback_free)]
        seeds = sorted({s.seed for s in kept} | {0, 2**70})
        codes = {seed: i for i, seed in enumerate(seeds)}
        wide = any(not -(2**63) <= seed < 2**63 for seed in seeds)
        expected = {seed: (codes[seed] if wide else seed) for seed in seeds}
        assert table.seeds.tolist() == sorted(expected.values())
        for name in entries:
            mine = [s for s in kept if s.entrant == name]
            cells = cell_means(((s.seed, s.variant), s.score) for s in mine)
            found = {
                (seed, variant): float(table.means[table.index(name), i, j])
                for seed in seeds
                for i in [table.seeds.tolist().index(expected[seed])]
                for j, variant in enumerate(table.variants)
                if table.finished[table.index(name), i, j]
            }
            assert found.keys() == cells.keys()
            for cell, value in cells.items():
                assert found[cell] == value or math.isclose(found[cell], value, abs_tol=1e-300)


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["a", "b", "c", "d"]),
        st.dictionaries(st.tuples(st.sampled_from(SEEDS[:5]), st.sampled_from(VARIANTS[:2])),
                        st.floats(min_value=-100, max_value=100)),
        min_size=2,
    )
)  # fmt: skip
def test_pairs_flipped_together_are_each_as_alone(cells: dict[str, dict[Cell, float]]) -> None:
    """Pairs that share their seeds are flipped together, on the table's grid: each
    pair's p-value and interval are those of the pair on its own."""
    names = sorted(cells)
    rows = [(n, seed, v, x) for n in names for (seed, v), x in cells[n].items()]
    variants = sorted({v for _, _, v, _ in rows})
    table = SeedTable.from_episodes(
        names,
        variants,
        [names.index(n) for n, _, _, _ in rows],
        [seed for _, seed, _, _ in rows],
        [variants.index(v) for _, _, v, _ in rows],
        [x for _, _, _, x in rows],
    )
    family = compare_all(table)
    for test in family.pairs:
        alone = paired_difference(table, test.first, test.second)
        assert test.p == alone.p
        assert test.unadjusted == alone.difference
        assert (test.wins, test.ties, test.losses) == (alone.wins, alone.ties, alone.losses)


def test_a_ceiling_from_a_digest_is_the_ceiling_from_the_lines(tmp_path: Path) -> None:
    lines = [line("best", seed, 10.0 * seed + i, rep=i) for seed in (4, -2) for i in range(3)]
    lines += [line("a", seed, 1.0 + seed, variant=v) for seed in (4, 9) for v in ("z", "b")]
    manifest = Manifest.model_validate({"config": {"entrants": [{"name": "a"}, {"name": "best"}]}})
    found = [
        find_ceiling(GAME, tmp_path, manifest, s, "best") for s in (lines, digest(GAME, lines))
    ]
    assert found[0] is not None
    assert found[1] is not None
    assert list(found[0].scores.items()) == list(found[1].scores.items())
    assert list(found[1].scores) == [(-2, "default"), (4, "default")]
    # the ceiling shares one cell with a, whose other cells it lacks: left out
    report = build_report(GAME, lines, ceiling=found[1])
    share = {r.entrant: r.ceiling_share for r in report.entrants}
    assert share == {"a": None, "best": 1.0}


EPISODES = 12_000
#: The Python memory building and rendering a report may take beyond its digest, per
#: episode, as the folder grows (about 110 here): the seed table's rows while it is
#: sorted into cells (a few numbers a row), its grid of cells (16 bytes a cell), and the
#: sign flips' table of subset sums per byte of seeds (256 sums of 8 bytes per entrant
#: per 8 seeds: 128 bytes an episode at two variants). Dicts and sets of (seed,
#: variant) tuples took about 460.
PEAK_BYTES_PER_EPISODE = 200
#: The statistics' working set, whatever the size: blocks of a million numbers.
WORKING_SET_BYTES = 64 << 20


def peak_of(episodes: int) -> tuple[int, int]:
    """A report's peak traced memory over a digest of ``episodes`` episodes (two
    entrants, two variants, shuffled), and its cells."""
    rng = random.Random(5)
    plan = [
        (e, v, s) for e in ("a", "b") for v in ("spring", "default") for s in range(episodes // 4)
    ]
    rng.shuffle(plan)  # as workers finish them: the tables sort their rows
    folded = Digest(GAME)
    for i, (entrant, variant, seed) in enumerate(plan):
        score = rng.random() * 40
        folded.add(line(entrant, seed, score, variant=variant, rep=0, free=i % 7 != 0))
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        report = build_report(GAME, folded, reference="a")
        to_markdown(report)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert report.episodes == episodes
    assert report.pairwise.rows[0].seeds == episodes // 4
    return peak, report.cells


def test_a_reports_peak_memory_grows_by_a_few_flat_arrays_per_episode() -> None:
    small, cells = peak_of(EPISODES)
    assert cells == EPISODES // 2
    large, _ = peak_of(3 * EPISODES)
    # what grows with the folder: the table's arrays (a few numbers a cell)
    assert large - small <= PEAK_BYTES_PER_EPISODE * 2 * EPISODES, (large - small) / EPISODES
    # what does not: the resamplings' working set (a million numbers at a time)
    assert small <= WORKING_SET_BYTES, small


def with_calls(ep: EpisodeSummary, i: int) -> EpisodeSummary:
    """``ep`` with a model keeper whose every figure differs from line to line."""
    keeper = SeatStats(
        role="keeper", agent="openai:m", turns=30, calls=31 + i % 3, retries=i % 2,
        input_tokens=100 * i, output_tokens=7 * i, cost_usd=0.01 * i, unpriced=i % 2,
        latencies_ms=[float(i), 2.5 * i], cached=i % 4,
        fallbacks={} if ep.fallback_free else {"fallback_parse": 1 + i % 2},
    )  # fmt: skip
    return ep.model_copy(update={"seats": {**ep.seats, "keeper": keeper}})


#: What a selection holds of its own, or shares with the digest it selects from.
NOT_TOTALS = {"of", "marks", "mirror", "seeds", "variants", "scores", "with_calls"}


def totals(entry: Any) -> dict[str, Any]:
    """Every total an entrant's digest keeps (the exact sums by their value's repr)."""
    out = {}
    for key, value in vars(entry).items():
        if key in NOT_TOTALS:
            continue
        if key == "sums":
            value = {k: repr(v.value()) for k, v in value.items()}
        elif key == "cost":
            value = repr(value.value())
        elif key == "latencies":
            value = list(value)
        out[key] = value
    return out


@settings(max_examples=80, deadline=None)
@given(ROWS)
def test_the_fallback_free_totals_are_those_of_the_fallback_free_lines_alone(
    rows: list[tuple[str, int, str, float, bool]],
) -> None:
    """An entrant none of whose episodes has fallen back yet is summed once for both of
    its digests; the first that falls back settles its fallback-free totals apart."""
    lines = [with_calls(s, i) for i, s in enumerate(lines_of(rows))]
    folded = digest(GAME, lines)
    alone = digest(GAME, [s for s in lines if s.fallback_free])
    assert set(folded.clean) == set(alone.entrants)
    for name, clean in folded.clean.items():
        expected = alone.entrants[name]
        assert totals(clean) == totals(expected)
    # reading the selections settles them; what is added after still counts apart
    more = [line("a", 99, 1.0, free=False), line("a", 98, 2.0, free=True)]
    for extra in more:
        folded.add(extra)
    again = digest(GAME, [s for s in [*lines, *more] if s.fallback_free])
    assert totals(folded.clean["a"]) == totals(again.entrants["a"])
