"""The conventions every game keeps, as bases that check them when a game defines its models.

- A config (:class:`GameConfig`) carries ``episodeTimeoutSeconds`` (:data:`EpisodeTimeout`),
  gives a play budget of 60% of it (decision D1) and declares its tick cap: the most
  ticks an episode under it can last, from which deadlines, budgets and dry runs are
  sized. Its variants and what each changes are declared on it too.
- Results (:class:`GameResults`) carry ``scores`` (one per seat, in the order of the
  rules' seats) first and ``reason`` (why the episode ended, ``deadline`` among its
  values, decision D2) last.

A class that breaks a convention is refused when it is defined (a :class:`TypeError`
naming it), not when a tournament first meets it.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Mapping
from enum import Enum
from types import UnionType
from typing import (
    TYPE_CHECKING,
    Annotated,
    ClassVar,
    Final,
    Literal,
    Self,
    Union,
    get_args,
    get_origin,
)

import annotated_types
from pydantic import Field

from harness.defaults import MAX_EPISODE_TIMEOUT_SECONDS
from harness.errors import ConfigError
from harness.models import StrictModel
from harness.records import RecordModel, keys
from harness.validation import validated

#: The part of the episode timeout the play budget gets (decision D1).
PLAY_SHARE: Final = 0.6
#: The episode timeout a game's config starts from, in seconds.
DEFAULT_EPISODE_TIMEOUT: Final = 900.0
_TIMEOUT_MEANS: Final = "Wall-clock timeout; the play budget is 60% of it."

EpisodeTimeout = Annotated[float, Field(gt=0, description=_TIMEOUT_MEANS)]
"""The type of every config's ``episode_timeout_seconds`` field. Each config declares
the field itself, where its record's header has always had it, with
:data:`DEFAULT_EPISODE_TIMEOUT` as its default."""


class GameConfig(StrictModel):
    """Base of every game's config: the timeout, the play budget, the tick cap, the variants.

    A game's config declares ``episode_timeout_seconds: EpisodeTimeout =
    DEFAULT_EPISODE_TIMEOUT`` among its fields (checked when the class is defined) and
    :attr:`tick_cap`; it may name more :attr:`VARIANTS` and say what each changes
    (:meth:`variant_defaults`).
    """

    #: The rules variants a tournament may choose from; the first is the default.
    VARIANTS: ClassVar[tuple[str, ...]] = ("default",)

    if TYPE_CHECKING:
        # Declared by each config, in its own place among its fields: a base field
        # would come first in every dump, and the headers of written records would move.
        episode_timeout_seconds: float

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: object) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        timeout = cls.model_fields.get("episode_timeout_seconds")
        if (
            timeout is None
            or timeout.annotation is not float
            or timeout.description != _TIMEOUT_MEANS
            or annotated_types.Gt(0) not in timeout.metadata
            or timeout.default != DEFAULT_EPISODE_TIMEOUT
        ):
            raise TypeError(
                f"{cls.__name__}: a game's config declares episode_timeout_seconds: "
                f"EpisodeTimeout = DEFAULT_EPISODE_TIMEOUT"
            )
        if getattr(cls.tick_cap, "__isabstractmethod__", False):
            raise TypeError(f"{cls.__name__}: a game's config declares its tick_cap")
        if not cls.VARIANTS:
            raise TypeError(f"{cls.__name__}: a game needs at least one variant")

    @property
    def play_budget_seconds(self) -> float:
        """The wall-clock play budget: 60% of episodeTimeoutSeconds (decision D1)."""
        return PLAY_SHARE * self.episode_timeout_seconds

    @property
    @abstractmethod
    def tick_cap(self) -> int:
        """The most ticks an episode under this config can last: the one bound that
        default deadlines, budgets and dry runs are sized by."""

    @classmethod
    def variant_defaults(cls, variant: str) -> Mapping[str, object]:
        """What ``variant`` changes from the defaults (none, unless a game says)."""
        return {}

    @classmethod
    def for_rules(
        cls,
        variant: str,
        overrides: Mapping[str, object],
        episode_timeout_seconds: float | None = None,
    ) -> Self:
        """The config of ``variant`` with ``overrides`` (a tournament's ``[rules]``)
        and, when given, the episode timeout. A bad variant or value is a
        :class:`ConfigError` naming it."""
        if variant not in cls.VARIANTS:
            raise ConfigError(f"variants: {variant!r} is not one of {list(cls.VARIANTS)}")
        values = {**cls.variant_defaults(variant), **overrides}
        if episode_timeout_seconds is not None:
            values["episode_timeout_seconds"] = episode_timeout_seconds
        config = validated(cls, values, "rules")
        timeout = config.episode_timeout_seconds
        if not (math.isfinite(timeout) and timeout <= MAX_EPISODE_TIMEOUT_SECONDS):
            # only new episodes are held to it: a record is read with the timeout it
            # was played with, whatever that was
            raise ConfigError(
                f"rules: episodeTimeoutSeconds: at most {MAX_EPISODE_TIMEOUT_SECONDS:,.0f} "
                f"seconds (a year), got {timeout:g}"
            )
        return config


class GameResults(RecordModel):
    """Base of every game's results (its end line): ``scores`` first, ``reason`` last.

    ``scores`` holds one score per seat, in the order of the rules' seats; ``reason``
    says why the episode ended, and ``"deadline"`` must be one of its values (the
    runner ends an episode whose play budget ran out, decision D2). Checked when a
    game's results class is defined.
    """

    scores: list[float]

    if TYPE_CHECKING:
        # Declared by each game, last, as its closed set of reasons.
        reason: str

    #: The name of the field every game's results end with (and its key when dumped).
    REASON: ClassVar[str] = "reason"

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: object) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        names = list(cls.model_fields)
        if names[-1:] != [cls.REASON] or keys(cls).reason != cls.REASON:
            raise TypeError(f"{cls.__name__}: a game's results end with their reason")
        if "deadline" not in _closed_set(cls.model_fields[cls.REASON].annotation):
            raise TypeError(
                f"{cls.__name__}: a game's reason is a closed set (a Literal or an Enum) "
                "that holds 'deadline'"
            )


def _closed_set(annotation: object) -> set[object]:
    """The values a Literal, an Enum, or a union of them allows (none for anything else)."""
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return {member.value for member in annotation}
    origin = get_origin(annotation)
    if origin is Literal:
        return set(get_args(annotation))
    if origin in (Union, UnionType):
        return {value for arg in get_args(annotation) for value in _closed_set(arg)}
    return set()


__all__ = [
    "DEFAULT_EPISODE_TIMEOUT",
    "PLAY_SHARE",
    "EpisodeTimeout",
    "GameConfig",
    "GameResults",
]
