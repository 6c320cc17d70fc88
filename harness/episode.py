"""The async episode runner: one concurrent batch of seat calls per tick.

Each tick it builds the observation of every active seat, asks all of them at once,
resolves the tick and appends the tick's line to the record. It knows a game only
through the parts it takes (:class:`Playable`: the rules, the seat I/O and the record
codec, never the view), so every game runs through this same loop.

The play budget (decision D1) runs on a monotonic clock from the first tick. When it
runs out before a tick's decisions are all in, that tick is not resolved: the episode
ends with reason ``deadline`` and the results of the last resolved tick (D2).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from harness import __version__
from harness.errors import HarnessError, PlayBudgetExhausted, RecordError, RulesError
from harness.game import Baseline, RecordCodec, Rules, SeatIO, SeatSpec
from harness.records import RECORD_VERSION, DerivedFrom, RecordWriter
from harness.seats import Seat, SeatReply, SeatRequest
from harness.text import clip_reply
from harness.timing import tick_wall_clock

T = TypeVar("T")
#: Called with each tick line as it is resolved; an async callback is awaited (so it
#: may pause the episode, as ``play --delay`` does, without blocking the loop).
TickCallback = Callable[[Any], Awaitable[None] | None]


class Playable(Protocol):
    """What the runner takes of a game (a :class:`~harness.game.GameEntry` is one)."""

    @property
    def name(self) -> str:
        """The game's name, for the record's header."""
        ...

    @property
    def rules(self) -> Rules[Any]:
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
    """What an episode produced: its final state, results and every record line."""

    state: Any
    results: BaseModel
    lines: tuple[BaseModel, ...]


def _json(model: BaseModel) -> Any:
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


async def run_episode(
    game: Playable,
    state: Any,
    seats: Mapping[str, Seat],
    *,
    episode_id: str,
    seed: int | None = None,
    variant: str | None = None,
    writer: RecordWriter | None = None,
    on_tick: TickCallback | None = None,
    derived_from: DerivedFrom | None = None,
) -> EpisodeOutcome:
    """Play ``state`` to the end with ``seats`` (one per seat id of the game).

    Every record line is validated against the game's record models before it is
    written to ``writer``; ``on_tick`` receives each tick line as it is resolved (and
    is awaited when it is async). A :class:`RulesError` or :class:`RecordError` raised
    during a tick carries its tick.
    """
    rules, codec = game.rules, game.codec
    specs = rules.seats(state)
    missing = [spec.seat for spec in specs if spec.seat not in seats]
    if missing:
        raise HarnessError(f"no seat given for {', '.join(missing)}")
    adapter = codec.record_adapter
    lines: list[BaseModel] = []

    def emit(doc: dict[str, Any]) -> BaseModel:
        line: BaseModel = adapter.validate_python(doc)
        lines.append(line)
        if writer is not None:
            writer.write(line)
        return line

    emit(
        {
            "type": "header",
            "recordVersion": RECORD_VERSION,
            "harnessVersion": __version__,
            "game": game.name,
            "episodeId": episode_id,
            "seed": seed,
            "variant": variant,
            "config": _json(codec.config_model(state)),
            "board": _json(codec.board_model(state)),
            "seats": [
                {
                    "seat": spec.seat,
                    "role": spec.role,
                    "name": spec.name,
                    "agent": _json(seats[spec.seat].agent),
                }
                for spec in specs
            ],
            # each prompt text once, however many seats read it (a keeper and three
            # runners share a retry hint, the runners everything)
            "prompts": {
                sha: text
                for spec in specs
                for sha, text in seats[spec.seat].agent.prompt_texts.items()
            },
            "derivedFrom": _json(derived_from) if derived_from is not None else None,
            "wallClock": {"startedAt": _now_iso()},
        }
    )
    roles = {spec.seat: spec for spec in specs}
    # The budget runs on the event loop's monotonic clock, the one asyncio's
    # timeouts use, so a seat can compare its own deadline against loop.time().
    loop = asyncio.get_running_loop()
    started = loop.time()
    deadline = started + rules.play_budget_seconds(state)
    while not rules.is_over(state):
        tick = rules.tick(state)
        try:
            state, line = await _play_tick(game, state, seats, roles, tick, deadline, episode_id)
        except (RecordError, RulesError) as exc:
            if exc.tick is None:
                exc.tick = tick
            raise
        if line is None:
            break  # the play budget ran out: the episode ended at the last resolved tick
        tick_line = emit(line)
        if on_tick is not None:
            shown = on_tick(tick_line)
            if shown is not None:
                await shown
    results = rules.results(state)
    emit(
        {
            "type": "end",
            "results": _json(results),
            "wallClock": {"finishedAt": _now_iso(), "playSeconds": round(loop.time() - started, 6)},
        }
    )
    return EpisodeOutcome(state, results, tuple(lines))


async def _play_tick(
    game: Playable,
    state: Any,
    seats: Mapping[str, Seat],
    roles: Mapping[str, SeatSpec],
    tick: int,
    deadline: float,
    episode_id: str,
) -> tuple[Any, dict[str, Any] | None]:
    """Ask the tick's seats at once and resolve it: the next state and the tick's line.

    When the budget runs out before every decision is in, the tick is not resolved:
    the state ends by deadline and there is no line (D2).
    """
    rules = game.rules
    active = rules.active_seats(state)
    requests = [
        SeatRequest(
            game.seat_io,
            game.baselines[roles[seat].role],
            roles[seat],
            tick,
            rules.observe(state, seat),
            deadline,
            episode_id,
            game.fallback(roles[seat].role),
        )
        for seat in active
    ]
    window = asyncio.timeout_at(deadline)
    loop = asyncio.get_running_loop()
    asked = loop.time()
    try:
        async with window:
            replies: list[SeatReply] = await gather_all(
                [seats[r.seat.seat].decide(r) for r in requests]
            )
    except (TimeoutError, PlayBudgetExhausted) as exc:
        if isinstance(exc, TimeoutError) and not window.expired():
            raise  # a seat's own error, not the budget
        return rules.end_by_deadline(state), None
    answered = loop.time() - asked
    state, snapshot = rules.resolve(
        state, {seat: reply.decision for seat, reply in zip(active, replies, strict=True)}
    )
    line = {
        "type": "tick",
        "tick": tick,
        "seats": {
            seat: _turn(game.codec, reply) for seat, reply in zip(active, replies, strict=True)
        },
        "state": _json(snapshot),
        "wallClock": tick_wall_clock((call for reply in replies for call in reply.calls), answered),
    }
    return state, line


def _turn(codec: RecordCodec, reply: SeatReply) -> dict[str, Any]:
    clipped = clip_reply(reply.raw)
    return {
        "raw": clipped.text,
        "rawLength": clipped.length,
        "rawSha256": clipped.sha256,
        "rawClipped": clipped.clipped,
        "decision": _json(codec.decision_model(reply.decision)),
        "source": reply.source,
        "replies": [_json(r) for r in reply.replies],
        "calls": [_json(c) for c in reply.calls],
        **({"error": reply.error} if reply.error is not None else {}),
        "wallClock": {"latencyMs": round(reply.latency_s * 1000, 3)},
    }


__all__ = ["EpisodeOutcome", "Playable", "gather_all", "run_episode"]
