"""A tournament's episodes, computed as they are needed rather than held in memory.

Every (entrant, variant, seed, repetition) is one episode. The plan is never a list:
:func:`iter_episodes` yields the episodes in order, :func:`count_episodes` counts
them, and :class:`PlanIndex` answers "is this episode id in the plan?" by parsing the
id, so a run over a million seeds holds no more than a run over ten.

**Order: seed-major.** Within a repetition, every variant of a seed is played (by
every entrant) before the next seed: repetition, then seed, then variant, then
entrant. The statistics take the seed (the board) as their unit, with the variants
as strata inside it, so a run stopped early (``--limit``, ``--max-cost``, Ctrl-C)
leaves whole seeds, every entrant on the same ones, and at most the seed in play
short of a variant.

**The shard split** is by an episode's *number*, a fixed function of what defines it,
not by its place in the order above: number = ((repetition x V + variant) x S + seed)
x E + entrant, with each part its index in the config (V variants, S seeds, E
entrants), and shard I/N holds the episodes whose number is I - 1 modulo N. It is the
numbering of the plan's first order (variant before seed), kept so that a shard's
folder started under it is still that shard's folder. The number divided by N is also
an episode's slot in a shard's bitmap of finished episodes (:class:`DoneSet`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from harness.errors import ConfigError
from harness.summary import episode_id
from harness.tournament.config import EntrantConfig, TournamentConfig


@dataclass(frozen=True)
class EpisodePlan:
    """One episode of the tournament. Its id is derived from what defines it."""

    entrant: EntrantConfig
    variant: str
    seed: int
    repetition: int

    @property
    def episode_id(self) -> str:
        """``<entrant>--<variant>--s<seed>--r<repetition>``: stable across reruns."""
        return episode_id(self.entrant.name, self.variant, self.seed, self.repetition)


def parse_shard(text: str) -> tuple[int, int]:
    """``"I/N"`` -> (I, N), 1 <= I <= N."""
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise ConfigError(f"--shard: {text!r} is not I/N, e.g. 1/4") from None
    if not 1 <= index <= count:
        raise ConfigError(f"--shard: {text!r}: need 1 <= I <= N")
    return index, count


def iter_episodes(
    config: TournamentConfig, shard: tuple[int, int] = (1, 1)
) -> Iterator[EpisodePlan]:
    """Every episode of this shard, seed-major (see the module docstring), entrants
    advancing together."""
    return (plan for _, plan in placed_episodes(config, shard))


def placed_episodes(
    config: TournamentConfig, shard: tuple[int, int] = (1, 1)
) -> Iterator[tuple[int, EpisodePlan]]:
    """:func:`iter_episodes`, each episode with its slot in the shard (its number // N).

    The split is by number, the same on every machine (see the module docstring).
    """
    index, count = shard
    variants = config.variant_list()
    seeds = config.seed_order()
    entrants = config.entrants
    width_v, width_s, width_e = len(variants), len(seeds), len(entrants)
    for rep in range(config.repetitions):
        for s, seed in enumerate(seeds):
            for v, variant in enumerate(variants):
                base = ((rep * width_v + v) * width_s + s) * width_e
                for e, entrant in enumerate(entrants):
                    number = base + e
                    if number % count == index - 1:
                        yield number // count, EpisodePlan(entrant, variant, seed, rep)


def plan_episodes(config: TournamentConfig, shard: tuple[int, int] = (1, 1)) -> list[EpisodePlan]:
    """:func:`iter_episodes` as a list (for small plans: tests, benchmarks)."""
    return list(iter_episodes(config, shard))


def count_episodes(config: TournamentConfig, shard: tuple[int, int] = (1, 1)) -> int:
    """How many episodes :func:`iter_episodes` yields, without yielding them."""
    index, count = shard
    total = (
        config.repetitions
        * len(config.variant_list())
        * len(config.seed_order())
        * len(config.entrants)
    )
    first = index - 1
    return 0 if total <= first else (total - first + count - 1) // count


class PlanIndex(Mapping[str, tuple[str, int]]):
    """The plan's episode ids, each mapped to (entrant, repetition), in constant memory.

    Membership parses the id and checks each part against the config and the shard.
    """

    def __init__(self, config: TournamentConfig, shard: tuple[int, int] = (1, 1)) -> None:
        self._config = config
        self._shard = shard
        self._entrants = {e.name: i for i, e in enumerate(config.entrants)}
        self._variants = {v: i for i, v in enumerate(config.variant_list())}
        seeds = config.seed_order()
        self._seeds = seeds if isinstance(seeds, range) else {s: i for i, s in enumerate(seeds)}

    def plans(self) -> Iterator[EpisodePlan]:
        """Every episode of the plan, in order."""
        return iter_episodes(self._config, self._shard)

    def placed(self) -> Iterator[tuple[int, EpisodePlan]]:
        """Every episode of the plan, in order, each with its :meth:`position`."""
        return placed_episodes(self._config, self._shard)

    def __getitem__(self, key: str) -> tuple[str, int]:
        found = self._locate(key)
        if found is None:
            raise KeyError(key)
        return found

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self._locate(key) is not None

    def __iter__(self) -> Iterator[str]:
        return (plan.episode_id for plan in self.plans())

    def __len__(self) -> int:
        return count_episodes(self._config, self._shard)

    def position(self, key: str) -> int | None:
        """The episode ``key``'s slot in this shard, 0..len-1 (its number // N, see the
        module docstring), or None when it is not planned; with :meth:`__len__`, what a
        bitmap of finished episodes needs. :meth:`placed` gives each episode's."""
        found = self._place(key)
        return None if found is None else found[2] // self._shard[1]

    def locate(self, key: str) -> tuple[str, int] | None:
        """The entrant ``key`` is planned for and its :meth:`position`, or None."""
        found = self._place(key)
        return None if found is None else (found[0], found[2] // self._shard[1])

    def entrant_counts(self) -> dict[str, int]:
        """How many episodes the plan (this shard) holds per entrant, without listing them."""
        index, count = self._shard
        entrants = len(self._entrants)
        total = self._config.repetitions * len(self._variants) * len(self._seeds) * entrants
        out = {}
        for name, i in self._entrants.items():
            # numbers p < total with p = i (mod entrants) and p = index - 1 (mod count)
            step = math.lcm(entrants, count)
            first = next((p for p in range(i, step, entrants) if p % count == index - 1), None)
            out[name] = 0 if first is None or first >= total else (total - first - 1) // step + 1
        return out

    def _locate(self, key: str) -> tuple[str, int] | None:
        found = self._place(key)
        return None if found is None else (found[0], found[1])

    def _place(self, key: str) -> tuple[str, int, int] | None:
        head, _, rep_text = key.rpartition("--r")
        head, _, seed_text = head.rpartition("--s")
        entrant, _, variant = head.rpartition("--")
        plain = rep_text.isdecimal() and seed_text.isdecimal()
        if not plain or len(rep_text) > 20 or len(seed_text) > 20:
            return None
        rep, seed = int(rep_text), int(seed_text)
        if episode_id(entrant, variant, seed, rep) != key:  # no leading zeros, no aliases
            return None
        if entrant not in self._entrants or variant not in self._variants:
            return None
        if not 0 <= rep < self._config.repetitions or seed not in self._seeds:
            return None
        seed_index = (
            self._seeds.index(seed) if isinstance(self._seeds, range) else self._seeds[seed]
        )
        number = (
            (rep * len(self._variants) + self._variants[variant]) * len(self._seeds) + seed_index
        ) * len(self._entrants) + self._entrants[entrant]
        index, count = self._shard
        return (entrant, rep, number) if number % count == index - 1 else None


class DoneSet:
    """Episodes of a plan marked done, in constant memory per episode: one bit at each
    episode's place in the plan, and a count per entrant.

    What a resumed run holds of the episodes a folder has finished (not their lines).
    """

    def __init__(self, plans: PlanIndex) -> None:
        self.plans = plans
        self._bits = bytearray((len(plans) + 7) // 8)
        self._by_entrant: dict[str, int] = {}
        self._count = 0

    def add(self, episode: str) -> bool:
        """Mark ``episode`` done; False when it is not planned or was marked already."""
        found = self.plans.locate(episode)
        if found is None:
            return False
        entrant, place = found
        byte, bit = divmod(place, 8)
        if self._bits[byte] >> bit & 1:
            return False
        self._bits[byte] |= 1 << bit
        self._by_entrant[entrant] = self._by_entrant.get(entrant, 0) + 1
        self._count += 1
        return True

    def has(self, place: int) -> bool:
        """Whether the episode at ``place`` in the plan is done."""
        byte, bit = divmod(place, 8)
        return bool(self._bits[byte] >> bit & 1)

    def __contains__(self, episode: object) -> bool:
        found = self.plans.locate(episode) if isinstance(episode, str) else None
        return found is not None and self.has(found[1])

    def __len__(self) -> int:
        return self._count

    def count(self, entrant: str) -> int:
        """How many of ``entrant``'s episodes are done."""
        return self._by_entrant.get(entrant, 0)

    def todo(self) -> Iterator[EpisodePlan]:
        """The plan's episodes not done, in order."""
        return (p for place, p in self.plans.placed() if not self.has(place))

    def held_bytes(self) -> int:
        """Bytes held, whatever the number done: an eighth of one per planned episode."""
        return len(self._bits)


__all__ = [
    "DoneSet",
    "EpisodePlan",
    "PlanIndex",
    "count_episodes",
    "iter_episodes",
    "parse_shard",
    "placed_episodes",
    "plan_episodes",
]
