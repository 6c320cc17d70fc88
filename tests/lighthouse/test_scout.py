"""SCOUT, the exploring runner: each rule of its definition (docs/rules.md, L5).

Charts and boards are hand-drawn with y growing DOWN. In a chart, ``?`` is a tile
SCOUT has not seen, ``@`` SCOUT itself and ``E`` the exit (both floor); the chart's
top-left tile is (0, 0). Runner 1 (Sprocket) is the one under test on a board.
"""

from __future__ import annotations

import copy
import json
import string
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baselines.lighthouse.scout import scout, scout_move, scout_play
from baselines.lighthouse.scout.explore import explore, step_towards, target, walkable
from baselines.lighthouse.scout.memory import (
    ALPHABET,
    Chart,
    Memory,
    crop,
    fit,
    read_notes,
    recall,
    write_notes,
)
from baselines.lighthouse.wallhug import wallhug_move
from harness.games.lighthouse.observe import RunnerObservation, observe_runner
from harness.games.lighthouse.replies import parse_runner_reply
from harness.games.lighthouse.rules import resolve_tick
from harness.games.lighthouse.state import (
    GameState,
    KeeperDecision,
    Move,
    MoveRecord,
    RunnerDecision,
    Transmission,
)
from tests.conftest import at, state_from

N, E, S, W, WAIT = Move.N, Move.E, Move.S, Move.W, Move.WAIT

#: Runner 1 at (5, 4) in the middle of an open room.
MIDDLE = """
#####E#####
#.........#
#.........#
#.........#
#....1....#
#.........#
#.K.......#
#2.......3#
###########
"""


# --- helpers ----------------------------------------------------------------------------


def memory(*rows: str, water: int | None = None, tick: int = 5) -> Memory:
    """A memory from a hand-drawn chart (see the module docstring)."""
    pos = exit_ = None
    tiles = []
    for y, row in enumerate(rows):
        if "@" in row:
            pos = (row.index("@"), y)
        if "E" in row:
            exit_ = (row.index("E"), y)
        tiles.append(row.replace("@", ".").replace("E", "."))
    assert pos is not None
    return Memory(tick, pos, Chart(0, 0, tuple(tiles)), water, exit_)


def runner(state: GameState, seat: int = 1, **changes: object) -> GameState:
    """``state`` with runner ``seat``'s fields replaced (notes, moves, pos)."""
    runners = list(state.runners)
    runners[seat - 1] = replace(runners[seat - 1], **changes)  # type: ignore[arg-type]
    r1, r2, r3 = runners
    return replace(state, runners=(r1, r2, r3))


def ok(move: Move) -> MoveRecord:
    return MoveRecord(move, bumped=False)


def bump(move: Move) -> MoveRecord:
    return MoveRecord(move, bumped=True)


def reply_of(obs: RunnerObservation) -> RunnerDecision:
    """SCOUT's decision, checked against what the parser makes of its reply text."""
    text, decision = scout_play(obs)
    assert parse_runner_reply(text, notes_cap=obs.notes_cap) == decision
    assert text == scout(obs)
    return decision


def move_of(state: GameState, seat: int = 1) -> Move:
    return reply_of(observe_runner(state, seat)).move


def silent_tick(state: GameState) -> GameState:
    """One tick: the keeper is silent, every active runner plays SCOUT."""
    moves = {r.seat: reply_of(observe_runner(state, r.seat)) for r in state.runners if r.active}
    return resolve_tick(state, KeeperDecision(transmit=False), moves)[0]


def told(state: GameState, message: str) -> GameState:
    """``state`` at tick 1 with ``message`` (sent at tick 0) in every runner's inbox."""
    return at(state, tick=1, transmissions=(Transmission(0, message),))


# --- the notes: their encoding ------------------------------------------------------------


def test_the_documented_example_reads_as_the_window_it_came_from() -> None:
    # seed 7, runner 1 at its start (1, 7), tick 0: "#.#" / "#@." / "###"
    assert observe_runner(state_from(SEED7), 1).window == ("#.#", "#@.", "###")
    notes = reply_of(observe_runner(state_from(SEED7), 1)).notes
    assert notes == "S0 0,0 -1,-1,3x3 - - ZaV"
    assert read_notes("S0 0,0 -1,-1,3x3 - - ZaV") == Memory(
        0, (0, 0), Chart(-1, -1, ("#.#", "#..", "###")), None, None
    )
    # Z = 25 = 16*1 + 4*2 + 1: wall, floor, wall; a = 26: wall, floor, floor; V = 21: walls
    assert [ALPHABET.index(c) for c in "ZaV"] == [25, 26, 21]


