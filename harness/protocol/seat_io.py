"""The seat I/O part: what a seat needs to talk to a model, or to a scripted player.

A seat reads its observation as text, sends a reply schema to models that take one,
parses the reply into a decision and asks whether the rules would refuse it. A
scripted player (:data:`Baseline`) answers the same observation with the same kind of
text, so its reply goes through the same parser; a game's bots are wired to it in the
registry (:class:`~harness.protocol.entry.GameEntry.baselines`), never imported by it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from harness.json_reply import FailureKind, ParseFailure

Baseline = Callable[[Any], str]
"""A scripted player: a pure function from a seat's observation to its reply text."""


@dataclass(frozen=True)
class DecidedBaseline:
    """A scripted player that gives its decision along with its reply text.

    ``play(observation)`` returns the reply text and the decision the game's
    :meth:`SeatIO.parse_reply` makes of that text (a game pins the two equal in its
    tests), so a seat playing it need not parse its own bot's text every tick. Called
    like any :data:`Baseline`, it gives the text.
    """

    play: Callable[[Any], tuple[str, Any]]

    def __call__(self, observation: Any) -> str:
        """The reply text to ``observation``."""
        return self.play(observation)[0]


class SeatIO(Protocol):
    """How a game's seats read and answer. Pure."""

    def render_observation(self, observation: Any) -> str:
        """The observation as the text a model reads."""
        ...

    def reply_schema(self, role: str) -> dict[str, Any]:
        """The JSON Schema of the role's reply, for schema-constrained output."""
        ...

    def parse_reply(self, observation: Any, text: str) -> Any | ParseFailure:
        """A reply to ``observation`` as a decision, or a :class:`ParseFailure`."""
        ...

    def refuse(self, observation: Any, decision: Any) -> ParseFailure | None:
        """Why the rules would refuse a parsed decision (kind ``refused:<reason>``), or None.

        A refusal is sent back to the model as its one retry hint, like a parse
        failure; a game whose every parsed decision is legal returns None.
        """
        ...


__all__ = ["Baseline", "DecidedBaseline", "FailureKind", "ParseFailure", "SeatIO"]
