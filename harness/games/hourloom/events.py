"""What happened during one action (decision H28): typed events, in the order they
happened, and their JSON objects (``{"type": ..., camelCase fields}``).

A lap turn reports your move or wait and what it took, each echo's move, wait, hold
or despawn in echo order, what the turn cost, then a completion or an empty
sandglass. Tiles are tile indices; echoes are numbered by their lap.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar, Literal

from harness.games.hourloom.grid import Direction
from harness.models import JsonObject

#: Why an echo's recorded move became a hold: the first blocking check, in H20's order.
HoldCause = Literal["edge_of_chamber", "wall", "you", "echo", "gate_shut"]


@dataclass(frozen=True)
class YouMoved:
    """You stepped ``dir`` from ``origin`` to ``tile``."""

    KIND: ClassVar[str] = "youMoved"
    dir: Direction
    origin: int
    tile: int


@dataclass(frozen=True)
class YouWaited:
    """You stayed on ``tile``."""

    KIND: ClassVar[str] = "youWaited"
    tile: int


@dataclass(frozen=True)
class SparkTaken:
    """You entered a spark and took it for the rest of the chamber."""

    KIND: ClassVar[str] = "sparkTaken"
    tile: int
    points: int


@dataclass(frozen=True)
class KeystoneTaken:
    """You entered this lap's keystone and took it; the exit now completes the lap."""

    KIND: ClassVar[str] = "keystoneTaken"
    tile: int
    lap: int
    points: int


@dataclass(frozen=True)
class GateCrossed:
    """You stepped onto gate ``gate`` (A, B, ...) while echoes held its ``plates``."""

    KIND: ClassVar[str] = "gateCrossed"
    gate: str
    tile: int
    plates: int
    points: int


@dataclass(frozen=True)
class EchoMoved:
    """Echo ``echo`` replayed ``dir`` from ``origin`` to ``tile``."""

    KIND: ClassVar[str] = "echoMoved"
    echo: int
    dir: Direction
    origin: int
    tile: int


@dataclass(frozen=True)
class EchoWaited:
    """Echo ``echo`` replayed a WAIT on ``tile``."""

    KIND: ClassVar[str] = "echoWaited"
    echo: int
    tile: int


@dataclass(frozen=True)
class EchoHeld:
    """Echo ``echo``'s recorded move toward ``target`` was blocked, so it held on ``tile``.

    ``cause`` is the first check that blocked it; ``blocker`` names the echo in the
    way when ``cause`` is ``echo``. A hold caused by you is a jostle.
    """

    KIND: ClassVar[str] = "echoHeld"
    echo: int
    dir: Direction
    tile: int
    target: int | None
    cause: HoldCause
    blocker: int | None = None


@dataclass(frozen=True)
class EchoGone:
    """Echo ``echo`` played its last recorded input and despawned from ``tile``."""

    KIND: ClassVar[str] = "echoGone"
    echo: int
    tile: int


@dataclass(frozen=True)
class TurnPaid:
    """Lap turn ``turn`` cost ``grains`` (1, plus a grain per jostle, plus 3 on lit flux),
    leaving ``sand``."""

    KIND: ClassVar[str] = "turnPaid"
    turn: int
    grains: int
    jostles: int
    flux: bool
    sand: int


@dataclass(frozen=True)
class LapCompleted:
    """You entered the exit holding the keystone: lap ``lap`` is written into memory."""

    KIND: ClassVar[str] = "lapCompleted"
    lap: int
    grains_left: int
    points: int


@dataclass(frozen=True)
class LapStarted:
    """Lap ``lap`` began at once: you on ``alcove``, every echo on its own alcove."""

    KIND: ClassVar[str] = "lapStarted"
    lap: int
    alcove: int
    sand: int


@dataclass(frozen=True)
class ChamberSealed:
    """The last lap is done: the chamber is sealed and DESCEND is legal."""

    KIND: ClassVar[str] = "chamberSealed"
    chamber: int
    points: int


@dataclass(frozen=True)
class SandglassEmpty:
    """The sandglass emptied during lap ``lap``: the run is over, every point kept."""

    KIND: ClassVar[str] = "sandglassEmpty"
    lap: int
    score: int


@dataclass(frozen=True)
class RunEnded:
    """END_RUN: the run is over, keeping ``score``."""

    KIND: ClassVar[str] = "runEnded"
    score: int


@dataclass(frozen=True)
class ChamberStarted:
    """DESCEND built chamber ``chamber``; lap 1 starts with ``sand`` grains."""

    KIND: ClassVar[str] = "chamberStarted"
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


def event_json(event: Event) -> JsonObject:
    """``event`` as a JSON object with its ``type`` and camelCase fields."""
    out: JsonObject = {"type": event.KIND}
    for f in fields(event):
        out[_camel(f.name)] = getattr(event, f.name)
    return out


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


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