SEED7 = """
#########E#
#.......#.#
#.#####.#.#
#...#K....#
###.#####.#
#K#...#K#.#
#.###.#.#.#
#1...2#..3#
###########
"""


def test_the_header_names_tick_tile_chart_water_and_exit() -> None:
    m = memory("##E##", "#.@.#", "#####", water=3, tick=12)
    notes = write_notes(m)
    assert notes.startswith("S12 2,1 0,0,5x3 3 2,0 ")
    assert read_notes(notes) == m
    assert write_notes(replace(m, water=None, exit=None)).startswith("S12 2,1 0,0,5x3 - - ")


_TILE = st.sampled_from("?#.K")


@st.composite
def memories(draw: st.DrawFn) -> Memory:
    width, height = draw(st.integers(1, 12)), draw(st.integers(1, 12))
    left, top = draw(st.integers(-40, 40)), draw(st.integers(-40, 40))
    rows = tuple(
        "".join(draw(st.lists(_TILE, min_size=width, max_size=width))) for _ in range(height)
    )
    pos = (left + draw(st.integers(0, width - 1)), top + draw(st.integers(0, height - 1)))
    water = draw(st.none() | st.integers(-99, 99))
    exit_ = draw(st.none() | st.tuples(st.integers(-99, 99), st.integers(-99, 99)))
    return Memory(draw(st.integers(0, 10**6)), pos, Chart(left, top, rows), water, exit_)


@given(memories())
def test_notes_round_trip_in_printable_ascii(m: Memory) -> None:
    notes = write_notes(m)
    assert read_notes(notes) == m
    assert notes.isascii()
    assert notes.isprintable()
    assert "\n" not in notes


@pytest.mark.parametrize(
    "notes",
    [
        "",
        "hello",
        "PILOT t12 1:NNEe 2:H 3:",
        "S0 0,0 -1,-1,3x3 - - ZaVV",  # one character too many for 9 tiles
        "S0 0,0 -1,-1,3x3 - - Za",  # one too few
        "S0 0,0 -1,-1,3x3 - - Za=",  # not in the alphabet
        "S0 5,5 -1,-1,3x3 - - ZaV",  # its tile is off its chart
        "S0 0,0 -1,-1,0x3 - - ",  # an empty chart
        "S0 0,0 -1,-1,3x3 - 4 ZaV",  # an exit needs both coordinates
        " S0 0,0 -1,-1,3x3 - - ZaV",  # nothing around them
        "S0 0,0 -1,-1,3x3 - - ZaV\n",
        "S0 0,0 -1,-1,999999x999999 - - ZaV",  # a size its data does not have
        "S0 0,0 -1,-1,3x3 - - ZaV" + "A" * 100_000,
        "S" + "9" * 100_000,
        "S0 \u0660,0 -1,-1,3x3 - - ZaV",  # Arabic-Indic digit: \d would take it, int too
    ],
)
def test_notes_it_did_not_write_are_not_read(notes: str) -> None:
    assert read_notes(notes) is None


@given(st.text(alphabet=string.printable + "\u0660\ufffd", max_size=60))
def test_any_text_reads_as_nothing_or_as_notes_it_would_write(text: str) -> None:
    found = read_notes(text)
    if found is not None:
        assert read_notes(write_notes(found)) == found


# --- the notes: dead reckoning --------------------------------------------------------------


def _recalled(moves: tuple[MoveRecord, ...], written_at: int, now: int) -> Memory:
    """Recall at tick ``now`` from notes written at ``written_at`` (tile (0, 0)), having
    made ``moves`` (the last six, oldest first)."""
    start = memory("?????", "?...?", "?.@.?", "?...?", "?????", tick=written_at)
    shifted = replace(start, pos=(0, 0), chart=replace(start.chart, left=-2, top=-2))
    s = state_from(MIDDLE)
    s = runner(at(s, tick=now), notes=write_notes(shifted), moves=moves)
    return recall(observe_runner(s, 1))


@pytest.mark.parametrize(
    ("moves", "pos"),
    [
        ((ok(N),), (0, -1)),
        ((ok(E),), (1, 0)),
        ((ok(S),), (0, 1)),
        ((ok(W),), (-1, 0)),
        ((bump(N),), (0, 0)),  # a bump did not move it
        ((ok(WAIT),), (0, 0)),
        ((ok(E), ok(E), bump(N)), (0, 0)),  # only the move since the notes counts
    ],
)
def test_the_last_move_moves_it_unless_it_bumped_or_waited(
    moves: tuple[MoveRecord, ...], pos: tuple[int, int]
) -> None:
    assert _recalled(moves, written_at=4, now=5).pos == pos


