"""Seats: whoever answers for a seat each tick. A scripted baseline is the first kind.

Every seat answers one :class:`SeatRequest` with one :class:`SeatReply`: the raw
reply text, the decision parsed from it, and where the decision came from
(decision R7). The runner treats all seats alike.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Protocol

from harness.errors import HarnessError
from harness.game import Game, ParseFailure, SeatSpec
from harness.records import AgentInfo, CallRecord, ModelReply, Source


@dataclass(frozen=True)
class SeatRequest:
    """One seat's question for one tick."""

    game: Game[Any]
    seat: SeatSpec
    tick: int
    observation: Any
    deadline: float | None = None
    """``loop.time()`` by which the answer must be in (the episode's play budget)."""


@dataclass(frozen=True)
class SeatReply:
    """One seat's answer for one tick.

    ``raw`` is the text the decision was parsed from; an LLM seat also reports every
    model reply of the tick and every call's accounting, for the record.
    """

    raw: str
    decision: Any
    source: Source
    latency_s: float = 0.0
    replies: tuple[ModelReply, ...] = ()
    calls: tuple[CallRecord, ...] = ()


class Seat(Protocol):
    """Anything that can answer for a seat."""

    @property
    def agent(self) -> AgentInfo:
        """Who this seat is, for the record's header."""
        ...

    async def decide(self, request: SeatRequest) -> SeatReply:
        """Answer ``request``."""
        ...


class BaselineSeat:
    """A seat played by the game's scripted baseline for the seat's role.

    Its reply goes through the same parser as a model's, so a baseline and an LLM
    seat differ only in where the text comes from.
    """

    def __init__(self, name: str) -> None:
        self._agent = AgentInfo(kind="baseline", name=name)

    @property
    def agent(self) -> AgentInfo:
        return self._agent

    async def decide(self, request: SeatRequest) -> SeatReply:
        start = time.perf_counter()
        raw = request.game.baseline_reply(request.observation, self._agent.name)
        decision = request.game.parse_reply(request.observation, raw)
        if isinstance(decision, ParseFailure):  # a bug in the baseline, never a model's fault
            raise HarnessError(
                f"baseline {self._agent.name} gave an unparseable reply {raw!r}: {decision.message}"
            )
        return SeatReply(raw, decision, "baseline", time.perf_counter() - start)


def baseline_seats(game: Game[Any], state: Any) -> dict[str, Seat]:
    """Every seat of ``state`` played by its role's baseline."""
    return {spec.seat: BaselineSeat(game.baselines(spec.role)[0]) for spec in game.seats(state)}


__all__ = ["BaselineSeat", "Seat", "SeatReply", "SeatRequest", "baseline_seats"]
