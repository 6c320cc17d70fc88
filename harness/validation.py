"""Checks shared by configs and flags: one clear line per problem, and the seed bounds."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, Field, ValidationError

from harness.defaults import MAX_TIMEOUT_SECONDS
from harness.errors import ConfigError
from harness.models import StrictModel  # re-exported: the one strict base
from harness.text import cut_short

#: Error types whose pydantic message names a Python class ("... or instance of
#: LLMSeatConfig"): they are told in the file's terms, with what was given instead.
_TABLE_TYPES = frozenset({"model_type", "dataclass_type", "model_attributes_type"})


def format_validation_error(
    exc: ValidationError,
    source: str,
    *,
    hidden: Collection[str] = (),
    place: Callable[[Sequence[str | int]], str] | None = None,
) -> str:
    """One line per problem, ``source: field.path: message``.

    Path segments that are pydantic's own (``tagged-union[...]``, ``function-after[...]``)
    or named in ``hidden`` (union tags, wrapper fields the file does not spell) are
    left out, so the path reads as the file is written; ``place`` may say the path
    otherwise (a config names an entrant by its name). A message that would name a
    Python class says "a table" instead. Duplicate lines are dropped.
    """
    lines: list[str] = []
    for err in exc.errors():
        parts = [
            part
            for part in err["loc"]
            if not (isinstance(part, str) and ("[" in part or part in hidden))
        ]
        where = place(parts) if place else ".".join(str(part) for part in parts)
        message = err["msg"].removeprefix("Value error, ")
        if err["type"] in _TABLE_TYPES:
            message = f"should be a table (key = value, ...), got {short_repr(err['input'])}"
        elif err["type"] == "seat_shape":  # harness.seat_spec.SEAT_SHAPES
            message = f"{message}; got {short_repr(err['input'])}"
        line = f"{source}: {where}: {message}" if where else f"{source}: {message}"
        if line not in lines:
            lines.append(line)
    return "\n".join(lines)


ModelT = TypeVar("ModelT", bound=BaseModel)


def validated(model: type[ModelT], data: object, source: str) -> ModelT:
    """``data`` validated into ``model``; a :class:`ConfigError` of
    :func:`format_validation_error`'s lines, each starting with ``source``, when it does
    not fit (a config's or a flag's problem said in its own terms, never a traceback)."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(format_validation_error(exc, source)) from None


#: Seeds are integers 0..2**53 - 1, exactly representable as a JSON number, so a
#: record's seed reads back unchanged anywhere (Relayroam RR10, Hourloom H4). Configs
#: and flags of every game check seeds against this one bound.
MAX_SEED = (1 << 53) - 1


def check_seed(value: object, where: str = "--seed") -> int:
    """``value`` when it is a seed; else a :class:`ConfigError` naming ``where``."""
    if type(value) is int and 0 <= value <= MAX_SEED:
        return value
    raise ConfigError(f"{where}: {seed_problem(value)}")


def seed_problem(value: object) -> str | None:
    """Why ``value`` is not a seed, or None when it is one (see :data:`MAX_SEED`)."""
    if type(value) is int and 0 <= value <= MAX_SEED:
        return None
    return f"seed must be an integer 0..{MAX_SEED}, got {short_repr(value)}"


def seconds_field(
    default: Any, *, description: str | None = None, maximum: float = MAX_TIMEOUT_SECONDS
) -> Any:
    """A config field of seconds: a finite number over 0 and at most ``maximum`` (by
    default :data:`~harness.defaults.MAX_TIMEOUT_SECONDS`, a day)."""
    return Field(default, gt=0, le=maximum, allow_inf_nan=False, description=description)


class HasVariants(Protocol):
    """What :func:`checked_variant` reads of a game (a ``GameEntry``), said here so that
    this bottom layer names no type above it."""

    @property
    def name(self) -> str:
        """The game's name, as errors name it."""
        ...

    @property
    def variants(self) -> tuple[str, ...]:
        """The game's rules variants; the first is its default."""
        ...


def checked_variant(game: HasVariants, variant: str | None, where: str = "variant") -> str:
    """The rules variant ``variant`` names (the game's first when None); a ConfigError
    that starts with ``where`` and names the game's variants when it has no such one."""
    chosen = game.variants[0] if variant is None else variant
    if chosen not in game.variants:
        raise ConfigError(f"{where}: {game.name} has {list(game.variants)}, not {chosen!r}")
    return chosen


def short_repr(value: object) -> str:
    """``value`` as an error message shows it: quoted, cut short when long.

    A 200-digit number is named by its size, not printed whole (and Python refuses to
    print an int of more than 4,300 digits at all).
    """
    if type(value) is int and value.bit_length() > 80:
        digits = len(str(abs(value))) if value.bit_length() < 13_000 else "4,000+"
        return f"a {digits}-digit number"
    return cut_short(repr(value), 40)


__all__ = [
    "MAX_SEED",
    "HasVariants",
    "StrictModel",
    "check_seed",
    "checked_variant",
    "format_validation_error",
    "seconds_field",
    "seed_problem",
    "short_repr",
    "validated",
]
