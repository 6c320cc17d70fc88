"""The three Relayroam layouts: drawing, IDs, reflection, load checks (RR2-RR6, RR16 grid)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from harness.errors import BoardError, HarnessError
from harness.games.relayroam.layouts import (
    HEIGHT,
    LAYOUT_DRAWING,
    LAYOUTS,
    WIDTH,
    Layout,
    layout_for,
    layout_letter,
    parse_drawing,
    parse_layout,
    reflect,
    reflect_pos,
)
from harness.games.relayroam.observe import observe
from harness.games.relayroam.rules import new_game, step
from harness.games.relayroam.state import chamber_start

# Decision RR3, copied here independently of the module.
RR3_BLOCK = """\
A "Ring"      B "Comb"      C "Gauntlet"
H.....R       R.#H#.E       B......
.##.##1       ..#1#..       .#####.
SB#.#HE       .......       S.123.R
.##.##.       ..#2#..       .##.##.
R..B...       BS#R#.H       R##H##E"""

RR3_ROWS = {
    "A": ("H.....R", ".##.##1", "SB#.#HE", ".##.##.", "R..B..."),
    "B": ("R.#H#.E", "..#1#..", ".......", "..#2#..", "BS#R#.H"),
    "C": ("B......", ".#####.", "S.123.R", ".##.##.", "R##H##E"),
}


def test_the_drawing_is_rr3_verbatim() -> None:
    assert RR3_BLOCK in LAYOUT_DRAWING


@pytest.mark.parametrize("letter", ["A", "B", "C"])
def test_each_layout_draws_back_as_rr3(letter: str) -> None:
    layout = LAYOUTS[(letter, False)]  # type: ignore[index]
    assert layout.to_ascii() == RR3_ROWS[letter]
    assert layout.reflected is False


def test_layout_names() -> None:
    assert [LAYOUTS[(c, False)].name for c in ("A", "B", "C")] == ["Ring", "Comb", "Gauntlet"]


def _ids(layout: Layout) -> dict[str, tuple[int, int]]:
    out = {f.id: f.pos for f in layout.objects}
    out.update({v.id: v.pos for v in layout.vents})
    return out


def test_ids_are_row_major_in_the_original_orientation_rr4() -> None:
    assert _ids(LAYOUTS[("A", False)]) == {
        "R1": (6, 0), "R2": (0, 4), "H1": (0, 0), "H2": (5, 2),
        "B1": (1, 2), "B2": (3, 4), "V1": (6, 1),
    }  # fmt: skip
    assert _ids(LAYOUTS[("B", False)]) == {
        "R1": (0, 0), "R2": (3, 4), "H1": (3, 0), "H2": (6, 4),
        "B1": (0, 4), "V1": (3, 1), "V2": (3, 3),
    }  # fmt: skip
    assert _ids(LAYOUTS[("C", False)]) == {
        "R1": (6, 2), "R2": (0, 4), "H1": (3, 4), "B1": (0, 0),
        "V1": (2, 2), "V2": (3, 2), "V3": (4, 2),
    }  # fmt: skip


def test_lists_are_in_id_order_rr4() -> None:
    for layout in LAYOUTS.values():
        for group in (layout.relays, layout.helpers, layout.batteries):
            assert [f.id for f in group] == [f"{f.id[0]}{i}" for i, f in enumerate(group, 1)]
        assert [v.id for v in layout.vents] == [f"V{i}" for i in range(1, len(layout.vents) + 1)]
        assert [v.index for v in layout.vents] == list(range(len(layout.vents)))


def test_starts_and_exits() -> None:
    assert (LAYOUTS[("A", False)].start, LAYOUTS[("A", False)].exit) == ((0, 2), (6, 2))
    assert (LAYOUTS[("B", False)].start, LAYOUTS[("B", False)].exit) == ((1, 4), (6, 0))
    assert (LAYOUTS[("C", False)].start, LAYOUTS[("C", False)].exit) == ((0, 2), (6, 4))


def test_a_helper_two_is_entered_only_through_the_exit() -> None:
    layout = LAYOUTS[("A", False)]
    h2 = layout.feature("H2")
    assert h2 is not None
    x, y = h2.pos
    around = [(x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y)]
    assert [p for p in around if layout.is_floor(p)] == [layout.exit]


@pytest.mark.parametrize("chamber", range(1, 13))
def test_chamber_n_uses_abc_cycle_rr2(chamber: int) -> None:
    expected = "ABC"[(chamber - 1) % 3]
    assert layout_letter(chamber) == expected
    assert layout_for(chamber, False).letter == expected
    assert layout_for(chamber, True).letter == expected
    assert layout_for(chamber, True).reflected is True


@pytest.mark.parametrize("chamber", [0, -1])
def test_chamber_numbers_start_at_one(chamber: int) -> None:
    with pytest.raises(ValueError, match="chamber must be 1 or more"):
        layout_for(chamber, False)


@pytest.mark.parametrize("letter", ["A", "B", "C"])
def test_reflection_moves_every_cell_and_keeps_ids_rr5(letter: str) -> None:
    original = LAYOUTS[(letter, False)]  # type: ignore[index]
    mirrored = LAYOUTS[(letter, True)]  # type: ignore[index]
    assert mirrored.to_ascii() == tuple(row[::-1] for row in original.to_ascii())
    assert mirrored.floor == {(6 - x, y) for x, y in original.floor}
    assert mirrored.start == reflect_pos(original.start)
    assert mirrored.exit == reflect_pos(original.exit)
    for feature in original.objects:
        twin = mirrored.feature(feature.id)
        assert twin is not None
        assert (twin.kind, twin.pos) == (feature.kind, (6 - feature.pos[0], feature.pos[1]))
    for vent, twin_vent in zip(original.vents, mirrored.vents, strict=True):
        assert (twin_vent.id, twin_vent.index) == (vent.id, vent.index)
        assert twin_vent.pos == (6 - vent.pos[0], vent.pos[1])
    assert reflect(mirrored) == original


