"""Pairs, stars and ranks: Holm by hand, too few seeds, what is dropped, any order."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from harness.report.methods import (
    SeedTable,
    analyse,
    compare_all,
    holm,
    paired_difference,
    rank_intervals,
    seeds_needed_for,
)
from tests.report.methods.helpers import Row, table_of


def test_holm_by_hand() -> None:
    # sorted: 0.005 x 4 = 0.02; 0.01 x 3 = 0.03; 0.03 x 2 = 0.06; 0.04 x 1 = 0.04 -> 0.06
    steps = holm([0.01, 0.04, 0.03, 0.005])
    assert [s.adjusted for s in steps] == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert [s.rejected for s in steps] == [True, False, False, True]
    assert [s.level for s in steps] == pytest.approx(
        [1 - 0.05 / 3, 1 - 0.05 / 1, 1 - 0.05 / 2, 1 - 0.05 / 4]
    )
    # equal p-values share the strictest level, whatever their order
    tied = holm([0.02, 0.02, 0.5])
    assert tied[0].level == tied[1].level == pytest.approx(1 - 0.05 / 3)


def test_the_seeds_holm_needs() -> None:
    assert seeds_needed_for(1) == 6  # 2^-5 = 0.031 <= 0.05
    assert seeds_needed_for(3) == 7  # 2^-6 = 0.016 <= 0.0167
    assert seeds_needed_for(45) == 11  # 2^-10 = 0.00098 <= 0.0011


def rows_for(seeds: int, gaps: dict[str, float], noise: float = 0.5) -> list[Row]:
    rng = random.Random(seeds)
    out = []
    for name, gap in gaps.items():
        for s in range(seeds):
            for v, tide in (("default", 0.0), ("spring", -3.0)):
                out.append((name, s, v, 10 + 3 * s + gap + tide + rng.uniform(-noise, noise)))
    return out


def test_two_seeds_star_nothing_and_say_why() -> None:
    # huge, consistent differences: the old bootstrap starred every pair at p < 0.0005
    table = table_of(rows_for(2, {"silent": 0.0, "lantern": 10.0, "pilot": 25.0}))
    family = compare_all(table)
    assert family.comparisons == 3
    assert not family.starred()
    assert all(t.p is not None and t.p >= 0.5 for t in family.pairs)
    assert not family.can_conclude
    assert "no pair can be starred" in family.note()
    assert "7 seeds" in family.note()
    # no interval at Holm's levels either: two seeds cannot bound one
    assert all(t.difference.reason == "too few seeds" for t in family.pairs)
    ranking = rank_intervals(table)
    assert [(r.low, r.high) for r in ranking.ranks] == [(1, 3)] * 3


def test_one_seed_with_two_variants_gives_no_interval_that_excludes_zero() -> None:
    table = table_of(rows_for(1, {"lantern": 0.0, "pilot": -6.2}))
    test = paired_difference(table, "pilot", "lantern")
    assert test.difference.seeds == 1
    assert not test.difference.excludes(0)
    assert not test.difference.has_interval
    assert test.difference.reason == "one seed"
    result = analyse(table, reference="lantern")
    assert not any(t.difference.excludes(0) for t in result.family.pairs)
    assert not result.family.starred()
    assert all(f.score.reason == "one seed" for f in result.entrants)


def test_enough_seeds_star_the_clear_pairs_and_certain_ranks() -> None:
    table = table_of(rows_for(12, {"silent": 0.0, "lantern": 10.0, "pilot": 25.0}))
    family = compare_all(table)
    assert family.can_conclude
    assert len(family.starred()) == 3
    for t in family.starred():
        assert t.difference.excludes(0)  # a star's interval always excludes zero
        assert t.holm is not None
        assert t.difference.level == t.holm.level
    ranks = {r.entrant: (r.rank, r.low, r.high) for r in rank_intervals(table).ranks}
    assert ranks == {"pilot": (1, 1, 1), "lantern": (2, 2, 2), "silent": (3, 3, 3)}


def test_rank_intervals_come_from_the_stars() -> None:
    # a and b equal, c far below: only c's pairs are starred
    table = table_of(rows_for(12, {"a": 0.0, "b": 0.0, "c": -30.0}, noise=2.0))
    ranking = rank_intervals(table)
    starred = {(t.first, t.second) for t in ranking.family.starred()}
    assert starred == {("a", "c"), ("b", "c")}
    ranks = {r.entrant: (r.low, r.high) for r in ranking.ranks}
    assert ranks == {"a": (1, 2), "b": (1, 2), "c": (3, 3)}


def test_a_pair_uses_only_the_seeds_both_finished_in_every_variant() -> None:
    rows = rows_for(8, {"a": 0.0, "b": 2.0})
    # b's spring cell of seed 3 never finished; a's episode there is dropped with it
    rows = [r for r in rows if not (r[0] == "b" and r[1] == 3 and r[2] == "spring")]
    table = table_of(rows)
    test = paired_difference(table, "a", "b")
    assert test.difference.seeds == 7
    assert test.dropped.seeds.tolist() == [3]
    assert test.dropped.cells == 3  # a's two cells of seed 3, and b's default one
    assert "1 seed not finished in every variant" in test.dropped.text()
    # a variant only one of them played is left out, and said so
    rows += [("a", s, "neap", 5.0) for s in range(8)]
    test = paired_difference(table_of(rows), "a", "b")
    assert test.dropped.variants == ("neap",)
    assert "neap" in test.dropped.text()


def test_the_same_episodes_in_any_order_give_the_same_figures() -> None:
    rows = rows_for(20, {"silent": 0.0, "lantern": 1.0, "pilot": 1.5}, noise=6.0)
    rows += [("silent", 3, "default", 11.0)]  # a repetition: averaged within its cell
    first = analyse(table_of(rows), reference="silent", ceiling="pilot")
    shuffled = rows[:]
    random.Random(1).shuffle(shuffled)
    again = analyse(
        table_of(shuffled, ["silent", "lantern", "pilot"]), reference="silent", ceiling="pilot"
    )
    assert repr(first) == repr(again)


def test_a_comparison_reversed_reads_the_other_way() -> None:
    table = table_of(rows_for(10, {"a": 0.0, "b": 3.0}, noise=2.0))
    ab = paired_difference(table, "a", "b")
    ba = paired_difference(table, "b", "a")
    flipped = ab.reversed()
    assert (flipped.first, flipped.second) == ("b", "a")
    assert flipped.difference.value == pytest.approx(ba.difference.value)
    assert (flipped.difference.low, flipped.difference.high) == pytest.approx(
        (ba.difference.low, ba.difference.high)
    )
    assert (flipped.wins, flipped.ties, flipped.losses) == (ba.wins, ba.ties, ba.losses)
    assert flipped.p == ba.p


def test_the_reference_table_reads_the_family_at_the_plain_level() -> None:
    table = table_of(rows_for(10, {"ref": 0.0, "x": 3.0, "y": -1.0}, noise=3.0))
    result = analyse(table, reference="ref")
    versus = {v.test.first: v for v in result.versus}
    assert set(versus) == {"x", "y"}
    for name, v in versus.items():
        alone = paired_difference(table, name, "ref")
        # the same exact enumeration at 10 seeds: the very same figures
        assert v.test.unadjusted == alone.difference
        assert v.test.p == alone.p
        assert 0 <= v.improvement.low <= v.improvement.value <= v.improvement.high <= 1
    assert not math.isnan(result.ranking.ranks[0].mean)


def test_identical_entrants_say_so() -> None:
    rows = rows_for(8, {"a": 0.0})
    rows += [("b", s, v, x) for _, s, v, x in rows]
    test = paired_difference(table_of(rows), "a", "b")
    assert test.difference.value == 0
    assert (test.difference.low, test.difference.high) == (0.0, 0.0)
    assert test.difference.reason == "identical"
    assert "not a measured certainty" in test.difference.why
    assert test.p == 1.0


def test_a_pair_with_no_seed_in_common_is_no_test() -> None:
    rows: list[Row] = [("a", s, "default", float(s)) for s in range(8)]
    rows += [("b", s, "default", float(s)) for s in range(8, 16)]
    rows += [("c", s, "default", float(s) + 1) for s in range(16)]
    family = compare_all(table_of(rows))
    assert family.comparisons == 2
    ab = family.pairs[0]
    assert (ab.first, ab.second, ab.p, ab.holm) == ("a", "b", None, None)
    assert np.isnan(ab.difference.value)


def test_an_entrant_with_nothing_finished_is_no_test_and_ranks_anywhere() -> None:
    rows: list[Row] = [("a", s, "default", float(s)) for s in range(6)]
    rows += [("b", s, "default", float(s) + 3) for s in range(6)]
    table = SeedTable.from_episodes(
        ["a", "b", "c"], ["default"], [0] * 6 + [1] * 6, list(range(6)) * 2, [0] * 12,
        [r[3] for r in rows],
    )  # fmt: skip
    result = analyse(table, reference="a", ceiling="c")
    assert result.entrants[2].score.reason == "no seeds"
    assert result.family.comparisons == 1  # only a - b has seeds
    assert [r.text() for r in result.ranking.ranks] == ["1-3"] * 3  # no seed all share
    assert result.ranking.seeds == 0
    assert all(s.ratio.reason == "no seeds" for s in result.shares)
    with pytest.raises(ValueError, match="not a finite number"):
        SeedTable.from_episodes(["a"], ["default"], [0], [1], [0], [math.nan])
