"""The episode runner: one concurrent batch of seat calls per tick.

Each tick it builds the observation of every active seat, asks all of them at once,
resolves the tick and appends the tick's line to the record. It knows a game only
through the parts it takes (:class:`Playable`: the rules, the seat I/O and the record
codec, never the view), so every game runs through this same loop.

Two loops share one line builder (:class:`_Episode`), so both write the same record:
:func:`run_episode` asks its seats on the event loop; :func:`play_scripted`, for an
episode whose every seat is scripted (:func:`~harness.seats.is_scripted`), asks them
in a plain loop, with no event loop at all (a worker process calls it).

Lines are built as plain JSON objects in the form they are written, and written as
they are: validation happens where a record is read back (resuming, auditing,
replaying). A tournament's results line is made from the same objects
(:func:`harness.summary.summarize`); :attr:`EpisodeOutcome.lines` validates them on
first use, for callers that want models.

The play budget (decision D1) runs on a monotonic clock from the first tick. When it
runs out before a tick's decisions are all in, that tick is not resolved: the episode
ends with reason ``deadline`` and the results of the last resolved tick (D2).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property, lru_cache
from typing import Protocol, TypedDict, TypeVar

from pydantic import BaseModel, JsonValue, TypeAdapter
from typing_extensions import Unpack

from harness import __version__
from harness.errors import HarnessError, PlayBudgetExhausted, RecordError, RulesError
from harness.models import JsonObject
from harness.protocol import (
    Baseline,
    GameResults,
    RecordCodec,
    RecordLine,
    Rules,
    SeatIO,
    SeatSpec,
)
from harness.records import (
    RECORD_VERSION,
    DerivedFrom,
    EndLine,
    EndWallClock,
    HeaderLine,
    HeaderWallClock,
    RecordWriter,
    SeatInfo,
    SeatTurn,
    TickLine,
    TurnWallClock,
    keys,
)
from harness.seats import ScriptedSeat, Seat, SeatReply, SeatRequest, episode_running, is_scripted
from harness.text import ClippedReply, clip_reply
from harness.timing import tick_wall_clock

T = TypeVar("T")
#: Called with each tick line as it is resolved; an async callback is awaited (so it
#: may pause the episode, as ``play --delay`` does, without blocking the loop).
TickCallback = Callable[[RecordLine], Awaitable[None] | None]

# Every key of the lines the runner writes, as the record models name them (each key
# is spelt once, by its model). The ones every tick writes are bound to plain names.
_HEADER = keys(HeaderLine)
_SEAT = keys(SeatInfo)
_END = keys(EndLine)
_TICK = keys(TickLine)
_TYPE, _TICK_NUMBER, _SEATS, _STATE, _WALL_CLOCK = (
    _TICK.type,
    _TICK.tick,
    _TICK.seats,
    _TICK.state,
    _TICK.wall_clock,
)
_TURN = keys(SeatTurn)
_RAW, _RAW_LENGTH, _RAW_SHA256, _RAW_CLIPPED = (
    _TURN.raw,
    _TURN.raw_length,
    _TURN.raw_sha256,
    _TURN.raw_clipped,
)
_DECISION, _SOURCE, _REPLIES, _CALLS, _ERROR = (
    _TURN.decision,
    _TURN.source,
    _TURN.replies,
    _TURN.calls,
    _TURN.error,
)
_LATENCY_MS = keys(TurnWallClock).latency_ms


class Playable(Protocol):
    """What the runner takes of a game (a :class:`~harness.protocol.GameEntry` is one)."""

    @property
    def name(self) -> str:
        """The game's name, for the record's header."""
        ...

    @property
    def rules(self) -> Rules:
        """To advance the state."""
        ...

    @property
    def seat_io(self) -> SeatIO:
        """For the seats: how they read and answer."""
        ...

    @property
    def codec(self) -> RecordCodec:
        """To write the record."""
        ...

    @property
    def baselines(self) -> Mapping[str, Mapping[str, Baseline]]:
        """For the seats: each role's scripted players, the first its default."""
        ...

    def fallback(self, role: str) -> Baseline:
        """For the seats: who answers for ``role`` when a reply cannot be used."""
        ...


@dataclass(frozen=True)
class EpisodeOutcome:
    """What an episode produced: its final state, results and every record line.

    ``docs`` holds the lines as written (JSON objects); :attr:`lines` holds them
    validated by the game's record models, made on first use.
    """

    state: object
    results: GameResults
    docs: tuple[JsonObject, ...]
    adapter: TypeAdapter[RecordLine] = field(repr=False, compare=False)

    @cached_property
    def lines(self) -> tuple[RecordLine, ...]:
        """Every line as the game's record models parse it."""
        return tuple(self.adapter.validate_python(doc) for doc in self.docs)


