"""A base for games with one seat, ``player``: the game writes its transition, the base the rest.

As in pgx's ``Env`` or TextArena's ``State``, the game supplies what is its own: the
start of an episode (:meth:`SoloRules.new_state`), one decision's step
(:meth:`SoloRules.step`), the results (:meth:`SoloRules.results`) and what the player
sees (:meth:`SoloRules.observation`). The base keeps the episode's bookkeeping that
every one-seat game shares (:class:`SoloEpisode`: its config, its decisions so far,
why it ended) and answers the rest of the rules part from it: the one seat, who is
asked, the tick, resolving a tick (refusing one after the end or for another seat),
ending by deadline, the config and the play budget.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Final, Generic, Literal, Protocol

from pydantic import BaseModel
from typing_extensions import TypeVar

from harness.errors import RulesError
from harness.models import JsonObject
from harness.protocol.codec import SeedBoardCodec, SeedRecords
from harness.protocol.conventions import GameConfig, GameResults
from harness.protocol.entry import SeatGroup
from harness.protocol.rules import ConfigT, DecisionT, ObsT, Rules, SeatSpec

#: The one seat's id and role.
PLAYER: Final = "player"
#: The one seat as configs name it (``player = { baseline = "..." }``).
SEAT_GROUPS: Final = (SeatGroup(PLAYER, PLAYER, (PLAYER,)),)
_SEATS: Final = (SeatSpec(PLAYER, PLAYER),)
_ASKED: Final = (PLAYER,)

#: The cause of an episode the runner ended because its play budget ran out (D2).
Deadline = Literal["deadline"]

_ConfigOut = TypeVar("_ConfigOut", bound=GameConfig, covariant=True, default=GameConfig)
_RulesOut = TypeVar("_RulesOut", covariant=True, default=object)
_CauseOut = TypeVar("_CauseOut", bound=str, covariant=True, default=str)


@dataclass(frozen=True)
class SoloEpisode(Generic[_ConfigOut, _RulesOut, _CauseOut]):
    """The harness's state of a one-seat episode: its config, the rules' state, the
    decisions made so far (``ticks``) and, once it has ended, why (``cause``).

    A game whose harness counts more (a guard, refusals) subclasses it, adding fields
    with defaults.
    """

    config: _ConfigOut
    rules: _RulesOut
    ticks: int = 0
    cause: _CauseOut | Deadline | None = None

    @property
    def over(self) -> bool:
        """Whether the episode has ended."""
        return self.cause is not None


EpisodeT = TypeVar("EpisodeT", bound=SoloEpisode, default=SoloEpisode)
_Cause = TypeVar("_Cause", bound=str)


def end_cause(episode: SoloEpisode[GameConfig, object, _Cause]) -> _Cause | Deadline:
    """Why ``episode`` ended, for its results; a :class:`RulesError` if it has not."""
    if episode.cause is None:
        raise RulesError(f"tick {episode.ticks}: the episode is not over yet", tick=episode.ticks)
    return episode.cause


class SoloRules(Rules[ConfigT, EpisodeT, ObsT, DecisionT]):
    """The rules part of a one-seat game, over its episode type ``EpisodeT``.

    A game sets :attr:`config_type` and writes :meth:`new_state`, :meth:`step`,
    :meth:`results` and :meth:`observation`.
    """

    @abstractmethod
    def new_state(self, config: ConfigT, seed: int) -> EpisodeT:
        """The episode ``seed`` under ``config`` before its first decision."""

    @abstractmethod
    def step(self, episode: EpisodeT, decision: DecisionT) -> tuple[EpisodeT, BaseModel]:
        """One decision on a running episode: the next episode, its ``ticks`` one more
        and its ``cause`` set if this decision ended it, and the record model of the
        state after it. A decision the rules refuse is a :class:`RulesError`."""

    @abstractmethod
    def results(self, state: EpisodeT) -> GameResults:
        """The results of a finished episode (its ``reason`` the episode's cause)."""

    @abstractmethod
    def observation(self, episode: EpisodeT) -> ObsT:
        """What the player sees of ``episode``."""

    def config(self, state: EpisodeT) -> ConfigT:
        config = state.config
        if not isinstance(config, self.config_type):
            raise RulesError(f"an episode of another game: its config is a {type(config)}")
        return config

    def seats(self, state: EpisodeT) -> tuple[SeatSpec, ...]:
        return _SEATS

    def active_seats(self, state: EpisodeT) -> tuple[str, ...]:
        return () if state.over else _ASKED

    def observe(self, state: EpisodeT, seat: str) -> ObsT:
        return self.observation(state)

    def tick(self, state: EpisodeT) -> int:
        return state.ticks

    def resolve(
        self, state: EpisodeT, decisions: Mapping[str, DecisionT]
    ) -> tuple[EpisodeT, BaseModel]:
        tick = state.ticks
        if state.over:
            raise RulesError(f"tick {tick}: the episode is over ({state.cause})", tick=tick)
        if len(decisions) != 1 or PLAYER not in decisions:
            raise RulesError(
                f"tick {tick}: decisions for {sorted(decisions)}, need {PLAYER}", tick=tick
            )
        after, record = self.step(state, decisions[PLAYER])
        if after.ticks != tick + 1:
            raise RulesError(f"tick {tick}: a step must count its decision", tick=tick)
        return after, record

    def is_over(self, state: EpisodeT) -> bool:
        return state.over

    def end_by_deadline(self, state: EpisodeT) -> EpisodeT:
        if state.over:
            raise RulesError(
                f"tick {state.ticks}: the episode is already over ({state.cause})",
                tick=state.ticks,
            )
        return replace(state, cause="deadline")


class Seeded(Protocol):
    """A rules state that names the seed it was started from."""

    @property
    def seed(self) -> int:
        """The episode's seed."""


_SeededEpisode = TypeVar(
    "_SeededEpisode", bound=SoloEpisode[GameConfig, Seeded], default=SoloEpisode[GameConfig, Seeded]
)


def _seed(episode: SoloEpisode[GameConfig, Seeded]) -> int:
    return episode.rules.seed


class SoloSeedCodec(
    SeedBoardCodec[ConfigT, _SeededEpisode], Generic[ConfigT, _SeededEpisode, ObsT]
):
    """The codec of a one-seat game whose board is its seed and whose decisions are
    JSON objects (Relayroam, Hourloom): an episode starts again as its rules start one,
    from the seed its rules' state names. A game gives its rules and its record models."""

    def __init__(
        self, rules: SoloRules[ConfigT, _SeededEpisode, ObsT, JsonObject], records: SeedRecords
    ) -> None:
        self._bind(records, rules.config_type, rules.new_state, _seed)


__all__ = [
    "PLAYER",
    "SEAT_GROUPS",
    "Deadline",
    "EpisodeT",
    "Seeded",
    "SoloEpisode",
    "SoloRules",
    "SoloSeedCodec",
    "end_cause",
]
