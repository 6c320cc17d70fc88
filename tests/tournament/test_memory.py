"""What a report and a resume hold does not grow with the folder's lines.

A report streams episodes.jsonl one line at a time into a digest that keeps, per
episode, a cell and a score (20 bytes in flat arrays); a resume keeps a bit per kept
line and a bit per planned episode. These tests count objects and bytes, never time
or RSS.
"""

from __future__ import annotations

import asyncio
import gc
import json
import math
import random
from pathlib import Path

import pytest

from harness.errors import RecordError
from harness.registry import get_game
from harness.report.build import build_report
from harness.report.digest import ExactSum
from harness.report.stats import percentile
from harness.results.selection import select_digest
from harness.summary import EpisodeSummary, SeatStats, episode_id
from harness.tournament.config import TournamentConfig, load_tournament
from harness.tournament.plan import DoneSet, PlanIndex
from harness.tournament.run import run_tournament
from harness.tournament.store import ResultsFolder

GAME = get_game("lighthouse")
SEEDS = 2000

CONFIG = """\
name = "big"
seeds = {{ start = 0, stop = {seeds} }}
variants = ["default", "spring"]
repetitions = 1

[[entrants]]
name = "a"
keeper = {{ baseline = "lantern" }}
runners = {{ baseline = "wallhug" }}

[[entrants]]
name = "b"
keeper = {{ baseline = "silent" }}
runners = {{ baseline = "wallhug" }}
"""


def config_of(tmp_path: Path, seeds: int) -> TournamentConfig:
    path = tmp_path / "big.toml"
    path.write_text(CONFIG.format(seeds=seeds))
    return load_tournament(path)


def line(entrant: str, variant: str, seed: int, rng: random.Random) -> EpisodeSummary:
    """A scripted episode's results line (no calls), with made-up figures."""
    score = rng.choice([0.0, 12.5, 25.0, 37.5]) + rng.random()
    seats = {"keeper": SeatStats(role="keeper", agent="lantern", turns=30)}
    seats |= {f"runner{i}": SeatStats(role="runner", agent="wallhug", turns=30) for i in (1, 2, 3)}
    return EpisodeSummary(
        episode_id=episode_id(entrant, variant, seed, 0),
        entrant=entrant,
        seed=seed,
        variant=variant,
        repetition=0,
        score=score,
        scores=[score] * 4,
        reason=rng.choice(["complete", "flooded"]),
        metrics={"K": float(rng.randint(0, 3)), "E": rng.random() * 3, "runners": 3.0},
        seats=seats,
        fallback_free=True,
    )


def big_folder(tmp_path: Path, seeds: int = SEEDS) -> Path:
    """A folder of 2 x seeds x 2 results lines (no records: a report reads lines only)."""
    config = config_of(tmp_path, seeds)
    out = tmp_path / "out"
    out.mkdir()
    manifest = {
        "game": "lighthouse",
        "config": json.loads(config.canonical_json()),
        "shard": "1/1",
    }
    (out / "manifest.json").write_text(json.dumps(manifest))
    rng = random.Random(7)
    with (out / "episodes.jsonl").open("w") as handle:
        for plan in PlanIndex(config).plans():
            summary = line(plan.entrant.name, plan.variant, plan.seed, rng)
            handle.write(summary.model_dump_json(by_alias=True) + "\n")
    return out


def live_summaries() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, EpisodeSummary))


def outcome(values: list[float], running: bool) -> str:
    """What math.fsum (or a running ExactSum) gives: the float's repr, or the error."""
    try:
        if not running:
            return repr(math.fsum(values))
        total = ExactSum()
        for v in values:
            total.add(v)
        return repr(total.value())  # repr tells 0.0 from -0.0: the same float, sign and all
    except (OverflowError, ValueError) as exc:
        return type(exc).__name__


def test_a_running_exact_sum_is_fsum_over_every_value() -> None:
    rng = random.Random(3)
    cases = [
        [
            rng.choice([0.0, -0.0, 1e-300, 1e300, 0.1, 1 / 3, 2.0**-60, rng.random()])
            * rng.choice([1, -1, 1e16, -1e-16])
            for _ in range(rng.randint(0, 40))
        ]
        for _ in range(200)
    ]
    cases += [
        [1e308, 1e308, -1e308],  # an intermediate overflow
        [1.0, math.inf, 2.0, math.inf],
        [math.inf, -math.inf],
        [math.nan, 1.0],
        [-0.0, -0.0],
        [],
    ]
    for values in cases:
        assert outcome(values, running=True) == outcome(values, running=False), values


@pytest.mark.slow
def test_a_report_on_a_folder_holds_a_cell_and_a_score_per_episode(tmp_path: Path) -> None:
    out = big_folder(tmp_path)
    folder = ResultsFolder(out)
    manifest = folder.manifest()
    before = live_summaries()
    folded, selection = select_digest(GAME, manifest, folder.iter_summaries(), out)
    episodes = 2 * SEEDS * 2
    assert folded.episodes == episodes
    assert selection.episodes == []  # folded, not listed
    # the lines are not held: one first episode per entrant and table, nothing else
    assert live_summaries() - before <= 2 * 2
    # 20 bytes an episode in flat arrays (seed, variant, score), a bit for "no fallback"
    assert folded.held_bytes() <= episodes * 20 + episodes // 8 + 2 * 2
    assert all(not e.with_calls and not e.latencies for e in folded.entrants.values())
    report = build_report(GAME, folded, plan=folded.plan)
    assert report.episodes == episodes
    assert report.completeness.complete is True


