"""WALLHUG, the scripted runner, and the order syntax it reads (decisions B7, L1, L3, T2).

Boards are hand-drawn with y growing DOWN; a runner's window is north row first.
Runner 1 (Sprocket) is the one under test unless a test says otherwise.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace

import pytest

from baselines.lighthouse.wallhug import heading, is_open, ordered_move, wallhug, wallhug_move
from harness.games.lighthouse.observe import observe_runner
from harness.games.lighthouse.orders import find_order
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
from tests.conftest import OPEN_ROOM, at, place, state_from

N, E, S, W, WAIT = Move.N, Move.E, Move.S, Move.W, Move.WAIT

#: Runner 1 at (5, 4) in the middle of an open room: every way is open.
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


def say(state: GameState, message: str | None) -> GameState:
    """One tick: the keeper sends ``message`` (None: silence), every active runner WAITs."""
    keeper = KeeperDecision(transmit=message is not None, message=message or "")
    seats = {r.seat: RunnerDecision(WAIT) for r in state.runners if r.active}
    return resolve_tick(state, keeper, seats)[0]


def told(state: GameState, message: str) -> GameState:
    """``state`` at tick 1 with ``message`` (sent at tick 0) in every runner's inbox."""
    return at(state, tick=1, transmissions=(Transmission(0, message),))


def with_moves(state: GameState, seat: int, *records: MoveRecord) -> GameState:
    runners = list(state.runners)
    runners[seat - 1] = replace(runners[seat - 1], moves=records)
    r1, r2, r3 = runners
    return replace(state, runners=(r1, r2, r3))


def ok(move: Move) -> MoveRecord:
    return MoveRecord(move, bumped=False)


def bump(move: Move) -> MoveRecord:
    return MoveRecord(move, bumped=True)


def move_of(state: GameState, seat: int = 1) -> Move:
    """WALLHUG's move for ``seat``, checked against the reply text it sends."""
    obs = observe_runner(state, seat)
    move = wallhug_move(obs)
    decision = parse_runner_reply(wallhug(obs), notes_cap=obs.notes_cap)
    assert isinstance(decision, RunnerDecision)
    assert decision.move is move
    return move


def board(*rows: str) -> GameState:
    """A board from the rows between the exit row and the bottom wall (7 rows, 11 wide)."""
    assert len(rows) == 7
    return state_from("\n".join(("#####E#####", *rows, "###########")))


# --- L1: pure, and a model's reply shape ------------------------------------------------


def test_wallhug_is_pure_and_replies_like_a_model() -> None:  # L1
    s = say(say(state_from(MIDDLE), "Sprocket E"), None)
    for seat in (1, 2, 3):
        obs = observe_runner(s, seat)
        before = copy.deepcopy(obs)
        first = wallhug(obs)
        assert wallhug(obs) == first
        assert obs == before
        assert wallhug(observe_runner(s, seat)) == first
        assert set(json.loads(first)) == {"move"}
        decision = parse_runner_reply(first, notes_cap=obs.notes_cap)
        assert isinstance(decision, RunnerDecision)
        assert decision.notes is None  # a baseline keeps the seat's notes
    assert move_of(s, 1) is E  # the standing order, age 1


# --- L3: the order syntax (find_order) -------------------------------------------------


@pytest.mark.parametrize(
    ("message", "move"),
    [
        ("Sprocket N", N),
        ("sprocket: e", E),
        ("SPROCKET:W", W),
        ("Sprocket\tS", S),
        ("Sprocket \t : \t n", N),
        ("sPrOcKeT s", S),
        ("Sprocket north", N),
        ("Sprocket UP", N),
        ("Sprocket right", E),
        ("Sprocket East", E),
        ("Sprocket left", W),
        ("Sprocket west", W),
        ("Sprocket down", S),
        ("Sprocket SOUTH", S),
        ("Sprocket hold", WAIT),
        ("Sprocket H", WAIT),
        ("Sprocket: h", WAIT),
        ("Sprocket WAIT", WAIT),
        ("Sprocket stay", WAIT),
        ("Gizmo N; Sprocket E; Ratchet hold", E),
        ("Sprocket N.", N),  # punctuation ends the token
        ("Sprocket E;Gizmo W", E),
        ("Sprocket, go! Sprocket E; Sprocket W", E),  # first mention WITH a direction
        ("Sprocket hold; Sprocket N", WAIT),
        ("Sprocket Nope; Sprocket E", E),  # the first mention has no direction token
        ("Sprocket \u017f; Sprocket N", N),  # nor does a long s
        ("Sprocketeer W; Sprocket S", S),
        ("(Sprocket N)", N),
        ("Gizmo-Sprocket N", N),  # '-' is not a word character: Sprocket is a whole word
    ],
)
def test_find_order_reads_an_order(message: str, move: Move | None) -> None:  # L3, B7
    assert find_order(message, "Sprocket") is move