def _json(model: BaseModel) -> JsonObject:
    return model.model_dump(mode="json", by_alias=True)


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


async def gather_all(awaitables: Sequence[Awaitable[T]]) -> list[T]:
    """Run every awaitable at once; if one fails or we are cancelled, cancel the rest.

    The harness's one way to wait on many tasks: a tick's seat calls, a tournament's
    episodes.
    """
    tasks = [asyncio.ensure_future(a) for a in awaitables]
    try:
        return list(await asyncio.gather(*tasks))
    finally:
        for task in tasks:
            task.cancel()


class _Episode:
    """One episode's record being made: its seats, its lines, the writer they go to.

    Both loops ask it for the tick's requests and hand it the replies; it resolves the
    tick and builds every line, so the two write the same bytes.
    """

    def __init__(
        self,
        game: Playable,
        state: object,
        seats: Mapping[str, Seat],
        episode_id: str,
        *,
        seed: int | None = None,
        variant: str | None = None,
        writer: RecordWriter | None = None,
        derived_from: DerivedFrom | None = None,
    ) -> None:
        # an EpisodeOptions passed on as keywords: no option is read by a spelt key
        self.game = game
        self.rules = game.rules
        self.codec = game.codec
        self.episode_id = episode_id
        self.writer = writer
        self.seed, self.variant, self.derived_from = seed, variant, derived_from
        self.docs: list[JsonObject] = []
        self.specs = self.rules.seats(state)
        missing = [spec.seat for spec in self.specs if spec.seat not in seats]
        if missing:
            raise HarnessError(f"no seat given for {', '.join(missing)}")
        self.seats = seats
        self.roles: dict[str, SeatSpec] = {spec.seat: spec for spec in self.specs}
        # what a seat's request holds every tick of the episode, made at its first
        self._asks: dict[str, tuple[SeatSpec, Mapping[str, Baseline], Baseline]] = {}
        # Every seat scripted: each answers at once (decide_now), no task per seat.
        scripted: dict[str, ScriptedSeat] = {}
        for seat_id, player in seats.items():
            if is_scripted(player):
                scripted[seat_id] = player
        self.scripted = scripted if len(scripted) == len(seats) else None
        # The tick state and decisions in the form they are written (a game may make
        # them without its models; the record tests pin the two forms equal).
        self._resolve_dumped = self.rules.resolve_dumped
        self._decision_dumped = self.codec.decision_dumped

    def emit(self, doc: JsonObject) -> JsonObject:
        self.docs.append(doc)
        if self.writer is not None:
            self.writer.write_doc(doc)
        return doc

    def header(self, state: object) -> None:
        """Write the header line: the episode's id, seats and options, and ``state``'s
        config and board."""
        seed, variant, derived_from = self.seed, self.variant, self.derived_from
        h, seat = _HEADER, _SEAT
        # each seat's agent asked once: a wrapped seat builds it anew on every ask
        agents = {spec.seat: self.seats[spec.seat].agent for spec in self.specs}
        # each prompt text once, however many seats read it (a keeper and three
        # runners share a retry hint, the runners everything)
        prompts: JsonObject = {
            sha: text for agent in agents.values() for sha, text in agent.prompt_texts.items()
        }
        seats: list[JsonValue] = [
            {
                seat.seat: spec.seat,
                seat.role: spec.role,
                seat.name: spec.name,
                seat.agent: _json(agents[spec.seat]),
            }
            for spec in self.specs
        ]
        doc: JsonObject = {
            h.type: "header",
            h.record_version: RECORD_VERSION,
            h.harness_version: __version__,
            h.game: self.game.name,
            h.episode_id: self.episode_id,
            h.seed: seed,
            h.variant: variant,
            h.config: _json(self.rules.config(state)),
            h.board: _json(self.codec.board_model(state)),
            h.seats: seats,
        }
        if prompts:  # absent when empty
            doc[h.prompts] = prompts
        doc[h.derived_from] = _json(derived_from) if derived_from is not None else None
        doc[h.wall_clock] = {keys(HeaderWallClock).started_at: _now_iso()}
        self.emit(doc)

    def requests(self, state: object, tick: int, deadline: float) -> list[SeatRequest]:
        """The tick's question to each active seat."""
        rules, io, asks, episode_id = self.rules, self.game.seat_io, self._asks, self.episode_id
        requests = []
        for seat in rules.active_seats(state):
            ask = asks.get(seat)
            if ask is None:
                ask = asks[seat] = self._ask(seat)
            spec, baselines, fallback = ask
            observation = rules.observe(state, seat)
            requests.append(
                SeatRequest(io, baselines, spec, tick, observation, deadline, episode_id, fallback)
            )
        return requests

    def _ask(self, seat: str) -> tuple[SeatSpec, Mapping[str, Baseline], Baseline]:
        """What every request to ``seat`` holds: its spec, its role's baselines and
        fallback (looked up once an episode, not once a tick)."""
        spec = self.roles[seat]
        return spec, self.game.baselines[spec.role], self.game.fallback(spec.role)

    def resolve(
        self,
        state: object,
        tick: int,
        requests: Sequence[SeatRequest],
        replies: Sequence[SeatReply],
        answered: float,
    ) -> object:
        """Resolve the tick with ``replies`` and write its line; the next state."""
        active = [r.seat.seat for r in requests]
        answers = list(zip(active, replies, strict=True))
        decisions = {seat: reply.decision for seat, reply in answers}
        state, snapshot = self._resolve_dumped(state, decisions)
        self.emit(
            {
                _TYPE: "tick",
                _TICK_NUMBER: tick,
                _SEATS: {seat: self._turn(reply) for seat, reply in answers},
                _STATE: snapshot,
                _WALL_CLOCK: tick_wall_clock((reply.calls for reply in replies), answered),
            }
        )
        return state

    def _turn(self, reply: SeatReply) -> JsonObject:
        clipped = _clip(reply.raw)
        turn: JsonObject = {
            _RAW: clipped.text,
            _RAW_LENGTH: clipped.length,
            _RAW_SHA256: clipped.sha256,
            _RAW_CLIPPED: clipped.clipped,
            _DECISION: self._decision_dumped(reply.decision),
            _SOURCE: reply.source,
            # a scripted seat has neither: no comprehension to build for an empty list
            _REPLIES: [_json(r) for r in reply.replies] if reply.replies else [],
            _CALLS: [_json(c) for c in reply.calls] if reply.calls else [],
        }
        if reply.error is not None:  # absent when None, before wallClock
            turn[_ERROR] = reply.error
        turn[_WALL_CLOCK] = {_LATENCY_MS: round(float(reply.latency_s) * 1000, 3)}
        return turn

    def end(self, state: object, play_seconds: float) -> EpisodeOutcome:
        """Write the closing line; the episode's outcome."""
        results = self.rules.results(state)
        end, clock = _END, keys(EndWallClock)
        self.emit(
            {
                end.type: "end",
                end.results: _json(results),
                end.wall_clock: {
                    clock.finished_at: _now_iso(),
                    clock.play_seconds: round(float(play_seconds), 6),
                },
            }
        )
        return EpisodeOutcome(state, results, tuple(self.docs), self.codec.record_adapter)


