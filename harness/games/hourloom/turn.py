"""One lap turn, in decision H20's order; the real turn rules every caller shares.

The rules' ``step`` calls :func:`play_turn` once it has checked an action; the
generator replays its plan through the very same function (H17). Bodies are keyed
by tile: 0 is you, k is the echo of lap k. Nothing here draws from the stream.
"""

from __future__ import annotations

from typing import Literal

from harness.games.hourloom.events import (
    ChamberSealed,
    EchoGone,
    EchoHeld,
    EchoMoved,
    EchoWaited,
    Event,
    GateCrossed,
    HoldCause,
    KeystoneTaken,
    LapCompleted,
    LapStarted,
    SandglassEmpty,
    SparkTaken,
    TurnPaid,
    YouMoved,
    YouWaited,
)
from harness.games.hourloom.grid import Direction, Input, neighbour
from harness.games.hourloom.state import (
    FLUX_GRAINS,
    GRAIN_POINTS,
    JOSTLE_GRAINS,
    KEYSTONE_POINTS,
    LAP_POINTS,
    PLATE_POINTS,
    SEAL_POINTS,
    SPARK_POINTS,
    TURN_GRAINS,
    Chamber,
    Gate,
    Phase,
    State,
    award,
)

#: The body id of the player; echo k's id is k.
YOU = 0
#: Why a move is blocked, in the order the checks run (H27's blocked-move reasons).
Block = Literal["edge_of_chamber", "wall", "echo_in_the_way", "gate_shut"]
BLOCKS: tuple[Block, ...] = ("edge_of_chamber", "wall", "echo_in_the_way", "gate_shut")


def bodies_of(player: int | None, echoes: tuple[int | None, ...]) -> dict[int, int]:
    """Who stands where: tile -> body id (0 you, k the echo of lap k)."""
    bodies = {tile: k for k, tile in enumerate(echoes, 1) if tile is not None}
    if player is not None:
        bodies[player] = YOU
    return bodies


def gate_open(gate: Gate, mover: int, bodies: dict[int, int]) -> bool:
    """Whether ``gate`` is open for ``mover``: every plate carries another body."""
    return all(bodies.get(p, mover) != mover for p in gate.plates)


def gate_letter(chamber: Chamber, tile: int) -> str:
    """The letter of the gate on ``tile`` (A for the first gate, H30)."""
    return "ABCDEFGHIJ"[[g.tile for g in chamber.gates].index(tile)]


def move_block(
    chamber: Chamber, tile: int, direction: Direction, mover: int, bodies: dict[int, int]
) -> tuple[Block | None, int | None]:
    """Why ``mover`` on ``tile`` cannot step ``direction`` (None if it can), and the target.

    The checks run in the rules' order: edge, wall, a body, a gate shut for this mover.
    """
    target = neighbour(tile, direction, chamber.width, chamber.height)
    if target is None:
        return "edge_of_chamber", None
    if target in chamber.wall_set:
        return "wall", target
    if target in bodies:
        return "echo_in_the_way", target
    gate = chamber.gate_at.get(target)
    if gate is not None and not gate_open(gate, mover, bodies):
        return "gate_shut", target
    return None, target


def play_turn(state: State, direction: Direction | None) -> tuple[State, tuple[Event, ...]]:
    """Resolve one lap turn: your move (``direction``) or wait (None), in H20's order.

    The caller has checked that the move is legal. Returns the new state and events.
    """
    chamber = state.chamber
    pct = chamber.multiplier_pct
    turn = state.turn
    events: list[Event] = []
    score = state.score
    player = state.player
    sparks_left = state.sparks_left
    has_keystone = state.has_keystone

    # 1. You move first; pickups and the gate award land now.
    if direction is not None:
        dest = neighbour(player, direction, chamber.width, chamber.height)
        assert dest is not None  # the caller checked the move
        events.append(YouMoved(direction, player, dest))
        if dest in sparks_left:
            sparks_left = tuple(s for s in sparks_left if s != dest)
            points = award(SPARK_POINTS, pct)
            score += points
            events.append(SparkTaken(dest, points))
        if dest == state.keystone and not has_keystone:
            has_keystone = True
            points = award(KEYSTONE_POINTS, pct)
            score += points
            events.append(KeystoneTaken(dest, state.lap, points))
        gate = chamber.gate_at.get(dest)
        if gate is not None:
            # Open for you, so echoes hold every plate: one award for the step (H25).
            points = award(PLATE_POINTS * len(gate.plates), pct)
            score += points
            events.append(GateCrossed(gate_letter(chamber, dest), dest, len(gate.plates), points))
        player = dest
    else:
        events.append(YouWaited(player))

    # 2. Echoes 1, 2, ... each against where every body stands at that instant.
    echoes, jostles = _echoes_play(state, player, events)

    # 3. The turn's cost; 4. the input is recorded and the turn advances.
    flux = chamber.lit(player, turn)
    grains = TURN_GRAINS + JOSTLE_GRAINS * jostles + (FLUX_GRAINS if flux else 0)
    sand = max(0, state.sand - grains)
    events.append(TurnPaid(turn, grains, jostles, flux, sand))
    entry: Input = direction if direction is not None else "WAIT"
    log = (*state.log, entry)

    # 5. Completion first: a lap finished on the turn the sand reaches 0 still counts.
    if direction is not None and player == chamber.exit and has_keystone:
        points = award(LAP_POINTS + GRAIN_POINTS * sand, pct)
        events.append(LapCompleted(state.lap, sand, points))
        return _after_lap(state, score + points, sand, (*state.logs, log), sparks_left, events)
    phase: Phase = "lap"
    if sand == 0:
        phase = "over"
        events.append(SandglassEmpty(state.lap, score))
    after = State(
        seed=state.seed,
        rng_state=state.rng_state,
        chamber=chamber,
        phase=phase,
        lap=state.lap,
        turn=turn + 1,
        sand=sand,
        player=player,
        has_keystone=has_keystone,
        sparks_left=sparks_left,
        logs=state.logs,
        log=log,
        echoes=echoes,
        score=score,
        end_reason="sandglass_empty" if phase == "over" else None,
    )
    return after, tuple(events)


