"""Lighthouse's view part: terminal text, and frames for the viewers (board, windows, radio)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from harness.games.lighthouse.config import LighthouseConfig
from harness.games.lighthouse.game import KEEPER, runner_seat_id
from harness.games.lighthouse.observe import keeper_grid, runner_window
from harness.games.lighthouse.record import (
    BoardModel,
    LighthouseResults,
    LighthouseTickState,
    RunnerStateModel,
)
from harness.games.lighthouse.report import CLOCK, ESCAPED, FLOOD_CLOCK, end_name
from harness.games.lighthouse.state import GameState, Runner, RunnerStatus, new_game
from harness.models import JsonObject, StrictModel
from harness.protocol import (
    AnyTick,
    Frame,
    FrameSeat,
    GameResults,
    RecordLine,
    View,
    expect,
    header_of,
    ticks_of,
)
from harness.protocol.view import frame_seat, source_tag
from harness.records import PLAIN_SOURCES
from harness.text import cut_short


class RunnerView(StrictModel):
    """A runner in a frame: where it stands, since when it is out, what it just did."""

    seat: int
    alias: str
    pos: tuple[int, int]
    status: str
    since: int | None
    keys: int
    move: str | None
    bumped: bool


class WindowView(StrictModel):
    """A runner's 3 x 3 window as it saw it at ``tick``; no rows once it was not asked."""

    seat: int
    alias: str
    tick: int
    rows: list[str] | None


class LighthouseFrame(Frame):
    """A position of the viewer: the board, the tide, the radio and the windows."""

    grid: list[str]
    transmission: str | None
    runners: list[RunnerView]
    windows: list[WindowView]
    terrain: list[str]
    clock: int
    water_line: int
    water: str
    flood_clock: int
    next_flood: int | None
    gate_open: bool
    keys: str

    def text(self) -> str:
        """The frame as terminal text: board, windows, radio, and every seat's turn."""
        out = [
            f"== {self.label}   clock {self.clock}/{self.flood_clock}   "
            f"{water_text(self.water_line, len(self.grid))}   keys {self.keys}   "
            f"gate {'OPEN' if self.gate_open else 'shut'}"
        ]
        message = self.transmission
        out.append(f"radio: {message!r}" if message is not None else "radio: (silent)")
        board = numbered(self.grid)
        side = [f"windows seen at tick {self.windows[0].tick}:"]
        for window in self.windows:
            if window.rows is not None:
                side.append(f"{window.alias}:")
                side.extend(f"  {row}" for row in window.rows)
        for i in range(max(len(board), len(side))):
            left = board[i] if i < len(board) else " " * len(board[0])
            right = side[i] if i < len(side) else ""
            out.append(f"  {left}    {right}")
        for r in self.runners:
            if r.move is not None:
                bump = " (bump)" if r.bumped else ""
                out.append(f"  {r.alias}: {r.move}{bump} -> {_at(r.pos)} {r.status}")
        for seat in self.seats:
            raw = cut_short(seat.raw.replace("\n", " "), 100)
            out.append(f"  [{seat.source}] {seat.name}: {raw}")
            if seat.notes:
                out.append(f"      notes: {seat.notes}")
        return "\n".join(out)


def _state_after(start: GameState, tick: int, s: LighthouseTickState) -> GameState:
    """The parts of the state after tick ``tick`` (``s``) that the board and windows show."""
    runners = tuple(
        Runner(
            seat=r.seat,
            alias=r.alias,
            pos=(r.pos[0], r.pos[1]),
            status=r.status,
            keys=tuple((k[0], k[1]) for k in r.keys),
            notes=r.notes,
        )
        for r in s.runners
    )
    r1, r2, r3 = runners
    return GameState(
        config=start.config,
        board=start.board,
        tick=tick + 1,
        clock=s.clock,
        runners=(r1, r2, r3),
        collected=tuple((k[0], k[1]) for k in s.collected),
        gate_opened_tick=s.gate_opened_tick,
        keeper_notes=s.keeper_notes,
        reason=s.reason,
    )


def _terrain(state: GameState) -> list[str]:
    """The keeper's grid without runners: what lies under each of them."""
    r1, r2, r3 = (replace(r, status=RunnerStatus.ESCAPED) for r in state.runners)
    return list(keeper_grid(replace(state, runners=(r1, r2, r3))))