#: Replies at most this long (in characters) have their clipped form and hash kept: a
#: scripted seat gives the same few replies over and over.
_SHORT_REPLY = 256


@lru_cache(maxsize=4096)
def _clip_short(raw: str) -> ClippedReply:
    return clip_reply(raw)


def _clip(raw: str) -> ClippedReply:
    return _clip_short(raw) if len(raw) <= _SHORT_REPLY else clip_reply(raw)


class EpisodeOptions(TypedDict, total=False):
    """What :func:`run_episode` and :func:`play_scripted` take, by keyword, beyond the
    game, the state, the seats and the episode id (each None when not given)."""

    seed: int | None
    """The seed the header names."""
    variant: str | None
    """The variant the header names."""
    writer: RecordWriter | None
    """Where each record line is written as it is made."""
    derived_from: DerivedFrom | None
    """The episode this one was derived from, which the header names."""


async def run_episode(
    game: Playable,
    state: object,
    seats: Mapping[str, Seat],
    *,
    episode_id: str,
    on_tick: TickCallback | None = None,
    **options: Unpack[EpisodeOptions],
) -> EpisodeOutcome:
    """Play ``state`` to the end with ``seats`` (one per seat id of the game).

    Every record line is written to ``writer`` (one of ``options``, the
    :class:`EpisodeOptions`) as it is made; ``on_tick`` receives each tick line,
    validated, as it is resolved (and is awaited when it is async). A
    :class:`RulesError` or :class:`RecordError` raised during a tick carries its tick.
    """
    with episode_running(episode_id):  # a seat may hold something for the episode
        episode = _Episode(game, state, seats, episode_id, **options)
        return await _run_episode(episode, state, on_tick)