def test_the_folded_figures_are_the_formulas_over_every_line(tmp_path: Path) -> None:
    out = big_folder(tmp_path, seeds=60)
    lines = ResultsFolder(out).summaries()
    rng = random.Random(11)
    # model seats on some lines of a, with every figure a report sums
    for i, s in enumerate(lines):
        if s.entrant == "a" and i % 3:
            calls = rng.randint(1, 4)
            seat = s.seats["keeper"].model_copy(
                update={
                    "calls": calls,
                    "latencies_ms": [rng.random() * 900 for _ in range(calls)],
                    "cost_usd": rng.random() / 3,
                    "fallbacks": {"fallback_parse": 1} if i % 5 == 0 else {},
                }
            )
            lines[i] = s.model_copy(
                update={"seats": {**s.seats, "keeper": seat}, "fallback_free": i % 5 != 0}
            )
    rng.shuffle(lines)
    report = build_report(GAME, lines)
    for name in ("a", "b"):
        mine = [s for s in lines if s.entrant == name]
        row = next(r for r in report.entrants if r.entrant == name)
        seats = [seat for s in mine for seat in s.seats.values()]
        assert row.cost_usd == math.fsum(seat.cost_usd for seat in seats)
        latencies = [x for seat in seats for x in seat.latencies_ms]
        p95 = percentile(latencies, 95)
        assert row.latency_ms.p95 == (None if math.isnan(p95) else p95)
        for column in GAME.report.report_columns():
            assert row.columns[column.key] == column.value([s.metrics for s in mine])
        assert row.fallback_free_episodes == sum(s.fallback_free for s in mine)
    clean = {r.entrant: r.episodes for r in report.fallback_free.entrants}
    assert clean == {n: sum(s.fallback_free for s in lines if s.entrant == n) for n in "ab"}


def test_results_lines_are_read_one_at_a_time(tmp_path: Path) -> None:
    out = big_folder(tmp_path, seeds=3)
    path = out / "episodes.jsonl"
    path.write_bytes(path.read_bytes() + b"not a results line\n")
    folder = ResultsFolder(out)
    stream = folder.iter_summaries()
    # every good line comes out before the bad one is read (the plan is seed-major)
    assert [s.seed for s in (next(stream) for _ in range(12))] == [0] * 4 + [1] * 4 + [2] * 4
    with pytest.raises(RecordError, match=r"episodes.jsonl:13:"):
        next(stream)


def test_a_done_set_is_a_bit_per_planned_episode(tmp_path: Path) -> None:
    config = config_of(tmp_path, 5000)
    for shard in [(1, 1), (2, 3)]:
        plans = PlanIndex(config, shard)
        ids = [p.episode_id for p in plans.plans()]
        # every episode has its own slot, 0..len-1, and placed() names the same ones
        assert sorted(plans.position(e) or 0 for e in ids) == list(range(len(ids)))
        assert [(plans.position(p.episode_id), p) for _, p in plans.placed()] == list(
            plans.placed()
        )
        counts = plans.entrant_counts()
        assert counts == {n: sum(plans[e][0] == n for e in ids) for n in ("a", "b")}
        done = DoneSet(plans)
        for e in ids[::3]:
            assert done.add(e)
        assert not done.add(ids[0])  # once only
        assert not done.add("a--default--s5000--r0")  # not planned
        assert done.held_bytes() == (len(ids) + 7) // 8
        assert len(done) == len(ids[::3])
        assert [p.episode_id for p in done.todo()] == [e for i, e in enumerate(ids) if i % 3]


def test_resume_keeps_bits_not_lines_and_reads_them_again(tmp_path: Path) -> None:
    config = config_of(tmp_path, 3)
    out = tmp_path / "played"
    asyncio.run(run_tournament(config, out))
    folder = ResultsFolder(out)
    written = folder.summaries()
    before = live_summaries()
    repair = folder.examine(GAME, PlanIndex(config))
    assert live_summaries() == before  # the checked lines are gone again
    assert (repair.add, repair.rewrite, len(repair.kept)) == ([], False, 2)  # 12 lines, 2 bytes
    assert list(repair.finished()) == written
    gone = frozenset({written[0].episode_id})
    assert list(repair.without(gone).finished()) == written[1:]


def test_a_report_is_the_same_whatever_its_resamplings_hold_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bootstrap and the sign flips work a block at a time, so that memory stays
    flat; how big a block is changes no figure."""
    import harness.report.methods.resample as resample
    import harness.report.methods.signflip as signflip

    lines = ResultsFolder(big_folder(tmp_path, seeds=40)).summaries()
    ten = [line(f"e{i}", v, s, random.Random(i)) for i in range(3) for v in ("default", "spring")
           for s in range(20)]  # fmt: skip
    expected = [build_report(GAME, lines, reference="b"), build_report(GAME, ten)]
    for numbers, packed in ((97, 64), (1 << 12, 1 << 9), (1 << 24, 1 << 24)):
        monkeypatch.setattr(resample, "_CHUNK_NUMBERS", numbers)
        monkeypatch.setattr(signflip, "_PAIR_BYTES", packed)
        assert [build_report(GAME, lines, reference="b"), build_report(GAME, ten)] == expected
