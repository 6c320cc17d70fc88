"""Cell-means tables: the same cells and means as the per-cell dicts they replace, in
memory that holds a few flat arrays."""

from __future__ import annotations

from harness.registry import get_game
from harness.report.build import build_report
from harness.report.digest import digest
from harness.summary import EpisodeSummary, SeatStats

GAME = get_game("lighthouse")


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
    (row,) = report["fallbackFree"]["entrants"]
    assert (row["episodes"], row["cells"], row["score"]["mean"]) == (1, 1, 0.0)
