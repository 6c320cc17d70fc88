"""Task parameters as ``inspect eval -T`` gives them, checked once, when the task is built.

Inspect reads each ``-T key=value`` as YAML and splits a plain value on commas, so
``-T seeds=0,3,7`` arrives as the list ``["0", "3", "7"]`` and ``-T variant=spring``
as a string. One catch: YAML 1.1 reads ``10:20`` as the base-60 number 620, so a
range that does not start at 0 is written ``10-20`` (``0:50`` arrives as written).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from harness.errors import ConfigError
from harness.json_reply import StrictJsonError, strict_loads
from harness.protocol import GameEntry
from harness.validation import MAX_SEED, check_seed, short_repr

#: The most seeds one task may hold: one sample each, built in memory.
MAX_SAMPLES = 100_000
#: The longest seeds string read: about 10,000 seeds listed one by one (a range says
#: more in a few characters). A longer one is refused before any of it is parsed.
MAX_SEEDS_TEXT = 65_536
#: ``A:B`` or ``A-B``: seeds A (included) to B (excluded), as Python's range.
_RANGE = re.compile(r"(\d{1,16})\s*[:-]\s*(\d{1,16})")

#: What the ``seeds`` parameter may be.
Seeds = int | str | Sequence[int | str] | range


def parse_seeds(value: Seeds) -> list[int]:
    """The seeds ``value`` names: ``7``, ``"0:50"`` / ``"10-20"`` (the end excluded),
    ``"1,5,9"``, a list of those, or a ``range``. In order, without repeats.

    Bounded before anything is built: a string longer than :data:`MAX_SEEDS_TEXT` is
    refused unread, and each part is counted (a range by its length, never listed)
    until the seeds pass :data:`MAX_SAMPLES`; only then are they listed.
    """
    items: Sequence[object]
    if isinstance(value, range):
        items = [value[: MAX_SAMPLES + 1]]
    elif isinstance(value, list | tuple):
        items = value
    else:  # one seed or range (or what -T made of a value that is neither)
        items = [value]
    if len(items) > MAX_SAMPLES:
        raise ConfigError(f"seeds: at most {MAX_SAMPLES:,} seeds in one task")
    parts: list[range] = []
    count = 0
    for item in items:
        for part in _one(item):
            count += len(part)
            if count > MAX_SAMPLES:
                raise ConfigError(f"seeds: at most {MAX_SAMPLES:,} seeds in one task")
            parts.append(part)
    if not count:
        raise ConfigError("seeds: give at least one seed, e.g. -T seeds=0:10")
    return list(dict.fromkeys(seed for part in parts for seed in part))


def _one(item: object) -> list[range]:
    """The seeds ``item`` names, as ranges (one seed is a range of one)."""
    if isinstance(item, bool):  # a YAML true is no seed
        raise ConfigError(f"seeds: {short_repr(item)} is not a seed")
    if isinstance(item, int):
        seed = check_seed(item, "seeds")
        return [range(seed, seed + 1)]
    if isinstance(item, range):
        if item:  # a range's ends are its least and greatest numbers
            low, high = sorted((item[0], item[-1]))
            if low < 0 or high > MAX_SEED:
                raise ConfigError(f"seeds: {short_repr(item)} holds numbers that are not seeds")
        return [item]
    if not isinstance(item, str):
        raise ConfigError(f"seeds: {short_repr(item)} is not a seed or a range")
    if len(item) > MAX_SEEDS_TEXT:
        raise ConfigError(
            f"seeds: a value of {len(item):,} characters is longer than the "
            f"{MAX_SEEDS_TEXT:,} one may be; name the seeds as ranges A:B, or as a list"
        )
    text = item.strip()
    if "," in text:
        return [part for piece in text.split(",") for part in _one(piece)]
    if text.isdecimal() and len(text) <= 16:
        seed = check_seed(int(text), "seeds")
        return [range(seed, seed + 1)]
    found = _RANGE.fullmatch(text)
    if found is None:
        raise ConfigError(
            f"seeds: {short_repr(item)} is not a seed, a range A:B (or A-B) or a list A,B,C"
        )
    start, stop = int(found.group(1)), int(found.group(2))
    if stop <= start:
        raise ConfigError(f"seeds: the range {text} is empty (its end is excluded)")
    if stop - 1 > MAX_SEED:
        raise ConfigError(f"seeds: a seed is at most {MAX_SEED}")
    if stop - start > MAX_SAMPLES:
        raise ConfigError(f"seeds: at most {MAX_SAMPLES:,} seeds in one task")
    return [range(start, stop)]


def parse_variants(game: GameEntry, value: str | Sequence[str] | None) -> list[str]:
    """The variants ``value`` names (``"spring"``, ``"default,spring"``, a list); the
    game's first when None. A variant the game does not have is a :class:`ConfigError`."""
    if value is None:
        return [game.variants[0]]
    items = [value] if isinstance(value, str) else list(value)
    names = [part.strip() for item in items for part in str(item).split(",")]
    for name in names:
        if name not in game.variants:
            raise ConfigError(
                f"variant: {game.name} has {list(game.variants)}, not {short_repr(name)}"
            )
    if not names:
        raise ConfigError(f"variant: give one of {list(game.variants)}")
    return list(dict.fromkeys(names))


def parse_rules(value: Mapping[str, Any] | str | None) -> dict[str, Any]:
    """Rules overrides: a mapping (``-T rules="{maxTicks: 20}"`` is one) or a JSON object."""
    if value is None:
        return {}
    if isinstance(value, str):
        try:
            # the project's strict reader: bounded depth and number size, linear time
            value = strict_loads(value)
        except StrictJsonError:
            raise ConfigError(
                f"rules: {short_repr(value)} is not an object, e.g. -T rules='{{maxTicks: 20}}'"
            ) from None
    if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
        raise ConfigError(f"rules: {short_repr(value)} is not an object of rules parameters")
    return dict(value)


__all__ = ["MAX_SAMPLES", "MAX_SEEDS_TEXT", "Seeds", "parse_rules", "parse_seeds", "parse_variants"]
