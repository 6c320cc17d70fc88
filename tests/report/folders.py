"""Results folders written from known scores: a manifest planning exactly the cells
given, and a results line per cell, in a shuffled order (as workers finish them)."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from harness.summary import EpisodeSummary, SeatStats, episode_id

VARIANTS = ("default", "spring")
KEEPERS = ("silent", "lantern", "pilot", "scout")


def summary(entrant: str, keeper: str, seed: int, variant: str, score: float) -> EpisodeSummary:
    """A scripted episode's results line with ``score``."""
    seats = {"keeper": SeatStats(role="keeper", agent=keeper, turns=30)}
    seats |= {f"runner{i}": SeatStats(role="runner", agent="wallhug", turns=30) for i in (1, 2, 3)}
    return EpisodeSummary(
        episode_id=episode_id(entrant, variant, seed, 0),
        entrant=entrant,
        seed=seed,
        variant=variant,
        repetition=0,
        score=score,
        scores=[score] * 4,
        reason="complete",
        metrics={"K": 1.0, "E": 1.0, "runners": 3.0},
        seats=seats,
        fallback_free=True,
    )


def write_folder(
    root: Path,
    cells: np.ndarray,
    names: Sequence[str],
    *,
    variants: Sequence[str] = VARIANTS,
    reference: str | None = None,
    order: int = 0,
) -> Path:
    """A results folder at ``root`` of ``cells`` (float [entrant, seed, variant]): seeds
    0..n-1, one repetition, each entrant a distinct baseline keeper with WALLHUG runners;
    its lines in an order shuffled by ``order``."""
    _, n, v = cells.shape
    config: dict[str, object] = {
        "name": root.name,
        "seeds": list(range(n)),
        "variants": list(variants[:v]),
        "repetitions": 1,
        "entrants": [
            {
                "name": name,
                "keeper": {"baseline": KEEPERS[i % len(KEEPERS)]},
                "runners": {"baseline": "wallhug"},
            }
            for i, name in enumerate(names)
        ],
    }
    if reference is not None:
        config["reference"] = reference
    root.mkdir(parents=True)
    manifest = {"game": "lighthouse", "config": config, "shard": "1/1"}
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    lines = [
        summary(
            name, KEEPERS[e % len(KEEPERS)], s, variants[j], float(cells[e, s, j])
        ).model_dump_json(by_alias=True)
        for e, name in enumerate(names)
        for s in range(n)
        for j in range(v)
    ]
    random.Random(order).shuffle(lines)
    (root / "episodes.jsonl").write_text("".join(f"{x}\n" for x in lines), encoding="utf-8")
    return root


__all__ = ["KEEPERS", "VARIANTS", "summary", "write_folder"]
