"""The async episode runner: one concurrent batch of seat calls per tick.

Each tick it builds the observation of every active seat, asks all of them at once,
resolves the tick and appends the tick's line to the record. It knows the game only
through :class:`harness.game.Game`, so every game runs through this same loop.

The play budget (decision D1) runs on a monotonic clock from the first tick. When it
runs out before a tick's decisions are all in, that tick is not resolved: the episode
ends with reason ``deadline`` and the results of the last resolved tick (D2).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from pydantic import BaseModel

from harness import __version__
from harness.errors import HarnessError, PlayBudgetExhausted
from harness.game import Game
from harness.llm.timing import tick_wall_clock
from harness.records import RECORD_VERSION, DerivedFrom, RecordWriter
from harness.seats import Seat, SeatReply, SeatRequest
from harness.text import clip_reply

T = TypeVar("T")
TickCallback = Callable[[Any], None]


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
    """Run every awaitable at once; if one fails or we are cancelled, cancel the rest."""
    tasks = [asyncio.ensure_future(a) for a in awaitables]
    try:
        return list(await asyncio.gather(*tasks))
    finally:
        for task in tasks:
            task.cancel()


async def run_episode(
    game: Game[Any],
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
    written to ``writer``; ``on_tick`` receives each tick line as it is resolved.
    """
    specs = game.seats(state)
    missing = [spec.seat for spec in specs if spec.seat not in seats]
    if missing:
        raise HarnessError(f"no seat given for {', '.join(missing)}")
    adapter = game.record_adapter
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
            "config": _json(game.config_model(state)),
            "board": _json(game.board_model(state)),
            "seats": [
                {
                    "seat": spec.seat,
                    "role": spec.role,
                    "name": spec.name,
                    "agent": _json(seats[spec.seat].agent),
                }
                for spec in specs
            ],
            "derivedFrom": _json(derived_from) if derived_from is not None else None,
            "wallClock": {"startedAt": _now_iso()},
        }
    )
    roles = {spec.seat: spec for spec in specs}
    # The budget runs on the event loop's monotonic clock, the one asyncio's
    # timeouts use, so a seat can compare its own deadline against loop.time().
    loop = asyncio.get_running_loop()
    started = loop.time()
    deadline = started + game.play_budget_seconds(state)
    while not game.is_over(state):
        tick = game.tick(state)
        active = game.active_seats(state)
        requests = [
            SeatRequest(game, roles[seat], tick, game.observe(state, seat), deadline)
            for seat in active
        ]
        window = asyncio.timeout_at(deadline)
        asked = loop.time()
        try:
            async with window:
                replies: list[SeatReply] = await gather_all(
                    [seats[r.seat.seat].decide(r) for r in requests]
                )
        except (TimeoutError, PlayBudgetExhausted) as exc:
            if isinstance(exc, TimeoutError) and not window.expired():
                raise  # a seat's own error, not the budget
            # The budget ran out before every decision was in: this tick is not
            # resolved, and the episode ends at the last resolved one (D2).
            state = game.end_by_deadline(state)
            break
        answered = loop.time() - asked
        state, snapshot = game.resolve(
            state, {seat: reply.decision for seat, reply in zip(active, replies, strict=True)}
        )
        line = emit(
            {
                "type": "tick",
                "tick": tick,
                "seats": {
                    seat: _turn(game, reply) for seat, reply in zip(active, replies, strict=True)
                },
                "state": _json(snapshot),
                "wallClock": tick_wall_clock(
                    (call for reply in replies for call in reply.calls), answered
                ),
            }
        )
        if on_tick is not None:
            on_tick(line)
    results = game.results(state)
    emit(
        {
            "type": "end",
            "results": _json(results),
            "wallClock": {"finishedAt": _now_iso(), "playSeconds": round(loop.time() - started, 6)},
        }
    )
    return EpisodeOutcome(state, results, tuple(lines))


def _turn(game: Game[Any], reply: SeatReply) -> dict[str, Any]:
    clipped = clip_reply(reply.raw)
    return {
        "raw": clipped.text,
        "rawLength": clipped.length,
        "rawSha256": clipped.sha256,
        "rawClipped": clipped.clipped,
        "decision": _json(game.decision_model(reply.decision)),
        "source": reply.source,
        "replies": [_json(r) for r in reply.replies],
        "calls": [_json(c) for c in reply.calls],
        "wallClock": {"latencyMs": round(reply.latency_s * 1000, 3)},
    }


__all__ = ["EpisodeOutcome", "gather_all", "run_episode"]
