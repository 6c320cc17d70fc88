"""Seats: whoever answers for a seat each tick. A scripted baseline is the first kind.

Every seat answers one :class:`SeatRequest` with one :class:`SeatReply`: the raw
reply text, the decision parsed from it, and where the decision came from
(decision R7). The runner treats all seats alike.

The seats that get their reply as text (a model, your own Python agent) judge it the
same way (:func:`judge_reply`) and fall back to the same baseline
(:func:`fallback_reply`), so a reply means the same whoever wrote it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeGuard, runtime_checkable

from harness.errors import HarnessError
from harness.json_reply import FailureKind
from harness.protocol import Baseline, DecidedBaseline, GameEntry, ParseFailure, SeatIO, SeatSpec
from harness.records import (
    MODEL_SOURCES,
    AgentInfo,
    CallRecord,
    ModelReply,
    ParseErrorRecord,
    Source,
    TurnSources,
)
from harness.text import MAX_REPLY_BYTES, ClippedReply, clip_reply

#: Replies longer than this (in characters) are parsed in a worker thread. Parsing is
#: linear, but a hostile 1 MiB reply still takes tens of milliseconds of Python work,
#: which on the event loop would stall every other episode; in a thread the
#: interpreter hands the loop its turn every few milliseconds.
PARSE_OFF_LOOP_CHARS = 4096


@dataclass(frozen=True)
class SeatRequest:
    """One seat's question for one tick, with what a seat needs to answer it."""

    io: SeatIO
    """The game's seat I/O: the observation as text, the reply's schema and parser."""
    baselines: Mapping[str, Baseline]
    """The scripted players of the seat's role, by name; the first is the default."""
    seat: SeatSpec
    tick: int
    observation: Any
    deadline: float | None = None
    """``loop.time()`` by which the answer must be in (the episode's play budget)."""
    episode_id: str = ""
    """The episode asking, for seats that keep something per episode."""
    fallback: Baseline | None = None
    """Who answers when a reply cannot be used (:meth:`GameEntry.fallback`); None: the
    first of ``baselines``."""

    def baseline(self, name: str | None = None) -> tuple[str, Any]:
        """Baseline ``name``'s reply to the observation (default: the fallback), parsed.

        Returns the reply text and its decision. A baseline's reply that does not
        parse is a bug in the baseline, never a model's fault: :class:`HarnessError`.
        """
        bot: Baseline | None
        if name is None and self.fallback is not None:
            name, bot = "fallback", self.fallback
        else:
            if name is None:
                name = next(iter(self.baselines))
            bot = self.baselines.get(name)
        if bot is None:
            raise HarnessError(
                f"no {self.seat.role} baseline {name!r}; choose one of {list(self.baselines)}"
            )
        if isinstance(bot, DecidedBaseline):
            # its decision is what parse_reply makes of its text (the game's tests pin it)
            return bot.play(self.observation)
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
    model reply of the tick and every call's accounting, for the record. ``error``
    says why a Python agent's call failed when the seat fell back for it.
    """

    raw: str
    decision: Any
    source: Source
    latency_s: float = 0.0
    replies: tuple[ModelReply, ...] = ()
    calls: tuple[CallRecord, ...] = ()
    error: str | None = None


class Seat(Protocol):
    """Anything that can answer for a seat."""

    @property
    def agent(self) -> AgentInfo:
        """Who this seat is, for the record's header."""
        ...

    async def decide(self, request: SeatRequest) -> SeatReply:
        """Answer ``request``."""
        ...


class ScriptedSeat(Seat, Protocol):
    """A seat that answers at once, without waiting on anything: a scripted player.

    An episode whose every seat is scripted can be played without an event loop
    (:func:`~harness.episode.play_scripted`), e.g. in a worker process.
    """

    @property
    def scripted(self) -> bool:
        """True: this seat answers with :meth:`decide_now`."""
        ...

    def decide_now(self, request: SeatRequest) -> SeatReply:
        """Answer ``request`` at once (what :meth:`decide` answers)."""
        ...


def is_scripted(seat: object) -> TypeGuard[ScriptedSeat]:
    """Whether ``seat`` is scripted: a baseline, or a wrapper around one.

    A Python agent is not: it is the user's code, which may block or wait.
    """
    return getattr(seat, "scripted", False) is True


