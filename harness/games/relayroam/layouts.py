"""Relayroam's three chamber layouts, parsed and checked at import (decisions RR2-RR6).

The layouts are drawn below exactly as decision RR3 draws them. Coordinates are
``(x, y)`` with x = 0 on the left and y = 0 the top row. Each layout also exists
horizontally reflected (RR5): every cell moves to ``(6 - x, y)`` while every ID, and
so every vent's offset, stays attached to its object. A layout is always derived
from ``(chamber, reflected)`` and is never stored in a game state (RR2).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field
from typing import Literal

from harness.errors import BoardError

Pos = tuple[int, int]
LayoutLetter = Literal["A", "B", "C"]
ObjectKind = Literal["relay", "helper", "battery"]

WIDTH = 7
HEIGHT = 5

WALL = "#"
FLOOR = "."
START = "S"
EXIT = "E"
RELAY = "R"
HELPER = "H"
BATTERY = "B"
VENT_DIGITS = "123"

#: The cycle of layouts: chamber n uses ``LAYOUT_CYCLE[(n - 1) % 3]`` (RR2).
LAYOUT_CYCLE: tuple[LayoutLetter, LayoutLetter, LayoutLetter] = ("A", "B", "C")

# Decision RR3, verbatim: three 7 x 5 layouts side by side under their names.
LAYOUT_DRAWING = """
A "Ring"      B "Comb"      C "Gauntlet"
H.....R       R.#H#.E       B......
.##.##1       ..#1#..       .#####.
SB#.#HE       .......       S.123.R
.##.##.       ..#2#..       .##.##.
R..B...       BS#R#.H       R##H##E
"""

_OBJECT_GLYPHS: dict[str, ObjectKind] = {RELAY: "relay", HELPER: "helper", BATTERY: "battery"}
_ID_PREFIX: dict[ObjectKind, str] = {"relay": "R", "helper": "H", "battery": "B"}
_LEGEND = f"{WALL}{FLOOR}{START}{EXIT}{RELAY}{HELPER}{BATTERY}{VENT_DIGITS}"
#: The four moves in the rules' fixed order (RR13): up, right, down, left.
NEIGHBOUR_STEPS: tuple[Pos, ...] = ((0, -1), (1, 0), (0, 1), (-1, 0))


@dataclass(frozen=True)
class Feature:
    """A relay, helper or battery: its kind, its ID (``R1``, ``H2``, ``B1``) and its cell."""

    kind: ObjectKind
    id: str
    pos: Pos


@dataclass(frozen=True)
class Vent:
    """A vent: its ID (``V1``..), its 0-based index in ID order and its cell."""

    id: str
    index: int
    pos: Pos


@dataclass(frozen=True)
class Layout:
    """One chamber map in one orientation. Every list is in ID order (RR4).

    ``floor`` holds every enterable cell, including the start, the exit, the objects
    and the vents; everything else on the 7 x 5 grid is wall.
    """

    letter: LayoutLetter
    name: str
    reflected: bool
    floor: frozenset[Pos]
    start: Pos
    exit: Pos
    relays: tuple[Feature, ...]
    helpers: tuple[Feature, ...]
    batteries: tuple[Feature, ...]
    vents: tuple[Vent, ...]
    # Lookup tables derived from the fields above; never compared, hashed or mutated.
    _objects_by_pos: dict[Pos, Feature] = field(init=False, repr=False, compare=False)
    _objects_by_id: dict[str, Feature] = field(init=False, repr=False, compare=False)
    _vents_by_pos: dict[Pos, Vent] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # A frozen dataclass sets derived fields through object.__setattr__.
        object.__setattr__(self, "_objects_by_pos", {f.pos: f for f in self.objects})
        object.__setattr__(self, "_objects_by_id", {f.id: f for f in self.objects})
        object.__setattr__(self, "_vents_by_pos", {v.pos: v for v in self.vents})

    @property
    def objects(self) -> tuple[Feature, ...]:
        """Relays, then helpers, then batteries, each in ID order."""
        return (*self.relays, *self.helpers, *self.batteries)

    def in_grid(self, pos: Pos) -> bool:
        """Whether ``pos`` lies on the 7 x 5 grid."""
        return 0 <= pos[0] < WIDTH and 0 <= pos[1] < HEIGHT

    def is_floor(self, pos: Pos) -> bool:
        """Whether ``pos`` is an enterable (non-wall, in-grid) cell."""
        return pos in self.floor

    def object_at(self, pos: Pos) -> Feature | None:
        """The relay, helper or battery on ``pos``, if any."""
        return self._objects_by_pos.get(pos)

    def vent_at(self, pos: Pos) -> Vent | None:
        """The vent on ``pos``, if any."""
        return self._vents_by_pos.get(pos)

    def feature(self, feature_id: str) -> Feature | None:
        """The relay, helper or battery with ID ``feature_id``, if this layout has it."""
        return self._objects_by_id.get(feature_id)

    def terrain(self) -> tuple[str, ...]:
        """Five rows of ``#`` and ``.`` only."""
        return tuple(
            "".join(FLOOR if (x, y) in self.floor else WALL for x in range(WIDTH))
            for y in range(HEIGHT)
        )

    def to_ascii(self) -> tuple[str, ...]:
        """The layout drawn in the RR3 legend, in this orientation."""
        rows = [list(row) for row in self.terrain()]
        marks: list[tuple[Pos, str]] = [(self.start, START), (self.exit, EXIT)]
        marks += [(f.pos, f.id[0]) for f in self.objects]
        marks += [(v.pos, v.id[1:]) for v in self.vents]
        for (x, y), glyph in marks:
            rows[y][x] = glyph
        return tuple("".join(row) for row in rows)