def test_notes_from_several_ticks_back_take_every_move_since() -> None:
    moves = (ok(W), ok(N), bump(E), ok(WAIT), ok(S), ok(W))
    assert _recalled(moves, written_at=5, now=6).pos == (-1, 0)  # W
    assert _recalled(moves, written_at=2, now=6).pos == (-1, 1)  # bumped E, WAIT, S, W
    assert _recalled(moves, written_at=1, now=6).pos == (-1, 0)  # and N before them
    assert _recalled(moves, written_at=0, now=6).pos == (-2, 0)  # all six


@pytest.mark.parametrize(("written_at", "now"), [(5, 5), (6, 5), (0, 7)])
def test_notes_it_has_no_moves_for_start_a_new_chart(written_at: int, now: int) -> None:
    # written this tick or later, or more than six ticks back: a new chart at (0, 0)
    moves = (ok(N),) * 6
    m = _recalled(moves, written_at=written_at, now=now)
    assert m.pos == (0, 0)
    assert m.chart == Chart(-1, -1, ("...", "...", "..."))
    assert m.tick == now


def test_the_first_tick_charts_the_window_alone() -> None:
    m = recall(observe_runner(state_from(SEED7), 1))
    assert (m.tick, m.pos, m.water, m.exit) == (0, (0, 0), None, None)
    assert m.chart == Chart(-1, -1, ("#.#", "#..", "###"))


def test_what_the_window_shows_replaces_what_the_chart_held() -> None:
    # the notes say walls all round and a key N; the window shows the open room
    lies = Memory(0, (0, 0), Chart(-1, -1, ("#K#", "#.#", "###")), None, None)
    s = runner(at(state_from(MIDDLE), tick=1), notes=write_notes(lies), moves=(ok(WAIT),))
    assert recall(observe_runner(s, 1)).chart == Chart(-1, -1, ("...", "...", "..."))


def test_the_window_grows_the_chart_and_keeps_the_rest() -> None:
    s = state_from(MIDDLE)
    s2 = silent_tick(s)  # SCOUT goes N (the upper of the nearest unseen tiles)
    assert s2.runner(1).pos == (5, 3)
    m = recall(observe_runner(s2, 1))
    assert m.pos == (0, -1)
    assert m.chart == Chart(-1, -2, ("...", "...", "...", "..."))


def test_water_it_sees_floods_every_row_from_there_down() -> None:
    # runner 1 at (5, 6); clock 24 floods row 7
    s = runner(at(state_from(MIDDLE), clock=24), pos=(5, 6))
    obs = observe_runner(s, 1)
    assert obs.window[2] == "~~~"
    m = recall(obs)
    assert m.water == 1  # row 7 is one below its tile, (0, 0)
    assert m.chart.rows[2] == "..."  # water is floor on the chart
    assert walkable(m) == {(-1, -1), (0, -1), (1, -1), (-1, 0), (0, 0), (1, 0)}


def test_remembered_water_where_the_window_shows_dry_floor_is_dropped() -> None:
    wrong = Memory(0, (0, 0), Chart(-1, -1, ("...", "...", "...")), 1, None)
    s = runner(at(state_from(MIDDLE), tick=1), notes=write_notes(wrong), moves=(ok(WAIT),))
    assert recall(observe_runner(s, 1)).water is None
    higher = replace(wrong, water=3)  # below the window: nothing says otherwise
    s = runner(at(state_from(MIDDLE), tick=1), notes=write_notes(higher), moves=(ok(WAIT),))
    assert recall(observe_runner(s, 1)).water == 3


def test_the_exit_is_remembered_until_the_window_shows_its_tile_without_it() -> None:
    s = runner(state_from(MIDDLE), pos=(5, 1))
    m = recall(observe_runner(s, 1))
    assert m.exit == (0, -1)
    # on the exit itself the window shows '@': it still knows where it is
    on_exit = replace(m, pos=(0, -1), tick=0)
    s = runner(at(state_from(MIDDLE), tick=1), pos=(5, 0), notes=write_notes(on_exit))
    s = runner(s, moves=(ok(WAIT),))
    assert recall(observe_runner(s, 1)).exit == (0, -1)
    # an exit remembered where the window shows floor is forgotten
    wrong = replace(m, tick=0, exit=(1, -1))
    s = runner(at(state_from(MIDDLE), tick=1), pos=(5, 2), notes=write_notes(wrong))
    s = runner(s, moves=(ok(WAIT),))
    assert recall(observe_runner(s, 1)).exit is None