def _windows(state: GameState, tick: int) -> list[WindowView]:
    """Each runner's 3 x 3 window as it saw it at the start of ``tick`` (decision O2),
    from ``state`` (the state then); no rows for a runner that was no longer asked."""
    return [
        WindowView(
            seat=r.seat,
            alias=r.alias,
            tick=tick,
            rows=list(runner_window(state, r.pos)) if r.active else None,
        )
        for r in state.runners
    ]


def _frame(
    state: GameState,
    *,
    label: str,
    tick: int | None,
    grid: list[str],
    transmission: str | None,
    runners: list[RunnerView],
    windows: list[WindowView],
    seats: list[FrameSeat],
) -> LighthouseFrame:
    """A frame of ``state`` (the start, or the state after a tick) with what the tick adds."""
    return LighthouseFrame(
        label=label,
        tick=tick,
        seats=seats,
        grid=grid,
        transmission=transmission,
        runners=runners,
        windows=windows,
        terrain=_terrain(state),
        clock=state.clock,
        water_line=state.water_line,
        water=water_text(state.water_line, state.board.height),
        flood_clock=state.flood_clock,
        next_flood=state.tide.next_flood_clock(state.clock),
        gate_open=state.gate_open,
        keys=f"{len(state.collected)}/{len(state.board.keys)}",
    )


def _runner_view(
    runner: Runner | RunnerStateModel,
    *,
    since: int | None = None,
    move: str | None = None,
    bumped: bool = False,
) -> RunnerView:
    """A runner of a frame: at the start (the rules' runner, which has not moved), or
    after a tick (the record's runner, with ``since``, its move and whether it bumped)."""
    return RunnerView(
        seat=runner.seat,
        alias=runner.alias,
        pos=runner.pos,
        status=runner.status.value,
        since=since,
        keys=len(runner.keys),
        move=move,
        bumped=bumped,
    )


def _tick_runner(runner: RunnerStateModel, since: int | None) -> RunnerView:
    move = runner.move.value if runner.move is not None else None
    return _runner_view(runner, since=since, move=move, bumped=bool(runner.bumped))


def view_frames(lines: Sequence[RecordLine]) -> list[LighthouseFrame]:
    """The start, then one frame per resolved tick.

    A tick's frame shows the board after the tick, and beside it each runner's window
    as it saw it when it decided (at the tick's start): the window its reply answered.
    """
    header = header_of(lines)
    board = expect(BoardModel, header.board).to_board()
    start = new_game(expect(LighthouseConfig, header.config), board)
    aliases = {s.seat: s.name for s in header.seats}
    since: dict[int, int] = {}  # seat -> the tick it escaped or drowned
    frames = [
        _frame(
            start,
            label="start",
            tick=None,
            grid=list(keeper_grid(start)),
            transmission=None,
            runners=[_runner_view(r) for r in start.runners],
            windows=_windows(start, 0),
            seats=[],
        )
    ]
    before = start
    for line in ticks_of(lines):
        s = expect(LighthouseTickState, line.state)
        after = _state_after(start, line.tick, s)
        for r in s.runners:
            if r.status != RunnerStatus.ACTIVE:
                since.setdefault(r.seat, line.tick)
        frames.append(
            _frame(
                after,
                label=f"tick {line.tick}",
                tick=line.tick,
                grid=list(s.grid),
                transmission=s.transmission,
                runners=[_tick_runner(r, since.get(r.seat)) for r in s.runners],
                windows=_windows(before, line.tick),
                seats=[
                    frame_seat(seat, turn, name=aliases.get(seat), notes=_notes(s, seat))
                    for seat, turn in line.seats.items()
                ],
            )
        )
        before = after
    return frames


def _notes(s: LighthouseTickState, seat: str) -> str:
    if seat == KEEPER:
        return s.keeper_notes
    number = int(seat.removeprefix("runner"))
    return next(r.notes for r in s.runners if r.seat == number)


def water_text(water_line: int, height: int) -> str:
    """The tide in the rows the board shows: ``water: rows y=6-8 flooded``.

    The rules' water line is the topmost flooded row, ``height`` when none is: said
    as a row number it would name a row the board does not have (y=9 of rows 0-8).
    """
    if water_line >= height:
        return "water: no row flooded"
    if water_line <= 0:
        return f"water: every row flooded (y=0-{height - 1})"
    if water_line == height - 1:
        return f"water: row y={water_line} flooded"
    return f"water: rows y={water_line}-{height - 1} flooded"


