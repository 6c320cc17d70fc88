"""The rules part: what the runner and replay need to advance an episode's state.

A game's rules subclass :class:`Rules` over its own config, state, observation and
decision types, and write the abstract methods; the rest have defaults built on them.
A game with one seat subclasses :class:`~harness.protocol.solo.SoloRules` instead,
which writes most of them for it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic, Protocol

from pydantic import BaseModel
from typing_extensions import TypeVar

from harness.models import JsonObject
from harness.protocol.conventions import GameConfig, GameResults

# The type parameters of every part. Their defaults are what the shared machinery,
# which holds any game (see GameEntry.erase), knows of a game's values: nothing but
# that it made them, so it hands each back to the game that made it.
ConfigT = TypeVar("ConfigT", bound=GameConfig, default=GameConfig)
StateT = TypeVar("StateT", default=object)
ObsT = TypeVar("ObsT", default=object)
DecisionT = TypeVar("DecisionT", default=object)


@dataclass(frozen=True)
class SeatSpec:
    """A seat of a game: its id, its role (picks prompts and baseline) and its name."""

    seat: str
    role: str
    name: str | None = None


class Rules(ABC, Generic[ConfigT, StateT, ObsT, DecisionT]):
    """A game's rules over its own immutable state. Pure: no I/O, no clock, no globals."""

    #: The game's config model; :meth:`make_config` validates into it.
    config_type: type[ConfigT]

    def make_config(
        self,
        variant: str,
        overrides: Mapping[str, object],
        episode_timeout_seconds: float | None = None,
    ) -> ConfigT:
        """The rules parameters of ``variant`` with ``overrides`` (raises ConfigError)."""
        return self.config_type.for_rules(variant, overrides, episode_timeout_seconds)

    @abstractmethod
    def new_state(self, config: ConfigT, seed: int) -> StateT:
        """The starting state of the episode ``seed`` under ``config``."""

    @abstractmethod
    def config(self, state: StateT) -> ConfigT:
        """The config ``state``'s episode is played under (its record's header holds it)."""

    @abstractmethod
    def seats(self, state: StateT) -> tuple[SeatSpec, ...]:
        """Every seat of the episode, in the order of ``results.scores``."""

    @abstractmethod
    def active_seats(self, state: StateT) -> tuple[str, ...]:
        """The ids of the seats asked for a decision this tick (none once over)."""

    @abstractmethod
    def observe(self, state: StateT, seat: str) -> ObsT:
        """The typed observation of ``seat``: the only thing the seat may know."""

    @abstractmethod
    def tick(self, state: StateT) -> int:
        """The number of the tick about to be resolved."""

    @abstractmethod
    def resolve(
        self, state: StateT, decisions: Mapping[str, DecisionT]
    ) -> tuple[StateT, BaseModel]:
        """Resolve one tick: the next state and the record model of the state after it."""

    def resolve_dumped(
        self, state: StateT, decisions: Mapping[str, DecisionT]
    ) -> tuple[StateT, JsonObject]:
        """:meth:`resolve`, its record model given as the model's dump
        (``model_dump(mode="json", by_alias=True)``, keys in the model's order).

        The runner writes this as it is. A game may make it without building the
        model, for speed, naming its keys by the model's (see
        :func:`harness.records.keys`); the record tests pin the two forms equal.
        """
        after, model = self.resolve(state, decisions)
        return after, model.model_dump(mode="json", by_alias=True)

    @abstractmethod
    def is_over(self, state: StateT) -> bool:
        """Whether the episode has ended."""

    @abstractmethod
    def end_by_deadline(self, state: StateT) -> StateT:
        """End the episode because the play budget ran out before the tick resolved."""

    @abstractmethod
    def results(self, state: StateT) -> GameResults:
        """The results of a finished episode."""

    def play_budget_seconds(self, state: StateT) -> float:
        """The wall-clock play budget of the episode (its config's)."""
        return self.config(state).play_budget_seconds


_ConfigIn = TypeVar("_ConfigIn", bound=GameConfig, contravariant=True)
_StateOut = TypeVar("_StateOut", covariant=True)


class ChamberStates(Protocol[_ConfigIn, _StateOut]):
    """An optional part (:attr:`GameEntry.chambers`): a game whose seed fixes a
    sequence of chambers (levels) whatever the player does can start a state at any of
    them, so ``lighthouse board --chamber K`` can show it."""

    def chamber_state(self, config: _ConfigIn, seed: int, chamber: int) -> _StateOut:
        """The state at the start of chamber ``chamber`` (1 is the episode's start) of
        the episode ``seed`` under ``config``; ConfigError for a chamber out of range."""
        ...


__all__ = ["ChamberStates", "ConfigT", "DecisionT", "ObsT", "Rules", "SeatSpec", "StateT"]