def _echoes_play(
    state: State, player: int, events: list[Event]
) -> tuple[tuple[int | None, ...], int]:
    """Every echo plays its log entry for this turn; then the finished ones despawn."""
    chamber = state.chamber
    turn = state.turn
    bodies = bodies_of(player, state.echoes)
    echoes = list(state.echoes)
    jostles = 0
    for k, tile in enumerate(state.echoes, 1):
        if tile is None:
            continue
        entry = state.logs[k - 1][turn]
        if entry == "WAIT":
            events.append(EchoWaited(k, tile))
            continue
        block, target = move_block(chamber, tile, entry, k, bodies)
        if block is None:
            assert target is not None
            del bodies[tile]
            bodies[target] = k
            echoes[k - 1] = target
            events.append(EchoMoved(k, entry, tile, target))
            continue
        cause: HoldCause
        blocker = None
        if block == "echo_in_the_way":
            assert target is not None
            blocker = bodies[target]
            if blocker == YOU:
                jostles += 1  # only a hold against your own body costs you (H21)
                cause, blocker = "you", None
            else:
                cause = "echo"
        else:
            cause = block
        events.append(EchoHeld(k, entry, tile, target, cause, blocker))
    for k, tile in enumerate(echoes, 1):
        if tile is not None and turn == len(state.logs[k - 1]) - 1:
            events.append(EchoGone(k, tile))
            echoes[k - 1] = None
    return tuple(echoes), jostles


def _after_lap(
    state: State,
    score: int,
    sand: int,
    logs: tuple[tuple[Input, ...], ...],
    sparks_left: tuple[int, ...],
    events: list[Event],
) -> tuple[State, tuple[Event, ...]]:
    """The next lap starts at once, or the chamber seals after the last (H24)."""
    chamber = state.chamber
    if state.lap < chamber.laps:
        lap = state.lap + 1
        after = lap_start(state, lap, logs, sparks_left, score)
        events.append(LapStarted(lap, after.player, after.sand))
        return after, tuple(events)
    points = award(SEAL_POINTS, chamber.multiplier_pct)
    events.append(ChamberSealed(chamber.number, points))
    after = State(
        seed=state.seed,
        rng_state=state.rng_state,
        chamber=chamber,
        phase="sealed",
        lap=state.lap,
        turn=0,
        sand=sand,
        player=chamber.exit,
        has_keystone=False,
        sparks_left=sparks_left,
        logs=logs,
        log=(),
        echoes=(None,) * len(logs),
        score=score + points,
        end_reason=None,
    )
    return after, tuple(events)


def lap_start(
    state: State,
    lap: int,
    logs: tuple[tuple[Input, ...], ...],
    sparks_left: tuple[int, ...],
    score: int,
) -> State:
    """Lap ``lap`` of ``state``'s chamber at turn 0: you and every echo on its alcove."""
    chamber = state.chamber
    return State(
        seed=state.seed,
        rng_state=state.rng_state,
        chamber=chamber,
        phase="lap",
        lap=lap,
        turn=0,
        sand=chamber.lap_budgets[lap - 1],
        player=chamber.alcoves[lap - 1],
        has_keystone=False,
        sparks_left=sparks_left,
        logs=logs,
        log=(),
        echoes=tuple(chamber.alcoves[: lap - 1]),
        score=score,
        end_reason=None,
    )


def chamber_start(seed: int, rng_state: int, chamber: Chamber, score: int) -> State:
    """Lap 1 of a fresh ``chamber``: no echoes, no logs, every spark in place."""
    return State(
        seed=seed,
        rng_state=rng_state,
        chamber=chamber,
        phase="lap",
        lap=1,
        turn=0,
        sand=chamber.lap_budgets[0],
        player=chamber.alcoves[0],
        has_keystone=False,
        sparks_left=chamber.sparks,
        logs=(),
        log=(),
        echoes=(),
        score=score,
        end_reason=None,
    )


__all__ = [
    "BLOCKS",
    "YOU",
    "Block",
    "bodies_of",
    "chamber_start",
    "gate_letter",
    "gate_open",
    "lap_start",
    "move_block",
    "play_turn",
]
