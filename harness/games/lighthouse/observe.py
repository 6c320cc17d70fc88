"""What each seat sees (rules, "What each seat sees"; decisions O1-O6).

One typed observation per seat is the single source of what that seat knows: the
prompt text and the scripted baselines both read it, so a runner cannot learn the
map, the tide or another runner's notes by construction (decision O6).
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.games.lighthouse.board import Pos
from harness.games.lighthouse.state import (
    TRANSCRIPT_LENGTH,
    GameState,
    Move,
    MoveRecord,
    Runner,
    RunnerStatus,
    Transmission,
)

SELF = "@"


@dataclass(frozen=True)
class RunnerView:
    """A runner as the keeper sees it."""

    seat: int
    alias: str
    pos: Pos
    status: RunnerStatus
    last_move: Move | None
    bumped: bool
    keys: tuple[Pos, ...]


@dataclass(frozen=True)
class KeeperObservation:
    """Everything the keeper sees at the start of a tick (nothing is hidden but notes)."""

    tick: int
    max_ticks: int
    clock: int
    width: int
    height: int
    grid: tuple[str, ...]
    runners: tuple[RunnerView, ...]
    exit: Pos
    keys: tuple[Pos, ...]
    uncollected_keys: tuple[Pos, ...]
    key_count: int
    keys_collected: int
    gate_open: bool
    gate_opened_tick: int | None
    tide_delay: int
    tide_period: int
    flood_clock: int
    tide_rows: int
    water_line: int
    previous_water_line: int
    ticks_until_flood_if_silent: int | None
    ticks_until_flood_if_transmit: int | None
    transcript: tuple[Transmission, ...]
    notes: str
    message_cap: int
    notes_cap: int
    terrain: tuple[str, ...] = ()
    """The board's walls (#) and floor (.), which never change (the first part of the
    prompt, see :func:`render_keeper`)."""


@dataclass(frozen=True)
class RunnerObservation:
    """Everything one runner sees at the start of a tick: no map, no clock, no tide."""

    seat: int
    alias: str
    tick: int
    max_ticks: int
    window: tuple[str, str, str]
    keys_held: int
    keys_collected: int
    key_count: int
    gate_open: bool
    inbox: str | None
    latest_message: str | None
    latest_message_age: int | None
    standing_order: str | None
    standing_order_age: int | None
    notes: str
    moves: tuple[MoveRecord, ...]
    notes_cap: int


def keeper_grid(state: GameState) -> tuple[str, ...]:
    """The keeper's grid (decision O1): runner > exit > wall > water > key > floor.

    Only active runners are drawn; two on one tile show the lower seat number. Made
    once per state (:attr:`GameState.keeper_grid`).
    """
    return state.keeper_grid


def runner_window(state: GameState, pos: Pos) -> tuple[str, str, str]:
    """The 3 x 3 window around ``pos`` (decision O2): north row first, '@' in the centre.

    Off-grid tiles are '#'; other runners are not drawn.
    """
    # cut from the state's ground in its ring of wall (made once for the three runners)
    x, y = pos
    north, middle, south = state.walled_ground[y : y + 3]
    return (north[x : x + 3], f"{middle[x]}{SELF}{middle[x + 2]}", south[x : x + 3])


def _runner_view(runner: Runner) -> RunnerView:
    last = runner.last_move
    return RunnerView(
        seat=runner.seat,
        alias=runner.alias,
        pos=runner.pos,
        status=runner.status,
        last_move=last.move if last else None,
        bumped=last.bumped if last else False,
        keys=runner.keys,
    )


def observe_keeper(state: GameState) -> KeeperObservation:
    """The keeper's observation of ``state``."""
    tide = state.tide
    config = state.config
    return KeeperObservation(
        tick=state.tick,
        max_ticks=config.max_ticks,
        clock=state.clock,
        width=state.board.width,
        height=state.board.height,
        grid=keeper_grid(state),
        runners=tuple([_runner_view(r) for r in state.runners]),
        exit=state.board.exit,
        keys=state.board.keys,
        uncollected_keys=state.uncollected_keys(),
        key_count=len(state.board.keys),
        keys_collected=len(state.collected),
        gate_open=state.gate_open,
        gate_opened_tick=state.gate_opened_tick,
        tide_delay=config.tide_delay,
        tide_period=config.tide_period,
        flood_clock=state.flood_clock,
        tide_rows=tide.rows(state.clock),
        water_line=state.water_line,
        previous_water_line=tide.water_line(state.previous_clock()),
        ticks_until_flood_if_silent=tide.ticks_until_next_flood(state.clock, transmit=False),
        ticks_until_flood_if_transmit=tide.ticks_until_next_flood(state.clock, transmit=True),
        transcript=state.transmissions[-TRANSCRIPT_LENGTH:],
        notes=state.keeper_notes,
        message_cap=config.message_cap,
        notes_cap=config.keeper_notes_cap,
        terrain=state.board.terrain,
    )


