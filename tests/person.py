"""A person's episode for tests: a seat that answers as someone typing on a page would.

Its turns run through the one turn loop with a person's tags (decision L4), as the
page's do, so its record is a human episode's record: the agent ``human`` by the
player's name, turns ``human``, ``human_retry``, ``fallback_parse`` or, for a tick the
timer ran out on, ``fallback_timeout``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from harness.episode import run_episode
from harness.protocol import GameEntry
from harness.records import HUMAN_SOURCES, AgentInfo, RecordWriter
from harness.registry import get_game
from harness.seat_spec import HumanSeatConfig
from harness.seats import BaselineSeat, Seat, SeatReply, SeatRequest
from harness.turn import Asked, Retry, play_turn

#: What the person types on a tick: given the tick and whether it is the retry, the
#: reply text, or None for a tick left unanswered until the timer ran out.
Typing = Callable[[SeatRequest, bool], str | None]


class Person:
    """A seat played by a person who types what ``typing`` says (see the module)."""

    def __init__(self, spec: HumanSeatConfig, typing: Typing) -> None:
        self._agent = spec.agent()
        self._typing = typing

    @property
    def agent(self) -> AgentInfo:
        return self._agent

    async def decide(self, request: SeatRequest) -> SeatReply:
        async def ask(retry: Retry | None) -> Asked:
            text = self._typing(request, retry is not None)
            return Asked(failure="timeout") if text is None else Asked(text=text)

        return await play_turn(request, ask, HUMAN_SOURCES)


def like_the_baseline(request: SeatRequest, retried: bool) -> str | None:
    """A careful person: types what the role's baseline would (every few ticks, first
    something that does not parse, then the retry), and lets the timer run out once."""
    if request.tick == 2:
        return None
    if request.tick % 5 == 1 and not retried:
        return "north, please"
    return request.baseline()[0]


async def human_record(
    path: Path,
    *,
    seat: str = "keeper",
    name: str = "Ada",
    seed: int = 3,
    variant: str = "default",
    typing: Typing = like_the_baseline,
    game: GameEntry | None = None,
) -> Path:
    """Play episode ``seed`` with a person at ``seat`` (the baselines elsewhere) into
    the record ``path``."""
    game = game or get_game("lighthouse")
    config = game.rules.make_config(variant, {})
    state = game.rules.new_state(config, seed)
    seats: dict[str, Seat] = {
        spec.seat: BaselineSeat(game.baseline_names(spec.role)[0])
        for spec in game.rules.seats(state)
    }
    seats[seat] = Person(HumanSeatConfig(human=name), typing)
    with RecordWriter(path) as writer:
        await run_episode(
            game, state, seats, episode_id=f"{name}-s{seed}", seed=seed, variant=variant,
            writer=writer,
        )  # fmt: skip
    return path
