"""Real Lighthouse scores for the statistics study: played once, kept under results/.

    python -m benchmarks.stats_population [--seeds 1000] [--workers 2]

Plays SILENT, LANTERN and PILOT keepers, each with WALLHUG runners, on seeds
0..S-1 at both tides (default, spring), through the real tournament path
(``lighthouse run`` on a TOML config), once under the default rules and once under
each of three rule changes (an earlier or a later tide, four keys). That gives 12
scripted entrants on the same boards: the three keepers under the default rules are
the study's population for coverage, and all 12 (shifted to one mean) its population
of equal entrants for the family-wise error of ten.

The results folders live in ``results/stats-study/<setting>/`` (git-ignored), and the
scores, read back from their ``episodes.jsonl``, in ``results/stats-study/
population-S.npz``: an array ``scores[entrant, seed, variant]`` and the entrants'
names. A second run reads the file; a folder that is there is resumed, not replayed.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from harness.tournament.store import ResultsFolder

ROOT = Path(__file__).resolve().parent.parent / "results" / "stats-study"
KEEPERS = ("silent", "lantern", "pilot")
VARIANTS = ("default", "spring")
#: rule settings: a name and the config's ``rules`` table (TOML inline)
SETTINGS: tuple[tuple[str, str], ...] = (
    ("base", "{}"),
    ("early-tide", "{ tideDelay = 7 }"),
    ("late-tide", "{ tideDelay = 13 }"),
    ("more-keys", "{ keyCount = 4 }"),
)


@dataclass(frozen=True)
class Population:
    """Cell scores of scripted entrants on the same seeds and variants."""

    names: tuple[str, ...]
    """``keeper`` for the default rules, ``keeper@setting`` otherwise."""
    scores: np.ndarray
    """float64 [entrant, seed, variant]: each cell's score (one repetition)."""

    def pick(self, names: tuple[str, ...]) -> np.ndarray:
        """The scores of ``names``, in that order."""
        return self.scores[[self.names.index(n) for n in names]]


def _config(setting: str, rules: str, seeds: int) -> str:
    entrants = "\n".join(
        f'[[entrants]]\nname = "{k}"\nkeeper = {{ baseline = "{k}" }}\n'
        'runners = { baseline = "wallhug" }\n'
        for k in KEEPERS
    )
    return (
        f'name = "stats-{setting}"\nseeds = {{ start = 0, stop = {seeds} }}\n'
        f'variants = ["default", "spring"]\nrepetitions = 1\nrules = {rules}\n\n{entrants}'
    )


def _read(folder: Path, seeds: int) -> np.ndarray:
    scores = np.full((len(KEEPERS), seeds, len(VARIANTS)), np.nan)
    for line in ResultsFolder(folder).iter_summaries():
        scores[KEEPERS.index(line.entrant), line.seed, VARIANTS.index(line.variant)] = line.score
    return scores


def _play(setting: str, rules: str, seeds: int, workers: int) -> np.ndarray:
    folder = ROOT / f"{setting}-{seeds}"
    config = ROOT / f"{setting}-{seeds}.toml"
    if folder.exists() and not np.isnan(scores := _read(folder, seeds)).any():
        return scores  # played already (the run would only print its report)
    ROOT.mkdir(parents=True, exist_ok=True)
    config.write_text(_config(setting, rules, seeds), encoding="utf-8")
    command = [sys.executable, "-m", "harness.cli", "run", str(config), "--out", str(folder)]
    command += ["--workers", str(workers)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    scores = _read(folder, seeds)
    if np.isnan(scores).any():
        raise SystemExit(f"{folder}: not every episode finished")
    return scores


def population(seeds: int = 1000, *, workers: int = 2, quiet: bool = False) -> Population:
    """The study's population on seeds 0..``seeds``-1 (played once, then read back)."""
    cache = ROOT / f"population-{seeds}.npz"
    if cache.exists():
        with np.load(cache) as held:
            return Population(tuple(str(n) for n in held["names"]), held["scores"])
    names: list[str] = []
    parts = []
    for setting, rules in SETTINGS:
        if not quiet:
            print(f"playing {setting} ({rules}) on {seeds} seeds x 2 tides", file=sys.stderr)
        parts.append(_play(setting, rules, seeds, workers))
        names += [k if setting == "base" else f"{k}@{setting}" for k in KEEPERS]
    scores = np.concatenate(parts)
    np.savez(cache, names=np.array(names), scores=scores)
    return Population(tuple(names), scores)


def main() -> None:
    """Build (or read) the population and print each entrant's means."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    found = population(args.seeds, workers=args.workers)
    print(f"{'entrant':<22} {'default':>8} {'spring':>8} {'balanced':>9} {'sd(seed)':>9}")
    for name, cells in zip(found.names, found.scores, strict=True):
        seed = cells.mean(axis=1)
        print(
            f"{name:<22} {cells[:, 0].mean():8.3f} {cells[:, 1].mean():8.3f} "
            f"{seed.mean():9.3f} {seed.std(ddof=1):9.3f}"
        )


if __name__ == "__main__":
    main()
