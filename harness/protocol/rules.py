"""The rules part: what the runner and replay need to advance an episode's state."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ValidationError

from harness.defaults import MAX_EPISODE_TIMEOUT_SECONDS
from harness.errors import ConfigError
from harness.validation import format_validation_error

StateT = TypeVar("StateT")
ConfigT = TypeVar("ConfigT", bound=BaseModel)


def validated_config(
    model: type[ConfigT],
    variants: Sequence[str],
    variant: str,
    overrides: Mapping[str, Any],
    episode_timeout_seconds: float | None = None,
) -> ConfigT:
    """:meth:`Rules.make_config` for a game whose config is one pydantic model and
    whose variants change nothing in it: ``overrides`` (the tournament's ``[rules]``)
    validated, with the episode timeout when one is given. A bad variant or value is
    a :class:`ConfigError` naming it."""
    if variant not in variants:
        raise ConfigError(f"variants: {variant!r} is not one of {list(variants)}")
    values = dict(overrides)
    if episode_timeout_seconds is not None:
        values["episode_timeout_seconds"] = episode_timeout_seconds
    try:
        return bounded_timeout(model.model_validate(values))
    except ValidationError as exc:
        raise ConfigError(format_validation_error(exc, "rules")) from None


def bounded_timeout(config: ConfigT) -> ConfigT:
    """``config``, a game's rules made for a new episode, when its episodeTimeoutSeconds
    is finite and at most :data:`~harness.defaults.MAX_EPISODE_TIMEOUT_SECONDS`; else a
    :class:`ConfigError`. Only new episodes are held to it: a record is read with the
    timeout it was played with, whatever that was."""
    value = getattr(config, "episode_timeout_seconds", None)
    if isinstance(value, int | float) and not (
        math.isfinite(value) and value <= MAX_EPISODE_TIMEOUT_SECONDS
    ):
        raise ConfigError(
            f"rules: episodeTimeoutSeconds: at most {MAX_EPISODE_TIMEOUT_SECONDS:,.0f} seconds "
            f"(a year), got {value:g}"
        )
    return config


@dataclass(frozen=True)
class SeatSpec:
    """A seat of a game: its id, its role (picks prompts and baseline) and its name."""

    seat: str
    role: str
    name: str | None = None


class Rules(Protocol[StateT]):
    """A game's rules over its own immutable state. Pure: no I/O, no clock, no globals."""

    def make_config(
        self,
        variant: str,
        overrides: Mapping[str, Any],
        episode_timeout_seconds: float | None = None,
    ) -> BaseModel:
        """The rules parameters of ``variant`` with ``overrides`` (raises ConfigError)."""
        ...

    def new_state(self, config: Any, seed: int) -> StateT:
        """The starting state of the episode ``seed`` under ``config``."""
        ...

    def seats(self, state: StateT) -> tuple[SeatSpec, ...]:
        """Every seat of the episode, in the order of ``results.scores``."""
        ...

    def active_seats(self, state: StateT) -> tuple[str, ...]:
        """The ids of the seats asked for a decision this tick (none once over)."""
        ...

    def observe(self, state: StateT, seat: str) -> Any:
        """The typed observation of ``seat``: the only thing the seat may know."""
        ...

    def tick(self, state: StateT) -> int:
        """The number of the tick about to be resolved."""
        ...

    def resolve(self, state: StateT, decisions: Mapping[str, Any]) -> tuple[StateT, BaseModel]:
        """Resolve one tick: the next state and the record model of the state after it."""
        ...

    def is_over(self, state: StateT) -> bool:
        """Whether the episode has ended."""
        ...

    def end_by_deadline(self, state: StateT) -> StateT:
        """End the episode because the play budget ran out before the tick resolved."""
        ...

    def results(self, state: StateT) -> BaseModel:
        """The results of a finished episode (with ``scores`` and ``reason``)."""
        ...

    def play_budget_seconds(self, state: StateT) -> float:
        """The wall-clock play budget of the episode."""
        ...


@runtime_checkable
class ChamberStates(Protocol):
    """An optional capability of a rules part: a game whose seed fixes a sequence of
    chambers (levels) whatever the player does can start a state at any of them, so
    ``lighthouse board --chamber K`` can show it."""

    def chamber_state(self, config: Any, seed: int, chamber: int) -> Any:
        """The state at the start of chamber ``chamber`` (1 is the episode's start) of
        the episode ``seed`` under ``config``; ConfigError for a chamber out of range."""
        ...


@runtime_checkable
class DumpedResolve(Protocol):
    """An optional capability of a rules part: :meth:`Rules.resolve` with the tick's
    state already in the form its record line holds (what ``model_dump(mode="json",
    by_alias=True)`` of the model gives, keys in the model's order), made without
    building the model. The runner writes it as it is; a game pins the two forms
    equal in its tests."""

    def resolve_dumped(
        self, state: Any, decisions: Mapping[str, Any]
    ) -> tuple[Any, dict[str, Any]]:
        """:meth:`Rules.resolve`, its record model given as that model's dump."""
        ...


__all__ = [
    "ChamberStates",
    "DumpedResolve",
    "Rules",
    "SeatSpec",
    "StateT",
    "bounded_timeout",
    "validated_config",
]