def observe_runner(state: GameState, seat: int) -> RunnerObservation:
    """Runner ``seat``'s observation of ``state`` (decisions O2, O4b, O5, T2)."""
    runner = state.runner(seat)
    u = state.tick
    latest, standing = state.radio
    inbox = latest.message if latest is not None and latest.delivery_tick == u else None
    return RunnerObservation(
        seat=seat,
        alias=runner.alias,
        tick=u,
        max_ticks=state.config.max_ticks,
        window=runner_window(state, runner.pos),
        keys_held=len(runner.keys),
        keys_collected=len(state.collected),
        key_count=len(state.board.keys),
        gate_open=state.gate_open,
        inbox=inbox,
        latest_message=latest.message if latest else None,
        latest_message_age=u - latest.delivery_tick if latest else None,
        standing_order=standing.message if standing else None,
        standing_order_age=u - standing.delivery_tick if standing else None,
        notes=runner.notes,
        moves=runner.moves,
        notes_cap=state.config.runner_notes_cap,
    )


def _move_text(record: MoveRecord) -> str:
    return f"{record.move.value}{' (bumped)' if record.bumped else ''}"


#: The layout of the text :func:`render_keeper` and :func:`render_runner` write: 2, what
#: does not change from tick to tick first; 1 (:func:`render_keeper_v1`,
#: :func:`render_runner_v1`), the tick first, is how records before it were prompted.
PROMPT_LAYOUT = 2
#: The keeper's map legend.
KEEPER_LEGEND = (
    "# wall, . floor, ~ water, K key, E exit with the gate shut, O exit open, 1/2/3 runners"
)
#: The runner's window legend.
RUNNER_LEGEND = "@ you, # wall, . floor, ~ water, K key, E exit with the gate shut, O exit open"


def _ruled(width: int, rows: tuple[str, ...]) -> list[str]:
    """``rows`` under a ruler of x (mod 10), each after its y."""
    header = "    " + "".join(str(x % 10) for x in range(width))
    return [header, *(f"{y:>3} {row}" for y, row in enumerate(rows))]


def _notes(notes: str) -> str:
    return f"Your notes: {notes if notes else '(empty)'}"


def _transmissions(obs: KeeperObservation) -> list[str]:
    """The keeper's last transmissions, or that it has made none."""
    if not obs.transcript:
        return ["You have not transmitted yet."]
    return ["Your last transmissions:", *(f"  tick {m.tick}: {m.message}" for m in obs.transcript)]


def _flood(obs: KeeperObservation) -> str:
    """When the next row floods, silent or transmitting."""
    if obs.ticks_until_flood_if_silent is None:
        return "Every row is flooded."
    return (
        f"Next row floods in {obs.ticks_until_flood_if_silent} ticks if you stay silent, "
        f"in {obs.ticks_until_flood_if_transmit} if you transmit now."
    )


def _moves(obs: RunnerObservation) -> str:
    if not obs.moves:
        return "You have not moved yet."
    return "Your last moves, oldest first: " + ", ".join(_move_text(m) for m in obs.moves)


def _inbox(obs: RunnerObservation) -> str:
    return f"Inbox: {obs.inbox}" if obs.inbox is not None else "Inbox: (silence)"


def render_keeper(obs: KeeperObservation) -> str:
    """The keeper's observation as the text a model reads (layout 2).

    What never changes comes first (the board, its walls and its exit, the legend),
    then what changes only now and then (keys, gate, transmissions, notes), then the
    tick's own news (tick, clock, tide, the map as it is, the runners), so that the
    text a tick shares with the one before is as long as it can be.
    """
    ex, ey = obs.exit
    walls = tuple(
        row if y != ey else f"{row[:ex]}E{row[ex + 1 :]}" for y, row in enumerate(obs.terrain)
    )
    lines = [
        f"The board: {obs.width} x {obs.height} tiles, y = 0 the top row; the exit at x={ex}, "
        f"y={ey}; {obs.key_count} keys; the whole board is under water at clock "
        f"{obs.flood_clock}; the game ends after tick {obs.max_ticks}.",
        "Its walls, which never change (# wall, . floor, E the exit):",
        *_ruled(obs.width, walls),
        f"Map legend: {KEEPER_LEGEND}.",
        "",
        f"Keys collected: {obs.keys_collected} of {obs.key_count}. "
        f"Gate: {'OPEN' if obs.gate_open else 'shut'}.",
    ]
    lines.extend(_transmissions(obs))
    lines.append(_notes(obs.notes))
    lines.append("")
    lines.append(f"Tick {obs.tick} of {obs.max_ticks}. Clock {obs.clock}.")
    lines.append(
        f"Tide: {obs.tide_rows} of {obs.height} rows flooded; water line at y={obs.water_line}."
    )
    lines.append(_flood(obs))
    lines.append("Map now:")
    lines.extend(_ruled(obs.width, obs.grid))
    lines.append("Runners:")
    lines.extend(_runner_line(r) for r in obs.runners)
    return "\n".join(lines)


