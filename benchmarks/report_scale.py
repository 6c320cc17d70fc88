"""CPU time of a report at 6,000 and 100,000 episodes (figures printed, never asserted).

    python -m benchmarks.report_scale [--episodes 6000 100000] [--entrants 10] [--rounds 2]

Writes a results folder of ``--entrants`` scripted entrants (distinct baseline
keepers, so that one keeper leaderboard ranks them all) on both tides, one
repetition, as many seeds as make the episodes (6,000 episodes of 10 entrants: 300
seeds; 100,000: 5,000), with Lighthouse-like scores (a board effect per seed, a tide
effect, an entrant effect and noise, floored at 0: skewed, correlated across a seed's
tides), in a shuffled order, as workers finish them. Then times what
``lighthouse report DIR`` does, phase by phase:

* **read**: the manifest and every results line, each counted and folded into the
  digest (:func:`harness.results.read_results`);
* **statistics**: the report built from the digest (every entrant's score,
  per-variant means, IQM and profile; every pair with Holm; the ranks and their
  intervals; the comparisons with the reference, with P(X > Y); every entrant's
  score / ceiling; the leaderboard; the same over the fallback-free episodes);
* **render**: the report in Markdown, JSON and CSV.

Each phase is timed by ``time.process_time`` (CPU, every thread of this process) and
``time.perf_counter`` (wall); the best of ``--rounds`` rounds is printed, with a
digest of the three renderings, which must be the same every round (the same results
give the same report). The plot is left out: it draws every episode as a dot.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np

from harness.report.render import to_csv, to_json, to_markdown
from harness.results import read_results
from harness.summary import EpisodeSummary, SeatStats, episode_id

T = TypeVar("T")
VARIANTS = ("default", "spring")
#: Baseline keepers: the entrants differ only in the keeper, so one board ranks them.
KEEPERS = ("silent", "lantern", "pilot", "scout")


def _config(entrants: int, seeds: int) -> dict[str, object]:
    return {
        "name": "report-scale",
        "seeds": {"start": 0, "stop": seeds},
        "variants": list(VARIANTS),
        "repetitions": 1,
        "entrants": [
            {
                "name": f"entrant-{i}",
                "keeper": {"baseline": KEEPERS[i % len(KEEPERS)]},
                "runners": {"baseline": "wallhug"},
            }
            for i in range(entrants)
        ],
        "reference": "entrant-0",
    }


def _line(entrant: int, seed: int, variant: int, score: float) -> str:
    name = f"entrant-{entrant}"
    keeper = KEEPERS[entrant % len(KEEPERS)]
    seats = {"keeper": SeatStats(role="keeper", agent=keeper, turns=30)}
    seats |= {f"runner{i}": SeatStats(role="runner", agent="wallhug", turns=30) for i in (1, 2, 3)}
    summary = EpisodeSummary(
        episode_id=episode_id(name, VARIANTS[variant], seed, 0),
        entrant=name,
        seed=seed,
        variant=VARIANTS[variant],
        repetition=0,
        score=score,
        scores=[score] * 4,
        reason="complete" if score > 10 else "flooded",
        metrics={"K": float(min(3, int(score // 8))), "E": min(3.0, score / 10), "runners": 3.0},
        seats=seats,
        fallback_free=True,
    )
    return summary.model_dump_json(by_alias=True)


def write_folder(root: Path, episodes: int, entrants: int) -> int:
    """A results folder of ``episodes`` episodes under ``root``; its number of seeds."""
    seeds = episodes // (entrants * len(VARIANTS))
    rng = np.random.Generator(np.random.PCG64(20261129))
    board = rng.gamma(2.0, 6.0, size=seeds)
    skill = np.linspace(-6, 6, entrants)
    e, s, v = np.meshgrid(
        np.arange(entrants), np.arange(seeds), np.arange(len(VARIANTS)), indexing="ij"
    )
    score = np.maximum(0.0, np.round(board[s] + skill[e] - 3.0 * v + rng.normal(0, 4, e.shape), 3))
    order = rng.permutation(e.size)  # results lines come in any order
    root.mkdir(parents=True)
    manifest = {"game": "lighthouse", "config": _config(entrants, seeds), "shard": "1/1"}
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    flat = [a.ravel()[order].tolist() for a in (e, s, v, score)]
    with (root / "episodes.jsonl").open("w", encoding="utf-8") as out:
        for row in zip(*flat, strict=True):
            out.write(_line(*row) + "\n")
    return seeds


def timed(fn: Callable[[], T]) -> tuple[T, float, float]:
    """``fn()`` with its CPU and wall seconds."""
    cpu, wall = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - cpu, time.perf_counter() - wall


def one_round(root: Path) -> tuple[list[tuple[float, float]], str]:
    """The three phases' (CPU, wall) seconds and a digest of the renderings."""
    results, read_cpu, read_wall = timed(lambda: read_results(root))
    report, stats_cpu, stats_wall = timed(lambda: results.report)
    texts, render_cpu, render_wall = timed(
        lambda: (to_markdown(report), to_json(report), to_csv(report))
    )
    digest = hashlib.sha256("\0".join(texts).encode()).hexdigest()[:16]
    return [(read_cpu, read_wall), (stats_cpu, stats_wall), (render_cpu, render_wall)], digest


def main() -> None:
    """Time the report at each size and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, nargs="+", default=[6000, 100_000])
    parser.add_argument("--entrants", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print(f"{'episodes':>9} {'seeds':>6} | {'read':>15} | {'statistics':>15} | "
          f"{'render':>15} | {'total CPU':>9} | digest")  # fmt: skip
    with tempfile.TemporaryDirectory() as scratch:
        for episodes in args.episodes:
            root = Path(scratch) / f"folder-{episodes}"
            seeds = write_folder(root, episodes, args.entrants)
            best: list[tuple[float, float]] | None = None
            digests = set()
            for _ in range(args.rounds):
                phases, digest = one_round(root)
                digests.add(digest)
                if best is None or sum(c for c, _ in phases) < sum(c for c, _ in best):
                    best = phases
            assert best is not None
            same = digests.pop() if len(digests) == 1 else "DIFFERED between rounds"
            cells = " | ".join(f"{c:6.2f} s ({w:5.2f})" for c, w in best)
            print(f"{episodes:>9,} {seeds:>6,} | {cells} | {sum(c for c, _ in best):7.2f} s | "
                  f"{same}", flush=True)  # fmt: skip
    print("(CPU seconds, wall seconds in brackets; the best of the rounds)")


if __name__ == "__main__":
    main()
