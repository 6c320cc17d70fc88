"""What a game's own ``step(state, action)`` returns: its outcome and the state after it.

A game whose rules take one JSON action at a time (Relayroam, Hourloom) answers every
action, valid or refused, with a :class:`StepResult`: the HTTP APIs, the harness's
rules part and the tests read the same fields of either game. A game subclasses it
over its own state, events and refusal reasons, adding properties for what its rules
publish beside the score.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Protocol

from typing_extensions import TypeVar

from harness.protocol.events import GameEvent


class Scored(Protocol):
    """A rules state that carries the score so far."""

    @property
    def score(self) -> int:
        """The score so far."""
        ...


#: An action in a game's JSON grammar, each field a string: ``{"type": "wait"}``.
Action = dict[str, str]

StateT = TypeVar("StateT", bound=Scored)
EventT = TypeVar("EventT", bound=GameEvent)
ReasonT = TypeVar("ReasonT", bound=str)


@dataclass(frozen=True)
class StepResult(Generic[StateT, EventT, ReasonT]):
    """What one call of a game's ``step`` returns.

    On a refusal ``ok`` is false, ``reason`` says why, ``events`` is empty and
    ``state`` is the very state passed in. Otherwise ``events`` are what the action
    caused, in the rules' order. ``legal_actions`` are those of ``state``.
    """

    ok: bool
    reason: ReasonT | None
    message: str
    events: tuple[EventT, ...]
    legal_actions: tuple[Action, ...]
    state: StateT

    @property
    def score(self) -> int:
        """The score after the action."""
        return self.state.score


__all__ = ["Action", "Scored", "StepResult"]
