"""What happened during one action (decision H28): typed events, in the order they
happened, and their JSON objects (``{"type": ..., camelCase fields}``).

A lap turn reports your move or wait and what it took, each echo's move, wait, hold
or despawn in echo order, what the turn cost, then a completion or an empty
sandglass. Tiles are tile indices; echoes are numbered by their lap. Each kind is a
:class:`~harness.protocol.events.GameEvent`, whose ``type`` is its class name in
lowerCamel; :func:`event_json` is the shared one.
"""

from __future__ import annotations

from typing import Literal

from harness.games.hourloom.grid import Direction
from harness.protocol.events import GameEvent, event_json

#: Why an echo's recorded move became a hold: the first blocking check, in H20's order.
HoldCause = Literal["edge_of_chamber", "wall", "you", "echo", "gate_shut"]


class YouMoved(GameEvent):
    """You stepped ``dir`` from ``origin`` to ``tile``."""

    dir: Direction
    origin: int
    tile: int


class YouWaited(GameEvent):
    """You stayed on ``tile``."""

    tile: int


class SparkTaken(GameEvent):
    """You entered a spark and took it for the rest of the chamber."""

    tile: int
    points: int


class KeystoneTaken(GameEvent):
    """You entered this lap's keystone and took it; the exit now completes the lap."""

    tile: int
    lap: int
    points: int


class GateCrossed(GameEvent):
    """You stepped onto gate ``gate`` (A, B, ...) while echoes held its ``plates``."""

    gate: str
    tile: int
    plates: int
    points: int


class EchoMoved(GameEvent):
    """Echo ``echo`` replayed ``dir`` from ``origin`` to ``tile``."""

    echo: int
    dir: Direction
    origin: int
    tile: int


class EchoWaited(GameEvent):
    """Echo ``echo`` replayed a WAIT on ``tile``."""

    echo: int
    tile: int


class EchoHeld(GameEvent):
    """Echo ``echo``'s recorded move toward ``target`` was blocked, so it held on ``tile``.

    ``cause`` is the first check that blocked it; ``blocker`` names the echo in the
    way when ``cause`` is ``echo``. A hold caused by you is a jostle.
    """

    echo: int
    dir: Direction
    tile: int
    target: int | None
    cause: HoldCause
    blocker: int | None = None


class EchoGone(GameEvent):
    """Echo ``echo`` played its last recorded input and despawned from ``tile``."""

    echo: int
    tile: int


class TurnPaid(GameEvent):
    """Lap turn ``turn`` cost ``grains`` (1, plus a grain per jostle, plus 3 on lit flux),
    leaving ``sand``."""

    turn: int
    grains: int
    jostles: int
    flux: bool
    sand: int


class LapCompleted(GameEvent):
    """You entered the exit holding the keystone: lap ``lap`` is written into memory."""

    lap: int
    grains_left: int
    points: int


class LapStarted(GameEvent):
    """Lap ``lap`` began at once: you on ``alcove``, every echo on its own alcove."""

    lap: int
    alcove: int
    sand: int


class ChamberSealed(GameEvent):
    """The last lap is done: the chamber is sealed and DESCEND is legal."""

    chamber: int
    points: int


class SandglassEmpty(GameEvent):
    """The sandglass emptied during lap ``lap``: the run is over, every point kept."""

    lap: int
    score: int


class RunEnded(GameEvent):
    """END_RUN: the run is over, keeping ``score``."""

    score: int


class ChamberStarted(GameEvent):
    """DESCEND built chamber ``chamber``; lap 1 starts with ``sand`` grains."""

    chamber: int
    size: int
    laps: int
    multiplier_pct: int
    sand: int


Event = (
    YouMoved
    | YouWaited
    | SparkTaken
    | KeystoneTaken
    | GateCrossed
    | EchoMoved
    | EchoWaited
    | EchoHeld
    | EchoGone
    | TurnPaid
    | LapCompleted
    | LapStarted
    | ChamberSealed
    | SandglassEmpty
    | RunEnded
    | ChamberStarted
)


__all__ = [
    "ChamberSealed",
    "ChamberStarted",
    "EchoGone",
    "EchoHeld",
    "EchoMoved",
    "EchoWaited",
    "Event",
    "GateCrossed",
    "HoldCause",
    "KeystoneTaken",
    "LapCompleted",
    "LapStarted",
    "RunEnded",
    "SandglassEmpty",
    "SparkTaken",
    "TurnPaid",
    "YouMoved",
    "YouWaited",
    "event_json",
]