async def _run_episode(
    episode: _Episode, state: object, on_tick: TickCallback | None
) -> EpisodeOutcome:
    game = episode.game
    episode.header(state)
    rules = game.rules
    # The budget runs on the event loop's monotonic clock, the one asyncio's
    # timeouts use, so a seat can compare its own deadline against loop.time().
    loop = asyncio.get_running_loop()
    started = loop.time()
    deadline = started + rules.play_budget_seconds(state)
    while not rules.is_over(state):
        tick = rules.tick(state)
        try:
            next_state = await _play_tick(episode, state, tick, deadline)
        except (RecordError, RulesError) as exc:
            if exc.tick is None:
                exc.tick = tick
            raise
        if next_state is None:
            # the play budget ran out: the episode ended at the last resolved tick
            state = rules.end_by_deadline(state)
            break
        state = next_state
        if on_tick is not None:
            shown = on_tick(game.codec.record_adapter.validate_python(episode.docs[-1]))
            if shown is not None:
                await shown
    return episode.end(state, loop.time() - started)


async def _play_tick(episode: _Episode, state: object, tick: int, deadline: float) -> object | None:
    """Ask the tick's seats at once and resolve it: the next state.

    When the budget runs out before every decision is in, the tick is not resolved
    and there is no next state (D2).
    """
    requests = episode.requests(state, tick, deadline)
    loop = asyncio.get_running_loop()
    asked = loop.time()
    if episode.scripted is not None:
        # scripted seats answer at once, as in play_scripted: no task per seat
        scripted = episode.scripted
        answers = [scripted[r.seat.seat].decide_now(r) for r in requests]
        answered = loop.time()
        if answered >= deadline:
            return None
        state = episode.resolve(state, tick, requests, answers, answered - asked)
        await asyncio.sleep(0)  # the other episodes on the loop get their turn each tick
        return state
    seats = episode.seats
    window = asyncio.timeout_at(deadline)
    try:
        async with window:
            replies: list[SeatReply] = await gather_all(
                [seats[r.seat.seat].decide(r) for r in requests]
            )
    except (TimeoutError, PlayBudgetExhausted) as exc:
        if isinstance(exc, TimeoutError) and not window.expired():
            raise  # a seat's own error, not the budget
        return None
    return episode.resolve(state, tick, requests, replies, loop.time() - asked)


def play_scripted(
    game: Playable,
    state: object,
    seats: Mapping[str, Seat],
    *,
    episode_id: str,
    **options: Unpack[EpisodeOptions],
) -> EpisodeOutcome:
    """:func:`run_episode` for seats that are all scripted, without an event loop.

    Each seat answers at once (:meth:`~harness.seats.ScriptedSeat.decide_now`); the
    record is the one :func:`run_episode` writes, but for its ``wallClock`` fields.
    The play budget runs on :func:`time.monotonic`, the clock of asyncio's loop: a
    tick whose answers come in past it is not resolved (D2). A seat that is not
    scripted is a :class:`HarnessError`.
    """
    unscripted = [seat_id for seat_id, player in seats.items() if not is_scripted(player)]
    if unscripted:
        raise HarnessError(f"not scripted: {', '.join(unscripted)}; play them with run_episode")
    episode = _Episode(game, state, seats, episode_id, **options)
    scripted = episode.scripted
    assert scripted is not None  # every seat is scripted
    episode.header(state)
    rules = game.rules
    started = time.monotonic()
    deadline = started + rules.play_budget_seconds(state)
    while not rules.is_over(state):
        tick = rules.tick(state)
        try:
            requests = episode.requests(state, tick, deadline)
            asked = time.monotonic()
            replies = [scripted[r.seat.seat].decide_now(r) for r in requests]
            answered = time.monotonic()
            if answered >= deadline:
                state = rules.end_by_deadline(state)
                break
            state = episode.resolve(state, tick, requests, replies, answered - asked)
        except (RecordError, RulesError) as exc:
            if exc.tick is None:
                exc.tick = tick
            raise
    return episode.end(state, time.monotonic() - started)


__all__ = [
    "EpisodeOptions",
    "EpisodeOutcome",
    "Playable",
    "gather_all",
    "play_scripted",
    "run_episode",
]
