"""SCOUT's memory, kept in its notes (decision L5): where it is and what it has seen.

A runner sees neither its coordinates nor the map, so SCOUT counts its own position
from the moves it made, and draws a chart of every tile its window has shown. Both
live only in its notes (``runnerNotesCap`` runes, 200 by default), which it rewrites
every tick and reads back the next; nothing else carries over, so SCOUT stays a pure
function of its observation and replays from its record.

Coordinates are its own: ``(0, 0)`` is the tile on which it began its chart (its
start, unless its notes were lost), x to the right and y DOWN, as on the board. The
notes are one line of printable ASCII, e.g. at tick 36 on seed 7::

    S36 8,-2 -1,-7,11x9 -1 8,-7 VVVlqqmWVWZamqlWVWWakZZWRlqpAFVUA

    S36          the tick whose start they describe
    8,-2         its tile then
    -1,-7,11x9   the chart: its top-left tile, its width and height
    -1           the topmost row it has seen under water ('-': none yet)
    8,-7         the exit's tile ('-': not seen yet)
    VVVl...      the chart's tiles, row by row, three to a character

Each tile is two bits: 0 unseen, 1 wall (or off the board), 2 floor, 3 a key. Three
tiles ``a, b, c`` make the value ``16a + 4b + c``, written as character number
``value`` of ``A-Z a-z 0-9 - _`` (the last character padded with unseen tiles).

Reading them back at tick t, SCOUT applies to the written tile each move it made
since (the last ``t - tick`` of its last six moves): a move that did not bump
and is not a WAIT moved it one tile. Then it writes its window onto the chart: the
window always wins over what the chart held. Notes it cannot read, from a tick it
has no moves for (more than six ticks back, or not before this one) or whose tile is
off their chart start a new chart at ``(0, 0)``.

When the chart is too big for the cap, SCOUT keeps the part around itself that
fits (see :func:`crop`) and forgets the rest; the exit's tile and the water are kept
in the header whatever the chart holds. When the cap leaves room beside the header
for fewer than the 5 x 5 tiles around it, SCOUT writes empty notes and plays as
WALLHUG (see :mod:`baselines.lighthouse.scout`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from harness.games.lighthouse.board import Pos
from harness.games.lighthouse.observe import SELF, RunnerObservation
from harness.games.lighthouse.state import (
    FLOOR_GLYPH,
    GATE_OPEN,
    GATE_SHUT,
    KEY_GLYPH,
    WALL_GLYPH,
    WATER,
    Move,
)

#: A tile of the chart: never seen, wall (or off the board), floor, a key.
UNSEEN, WALL, FLOOR, KEY = "?", WALL_GLYPH, FLOOR_GLYPH, KEY_GLYPH
#: The tile codes, in their two-bit order.
_CODES = (UNSEEN, WALL, FLOOR, KEY)
_CODE = {tile: code for code, tile in enumerate(_CODES)}
#: 64 characters, one per value of three tiles (the URL-safe base64 alphabet).
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_VALUE = {char: value for value, char in enumerate(ALPHABET)}
#: Tiles per character of the chart's data.
PER_CHAR = 3
#: A cropped chart keeps at least the MIN_SIDE x MIN_SIDE tiles around SCOUT; notes
#: with no room for that many keep nothing (a smaller chart forgets the way it came
#: so soon that SCOUT walks back and forth: it then does better as WALLHUG).
MIN_SIDE = 5
MIN_TILES = MIN_SIDE * MIN_SIDE
#: What each glyph of the window says about its tile. The exit and the water are floor
#: (the header keeps where they are); '@' is the tile SCOUT stands on: floor, and if a
#: key was there it has just been picked up.
_GLYPH_TILE = {
    WALL_GLYPH: WALL,
    FLOOR_GLYPH: FLOOR,
    KEY_GLYPH: KEY,
    WATER: FLOOR,
    GATE_SHUT: FLOOR,
    GATE_OPEN: FLOOR,
    SELF: FLOOR,
}

#: Glyphs of a tile that is not under water (the exit shows even when it is).
_DRY = frozenset((FLOOR_GLYPH, KEY_GLYPH, SELF))

_NUM = r"-?\d{1,6}"
_NOTES = re.compile(
    rf"S(\d{{1,12}}) ({_NUM}),({_NUM}) ({_NUM}),({_NUM}),(\d{{1,6}})x(\d{{1,6}}) "
    rf"({_NUM}|-) (?:({_NUM}),({_NUM})|-) ([A-Za-z0-9_-]*)",
    re.ASCII,  # \d is 0-9 only: int() would read other scripts' digits too
)


@dataclass(frozen=True)
class Chart:
    """Every tile SCOUT remembers: ``rows`` of tiles, the first at ``(left, top)``."""

    left: int
    top: int
    rows: tuple[str, ...]

    @property
    def width(self) -> int:
        """Columns of the chart."""
        return len(self.rows[0])

    @property
    def height(self) -> int:
        """Rows of the chart."""
        return len(self.rows)

    def tile(self, pos: Pos) -> str:
        """The tile at ``pos``; :data:`UNSEEN` outside the chart."""
        x, y = pos[0] - self.left, pos[1] - self.top
        if 0 <= y < len(self.rows) and 0 <= x < len(self.rows[0]):
            return self.rows[y][x]
        return UNSEEN

    def contains(self, pos: Pos) -> bool:
        """Whether ``pos`` lies on the chart."""
        return (
            self.left <= pos[0] < self.left + self.width
            and self.top <= pos[1] < self.top + self.height
        )

    def with_window(self, pos: Pos, tiles: tuple[str, str, str]) -> Chart:
        """The chart grown to hold the 3 x 3 ``tiles`` centred on ``pos``, with them on it."""
        x, y = pos
        left, top = min(self.left, x - 1), min(self.top, y - 1)
        right = max(self.left + self.width, x + 2)
        bottom = max(self.top + self.height, y + 2)
        pad_left, pad_right = self.left - left, right - self.left - self.width
        blank = UNSEEN * (right - left)
        grown = [blank] * (self.top - top)
        grown += [UNSEEN * pad_left + row + UNSEEN * pad_right for row in self.rows]
        grown += [blank] * (bottom - self.top - self.height)
        for dy, window_row in enumerate(tiles):
            r = y - 1 + dy - top
            c = x - 1 - left
            row = grown[r]
            grown[r] = row[:c] + window_row + row[c + 3 :]
        return Chart(left, top, tuple(grown))


@dataclass(frozen=True)
class Memory:
    """What SCOUT knows at the start of tick ``tick``."""

    tick: int
    pos: Pos
    chart: Chart
    #: The topmost row it has seen under water; every row from it down is flooded
    #: for good (the tide never falls). None before it has seen any.
    water: int | None
    #: The exit's tile, once its window has shown it.
    exit: Pos | None


def recall(obs: RunnerObservation) -> Memory:
    """SCOUT's memory at the start of ``obs.tick``: its notes, its moves since, its window."""
    before = read_notes(obs.notes)
    if before is not None and 1 <= obs.tick - before.tick <= len(obs.moves):
        x, y = before.pos
        for record in obs.moves[len(obs.moves) - (obs.tick - before.tick) :]:
            if record.move is not Move.WAIT and not record.bumped:
                dx, dy = record.move.delta
                x, y = x + dx, y + dy
        pos: Pos = (x, y)
        chart, water, exit_ = before.chart, before.water, before.exit
    else:
        pos, chart, water, exit_ = (0, 0), Chart(-1, -1, (UNSEEN * 3,) * 3), None, None
    # The window always wins: what it shows replaces what the memory held there.
    tiles: list[str] = []
    wet: int | None = None  # the topmost row under water in the window
    dry = pos[1]  # the lowest row with a dry tile in the window (SCOUT's own is dry)
    shown_exit: Pos | None = None
    for dy, glyphs in enumerate(obs.window):
        y = pos[1] + dy - 1
        tiles.append("".join(_GLYPH_TILE.get(glyph, WALL) for glyph in glyphs))
        for dx, glyph in enumerate(glyphs):
            if glyph == WATER:
                wet = y if wet is None else min(wet, y)
            elif glyph in _DRY:
                dry = max(dry, y)
            elif glyph in (GATE_SHUT, GATE_OPEN):
                shown_exit = (pos[0] + dx - 1, y)
    if water is not None and water <= dry:
        water = None  # remembered water where the window shows a dry tile: not so
    if wet is not None and (water is None or wet < water):
        water = wet
    if shown_exit is not None:
        exit_ = shown_exit
    elif (
        exit_ is not None
        and exit_ != pos
        and max(abs(exit_[0] - pos[0]), abs(exit_[1] - pos[1])) <= 1
    ):
        # the window shows the remembered exit's tile with no exit on it (its own
        # tile shows '@' whatever lies under it, the exit too)
        exit_ = None
    t0, t1, t2 = tiles
    return Memory(obs.tick, pos, chart.with_window(pos, (t0, t1, t2)), water, exit_)