# --- the notes: the cap ------------------------------------------------------------------


#: A 20 x 20 chart of an open room, SCOUT at (3, 4), its corner at (-7, -2).
BIG = Memory(
    tick=37,
    pos=(3, 4),
    chart=Chart(
        -7, -2, tuple("#" * 20 if y in (0, 19) else "#" + "." * 18 + "#" for y in range(20))
    ),
    water=15,
    exit=(0, -2),
)


def test_crop_keeps_the_part_around_it_when_the_chart_is_too_big() -> None:
    chart = Chart(0, 0, tuple(f"{y}" * 10 for y in range(10)))
    assert crop(chart, (4, 4), 100) is chart
    # min(10, 30 // 5) = 6 columns, 30 // 6 = 5 rows, centred on (4, 4): x 2-7, y 2-6
    assert crop(chart, (4, 4), 30) == Chart(2, 2, tuple(f"{y}" * 6 for y in range(2, 7)))
    assert crop(chart, (0, 0), 30) == Chart(0, 0, tuple(f"{y}" * 6 for y in range(5)))  # a corner
    assert crop(chart, (9, 9), 30) == Chart(4, 5, tuple(f"{y}" * 6 for y in range(5, 10)))
    # all 10 columns while 5 rows of them fit, then as many rows as fit
    assert crop(chart, (4, 9), 64) == Chart(0, 4, tuple(f"{y}" * 10 for y in range(4, 10)))
    assert crop(chart, (4, 4), 25) == Chart(2, 2, tuple(f"{y}" * 5 for y in range(2, 7)))
    assert crop(chart, (4, 4), 24) is None  # not even the 5 x 5 around it
    narrow = Chart(0, 0, tuple("abc" for _ in range(20)))  # a corridor: all of its width
    assert crop(narrow, (1, 10), 25) == Chart(0, 7, ("abc",) * 8)  # the odd row: below


@pytest.mark.parametrize("cap", range(0, 160))
def test_notes_never_pass_the_cap_and_keep_the_tiles_around_it(cap: int) -> None:
    kept = fit(BIG, cap)
    header = len(write_notes(BIG)) - len(write_notes(BIG).rsplit(" ", 1)[1])
    smallest = len(write_notes(crop_to(BIG, 5, 5)))
    assert (kept is None) == (3 * (cap - header) < 25 or cap < smallest)
    if kept is None:
        return
    m, notes = kept
    assert len(notes) <= cap
    assert read_notes(notes) == m
    assert (m.tick, m.pos, m.water, m.exit) == (BIG.tick, BIG.pos, BIG.water, BIG.exit)
    x, y = m.pos
    for p in [(x + dx, y + dy) for dx in range(-2, 3) for dy in range(-2, 3)]:
        assert m.chart.tile(p) == BIG.chart.tile(p)
    for r, row in enumerate(m.chart.rows):  # what it keeps is what it knew
        for c, tile in enumerate(row):
            assert BIG.chart.tile((m.chart.left + c, m.chart.top + r)) == tile
    if cap >= len(write_notes(BIG)):
        assert m == BIG
    elif m.chart.width == BIG.chart.width:  # it keeps as many whole rows as the cap holds
        # (give or take the digits by which the whole chart's corner is longer)
        one_more = replace(m.chart, rows=(*m.chart.rows, m.chart.rows[0]))
        assert len(write_notes(replace(m, chart=one_more))) > cap - 2


def crop_to(m: Memory, cols: int, rows: int) -> Memory:
    chart = crop(m.chart, m.pos, cols * rows)
    assert chart is not None
    return replace(m, chart=chart)


def test_with_no_room_for_notes_it_plays_as_wallhug() -> None:
    for cap in (0, 10, 20, 29):  # tick 0's header takes 21 runes, 25 tiles 9 more
        s = state_from(MIDDLE, runner_notes_cap=cap)
        for _ in range(6):
            for r in s.runners:
                obs = observe_runner(s, r.seat)
                decision = reply_of(obs)
                assert decision == RunnerDecision(wallhug_move(obs), "")
            s = silent_tick(s)
    # with room, it does not: at tick 0 WALLHUG turns W (heading N), SCOUT goes N
    obs = observe_runner(state_from(MIDDLE), 1)
    assert (wallhug_move(obs), scout_move(obs)) == (W, N)


