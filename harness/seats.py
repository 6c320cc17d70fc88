"""Seats: whoever answers for a seat each tick. A scripted baseline is the first kind.

Every seat answers one :class:`SeatRequest` with one :class:`SeatReply`: the raw
reply text, the decision parsed from it, and where the decision came from
(decision R7). The runner treats all seats alike.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from harness.errors import HarnessError
from harness.game import Baseline, GameEntry, ParseFailure, SeatIO, SeatSpec
from harness.records import AgentInfo, CallRecord, ModelReply, Source


@dataclass(frozen=True)
class SeatRequest:
    """One seat's question for one tick, with what a seat needs to answer it."""

    io: SeatIO
    """The game's seat I/O: the observation as text, the reply's schema and parser."""
    baselines: Mapping[str, Baseline]
    """The scripted players of the seat's role, by name; the first is the fallback."""
    seat: SeatSpec
    tick: int
    observation: Any
    deadline: float | None = None
    """``loop.time()`` by which the answer must be in (the episode's play budget)."""

    def baseline(self, name: str | None = None) -> tuple[str, Any]:
        """Baseline ``name``'s reply to the observation (default: the fallback), parsed.

        Returns the reply text and its decision. A baseline's reply that does not
        parse is a bug in the baseline, never a model's fault: :class:`HarnessError`.
        """
        if name is None:
            name = next(iter(self.baselines))
        bot = self.baselines.get(name)
        if bot is None:
            raise HarnessError(
                f"no {self.seat.role} baseline {name!r}; choose one of {list(self.baselines)}"
            )
        raw = bot(self.observation)
        decision = self.io.parse_reply(self.observation, raw)
        if isinstance(decision, ParseFailure):
            raise HarnessError(
                f"baseline {name} gave an unparseable reply {raw!r}: {decision.message}"
            )
        return raw, decision


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
        raw, decision = request.baseline(self._agent.name)
        return SeatReply(raw, decision, "baseline", time.perf_counter() - start)


def baseline_seats(game: GameEntry, state: Any) -> dict[str, Seat]:
    """Every seat of ``state`` played by its role's baseline."""
    return {
        spec.seat: BaselineSeat(game.baseline_names(spec.role)[0])
        for spec in game.rules.seats(state)
    }


def turn_source(replies: Sequence[ParseFailure | None], call_failure: str | None) -> Source | None:
    """Where a model seat's decision came from, given what happened in its turn (R5, R7).

    ``replies`` holds, for each model reply of the turn in order, why it could not be
    used (a parse failure or a refusal by the rules), or None for the reply that was;
    ``call_failure`` is the error kind of the call that got no reply (``"timeout"``,
    ...), or None. Returns None while the turn is still open: one reply failed and
    nothing else happened, so the retry with a hint comes next. Pure: the live seat
    and replay's re-parse both classify with it.
    """
    used = next((i for i, problem in enumerate(replies) if problem is None), None)
    if used is not None:  # the turn ends at its first usable reply
        return "llm" if used == 0 else "llm_retry"
    if call_failure is not None:
        return "fallback_timeout" if call_failure == "timeout" else "fallback_api"
    failures = [problem for problem in replies if problem is not None]  # all of them
    if len(failures) >= 2:  # the retry failed too
        refused = failures[1].kind.startswith("refused")
        return "fallback_refused" if refused else "fallback_parse"
    return None


__all__ = [
    "BaselineSeat",
    "Seat",
    "SeatReply",
    "SeatRequest",
    "baseline_seats",
    "turn_source",
]