class BaselineSeat:
    """A seat played by the game's scripted baseline for the seat's role.

    Its reply is the text a model would give, and its decision the one the game's
    parser makes of that text (a :class:`~harness.protocol.DecidedBaseline` gives both at
    once), so a baseline and an LLM seat differ only in where the text comes from.
    """

    #: A baseline answers at once (:func:`is_scripted`).
    scripted = True

    def __init__(self, name: str) -> None:
        self._name = name
        self._agent = AgentInfo(kind="baseline", name=name)

    @property
    def agent(self) -> AgentInfo:
        return self._agent

    def decide_now(self, request: SeatRequest) -> SeatReply:
        """The baseline's answer to ``request``."""
        # fallback_reply inlined, and a bot that gives its decision asked directly: this
        # runs for every baseline seat every tick
        start = time.perf_counter()
        bot = request.baselines.get(self._name)
        if isinstance(bot, DecidedBaseline):
            raw, decision = bot.play(request.observation)
        else:
            raw, decision = request.baseline(self._name)
        return SeatReply(raw, decision, "baseline", time.perf_counter() - start)

    async def decide(self, request: SeatRequest) -> SeatReply:
        return self.decide_now(request)


class EpisodeScope:
    """One episode in play, as its seats see it: they may ask to be told when it ends.

    A Python agent's worker pool keeps a seat's worker for the seat for the whole
    episode, and frees it when the episode ends (:meth:`on_end`).
    """

    def __init__(self, episode_id: str) -> None:
        self.episode_id = episode_id
        self._on_end: list[Callable[[], None]] = []

    def on_end(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` when the episode ends, however it ends."""
        self._on_end.append(callback)

    def end(self) -> None:
        """The episode ended: every callback, once, in the order they were given."""
        callbacks, self._on_end = self._on_end, []
        for callback in callbacks:
            callback()


_EPISODE: contextvars.ContextVar[EpisodeScope | None] = contextvars.ContextVar(
    "harness_episode_scope", default=None
)


def episode_scope() -> EpisodeScope | None:
    """The episode the running code plays for (its seats' calls), or None outside one."""
    return _EPISODE.get()


@contextlib.contextmanager
def episode_running(episode_id: str) -> Iterator[EpisodeScope]:
    """The scope of one episode: what runs inside sees it (:func:`episode_scope`), and
    what asked to be told hears of its end when the block ends."""
    scope = EpisodeScope(episode_id)
    token = _EPISODE.set(scope)
    try:
        yield scope
    finally:
        _EPISODE.reset(token)
        scope.end()


@runtime_checkable
class ClosableSeat(Protocol):
    """A seat that holds something to close when the run is done (worker processes)."""

    async def aclose(self) -> None:
        """Release what the seat holds; the seat answers no more after it."""
        ...


async def close_seats(seats: Iterable[object]) -> None:
    """Close every seat of ``seats`` that holds something (:class:`ClosableSeat`), once."""
    done: set[int] = set()
    for seat in seats:
        if isinstance(seat, ClosableSeat) and id(seat) not in done:
            done.add(id(seat))
            await seat.aclose()


def fallback_reply(request: SeatRequest, name: str | None = None) -> tuple[str, Any]:
    """Baseline ``name``'s reply and decision (default: the role's fallback).

    A fallback answers the same observation and never touches the notes (R7).
    """
    return request.baseline(name)


def judge_reply(
    io: SeatIO, observation: Any, text: str
) -> tuple[Any, ParseFailure | None, ModelReply]:
    """Parse a reply: its decision, the problem to send back (if any), its record entry."""
    decision = io.parse_reply(observation, text)
    # A parsed decision the rules would refuse is sent back like a parse failure.
    problem = decision if isinstance(decision, ParseFailure) else io.refuse(observation, decision)
    return decision, problem, model_reply(text, problem)


async def judge_reply_async(
    io: SeatIO, observation: Any, text: str
) -> tuple[Any, ParseFailure | None, ModelReply]:
    """:func:`judge_reply`, in a worker thread for a reply over :data:`PARSE_OFF_LOOP_CHARS`."""
    if len(text) > PARSE_OFF_LOOP_CHARS:
        return await asyncio.to_thread(judge_reply, io, observation, text)
    return judge_reply(io, observation, text)


async def judge_clipped_async(
    io: SeatIO, observation: Any, clipped: ClippedReply
) -> tuple[Any, ParseFailure | None, ModelReply]:
    """Judge a reply known only in its record form: longer than 1 MiB, so cut there, with
    its whole length and sha256 (as the call cache keeps it).

    Such a reply fails as too long, and the failure must read as it read when the whole
    reply was judged (a retry hint quotes it). Every game refuses a reply over the cap
    before looking at what it says, so a stand-in of the same length (the start, then
    spaces) gets the same failure, message included; a game that said anything else
    gets the plain one. The record entry is the stored form, unchanged.
    """
    pad = clipped.length - len(clipped.text.encode("utf-8"))
    decision, _, _ = await judge_reply_async(io, observation, clipped.text + " " * max(pad, 0))
    if not (isinstance(decision, ParseFailure) and decision.kind == FailureKind.TOO_LONG):
        decision = ParseFailure(
            FailureKind.TOO_LONG,
            f"reply too long: {clipped.length} bytes, the limit is {MAX_REPLY_BYTES}",
        )
    reply = ModelReply(
        raw=clipped.text,
        raw_length=clipped.length,
        raw_sha256=clipped.sha256,
        raw_clipped=True,
        parse_error=ParseErrorRecord(kind=str(decision.kind), message=decision.message),
    )
    return decision, decision, reply


def model_reply(text: str, problem: ParseFailure | None) -> ModelReply:
    """A reply's record entry: the text (clipped at 1 MiB) and why it failed, if it did."""
    clipped = clip_reply(text)
    error = (
        ParseErrorRecord(kind=str(problem.kind), message=problem.message)
        if problem is not None
        else None
    )
    return ModelReply(
        raw=clipped.text,
        raw_length=clipped.length,
        raw_sha256=clipped.sha256,
        raw_clipped=clipped.clipped,
        parse_error=error,
    )


def baseline_seats(game: GameEntry, state: Any) -> dict[str, Seat]:
    """Every seat of ``state`` played by its role's baseline."""
    return {
        spec.seat: BaselineSeat(game.baseline_names(spec.role)[0])
        for spec in game.rules.seats(state)
    }


def turn_source(
    replies: Sequence[ParseFailure | None],
    call_failure: str | None,
    sources: TurnSources = MODEL_SOURCES,
    *,
    cut: bool = False,
) -> Source | None:
    """Where a seat's decision came from, given what happened in its turn (R5, R7).

    ``replies`` holds, for each reply of the turn in order, why it could not be
    used (a parse failure or a refusal by the rules), or None for the reply that was;
    ``call_failure`` is the error kind of the ask that got no reply (``"timeout"``,
    ...), or None; ``sources`` are the seat kind's tags (a model's by default);
    ``cut``: the last reply was cut by the length limit (its call's stop reason one of
    :data:`~harness.records.LENGTH_STOP_REASONS`), which makes a second failure to
    parse ``fallback_length`` rather than ``fallback_parse``.
    Returns None while the turn is still open: one reply failed and nothing else
    happened, so the retry with a hint comes next. Pure: the live seats and replay's
    re-parse all classify with it.
    """
    used = next((i for i, problem in enumerate(replies) if problem is None), None)
    if used is not None:  # the turn ends at its first usable reply
        return sources.first if used == 0 else sources.retry
    if call_failure is not None:
        return "fallback_timeout" if call_failure == "timeout" else sources.failed
    failures = [problem for problem in replies if problem is not None]  # all of them
    if len(failures) >= 2:  # the retry failed too
        refused = failures[1].kind.startswith("refused")
        if refused:
            return "fallback_refused"
        return "fallback_length" if cut else "fallback_parse"
    return None


__all__ = [
    "PARSE_OFF_LOOP_CHARS",
    "BaselineSeat",
    "ClosableSeat",
    "EpisodeScope",
    "ScriptedSeat",
    "Seat",
    "SeatReply",
    "SeatRequest",
    "baseline_seats",
    "close_seats",
    "episode_running",
    "episode_scope",
    "fallback_reply",
    "is_scripted",
    "judge_clipped_async",
    "judge_reply",
    "judge_reply_async",
    "model_reply",
    "turn_source",
]
