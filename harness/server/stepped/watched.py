"""A game as the runner takes it, its rules watched for the state of the tick being
decided."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from harness.models import JsonObject
from harness.protocol import (
    Baseline,
    GameEntry,
    GameResults,
    RecordCodec,
    Rules,
    SeatIO,
    SeatSpec,
)


class _WatchedRules(Rules[Any, Any, Any, Any]):
    """A game's rules, unchanged, that remember the last state the runner asked
    whether it is over (the state of the tick being decided, and at the end the last)."""

    def __init__(self, rules: Rules[Any, Any, Any, Any]) -> None:
        self._rules = rules
        self.config_type = rules.config_type
        self.state: Any = None

    def new_state(self, config: Any, seed: int) -> Any:
        return self._rules.new_state(config, seed)

    def config(self, state: Any) -> Any:
        return self._rules.config(state)

    def seats(self, state: Any) -> tuple[SeatSpec, ...]:
        return self._rules.seats(state)

    def active_seats(self, state: Any) -> tuple[str, ...]:
        return self._rules.active_seats(state)

    def observe(self, state: Any, seat: str) -> Any:
        return self._rules.observe(state, seat)

    def tick(self, state: Any) -> int:
        return self._rules.tick(state)

    def resolve(self, state: Any, decisions: Mapping[str, Any]) -> tuple[Any, BaseModel]:
        return self._rules.resolve(state, decisions)

    def resolve_dumped(self, state: Any, decisions: Mapping[str, Any]) -> tuple[Any, JsonObject]:
        return self._rules.resolve_dumped(state, decisions)

    def is_over(self, state: Any) -> bool:
        self.state = state
        return self._rules.is_over(state)

    def end_by_deadline(self, state: Any) -> Any:
        return self._rules.end_by_deadline(state)

    def results(self, state: Any) -> GameResults:
        return self._rules.results(state)

    def play_budget_seconds(self, state: Any) -> float:
        return self._rules.play_budget_seconds(state)


class WatchedGame:
    """The game as the runner takes it (:class:`harness.episode.Playable`), its rules
    watched."""

    def __init__(self, game: GameEntry) -> None:
        self._game = game
        self.watched = _WatchedRules(game.rules)

    @property
    def name(self) -> str:
        return self._game.name

    @property
    def rules(self) -> Rules[Any, Any, Any, Any]:
        return self.watched

    @property
    def seat_io(self) -> SeatIO[Any, Any]:
        return self._game.seat_io

    @property
    def codec(self) -> RecordCodec[Any, Any]:
        return self._game.codec

    @property
    def baselines(self) -> Mapping[str, Mapping[str, Baseline[Any]]]:
        return self._game.baselines

    def fallback(self, role: str) -> Baseline[Any]:
        return self._game.fallback(role)
