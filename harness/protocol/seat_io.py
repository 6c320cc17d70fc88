"""The seat I/O part: what a seat needs to talk to a model, or to a scripted player.

A seat reads its observation as text, sends a reply schema to models that take one,
parses the reply into a decision and asks whether the rules would refuse it. A
scripted player (:data:`Baseline`) answers the same observation with the same kind of
text, so its reply goes through the same parser; a game's bots are wired to it in the
registry (:class:`~harness.protocol.entry.GameEntry.baselines`), never imported by it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Generic

from pydantic import BaseModel, ValidationError

from harness.json_reply import FailureKind, ParseFailure, decode_json_object
from harness.models import JsonObject
from harness.protocol.rules import DecisionT, ObsT

Baseline = Callable[[ObsT], str]
"""A scripted player: a pure function from a seat's observation to its reply text."""


@dataclass(frozen=True)
class DecidedBaseline(Generic[ObsT, DecisionT]):
    """A scripted player that gives its decision along with its reply text.

    ``play(observation)`` returns the reply text and the decision the game's
    :meth:`SeatIO.parse_reply` makes of that text (a game pins the two equal in its
    tests), so a seat playing it need not parse its own bot's text every tick. Called
    like any :data:`Baseline`, it gives the text.
    """

    play: Callable[[ObsT], tuple[str, DecisionT]]

    def __call__(self, observation: ObsT) -> str:
        """The reply text to ``observation``."""
        return self.play(observation)[0]


class SeatIO(ABC, Generic[ObsT, DecisionT]):
    """How a game's seats read and answer. Pure.

    A game writes :meth:`render_observation` and :meth:`parse_reply`; a game whose
    every parsed decision is legal keeps :meth:`refuse`, and one that has no better
    reply schema than "a JSON object" keeps :meth:`reply_schema`.
    """

    #: The layout of the text :meth:`render_observation` writes now, bumped when its
    #: order or wording changes. A record's prompted seats say which layout they were
    #: sent (agent detail ``promptLayout``; absent: 1), so that their prompts are made
    #: again as they were (:meth:`render_observation_as`) and their hashes still verify.
    prompt_layout: ClassVar[int] = 1

    @abstractmethod
    def render_observation(self, observation: ObsT) -> str:
        """The observation as the text a model reads."""

    def render_observation_as(self, observation: ObsT, layout: int) -> str:
        """The observation as a seat sent ``layout`` of the text read it (for an older
        record); a game that never changed its layout has only the one it writes now."""
        return self.render_observation(observation)

    @abstractmethod
    def parse_reply(self, observation: ObsT, text: str) -> DecisionT | ParseFailure:
        """A reply to ``observation`` as a decision, or a :class:`ParseFailure`."""

    def reply_schema(self, role: str) -> JsonObject:
        """The JSON Schema of the role's reply, for schema-constrained output: by
        default any JSON object."""
        return {"type": "object"}

    def refuse(self, observation: ObsT, decision: DecisionT) -> ParseFailure | None:
        """Why the rules would refuse a parsed decision (kind ``refused:<reason>``), or
        None (the default: every parsed decision is legal).

        A refusal is sent back to the model as its one retry hint, like a parse
        failure.
        """
        return None


def parse_json_action(text: str, shape: str) -> JsonObject | ParseFailure:
    """The one JSON object ``text`` holds (strict, optionally in one fence), or a
    :class:`ParseFailure` saying why there is none and what an action looks like
    (``shape``). A repeated key is refused: an action must be unambiguous."""
    return decode_json_object(text, expect=_expect(shape), reject_duplicate_keys=True)


def refusal(reason: str, message: str) -> ParseFailure:
    """The retry hint for a parsed decision the rules refused for ``reason``
    (:meth:`SeatIO.refuse`), ``message`` their words."""
    return ParseFailure(f"refused:{reason}", f"the rules refused that action ({reason}): {message}")


def _expect(shape: str) -> str:
    return f"reply with one JSON action: {shape}"


class JsonActionSeatIO(SeatIO[ObsT, JsonObject]):
    """The seat I/O of a game whose decisions are JSON objects in its own action
    grammar: a reply is one JSON object, strict, optionally in one fence, with no key
    repeated, and, when the game names its grammar as a model (:attr:`action_model`),
    one that model accepts. A game writes :meth:`render_observation`; it may say what
    an action looks like (:attr:`action_shape`, quoted in every failure), and a game
    whose rules refuse some actions the grammar allows writes :meth:`refuse`."""

    #: What a reply looks like, quoted in every failure message.
    action_shape: ClassVar[str] = "one JSON object"
    #: The action grammar, when the game gives it as a model: a reply it refuses is a
    #: parse failure, and its JSON Schema is the reply schema.
    action_model: ClassVar[type[BaseModel] | None] = None

    def parse_reply(self, observation: ObsT, text: str) -> JsonObject | ParseFailure:
        found = parse_json_action(text, self.action_shape)
        if isinstance(found, ParseFailure) or self.action_model is None:
            return found
        try:
            self.action_model.model_validate(found)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"]) or "the action"
            kind = FailureKind.MISSING_KEY if error["type"] == "missing" else FailureKind.WRONG_TYPE
            return ParseFailure(kind, f"{where}: {error['msg']}; {_expect(self.action_shape)}")
        return found

    def reply_schema(self, role: str) -> JsonObject:
        if self.action_model is None:
            return super().reply_schema(role)
        schema: JsonObject = self.action_model.model_json_schema(by_alias=True)
        return schema


__all__ = [
    "Baseline",
    "DecidedBaseline",
    "FailureKind",
    "JsonActionSeatIO",
    "ParseFailure",
    "SeatIO",
    "parse_json_action",
    "refusal",
]
