"""Predicting a WALLHUG runner: the very baseline, asked about the windows it will see.

WALLHUG is a pure function of a runner's observation (decision L1), and everything
in that observation but the runner's own notes is known to the keeper: the maze and
the tide give the window, the transcript gives the inbox and the standing order,
and PILOT's notes give the last six moves. So PILOT predicts a runner by building
the observation it will have and calling :func:`baselines.wallhug.wallhug_move`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from baselines.lighthouse.pilot.memory import History
from baselines.lighthouse.pilot.world import World
from baselines.lighthouse.wallhug import wallhug_move
from harness.games.lighthouse.board import Pos
from harness.games.lighthouse.observe import RunnerObservation
from harness.games.lighthouse.state import (
    MOVE_HISTORY,
    STANDING_ORDER_MAX_AGE,
    Move,
    MoveRecord,
)


@dataclass(frozen=True)
class Walker:
    """A runner as PILOT predicts it: where it stands and its last moves."""

    seat: int
    alias: str
    pos: Pos
    history: History
    alive: bool = True


def messages_for(sent: Mapping[int, str], tick: int) -> tuple[str | None, str | None]:
    """The inbox and the standing order of tick ``tick``, given messages by send tick.

    The inbox is the message sent at ``tick - 1``; the standing order the most recent
    one delivered 1 to 3 ticks before (sent at ``tick - 4`` .. ``tick - 2``).
    """
    inbox = sent.get(tick - 1)
    standing = None
    for when in range(tick - 2, tick - 2 - STANDING_ORDER_MAX_AGE, -1):
        if when in sent:
            standing = sent[when]
            break
    return inbox, standing


def predict_move(
    world: World, walker: Walker, sent: Mapping[int, str], tick: int, clock: int
) -> Move:
    """The move WALLHUG makes at ``tick`` (the clock at its start being ``clock``)."""
    inbox, standing = messages_for(sent, tick)
    obs = RunnerObservation(
        seat=walker.seat,
        alias=walker.alias,
        tick=tick,
        max_ticks=0,
        window=world.window(walker.pos, clock),
        keys_held=0,
        keys_collected=0,
        key_count=0,
        gate_open=world.gate_open,
        inbox=inbox,
        latest_message=None,
        latest_message_age=None,
        standing_order=standing,
        standing_order_age=None,
        notes="",
        moves=walker.history,
        notes_cap=0,
    )
    return wallhug_move(obs)


def advance(world: World, walker: Walker, move: Move, clock: int, clock_after: int) -> Walker:
    """``walker`` after making ``move`` in a tick that starts at ``clock`` (rules, steps 4, 10)."""
    dx, dy = move.delta
    target = (walker.pos[0] + dx, walker.pos[1] + dy)
    bumped = move is not Move.WAIT and not world.dry(target, clock)
    pos = walker.pos if bumped else target
    history = (*walker.history, MoveRecord(move, bumped))[-MOVE_HISTORY:]
    alive = pos[1] < world.tide.water_line(clock_after)
    return Walker(walker.seat, walker.alias, pos, history, alive)


__all__ = ["Walker", "advance", "messages_for", "predict_move"]