@pytest.mark.parametrize(
    "message",
    [
        None,
        "",
        "Sprocket",
        "Sprocket, N",  # only spaces/tabs and an optional ':' between alias and direction
        "Sprocket go N",
        "Sprocket\nN",  # a newline is not a space or a tab
        "Sprocket::N",
        "N Sprocket",
        "Sprocketeer N",  # B7: the alias is a whole word
        "XSprocket N",
        "_Sprocket N",
        "Sprocket_N",
        "Sprocket Nope",  # the direction is a whole token
        "Sprocket N2",
        "Sprocket Northward",
        "Sprocket \u017f",  # long s: Python upper-cases it to 'S', but it is not ASCII
        "Sprocket \u017fouth",
        "Sprocket \uff2e",  # fullwidth N
        "Gizmo N",  # another runner's order
        "Gizmo N; Ratchet S",
        "Sprocket? Gizmo E",
    ],
)
def test_find_order_rejects_what_is_not_an_order(message: str | None) -> None:  # L3, B7
    assert find_order(message, "Sprocket") is None


def test_find_order_with_other_aliases() -> None:  # B7, L3
    assert find_order("gizmo: W; Sprocket N", "Gizmo") is W
    assert find_order("Sprocket N; GIZMO s", "Gizmo") is S
    assert find_order("Sprocket N; Gizmo E", "Ratchet") is None
    assert find_order("alias: e", "Sprocket") is None  # names nobody called Sprocket
    assert find_order("Alias N", "Alias") is N
    assert find_order("alias: e", "Alias") is E
    assert find_order("ALIAS:W", "Alias") is W
    assert find_order("Alias\tS", "Alias") is S
    # A configured alias is matched literally (and as a whole word, any case).
    assert find_order("r2.d2 n", "R2.D2") is N
    assert find_order("R2xD2 N", "R2.D2") is None
    assert find_order("Ada N", "Ad") is None
    assert find_order("Ad N", "Ada") is None


# --- L3, T2: which order a runner acts on ----------------------------------------------


def test_obeys_the_inbox_order() -> None:  # L3
    s = state_from(MIDDLE)
    assert move_of(s) is W  # no order: the left-hand rule, heading N, tries W first
    for message, move in (("Sprocket N", N), ("Sprocket E", E), ("Sprocket S", S)):
        assert move_of(told(s, message)) is move
    assert move_of(told(s, "Sprocket W")) is W
    s = say(s, "Gizmo N; Sprocket S; Ratchet E")  # through the engine
    obs = observe_runner(s, 1)
    assert obs.inbox == "Gizmo N; Sprocket S; Ratchet E"
    assert ordered_move(obs) is S
    assert move_of(s, 1) is S
    assert move_of(s, 2) is N  # runner 2 at (1, 7): ordered N, N is open
    assert move_of(s, 3) is N  # runner 3 at (9, 7): ordered E, a wall: the detour E -> S -> N


def test_a_message_naming_another_runner_only_does_not_order_this_one() -> None:  # L3
    s = told(state_from(MIDDLE), "Gizmo E; Ratchet S")
    obs = observe_runner(s, 1)
    assert ordered_move(obs) is None
    assert move_of(s) is W  # the left-hand rule, heading N


def test_inbox_order_beats_the_standing_order() -> None:  # L3, T2
    s = say(say(state_from(MIDDLE), "Sprocket E"), "Sprocket S")
    obs = observe_runner(s, 1)
    assert (obs.inbox, obs.standing_order, obs.standing_order_age) == (
        "Sprocket S",
        "Sprocket E",
        1,
    )
    assert move_of(s) is S


def test_an_inbox_without_an_order_for_it_leaves_the_standing_order() -> None:  # L3, T2
    s = say(say(state_from(MIDDLE), "Sprocket E"), "Gizmo N")
    obs = observe_runner(s, 1)
    assert (obs.inbox, obs.standing_order) == ("Gizmo N", "Sprocket E")
    assert move_of(s) is E
    s = say(say(state_from(MIDDLE), "Sprocket E"), "Sprocket, well done")
    assert move_of(s) is E