# --- orders: exactly as WALLHUG ---------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "move"),
    [
        ("Sprocket E", E),
        ("Sprocket S", S),
        ("Sprocket W", W),
        ("Sprocket N", N),
        ("Sprocket hold", WAIT),
        ("Gizmo N; Sprocket: w", W),
        ("Gizmo E", N),  # not named: it explores (N, as with no message)
    ],
)
def test_it_obeys_an_order_in_its_inbox(message: str, move: Move) -> None:
    assert move_of(told(state_from(MIDDLE), message)) is move


def test_it_obeys_a_standing_order_and_detours_as_wallhug() -> None:
    standing = at(state_from(MIDDLE), tick=3, transmissions=(Transmission(0, "Sprocket N"),))
    s = runner(standing, pos=(5, 1))
    obs = observe_runner(s, 1)
    assert (obs.inbox, obs.standing_order, obs.standing_order_age) == (None, "Sprocket N", 2)
    assert obs.window[0] == "#E#"
    assert move_of(s) is wallhug_move(obs) is N  # into the shut exit
    s = runner(standing, pos=(4, 1))
    obs = observe_runner(s, 1)
    assert obs.window[0] == "##E"
    assert move_of(s) is wallhug_move(obs) is E  # N is wall: the nearest angle, clockwise


def test_walled_in_by_wall_and_water_it_waits_whatever_the_order() -> None:
    s = state_from(
        """
        #####E#####
        #.2.....3.#
        #.K.......#
        #.........#
        #.........#
        #....#....#
        #...#1#...#
        #.........#
        ###########
        """
    )
    s = at(s, clock=24)  # row 7 flooded
    assert observe_runner(s, 1).window == (".#.", "#@#", "~~~")
    for message in ("Sprocket N", "Sprocket E", "Sprocket S", "Sprocket W"):
        assert move_of(told(s, message)) is WAIT
    assert move_of(s) is WAIT  # nowhere dry to go at all


# --- exploring: the target --------------------------------------------------------------


def test_it_heads_for_the_nearest_unseen_tile_counted_one_step_beyond() -> None:
    m = memory("#########", "#?..@...?", "#########")
    assert target(m, gate_open=False) == (1, 1)  # 3 steps, against 4
    assert explore(m, gate_open=False) is W


def test_between_unseen_tiles_as_near_the_upper_then_the_left_wins() -> None:
    m = memory("###?###", "###.###", "#?.@.?#", "#######")
    assert target(m, gate_open=False) == (3, 0)
    assert explore(m, gate_open=False) is N
    m = memory("#######", "#######", "#?.@.?#", "#######")
    assert target(m, gate_open=False) == (1, 2)
    assert explore(m, gate_open=False) is W


def test_the_tile_north_of_the_exit_is_not_there_to_explore() -> None:
    m = memory("####?##", "####E##", "#?..@.#", "#######")
    assert target(m, gate_open=False) == (1, 2)  # not (4, 0), two steps away
    assert explore(m, gate_open=False) is W


def test_a_tile_under_water_is_not_explored() -> None:
    m = memory("#######", "##...@#", "#####?#")
    assert explore(m, gate_open=False) is S
    assert explore(replace(m, water=3), gate_open=False) is S  # row 2 is still dry
    assert target(replace(m, water=2), gate_open=False) is None
    assert explore(replace(m, water=2), gate_open=False) is WAIT


def test_once_it_has_seen_water_or_the_gate_is_open_it_explores_upward() -> None:
    m = memory("#?#####", "#.#####", "#.#####", "#...@.?", "#######")
    assert target(m, gate_open=False) == (6, 3)  # 2 steps; (1, 0) is 6
    assert explore(m, gate_open=False) is E
    assert target(replace(m, water=9), gate_open=False) == (1, 0)  # the highest first
    assert explore(replace(m, water=9), gate_open=False) is W
    assert target(m, gate_open=True) == (1, 0)  # the exit is on the top row
    assert explore(m, gate_open=True) is W


def test_it_never_walks_over_unseen_or_flooded_tiles() -> None:
    m = memory("#.?.#", "#.#.#", "#.@.#", "#####", water=None)
    assert walkable(m) == {(1, 0), (3, 0), (1, 1), (3, 1), (1, 2), (2, 2), (3, 2)}
    m = memory("#...#", "#.#.#", "#.@.#", "#.#.#", water=2)
    assert walkable(m) == {(1, 0), (2, 0), (3, 0), (1, 1), (3, 1)}


