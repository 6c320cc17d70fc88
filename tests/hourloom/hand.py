"""Small Hourloom chambers drawn by hand, and states on them (test helpers).

A chamber is drawn one row per line: ``#`` wall, ``X`` exit, ``1``-``6`` the alcove of
that lap, ``A``-``E`` a gate and ``a``-``e`` its plates, ``.`` floor (``K`` too, as a reminder of
where a keystone is). Keystones, flux, sparks and budgets are given by (row, column).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from harness.games.hourloom.grid import Input
from harness.games.hourloom.state import Chamber, Flux, Gate, State

Cell = tuple[int, int]


def draw(
    rows: str,
    *,
    keystones: Sequence[Cell],
    flux: Mapping[Cell, int] | None = None,
    sparks: Sequence[Cell] = (),
    budgets: Sequence[int] | None = None,
    number: int = 1,
    pct: int = 100,
) -> Chamber:
    """The chamber ``rows`` draws (see the module docstring)."""
    lines = [line.strip() for line in rows.strip().splitlines()]
    width, height = len(lines[0]), len(lines)
    walls: list[int] = []
    alcoves: dict[int, int] = {}
    gates: dict[str, int] = {}
    plates: dict[str, list[int]] = {}
    exit_ = -1
    for r, line in enumerate(lines):
        assert len(line) == width, f"row {r} is not {width} wide"
        for c, glyph in enumerate(line):
            tile = r * width + c
            if glyph == "#":
                walls.append(tile)
            elif glyph == "X":
                exit_ = tile
            elif glyph.isdigit():
                alcoves[int(glyph)] = tile
            elif glyph in "ABCDE":
                gates[glyph] = tile
            elif glyph in "abcde":
                plates.setdefault(glyph.upper(), []).append(tile)
            else:
                assert glyph in ".K", f"unknown glyph {glyph!r}"
    laps = len(alcoves)
    assert sorted(alcoves) == list(range(1, laps + 1)), "alcoves must be 1..laps"
    assert len(keystones) == laps
    return Chamber(
        number=number,
        width=width,
        height=height,
        laps=laps,
        multiplier_pct=pct,
        walls=tuple(walls),
        exit=exit_,
        alcoves=tuple(alcoves[k] for k in range(1, laps + 1)),
        keystones=tuple(tile_of(width, cell) for cell in keystones),
        gates=tuple(Gate(gates[g], tuple(plates[g])) for g in sorted(gates)),
        flux=tuple(Flux(tile_of(width, cell), p) for cell, p in sorted((flux or {}).items())),
        sparks=tuple(tile_of(width, cell) for cell in sparks),
        lap_budgets=tuple(budgets) if budgets is not None else (40,) * laps,
    )


def tile_of(width: int, cell: Cell) -> int:
    """The tile of (row, column)."""
    return cell[0] * width + cell[1]


def lap_start(chamber: Chamber, lap: int = 1, logs: Sequence[str] = (), **changes: Any) -> State:
    """Lap ``lap`` at turn 0 (you and the echoes on your alcoves), finished laps' logs
    written as space-separated inputs; ``changes`` replace any field afterwards."""
    parsed = tuple(tuple(_inputs(log)) for log in logs)
    assert len(parsed) == lap - 1
    state = State(
        seed=0,
        rng_state=0,
        chamber=chamber,
        phase="lap",
        lap=lap,
        turn=0,
        sand=chamber.lap_budgets[lap - 1],
        player=chamber.alcoves[lap - 1],
        has_keystone=False,
        sparks_left=chamber.sparks,
        logs=parsed,
        log=(),
        echoes=chamber.alcoves[: lap - 1],
        score=0,
        end_reason=None,
    )
    return replace(state, **changes)


def _inputs(text: str) -> list[Input]:
    out: list[Input] = []
    for word in text.split():
        assert word in ("N", "E", "S", "W", "WAIT"), word
        out.append(word)  # type: ignore[arg-type]
    return out


MOVE_N = {"type": "MOVE", "dir": "N"}
MOVE_E = {"type": "MOVE", "dir": "E"}
MOVE_S = {"type": "MOVE", "dir": "S"}
MOVE_W = {"type": "MOVE", "dir": "W"}
WAIT = {"type": "WAIT"}
DESCEND = {"type": "DESCEND"}
END_RUN = {"type": "END_RUN"}