def numbered(rows: Sequence[str]) -> list[str]:
    """Board rows under a line of x digits, each after its y: the numbers that
    positions (x=5, y=3), the water and the keeper's map all use."""
    width = max((len(row) for row in rows), default=0)
    return ["    " + "".join(str(x % 10) for x in range(width))] + [
        f"{y:>3} {row}" for y, row in enumerate(rows)
    ]


def _at(pos: Sequence[int]) -> str:
    return f"x={pos[0]}, y={pos[1]}"


def render_tick(line: AnyTick) -> str:
    """A tick line as text for the terminal: the radio, each move, the keeper's view."""
    s = expect(LighthouseTickState, line.state)
    lines = [f"tick {line.tick}  clock {s.clock}  {water_text(s.water_line, len(s.grid))}"]
    keeper = line.seats.get(KEEPER)
    if s.transmission is not None:
        lines.append(f"  keeper: {s.transmission!r}")
    else:
        lines.append("  keeper: (silent)")
    if keeper is not None:
        lines[-1] += source_tag(keeper)
    for r in s.runners:
        if r.move is None:
            continue
        what = f"{r.move.value:<4}{' bump' if r.bumped else '     '}"
        extra = []
        if r.picked_key is not None:
            extra.append(f"took the key at {_at(r.picked_key)}")
        if r.status.value != "active":
            extra.append(r.status.value.upper())
        turn = line.seats.get(runner_seat_id(r.seat))
        if turn is not None and turn.source not in PLAIN_SOURCES:
            extra.append(f"[{turn.source}]")
        lines.append(f"  {r.alias:<10} {what} -> {_at(r.pos)} {' '.join(extra)}".rstrip())
    if s.gate_open and s.gate_opened_tick == line.tick:
        lines.append("  the gate opens")
    lines.extend("  " + row for row in numbered(s.grid))
    return "\n".join(lines)


class LighthouseView(View[GameState]):
    """Lighthouse's drawings. Stateless; only :meth:`viewer_script` reads a file."""

    def render_start(self, state: GameState) -> str:
        return "\n".join("    " + row for row in numbered(state.board.to_ascii()))

    def render_board(self, state: GameState, seed: int, variant: str) -> str:
        board = state.board
        return "\n".join(
            [
                f"Lighthouse board, seed {seed}, variant {variant}: {board.width} x "
                f"{board.height}, rows y=0 (top) to y={board.height - 1}; the whole board "
                f"floods at clock {state.config.flood_clock}",
                *numbered(board.to_ascii()),
                "# wall  . floor  E exit  K key  1 2 3 runner starts",
            ]
        )

    def board_json(self, state: GameState) -> JsonObject:
        board = state.board
        return {
            "config": state.config.to_json(),
            "rows": list(board.to_ascii()),
            "exit": list(board.exit),
            "starts": [list(p) for p in board.starts],
            "keys": [list(p) for p in board.keys],
        }

    def render_tick(self, line: AnyTick) -> str:
        return render_tick(line)

    def render_results(self, results: GameResults) -> str:
        r = expect(LighthouseResults, results)
        # The score's sum in words is its own legend (rules, "Scoring"); the end is named
        # for what happened, with the rules' own reason beside it, as the report does.
        reason = r.reason.value
        figures = {ESCAPED: float(r.e), CLOCK: float(r.clock), FLOOD_CLOCK: float(r.flood_clock)}
        words = end_name(reason, figures)
        return (
            f"score {r.team_score:.3f} = 6 x {r.k}/{r.key_count} keys + 10 x {r.e} escaped "
            f"+ 6 x {r.b:.3f} time bonus; clock {r.clock} of {r.flood_clock}, "
            f"{r.ticks} ticks; ended: {words}" + (f" ({reason})" if words != reason else "")
        )

    def view_frames(self, lines: Sequence[RecordLine]) -> list[LighthouseFrame]:
        return view_frames(lines)


__all__ = [
    "LighthouseFrame",
    "LighthouseView",
    "numbered",
    "render_tick",
    "view_frames",
    "water_text",
]