def test_with_the_gate_shut_a_key_beats_any_unseen_tile() -> None:
    m = memory("#######", "#K..@.?", "#######")
    assert target(m, gate_open=False) == (1, 1)  # 3 steps, the unseen tile 2
    assert explore(m, gate_open=False) is W
    m = memory("#########", "#K..@..K#", "#########")
    assert target(m, gate_open=False) == (1, 1)  # as near: the left
    m = memory("#####", "##K##", "##.##", "##@.K", "#####")
    assert target(m, gate_open=False) == (2, 1)  # as near: the upper
    assert explore(m, gate_open=False) is N


def test_a_key_under_water_is_out_of_play() -> None:
    m = memory("#######", "#.@...#", "#K###.#", "#######", water=2)
    assert target(m, gate_open=False) is None
    assert target(replace(m, water=3), gate_open=False) == (1, 2)


def test_with_the_gate_open_it_goes_for_the_exit_and_ignores_keys() -> None:
    m = memory("##E####", "#K..@.?", "#######")
    assert explore(m, gate_open=False) is W  # the key at (1, 1)
    assert target(m, gate_open=True) == (2, 0)
    assert explore(m, gate_open=True) is W
    m = memory("##E####", "#...@.?", "#######")
    assert explore(m, gate_open=False) is E  # gate shut: the unseen tile first
    assert explore(m, gate_open=True) is W
    m = memory("#######", "#K..@.?", "#######")  # the gate is open: the key must be gone
    assert target(m, gate_open=True) == (6, 1)


def test_with_nothing_left_to_see_it_goes_to_the_exit_and_waits_there() -> None:
    m = memory("##E##", "#.@.#", "#####")
    assert explore(m, gate_open=False) is N
    on_exit = memory("##@##", "#...#", "#####")
    on_exit = replace(on_exit, exit=on_exit.pos)
    assert target(on_exit, gate_open=False) == (2, 0)  # north of it is off the board
    assert explore(on_exit, gate_open=False) is WAIT


def test_with_nothing_left_to_see_and_no_exit_it_waits() -> None:
    m = memory("#####", "#.@.#", "#####")
    assert target(m, gate_open=False) is None
    assert explore(m, gate_open=False) is WAIT
    assert explore(m, gate_open=True) is WAIT


# --- exploring: the step ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("goal", "move"),
    [((4, 0), N), ((0, 4), S), ((4, 4), E), ((0, 0), N), ((2, 0), N), ((4, 2), E)],
)
def test_the_step_is_the_nearest_neighbour_ties_n_e_s_w(goal: tuple[int, int], move: Move) -> None:
    m = memory(".....", ".....", "..@..", ".....", ".....")
    assert step_towards(m, goal) is move


def test_the_step_follows_the_chart_round_walls() -> None:
    m = memory("#?###", "#.#.#", "#...#", "#.@.#", "#####")
    assert target(m, gate_open=False) == (1, 0)
    assert explore(m, gate_open=False) is N  # (2, 2) and (1, 3) are as near: N first
    assert step_towards(m, (3, 1)) is N


# --- on real boards, through the engine --------------------------------------------------


def test_it_picks_up_a_key_its_window_shows() -> None:
    s = state_from(
        """
        #####E#####
        #.........#
        #.........#
        #.........#
        #.........#
        #.........#
        #.K.......#
        #1...2...3#
        ###########
        """
    )
    assert observe_runner(s, 1).window == ("#.K", "#@.", "###")
    assert move_of(s) is N  # both N and E are a step from the key: N first
    s = silent_tick(silent_tick(s))
    assert s.runner(1).keys == ((2, 6),)


def test_on_an_open_room_with_a_silent_keeper_all_three_escape() -> None:
    s = state_from(MIDDLE)
    while not s.over:
        s = silent_tick(s)
    assert [r.status.value for r in s.runners] == ["escaped"] * 3


def test_it_is_a_pure_function_of_its_observation() -> None:  # L1, L5
    s = state_from(MIDDLE)
    for _ in range(4):
        s = silent_tick(s)
    for seat in (1, 2, 3):
        obs = observe_runner(s, seat)
        before = copy.deepcopy(obs)
        first = scout(obs)
        assert scout(obs) == first
        assert obs == before
        assert scout(observe_runner(s, seat)) == first
        assert set(json.loads(first)) == {"move", "notes"}