def _runner_line(r: RunnerView) -> str:
    last = (
        "none yet"
        if r.last_move is None
        else f"{r.last_move.value}{' (bumped)' if r.bumped else ''}"
    )
    return (
        f"  {r.seat} {r.alias}: {r.status.value} at x={r.pos[0]}, y={r.pos[1]}; "
        f"last move {last}; carrying {len(r.keys)} key(s)"
    )


def render_runner(obs: RunnerObservation) -> str:
    """A runner's observation as the text a model reads (layout 2): who it is and the
    legend first, then the team's keys and its notes, then the tick's own news."""
    lines = [
        f"You are {obs.alias}. The game ends after tick {obs.max_ticks}.",
        f"Your window is drawn north at the top: {RUNNER_LEGEND}.",
        "",
        f"You carry {obs.keys_held} key(s); the team has {obs.keys_collected} of "
        f"{obs.key_count}. Gate: {'OPEN' if obs.gate_open else 'shut'}.",
        _notes(obs.notes),
        "",
        f"Tick {obs.tick} of {obs.max_ticks}.",
    ]
    lines.append(_moves(obs))
    if obs.standing_order is not None:
        lines.append(f"Standing order ({obs.standing_order_age} ticks old): {obs.standing_order}")
    if obs.latest_message is not None and obs.inbox is None:
        lines.append(
            f"Most recent message ({obs.latest_message_age} ticks old): {obs.latest_message}"
        )
    lines.append(_inbox(obs))
    lines.append("Your surroundings:")
    lines.extend(f"  {row}" for row in obs.window)
    return "\n".join(lines)


def render_keeper_v1(obs: KeeperObservation) -> str:
    """The keeper's observation in layout 1 (the tick first), as records before layout 2
    were prompted; kept to make their prompts again."""
    lines = [
        f"Tick {obs.tick} of {obs.max_ticks}. Clock {obs.clock}; the whole board is under "
        f"water at clock {obs.flood_clock}.",
        f"Keys collected: {obs.keys_collected} of {obs.key_count}. "
        f"Gate: {'OPEN' if obs.gate_open else 'shut'}.",
        f"Tide: {obs.tide_rows} of {obs.height} rows flooded; water line at y={obs.water_line}.",
    ]
    lines.append(_flood(obs))
    lines.append("")
    lines.append(
        "Map (y = 0 is the top row; # wall, . floor, ~ water, K key, "
        "E exit with the gate shut, O exit open, 1/2/3 runners):"
    )
    lines.extend(_ruled(obs.width, obs.grid))
    lines.append("")
    lines.append("Runners:")
    lines.extend(_runner_line(r) for r in obs.runners)
    lines.append("")
    lines.extend(_transmissions(obs))
    lines.append(_notes(obs.notes))
    return "\n".join(lines)


def render_runner_v1(obs: RunnerObservation) -> str:
    """A runner's observation in layout 1, as records before layout 2 were prompted."""
    lines = [
        f"You are {obs.alias}. Tick {obs.tick} of {obs.max_ticks}.",
        "Your surroundings (north at the top; @ you, # wall, . floor, ~ water, K key, "
        "E exit with the gate shut, O exit open):",
        *(f"  {row}" for row in obs.window),
        f"You carry {obs.keys_held} key(s); the team has {obs.keys_collected} of "
        f"{obs.key_count}. Gate: {'OPEN' if obs.gate_open else 'shut'}.",
    ]
    lines.append(_inbox(obs))
    if obs.latest_message is not None and obs.inbox is None:
        lines.append(
            f"Most recent message ({obs.latest_message_age} ticks old): {obs.latest_message}"
        )
    if obs.standing_order is not None:
        lines.append(f"Standing order ({obs.standing_order_age} ticks old): {obs.standing_order}")
    lines.append(_moves(obs))
    lines.append(_notes(obs.notes))
    return "\n".join(lines)


__all__ = [
    "KEEPER_LEGEND",
    "PROMPT_LAYOUT",
    "RUNNER_LEGEND",
    "KeeperObservation",
    "RunnerObservation",
    "RunnerView",
    "keeper_grid",
    "observe_keeper",
    "observe_runner",
    "render_keeper",
    "render_keeper_v1",
    "render_runner",
    "render_runner_v1",
    "runner_window",
]
