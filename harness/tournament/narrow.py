"""Narrowing a run from the command line: ``--seeds A:B``, ``--entrants a,b``, ``--limit N``.

``--seeds`` and ``--entrants`` narrow the config itself: the run plays, and the
folder's manifest plans, the config's seeds within [A, B) and the entrants named
(in the config's order). The manifest also keeps the narrowing (``narrowing``), with
how many episodes the whole config plans, so the report says the run was narrowed
and by what. ``--limit N`` plays at most N episodes this run and leaves the plan as
it is: the report then shows the folder as incomplete, and says why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from harness.errors import ConfigError
from harness.report.selection import Narrowed
from harness.tournament.config import SeedRange, TournamentConfig
from harness.tournament.plan import count_episodes
from harness.validation import MAX_SEED, short_repr


@dataclass(frozen=True)
class Narrowing:
    """What the command line narrowed a run to."""

    seeds: tuple[int, int] | None = None
    """[start, stop): only the config's seeds in this range."""
    entrants: tuple[str, ...] | None = None
    limit: int | None = None
    """At most this many episodes played in this run."""
    config_episodes: int | None = None
    """The episodes the config plans before ``--seeds`` and ``--entrants`` (set by
    :func:`narrow`)."""

    def __bool__(self) -> bool:
        return self.seeds is not None or self.entrants is not None or self.limit is not None

    def flags(self) -> str:
        """The narrowing as command-line flags, e.g. ``--seeds 0:10 --limit 5``."""
        parts = []
        if self.seeds is not None:
            parts.append(f"--seeds {self.seeds[0]}:{self.seeds[1]}")
        if self.entrants is not None:
            parts.append(f"--entrants {','.join(self.entrants)}")
        if self.limit is not None:
            parts.append(f"--limit {self.limit}")
        return " ".join(parts)

    def to_json(self) -> Narrowed | None:
        """As the manifest keeps it; None when nothing was narrowed."""
        if not self:
            return None
        return Narrowed(
            seeds=list(self.seeds) if self.seeds is not None else None,
            entrants=list(self.entrants) if self.entrants is not None else None,
            limit=self.limit,
            flags=self.flags(),
            config_episodes=self.config_episodes,
        )


#: ``--seeds A:B``: two whole numbers of at most 16 decimal digits (the largest seed has 16).
_SEED_RANGE = re.compile(r"\s*([0-9]{1,16})\s*:\s*([0-9]{1,16})\s*")


def parse_seeds(text: str) -> tuple[int, int]:
    """``"A:B"`` -> (A, B): seeds A (inclusive) to B (exclusive), as in a config's range.

    Matched before it is read as numbers: decimal digits only, at most 16 (as many as
    the largest seed has), so no long string is ever converted."""
    found = _SEED_RANGE.fullmatch(text)
    if found is None:
        raise ConfigError(f"--seeds: {short_repr(text)} is not A:B, e.g. 0:10 (B excluded)")
    a, b = int(found.group(1)), int(found.group(2))
    if a > MAX_SEED or b > MAX_SEED + 1:
        raise ConfigError(f"--seeds: seeds are integers 0..{MAX_SEED}")
    if b <= a:
        raise ConfigError(f"--seeds: {text}: B ({b}) must be greater than A ({a})")
    return a, b


def parse_entrants(text: str) -> tuple[str, ...]:
    """``"a,b"`` -> ("a", "b"), each named once."""
    names = tuple(n.strip() for n in text.split(","))
    if not all(names) or len(set(names)) != len(names):
        raise ConfigError(f"--entrants: {short_repr(text)}: give distinct names, comma-separated")
    return names


def check_limit(value: int) -> int:
    """``value`` if it is a whole number of episodes >= 1."""
    if type(value) is not int or value < 1:
        raise ConfigError(f"--limit: must be a whole number >= 1, got {short_repr(value)}")
    return value


def narrow(config: TournamentConfig, narrowing: Narrowing) -> tuple[TournamentConfig, Narrowing]:
    """``config`` with only the seeds and entrants ``narrowing`` keeps (the limit is the
    run's business; a reference that is not kept is dropped), and ``narrowing`` with
    the number of episodes the whole config plans."""
    narrowing = replace(narrowing, config_episodes=count_episodes(config))
    update: dict[str, object] = {}
    if narrowing.seeds is not None:
        a, b = narrowing.seeds
        seeds = config.seed_order()
        if isinstance(seeds, range):  # a range stays a range, however long
            kept: range | list[int] = range(max(a, seeds.start), min(b, seeds.stop))
        else:
            kept = [s for s in seeds if a <= s < b]
        if not kept:
            low, high = (
                (seeds[0], seeds[-1]) if isinstance(seeds, range) else (min(seeds), max(seeds))
            )
            raise ConfigError(
                f"--seeds {a}:{b}: none of the config's seeds ({low}..{high}, "
                f"{len(seeds)} in all) is in it"
            )
        if isinstance(kept, range):
            update["seeds"] = SeedRange(start=kept.start, stop=kept.stop)
        else:
            update["seeds"] = kept
    if narrowing.entrants is not None:
        known = [e.name for e in config.entrants]
        unknown = [n for n in narrowing.entrants if n not in known]
        if unknown:
            raise ConfigError(
                f"--entrants: not an entrant of the config: {', '.join(unknown)} "
                f"(its entrants: {', '.join(known)})"
            )
        update["entrants"] = [e for e in config.entrants if e.name in narrowing.entrants]
        if config.reference is not None and config.reference not in narrowing.entrants:
            update["reference"] = None
    return config.model_copy(update=update), narrowing


__all__ = ["Narrowing", "check_limit", "narrow", "parse_entrants", "parse_seeds"]
