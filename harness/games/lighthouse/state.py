"""Lighthouse's immutable game state and the decisions that drive it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Any, Generic, Self, TypeVar, overload

from harness.errors import ConfigError
from harness.games.lighthouse.board import Board, Pos
from harness.games.lighthouse.config import LighthouseConfig
from harness.games.lighthouse.tide import Tide

KEEPER_SEAT = 0
RUNNER_SEATS: tuple[int, int, int] = (1, 2, 3)
#: A runner sees its own last this-many moves (rules, "What each seat sees").
MOVE_HISTORY = 6
#: The keeper sees a transcript of its last this-many transmissions.
TRANSCRIPT_LENGTH = 5
#: A standing order is the most recent message of age 1 to this (decision T2).
STANDING_ORDER_MAX_AGE = 3

# The glyphs of what the seats see (decision O1), beside the board's wall.
WATER = "~"
GATE_SHUT = "E"
GATE_OPEN = "O"
KEY_GLYPH = "K"
FLOOR_GLYPH = "."
WALL_GLYPH = "#"


class Move(StrEnum):
    """A runner's move."""

    N = "N"
    E = "E"
    S = "S"
    W = "W"
    WAIT = "WAIT"

    @property
    def delta(self) -> Pos:
        """The (dx, dy) of this move; y grows downwards."""
        return _DELTAS[self]


_DELTAS: dict[Move, Pos] = {
    Move.N: (0, -1),
    Move.E: (1, 0),
    Move.S: (0, 1),
    Move.W: (-1, 0),
    Move.WAIT: (0, 0),
}


class RunnerStatus(StrEnum):
    """Where a runner stands in the game."""

    ACTIVE = "active"
    ESCAPED = "escaped"
    DROWNED = "drowned"


class Reason(StrEnum):
    """results.reason: why an episode ended (exactly three values)."""

    COMPLETE = "complete"
    TIMEUP = "timeup"
    DEADLINE = "deadline"


@dataclass(frozen=True)
class MoveRecord:
    """A move a runner actually made, and whether it bumped."""

    move: Move
    bumped: bool


@dataclass(frozen=True)
class KeeperDecision:
    """What the keeper decided this tick.

    ``transmit`` is None when the reply left it out; it is then inferred from the
    message (decision T1). ``notes`` None keeps the previous notes (decision R4).
    """

    transmit: bool | None
    message: str = ""
    notes: str | None = None


@dataclass(frozen=True)
class RunnerDecision:
    """What a runner decided this tick. ``notes`` None keeps its previous notes."""

    move: Move
    notes: str | None = None


@dataclass(frozen=True)
class Transmission:
    """A message the keeper sent at ``tick``; runners receive it at ``tick + 1``."""

    tick: int
    message: str

    @property
    def delivery_tick(self) -> int:
        """The tick whose inbox holds this message (decision T2)."""
        return self.tick + 1


@dataclass(frozen=True)
class Runner:
    """One runner's state. ``moves`` holds its last six moves, oldest first."""

    seat: int
    alias: str
    pos: Pos
    status: RunnerStatus = RunnerStatus.ACTIVE
    keys: tuple[Pos, ...] = ()
    moves: tuple[MoveRecord, ...] = ()
    notes: str = ""

    @property
    def active(self) -> bool:
        """Whether the runner is still on the board (neither escaped nor drowned)."""
        return self.status is RunnerStatus.ACTIVE

    @property
    def last_move(self) -> MoveRecord | None:
        """The runner's most recent move, if it has made one."""
        return self.moves[-1] if self.moves else None


_T = TypeVar("_T")