def parse_layout(letter: LayoutLetter, name: str, rows: tuple[str, ...] | list[str]) -> Layout:
    """Parse and check one layout drawn in the RR3 legend (original orientation).

    Raises :class:`BoardError` naming the problem unless the drawing is 7 x 5, has one
    ``S`` and one ``E``, vent IDs 1..n without gaps, at least one relay, and every
    floor cell reachable from ``S`` (RR6).
    """
    where = f"layout {letter} {name!r}"
    if len(rows) != HEIGHT:
        raise BoardError(f"{where}: has {len(rows)} rows; a layout has exactly {HEIGHT}")
    floor: set[Pos] = set()
    starts: list[Pos] = []
    exits: list[Pos] = []
    found: dict[ObjectKind, list[Pos]] = {"relay": [], "helper": [], "battery": []}
    vents: dict[str, list[Pos]] = {}
    for y, row in enumerate(rows):
        if len(row) != WIDTH:
            raise BoardError(
                f"{where}: row y={y} {row!r} has {len(row)} cells; every row has exactly {WIDTH}"
            )
        for x, glyph in enumerate(row):
            if glyph not in _LEGEND:
                raise BoardError(
                    f"{where}: unknown glyph {glyph!r} at x={x}, y={y}; "
                    f"use only {' '.join(_LEGEND)}"
                )
            if glyph == WALL:
                continue
            floor.add((x, y))
            if glyph == START:
                starts.append((x, y))
            elif glyph == EXIT:
                exits.append((x, y))
            elif glyph in _OBJECT_GLYPHS:
                found[_OBJECT_GLYPHS[glyph]].append((x, y))
            elif glyph in VENT_DIGITS:
                vents.setdefault(glyph, []).append((x, y))
    if len(starts) != 1:
        raise BoardError(f"{where}: needs exactly one start 'S', found {len(starts)}")
    if len(exits) != 1:
        raise BoardError(f"{where}: needs exactly one exit 'E', found {len(exits)}")
    if not found["relay"]:
        raise BoardError(f"{where}: needs at least one relay 'R', found none")
    for digit, cells in sorted(vents.items()):
        if len(cells) != 1:
            raise BoardError(f"{where}: vent {digit} appears {len(cells)} times; IDs are unique")
    digits = sorted(vents)
    expected = [str(i) for i in range(1, len(digits) + 1)]
    if digits != expected:
        raise BoardError(
            f"{where}: vent IDs are {', '.join(digits)}; they must be 1..n without gaps "
            f"({', '.join(expected)})"
        )
    start = starts[0]
    reached = _reachable(frozenset(floor), start)
    stranded = sorted(floor - reached, key=_row_major)
    if stranded:
        x, y = stranded[0]
        raise BoardError(
            f"{where}: floor cell x={x}, y={y} cannot be reached from the start; "
            "every floor cell must be reachable"
        )

    def features(kind: ObjectKind) -> tuple[Feature, ...]:
        cells = sorted(found[kind], key=_row_major)  # RR4: row-major, original orientation
        return tuple(Feature(kind, f"{_ID_PREFIX[kind]}{i}", p) for i, p in enumerate(cells, 1))

    return Layout(
        letter=letter,
        name=name,
        reflected=False,
        floor=frozenset(floor),
        start=start,
        exit=exits[0],
        relays=features("relay"),
        helpers=features("helper"),
        batteries=features("battery"),
        vents=tuple(Vent(f"V{d}", i, vents[d][0]) for i, d in enumerate(digits)),
    )