def test_layout_lookups() -> None:
    layout = LAYOUTS[("C", True)]
    assert layout.in_grid((0, 0))
    assert layout.in_grid((6, 4))
    assert not layout.in_grid((7, 0))
    assert not layout.in_grid((0, -1))
    assert layout.is_floor((0, 0))
    assert not layout.is_floor((1, 1))
    relay = layout.object_at((0, 2))
    assert relay is not None
    assert relay.id == "R1"
    vent = layout.vent_at((4, 2))
    assert vent is not None
    assert vent.id == "V1"
    assert layout.object_at((1, 2)) is None
    assert layout.vent_at((1, 2)) is None
    assert layout.feature("H9") is None
    assert len(layout.terrain()) == HEIGHT
    assert {len(r) for r in layout.terrain()} == {WIDTH}


# RR6: checks at load.

GOOD = ["S.....E", ".#####.", "R.1.2..", ".......", "H.....B"]


def test_a_good_layout_parses() -> None:
    layout = parse_layout("A", "Test", GOOD)
    assert [v.id for v in layout.vents] == ["V1", "V2"]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (GOOD[:4], "has 4 rows; a layout has exactly 5"),
        ([*GOOD[:4], "H.....B."], "row y=4 'H.....B.' has 8 cells"),
        (["S.....E", ".#####.", "R.1.2..", "...S...", "H.....B"], "exactly one start 'S', found 2"),
        (["S......", ".#####.", "R.1.2..", ".......", "H.....B"], "exactly one exit 'E', found 0"),
        (["S.....E", ".#####.", "H.1.2..", ".......", "H.....B"], "at least one relay"),
        (["S.....E", ".#####.", "R.1.3..", ".......", "H.....B"], "vent IDs are 1, 3"),
        (["S.....E", ".#####.", "R.2.3..", ".......", "H.....B"], "vent IDs are 2, 3"),
        (["S.....E", ".#####.", "R.1.1..", ".......", "H.....B"], "vent 1 appears 2 times"),
        (["S.....E", ".#####.", "R.1.2..", "#######", "H.....B"], "x=0, y=4 cannot be reached"),
        (["S.....E", ".#####.", "R.1.2..", ".......", "H..K..B"], "unknown glyph 'K' at x=3, y=4"),
        (["S.....E", ".#####.", "R.1.4..", ".......", "H.....B"], "unknown glyph '4'"),
    ],
)
def test_bad_layouts_are_refused_at_load_rr6(rows: list[str], message: str) -> None:
    with pytest.raises(BoardError, match=message) as info:
        parse_layout("A", "Test", rows)
    assert isinstance(info.value, HarnessError)
    assert "layout A 'Test'" in str(info.value)


@pytest.mark.parametrize(
    ("drawing", "message"),
    [
        ("", "it is empty"),
        ("no header\nS.....E", 'name the layouts as L "Name"'),
        ('A "X"  B "Y"\nS.....E', "row y=0 has 1 columns for 2 layouts"),
        ('D "X"\nS.....E\n.......\n..R....\n.......\n.......', "unknown layout letter 'D'"),
    ],
)
def test_bad_drawings_are_refused(drawing: str, message: str) -> None:
    with pytest.raises(BoardError, match=message):
        parse_drawing(drawing)


def test_every_floor_cell_of_every_layout_is_reachable() -> None:
    for layout in LAYOUTS.values():
        # parse_layout already checks this; here the graph is walked independently.
        seen = {layout.start}
        frontier = [layout.start]
        while frontier:
            x, y = frontier.pop()
            for nxt in ((x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y)):
                if layout.is_floor(nxt) and nxt not in seen:
                    seen.add(nxt)
                    frontier.append(nxt)
        assert seen == layout.floor


def test_layouts_have_distinct_feature_cells() -> None:
    for layout in LAYOUTS.values():
        cells = [layout.start, layout.exit, *(f.pos for f in layout.objects)]
        cells += [v.pos for v in layout.vents]
        assert len(cells) == len(set(cells))
        assert all(layout.is_floor(c) for c in cells)


# RR16 grid glyphs.


def test_grid_of_a_fresh_chamber() -> None:
    obs = observe(new_game(1))
    assert obs.grid == ("H.....R", ".##.##1", "@B#.#HX", ".##.##.", "R..B...")


def test_grid_draws_start_as_floor_and_used_objects_in_lower_case() -> None:
    state = new_game(1)
    state = step(state, {"type": "move", "direction": "right"}).state  # battery B1
    assert observe(state).grid[2] == ".@#.#HX"
    state = step(state, {"type": "move", "direction": "left"}).state
    assert observe(state).grid[2] == "@b#.#HX"
    state = replace(state, used_relays=frozenset({"R1", "R2"}), used_helpers=frozenset({"H1"}))
    assert observe(state).grid == ("h.....r", ".##.##1", "@b#.#HE", ".##.##.", "r..B...")


def test_grid_of_reflected_chamber_with_vent_digits() -> None:
    state = replace(chamber_start(0, 3), reflected=True, player=(6, 2))
    assert observe(state).grid == ("......B", ".#####.", "R.321.@", ".##.##.", "X##H##R")
