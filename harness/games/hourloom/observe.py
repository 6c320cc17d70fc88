"""What a player sees (decisions H29 and H30): the whole chamber as text, and fields.

Nothing is hidden: the text holds a header, a column ruler, one line per row (top
row first, prefixed by its number), a legend, then every echo with its next recorded
input, every gate with who stands on its plates, every flux tile with its phase, and
every lap's alcove, keystone and budget. The structured fields sit beside the text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from harness.games.hourloom.grid import describe
from harness.games.hourloom.state import Phase, State
from harness.games.hourloom.turn import YOU, bodies_of, gate_open
from harness.models import JsonObject
from harness.protocol.fields import fields_json

YOU_GLYPH = "@"
WALL = "#"
KEYSTONE = "K"
SPARK = "*"
EXIT = "X"
FLUX_LIT = "~"
FLUX_CALM = "-"
ALCOVE = "o"
FLOOR = "."
GATE_LETTERS = "ABCDE"
LEGEND = (
    "Legend: @ you, 1-5 the echo of that lap, # wall, A-E gate, a-e its plates, "
    "K this lap's keystone, * spark, X exit, ~ flux lit on the coming turn, - flux calm "
    "on the coming turn, o alcove, . floor"
)
#: Where a lap stands in its chamber, as the Laps lines say it (H29).
LapStatus = Literal["done", "now", "later"]


@dataclass(frozen=True)
class Observation:
    """One decision's view: H29's structured fields, the grid rows and the full text."""

    chamber: int
    phase: Phase
    lap: int
    laps: int
    turn: int
    sand: int
    lap_budget: int
    has_keystone: bool
    multiplier_pct: int
    score: int
    grid: tuple[str, ...]
    text: str


def glyph_rows(state: State, *, bodies: bool = True) -> tuple[str, ...]:
    """The chamber's rows as glyphs, the first matching glyph of H30 on each tile.

    Without ``bodies``, you and the echoes are left out: the ground under them.
    """
    c = state.chamber
    grid = [FLOOR] * c.tiles
    # Paint from the last glyph in H30's order to the first, so the first wins.
    for a in c.alcoves:
        grid[a] = ALCOVE
    for f in c.flux:
        grid[f.tile] = FLUX_LIT if c.lit(f.tile, state.turn) else FLUX_CALM
    grid[c.exit] = EXIT
    for s in state.sparks_left:
        grid[s] = SPARK
    if state.phase != "sealed" and not state.has_keystone:
        grid[state.keystone] = KEYSTONE
    for i, g in enumerate(c.gates):
        for p in g.plates:
            grid[p] = GATE_LETTERS[i].lower()
    for i, g in enumerate(c.gates):
        grid[g.tile] = GATE_LETTERS[i]
    for w in c.walls:
        grid[w] = WALL
    if not bodies:
        return _rows(grid, c.width, c.height)
    for k, tile in enumerate(state.echoes, 1):
        if tile is not None:
            grid[tile] = str(k)
    grid[state.player] = YOU_GLYPH
    return _rows(grid, c.width, c.height)


def _rows(grid: list[str], width: int, height: int) -> tuple[str, ...]:
    return tuple("".join(grid[r * width : (r + 1) * width]) for r in range(height))


def plate_holder(bodies: dict[int, int], tile: int) -> str:
    """Who stands on ``tile`` in words: ``nobody``, ``you`` or ``echo 2``."""
    who = bodies.get(tile)
    return "nobody" if who is None else "you" if who == YOU else f"echo {who}"


def lap_status(state: State, lap: int) -> LapStatus:
    """Whether lap ``lap`` of the chamber is done, running now, or still to come."""
    if lap < state.lap or state.phase == "sealed" or lap <= len(state.logs):
        return "done"
    return "now" if lap == state.lap else "later"


def observe(state: State) -> Observation:
    """Everything a player sees in ``state``."""
    c = state.chamber
    grid = glyph_rows(state)
    ruler = "   " + "".join(str(col % 10) for col in range(c.width))
    rows = [f"{r:>2} {row}" for r, row in enumerate(grid)]
    lines = [
        _header(state),
        ruler,
        *rows,
        LEGEND,
        *_echo_lines(state),
        *_gate_lines(state),
        *_flux_lines(state),
        *_lap_lines(state),
    ]
    return Observation(
        chamber=c.number,
        phase=state.phase,
        lap=state.lap,
        laps=c.laps,
        turn=state.turn,
        sand=state.sand,
        lap_budget=state.lap_budget,
        has_keystone=state.has_keystone,
        multiplier_pct=c.multiplier_pct,
        score=state.score,
        grid=grid,
        text="\n".join(lines),
    )


#: The layout of :func:`prompt_text`: 2, what changes least first; the observation's
#: own ``text`` is layout 1 (the chamber's state first), as records before it were
#: prompted.
PROMPT_LAYOUT = 2


def prompt_text(state: State) -> str:
    """``state`` as a seat is sent it (layout 2): the observation's lines, the legend and
    the chamber's laps (which change only when a lap ends) first, then the turn's own
    (the header, the grid, echoes, gates and flux), so that consecutive turns' texts
    share as long a start as they can."""
    c = state.chamber
    ruler = "   " + "".join(str(col % 10) for col in range(c.width))
    rows = [f"{r:>2} {row}" for r, row in enumerate(glyph_rows(state))]
    lines = [
        LEGEND,
        *_lap_lines(state),
        _header(state),
        ruler,
        *rows,
        *_echo_lines(state),
        *_gate_lines(state),
        *_flux_lines(state),
    ]
    return "\n".join(lines)


def observation_json(obs: Observation) -> JsonObject:
    """``obs`` as a JSON object with the rules' camelCase names: the text first, then
    the fields in order (the text's key is the first written, so it keeps its place)."""
    return {"text": obs.text, **fields_json(obs)}


def _header(state: State) -> str:
    c = state.chamber
    if state.phase == "sealed":
        status = "sealed: DESCEND or END_RUN"
    elif state.phase == "over":
        status = f"over ({state.end_reason})"
    else:
        status = "lap running"
    key = "held" if state.has_keystone else f"not held (tile {state.keystone})"
    if state.phase == "sealed":
        key = "none (no lap running)"
    return (
        f"Chamber {c.number} ({c.width} x {c.height}), multiplier {c.multiplier_pct}%, "
        f"phase {status}, lap {state.lap}/{c.laps}, turn {state.turn}, "
        f"sand {state.sand}/{state.lap_budget}, keystone {key}, score {state.score}"
    )


def _echo_lines(state: State) -> list[str]:
    width = state.chamber.width
    if not state.echoes:
        return ["Echoes: none yet (each finished lap adds one)"]
    lines = ["Echoes (each replays its lap's inputs, one a turn, after you):"]
    for k, (tile, log) in enumerate(zip(state.echoes, state.logs, strict=True), 1):
        if tile is None:
            lines.append(f"  {k}: gone")
            continue
        entry = log[state.turn]
        shown = "WAIT" if entry == "WAIT" else f"MOVE {entry}"
        left = len(log) - state.turn
        lines.append(f"  {k}: on {describe(tile, width)}, next {shown}, {left} inputs left")
    return lines


def _gate_lines(state: State) -> list[str]:
    c = state.chamber
    if not c.gates:
        return ["Gates: none"]
    bodies = bodies_of(state.player, state.echoes)
    lines = ["Gates (open for a mover when every plate carries another body):"]
    for i, g in enumerate(c.gates):
        holders = [
            f"{GATE_LETTERS[i].lower()} {describe(p, c.width)} held by {plate_holder(bodies, p)}"
            for p in g.plates
        ]
        state_word = "open for you" if gate_open(g, YOU, bodies) else "shut for you"
        lines.append(
            f"  {GATE_LETTERS[i]} on {describe(g.tile, c.width)} ({state_word}): "
            + "; ".join(holders)
        )
    return lines


def _flux_lines(state: State) -> list[str]:
    c = state.chamber
    if not c.flux:
        return ["Flux: none"]
    lines = ["Flux (lit when (turn + phase) mod 4 >= 2; ending a turn on lit flux saps 3):"]
    for f in c.flux:
        now = "lit" if c.lit(f.tile, state.turn) else "calm"
        lines.append(f"  {describe(f.tile, c.width)} phase {f.phase}, {now} on turn {state.turn}")
    return lines


def _lap_lines(state: State) -> list[str]:
    c = state.chamber
    lines = ["Laps (alcove, keystone, budget):"]
    for lap in range(1, c.laps + 1):
        lines.append(
            f"  {lap}: alcove {c.alcoves[lap - 1]}, keystone {c.keystones[lap - 1]}, "
            f"budget {c.lap_budgets[lap - 1]}, {lap_status(state, lap)}"
        )
    return lines


__all__ = [
    "LEGEND",
    "PROMPT_LAYOUT",
    "LapStatus",
    "Observation",
    "glyph_rows",
    "lap_status",
    "observation_json",
    "observe",
    "plate_holder",
    "prompt_text",
]