def test_standing_order_obeyed_up_to_age_three() -> None:  # L3, T2
    # Runner 1 at (1, 7): W and S are wall; with no order the left-hand rule (heading
    # N, never moved) takes N. The order is E.
    s = say(state_from(OPEN_ROOM), "Sprocket E")
    obs = observe_runner(s, 1)
    assert (obs.inbox, obs.standing_order) == ("Sprocket E", None)
    assert move_of(s) is E
    for age in (1, 2, 3):
        s = say(s, None)
        obs = observe_runner(s, 1)
        assert obs.inbox is None
        assert (obs.standing_order, obs.standing_order_age) == ("Sprocket E", age)
        assert move_of(s) is E
    s = say(s, None)  # age 4: no standing order any more
    obs = observe_runner(s, 1)
    assert (obs.standing_order, obs.latest_message_age) == (None, 4)
    assert ordered_move(obs) is None
    assert move_of(s) is N


@pytest.mark.parametrize("message", ["Sprocket hold", "Sprocket H", "Sprocket WAIT", "sprocket:h"])
def test_hold_means_wait(message: str) -> None:  # L3
    s = told(state_from(MIDDLE), message)
    assert ordered_move(observe_runner(s, 1)) is WAIT
    assert move_of(s) is WAIT  # although every way is open
    # a hold in the inbox also beats a standing order
    s = say(say(state_from(MIDDLE), "Sprocket N"), message)
    assert move_of(s) is WAIT


# --- L3: the detour when the ordered way is blocked ------------------------------------


@pytest.mark.parametrize(
    ("rows", "move"),
    [
        # runner 1 at (5, 4), ordered N; the rows y = 3, 4, 5 around it
        (("#.........#", "#....1....#", "#.........#"), N),  # open: N
        (("#....#....#", "#....1....#", "#.........#"), E),  # N wall: E (clockwise)
        (("#....#....#", "#....1#...#", "#.........#"), W),  # N, E wall: W
        (("#....#....#", "#...#1#...#", "#.........#"), S),  # N, E, W wall: S
        (("#....#....#", "#...#1#...#", "#....#....#"), WAIT),  # all wall
        (("#....#....#", "#...#1....#", "#.........#"), E),  # N, W wall: E
        (("#....#....#", "#....1....#", "#....#....#"), E),  # N, S wall: E
    ],
)
def test_ordered_north_detours_clockwise(rows: tuple[str, str, str], move: Move) -> None:  # L3
    r3, r4, r5 = rows
    s = board("#.........#", "#.........#", r3, r4, r5, "#.K.......#", "#2.......3#")
    s = told(s, "Sprocket N")
    assert move_of(s) is move


@pytest.mark.parametrize(
    ("rows", "move"),
    [
        # runner 1 at (5, 6), ordered S; row 7 is under water (clock 24)
        (("#.........#", "#....1....#"), W),  # S water: W (clockwise from S)
        (("#.........#", "#...#1....#"), E),  # S water, W wall: E
        (("#.........#", "#...#1#...#"), N),  # S water, W and E wall: N
        (("#....#....#", "#...#1#...#"), WAIT),  # wall and water everywhere
    ],
)
def test_ordered_south_detours_round_water(rows: tuple[str, str], move: Move) -> None:  # L3
    r5, r6 = rows
    s = board("#.2.....3.#", "#.........#", "#.K.......#", "#.........#", r5, r6, "#.........#")
    s = told(at(s, clock=24), "Sprocket S")
    obs = observe_runner(s, 1)
    assert obs.window[2] == "~~~"
    assert not is_open(obs, S)
    assert move_of(s) is move


def test_wait_when_walled_in_by_wall_and_water_with_any_order() -> None:  # L3
    s = board(
        "#.2.....3.#",
        "#.K.......#",
        "#.........#",
        "#.........#",
        "#....#....#",
        "#...#1#...#",
        "#.........#",
    )
    s = at(s, clock=24)  # row 7 flooded
    assert observe_runner(s, 1).window == (".#.", "#@#", "~~~")
    for message in ("Sprocket N", "Sprocket E", "Sprocket S", "Sprocket W"):
        assert move_of(told(s, message)) is WAIT
    assert move_of(s) is WAIT  # no order: the left-hand rule finds nothing either


def test_ordered_direction_open_is_taken_even_into_the_shut_exit() -> None:  # L3
    s = told(place(state_from(MIDDLE), 1, (5, 1)), "Sprocket N")
    obs = observe_runner(s, 1)
    assert obs.window[0] == "#E#"
    assert move_of(s) is N