def read_notes(notes: str) -> Memory | None:
    """The memory SCOUT wrote into ``notes``, or None when they are not its notes.

    Any text may arrive here (the notes of another player of the seat, in a
    counterfactual replay): it is matched against one bounded pattern, and the chart
    is decoded only once its size agrees with its data, so the work stays linear in
    the notes' length.
    """
    match = _NOTES.fullmatch(notes)
    if match is None:
        return None
    tick, px, py, left, top, width, height, water, ex, ey, data = match.groups()
    cols, rows = int(width), int(height)
    if cols < 1 or rows < 1 or len(data) != -(-cols * rows // PER_CHAR):
        return None
    codes: list[str] = []
    for char in data:
        value = _VALUE[char]
        codes += (_CODES[value >> 4], _CODES[(value >> 2) & 3], _CODES[value & 3])
    flat = "".join(codes)
    chart = Chart(int(left), int(top), tuple(flat[r * cols : (r + 1) * cols] for r in range(rows)))
    pos = (int(px), int(py))
    if not chart.contains(pos):
        return None
    return Memory(
        tick=int(tick),
        pos=pos,
        chart=chart,
        water=None if water == "-" else int(water),
        exit=None if ex is None else (int(ex), int(ey)),
    )


def fit(memory: Memory, cap: int) -> tuple[Memory, str] | None:
    """``memory`` cut to fit notes of at most ``cap`` runes, and those notes; None when
    the cap leaves room beside the header for fewer than :data:`MIN_TILES` tiles (then
    it keeps no memory).

    The chart is cropped (:func:`crop`) to the tiles the cap leaves after the header
    (three to a rune), fewer while the cropped chart's corner takes more digits; what
    is cut off is forgotten, this tick already, so that SCOUT knows exactly what its
    notes say.
    """
    most = PER_CHAR * (cap - len(_header(memory)))
    if most < MIN_TILES:
        return None
    while True:
        chart = crop(memory.chart, memory.pos, max(most, MIN_TILES))
        assert chart is not None  # given MIN_TILES, crop always keeps a chart
        kept = replace(memory, chart=chart)
        notes = write_notes(kept)
        if len(notes) <= cap:
            return kept, notes
        if most <= MIN_TILES:
            return None
        most -= PER_CHAR * (len(notes) - cap)


def write_notes(memory: Memory) -> str:
    """``memory`` as SCOUT's notes (the inverse of :func:`read_notes`)."""
    return _header(memory) + _data(memory.chart)


def crop(chart: Chart, pos: Pos, most: int) -> Chart | None:
    """``chart`` cut to at most ``most`` tiles around ``pos``; None below
    :data:`MIN_TILES`.

    A chart that fits is kept whole. Otherwise SCOUT keeps ``min(width, most // 5)``
    columns and as many whole rows of them as then fit, centred on its own tile where
    the chart allows (an odd tile left over goes right and down), so that it always
    keeps at least the 5 x 5 tiles around itself.
    """
    if most < MIN_TILES:
        return None
    if chart.width * chart.height <= most:
        return chart
    cols = min(chart.width, most // MIN_SIDE)
    rows = min(chart.height, most // cols)
    left = min(max(pos[0] - (cols - 1) // 2, chart.left), chart.left + chart.width - cols)
    top = min(max(pos[1] - (rows - 1) // 2, chart.top), chart.top + chart.height - rows)
    c, r = left - chart.left, top - chart.top
    return Chart(left, top, tuple(row[c : c + cols] for row in chart.rows[r : r + rows]))


def _header(memory: Memory) -> str:
    chart = memory.chart
    water = "-" if memory.water is None else str(memory.water)
    exit_ = "-" if memory.exit is None else f"{memory.exit[0]},{memory.exit[1]}"
    return (
        f"S{memory.tick} {memory.pos[0]},{memory.pos[1]} "
        f"{chart.left},{chart.top},{chart.width}x{chart.height} {water} {exit_} "
    )


def _data(chart: Chart) -> str:
    flat = "".join(chart.rows)
    flat += UNSEEN * (-len(flat) % PER_CHAR)
    return "".join(
        ALPHABET[16 * _CODE[flat[i]] + 4 * _CODE[flat[i + 1]] + _CODE[flat[i + 2]]]
        for i in range(0, len(flat), PER_CHAR)
    )


__all__ = [
    "ALPHABET",
    "FLOOR",
    "KEY",
    "UNSEEN",
    "WALL",
    "Chart",
    "Memory",
    "crop",
    "fit",
    "read_notes",
    "recall",
    "write_notes",
]