class _derived(Generic[_T]):
    """:func:`functools.cached_property` without its lock (which Python 3.12 dropped):
    a state's derived value is the same whoever works it out first, and the lock cost
    more than several of the values it guarded, on every new state of every tick."""

    def __init__(self, func: Callable[[Any], _T]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> Self: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> _T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> Self | _T:
        if instance is None:
            return self
        # kept in the instance's dict, which attribute lookup reads before this
        # (non-data) descriptor from then on
        value = instance.__dict__[self.name] = self.func(instance)
        return value


@dataclass(frozen=True)
class GameState:
    """The whole state of an episode at the start of tick ``tick``."""

    config: LighthouseConfig
    board: Board
    tick: int
    clock: int
    runners: tuple[Runner, Runner, Runner]
    collected: tuple[Pos, ...] = ()
    gate_opened_tick: int | None = None
    transmissions: tuple[Transmission, ...] = ()
    keeper_notes: str = ""
    reason: Reason | None = None

    # The derived values below are asked for many times a tick; a state never changes,
    # so each is worked out once (_derived writes past the frozen __setattr__, and
    # dataclasses.replace makes a new state with nothing cached).

    @_derived
    def tide(self) -> Tide:
        """The tide of this board under this config."""
        return Tide(self.config.tide_delay, self.config.tide_period, self.board.height)

    @_derived
    def water_line(self) -> int:
        """The y of the topmost flooded row now (``height`` when none is)."""
        return self.tide.water_line(self.clock)

    @_derived
    def ground(self) -> tuple[str, ...]:
        """The grid as the seats see it but for the runners: exit > wall > water > key >
        floor (decision O1). The keeper's grid draws the runners on it, and each
        runner's window is cut from it (the window draws no other runner)."""
        return _ground(self.board, self.water_line, self.uncollected_keys(), self.gate_open)

    @_derived
    def keeper_grid(self) -> tuple[str, ...]:
        """The keeper's grid (decision O1): runner > exit > wall > water > key > floor.

        Only active runners are drawn; two on one tile show the lower seat number.
        Made once per state: the keeper's observation and the record of the tick that
        made the state both show it.
        """
        rows = list(self.ground)
        for runner in reversed(self.runners):  # the lowest seat is drawn last, on top
            if runner.active:
                x, y = runner.pos
                row = rows[y]
                rows[y] = f"{row[:x]}{runner.seat}{row[x + 1 :]}"
        return tuple(rows)

    @_derived
    def walled_ground(self) -> tuple[str, ...]:
        """:attr:`ground` in a ring of wall: off-grid tiles read as wall (decision O2),
        so every 3 x 3 window is three slices of it."""
        return _walled(self.ground)

    @_derived
    def radio(self) -> tuple[Transmission | None, Transmission | None]:
        """What every runner hears at the start of this tick (decision T2): the latest
        delivered transmission, and the standing order (the latest of age 1 to
        :data:`STANDING_ORDER_MAX_AGE`). Worked out once for the three runners."""
        u = self.tick
        # delivery_tick <= u, i.e. tick < u, compared without the property
        delivered = [m for m in self.transmissions if m.tick < u]
        latest = delivered[-1] if delivered else None
        standing = next(
            (m for m in reversed(delivered) if 1 <= u - m.delivery_tick <= STANDING_ORDER_MAX_AGE),
            None,
        )
        return latest, standing

    @property
    def flood_clock(self) -> int:
        """floodClock of this episode."""
        return self.tide.flood_clock

    @property
    def gate_open(self) -> bool:
        """Whether the gate has opened (it then stays open)."""
        return self.gate_opened_tick is not None

    @property
    def over(self) -> bool:
        """Whether the episode has ended."""
        return self.reason is not None

    @property
    def active_seats(self) -> tuple[int, ...]:
        """The seats queried this tick: the keeper and every active runner (none once over)."""
        if self.over:
            return ()
        return (KEEPER_SEAT, *(r.seat for r in self.runners if r.active))

    def runner(self, seat: int) -> Runner:
        """The runner in ``seat`` (1, 2 or 3)."""
        return self.runners[seat - 1]

    def is_flooded(self, pos: Pos) -> bool:
        """Whether ``pos`` is under water now."""
        return pos[1] >= self.water_line

    def uncollected_keys(self) -> tuple[Pos, ...]:
        """Keys still on the board, row-major."""
        return tuple(k for k in self.board.keys if k not in self.collected)

    def previous_clock(self) -> int:
        """The clock at the start of the previous tick (0 at tick 0).

        Derived rather than stored: every tick adds 1, plus 1 when the keeper
        transmitted, and every transmission is kept with its tick.
        """
        if self.tick == 0:
            return 0
        spoke = bool(self.transmissions) and self.transmissions[-1].tick == self.tick - 1
        return self.clock - 1 - int(spoke)


# The ground changes only when the water rises, a key is picked up or the gate opens:
# most ticks' states share their predecessor's, so it is kept rather than painted anew.


@lru_cache(maxsize=256)
def _ground(
    board: Board, water_line: int, uncollected: tuple[Pos, ...], gate_open: bool
) -> tuple[str, ...]:
    # Painted in layers from the lowest precedence up, row by row.
    rows = [
        list(terrain if y < water_line else terrain.replace(FLOOR_GLYPH, WATER))
        for y, terrain in enumerate(board.terrain)
    ]
    for x, y in uncollected:
        if y < water_line:
            rows[y][x] = KEY_GLYPH
    ex, ey = board.exit
    rows[ey][ex] = GATE_OPEN if gate_open else GATE_SHUT
    return tuple("".join(row) for row in rows)


@lru_cache(maxsize=256)
def _walled(ground: tuple[str, ...]) -> tuple[str, ...]:
    edge = WALL_GLYPH * (len(ground[0]) + 2)
    return (edge, *(f"{WALL_GLYPH}{row}{WALL_GLYPH}" for row in ground), edge)


def new_game(config: LighthouseConfig, board: Board) -> GameState:
    """The state at tick 0: every runner on its start, clock 0, nothing sent."""
    if (board.width, board.height) != (config.width, config.height):
        raise ConfigError(
            f"board: is {board.width} x {board.height} but the config says "
            f"width {config.width}, height {config.height}"
        )
    if len(board.keys) != config.key_count:
        raise ConfigError(
            f"board: has {len(board.keys)} keys but the config says keyCount {config.key_count}"
        )
    a1, a2, a3 = config.aliases
    s1, s2, s3 = board.starts
    runners = (Runner(1, a1, s1), Runner(2, a2, s2), Runner(3, a3, s3))
    return GameState(config=config, board=board, tick=0, clock=0, runners=runners)


__all__ = [
    "KEEPER_SEAT",
    "MOVE_HISTORY",
    "RUNNER_SEATS",
    "STANDING_ORDER_MAX_AGE",
    "TRANSCRIPT_LENGTH",
    "GameState",
    "KeeperDecision",
    "Move",
    "MoveRecord",
    "Reason",
    "Runner",
    "RunnerDecision",
    "RunnerStatus",
    "Transmission",
    "new_game",
]