# --- L3: the left-hand rule ------------------------------------------------------------


@pytest.mark.parametrize(
    ("records", "facing"),
    [
        ((), N),
        ((ok(E),), E),
        ((ok(S), ok(W)), W),
        ((ok(E), bump(N)), E),  # a bump is not a move
        ((ok(E), ok(WAIT)), E),  # nor is a WAIT
        ((ok(S), bump(W), ok(WAIT), bump(N), ok(WAIT), bump(E)), S),
        ((bump(E), ok(WAIT), bump(S)), N),  # nothing successful: N
    ],
)
def test_heading_is_the_last_successful_move(
    records: tuple[MoveRecord, ...], facing: Move
) -> None:  # L3
    s = with_moves(state_from(MIDDLE), 1, *records)
    assert heading(observe_runner(s, 1)) is facing


def test_heading_looks_at_the_last_six_moves_only() -> None:  # L3, O5
    s = state_from(MIDDLE)
    seats = {1: RunnerDecision(E), 2: RunnerDecision(WAIT), 3: RunnerDecision(WAIT)}
    s = resolve_tick(s, KeeperDecision(transmit=False), seats)[0]  # runner 1 moves E
    assert heading(observe_runner(s, 1)) is E
    for _ in range(5):
        s = say(s, None)
    assert heading(observe_runner(s, 1)) is E  # E is still the oldest of six
    s = say(s, None)
    obs = observe_runner(s, 1)
    assert [m.move for m in obs.moves] == [WAIT] * 6
    assert heading(obs) is N
    assert move_of(s) is W  # heading N: left is W


@pytest.mark.parametrize(
    ("facing", "move"),
    [(N, W), (E, N), (S, E), (W, S)],  # every way open: turn left
)
def test_left_hand_turns_left_first(facing: Move, move: Move) -> None:  # L3
    s = with_moves(state_from(MIDDLE), 1, ok(facing))
    assert move_of(s) is move


@pytest.mark.parametrize(
    ("rows", "move"),
    [
        # runner 1 at (5, 4), heading N: left W, ahead N, right E, back S
        (("#.........#", "#....1....#", "#.........#"), W),
        (("#.........#", "#...#1....#", "#.........#"), N),  # left wall: ahead
        (("#....#....#", "#...#1....#", "#.........#"), E),  # left, ahead wall: right
        (("#....#....#", "#...#1#...#", "#.........#"), S),  # only back is open
        (("#....#....#", "#...#1#...#", "#....#....#"), WAIT),
        (("#....#....#", "#....1#...#", "#.........#"), W),  # left open: left
    ],
)
def test_left_hand_priority(rows: tuple[str, str, str], move: Move) -> None:  # L3
    r3, r4, r5 = rows
    s = board("#.........#", "#.........#", r3, r4, r5, "#.K.......#", "#2.......3#")
    assert move_of(s) is move  # never moved: heading N
    assert move_of(with_moves(s, 1, bump(E), ok(WAIT))) is move  # still heading N


@pytest.mark.parametrize(
    ("rows", "move"),
    [
        # runner 1 at (5, 4), heading E: left N, ahead E, right S, back W
        (("#.........#", "#....1....#", "#.........#"), N),
        (("#....#....#", "#....1....#", "#.........#"), E),
        (("#....#....#", "#....1#...#", "#.........#"), S),
        (("#....#....#", "#....1#...#", "#....#....#"), W),
    ],
)
def test_left_hand_priority_heading_east(rows: tuple[str, str, str], move: Move) -> None:
    r3, r4, r5 = rows
    s = board("#.........#", "#.........#", r3, r4, r5, "#.K.......#", "#2.......3#")
    s = with_moves(s, 1, ok(N), ok(E), bump(S), ok(WAIT))
    assert heading(observe_runner(s, 1)) is E
    assert move_of(s) is move


def test_left_hand_treats_water_as_wall() -> None:  # L3
    # runner 1 at (5, 6), heading E: left N is wall, ahead E is wall, right S is water
    s = board(
        "#.2.....3.#",
        "#.K.......#",
        "#.........#",
        "#.........#",
        "#....#....#",
        "#....1#...#",
        "#.........#",
    )
    s = with_moves(s, 1, ok(E))
    assert move_of(s) is S  # dry: right
    s = at(s, clock=24)
    assert observe_runner(s, 1).window == (".#.", ".@#", "~~~")
    assert move_of(s) is W  # flooded: back