def reflect_pos(pos: Pos) -> Pos:
    """The horizontal mirror of ``pos``: ``(x, y) -> (6 - x, y)`` (RR5)."""
    return (WIDTH - 1 - pos[0], pos[1])


def reflect(layout: Layout) -> Layout:
    """``layout`` mirrored left to right; IDs (and so vent offsets) stay attached (RR5)."""

    def moved(f: Feature) -> Feature:
        return Feature(f.kind, f.id, reflect_pos(f.pos))

    return Layout(
        letter=layout.letter,
        name=layout.name,
        reflected=not layout.reflected,
        floor=frozenset(reflect_pos(p) for p in layout.floor),
        start=reflect_pos(layout.start),
        exit=reflect_pos(layout.exit),
        relays=tuple(moved(f) for f in layout.relays),
        helpers=tuple(moved(f) for f in layout.helpers),
        batteries=tuple(moved(f) for f in layout.batteries),
        vents=tuple(Vent(v.id, v.index, reflect_pos(v.pos)) for v in layout.vents),
    )


def parse_drawing(drawing: str) -> tuple[Layout, ...]:
    """Parse the side-by-side RR3 drawing: a header of ``L "Name"`` then five rows."""
    lines = [line for line in drawing.splitlines() if line.strip()]
    if not lines:
        raise BoardError("layout drawing: it is empty")
    header = re.findall(r'([A-Z]) "([^"]+)"', lines[0])
    if not header:
        raise BoardError('layout drawing: the first line must name the layouts as L "Name"')
    columns: list[list[str]] = [[] for _ in header]
    for y, line in enumerate(lines[1:]):
        cells = line.split()
        if len(cells) != len(header):
            raise BoardError(
                f"layout drawing: row y={y} has {len(cells)} columns for {len(header)} layouts"
            )
        for column, cell in zip(columns, cells, strict=True):
            column.append(cell)
    layouts = []
    for (letter, name), rows in zip(header, columns, strict=True):
        if letter not in LAYOUT_CYCLE:
            raise BoardError(f"layout drawing: unknown layout letter {letter!r}; use A, B or C")
        layouts.append(parse_layout(letter, name, rows))
    return tuple(layouts)


def layout_letter(chamber: int) -> LayoutLetter:
    """The layout of 1-based ``chamber``: ``"ABC"[(chamber - 1) % 3]`` (RR2)."""
    if chamber < 1:
        raise ValueError(f"chamber must be 1 or more, got {chamber}")
    return LAYOUT_CYCLE[(chamber - 1) % 3]


def layout_for(chamber: int, reflected: bool) -> Layout:
    """The layout of 1-based ``chamber`` in the given orientation (RR2, RR5)."""
    return LAYOUTS[(layout_letter(chamber), reflected)]


def _row_major(pos: Pos) -> tuple[int, int]:
    return (pos[1], pos[0])


def _reachable(floor: frozenset[Pos], source: Pos) -> set[Pos]:
    seen = {source}
    queue = deque([source])
    while queue:
        x, y = queue.popleft()
        for dx, dy in NEIGHBOUR_STEPS:
            nxt = (x + dx, y + dy)
            if nxt in floor and nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen


def _build() -> dict[tuple[LayoutLetter, bool], Layout]:
    originals = parse_drawing(LAYOUT_DRAWING)
    if tuple(layout.letter for layout in originals) != LAYOUT_CYCLE:
        raise BoardError("layout drawing: the layouts must be A, B and C in that order")
    table: dict[tuple[LayoutLetter, bool], Layout] = {}
    for layout in originals:
        table[(layout.letter, False)] = layout
        table[(layout.letter, True)] = reflect(layout)
    return table


#: Every layout in both orientations, keyed by ``(letter, reflected)``; built at import.
LAYOUTS: dict[tuple[LayoutLetter, bool], Layout] = _build()

__all__ = [
    "BATTERY",
    "EXIT",
    "FLOOR",
    "HEIGHT",
    "HELPER",
    "LAYOUTS",
    "LAYOUT_CYCLE",
    "LAYOUT_DRAWING",
    "NEIGHBOUR_STEPS",
    "RELAY",
    "START",
    "VENT_DIGITS",
    "WALL",
    "WIDTH",
    "Feature",
    "Layout",
    "LayoutLetter",
    "ObjectKind",
    "Pos",
    "Vent",
    "layout_for",
    "layout_letter",
    "parse_drawing",
    "parse_layout",
    "reflect",
    "reflect_pos",
]
