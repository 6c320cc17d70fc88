"""Golden playthroughs: whole games from scripted inputs, pinned as readable transcripts.

Each game under ``tests/golden/playthroughs/`` is two files:

* ``NAME.inputs.txt`` - what drives the game, written by hand (or planned once and
  then frozen): the board source, optional config overrides and one line per tick.
* ``NAME.txt`` - the expected transcript: the config, the starting board, then for
  every tick its inputs, what happened and the keeper's grid afterwards, and the
  results.

The test plays each inputs file with the engine, renders the transcript and
compares it with ``NAME.txt``, showing a unified diff on mismatch; the test never
writes. After an intended rules change, regenerate the transcripts with::

    python -m tests.golden.update

and review the diff of ``tests/golden/playthroughs/*.txt`` line by line before
committing it with a message that says why it changed: a transcript is only worth
pinning once a person has checked it (tests/golden/README.md).

Inputs grammar (``#`` starts a comment line; blank lines are ignored)::

    seed 7 variant default            # a generated board (variant default or spring)
    board variant default             # ... or a board drawn inline, its rows indented
        #####E#####                   #     (# wall . floor E exit K key 1 2 3 starts);
        ...                           #     width, height and keyCount come from it
    config maxTicks=12 tideDelay=4    # optional overrides, camelCase, JSON values
    tick 0: keeper "Sprocket N; Gizmo hold" | 1:N 2:WAIT 3:E
    tick 1: keeper silent | 1:N 2:N 3:N
    tick 2: keeper transmit=false "unsent" | 1:N 3:W

The keeper is ``silent`` (no message, transmit absent), a JSON string (transmit
absent, so inferred from the message) or ``transmit=true|false`` and a JSON string.
Ticks are numbered from 0 without gaps; a runner that has escaped or drowned gets no
move (the engine refuses one), and the file ends exactly when the game does.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic.alias_generators import to_snake

from harness.errors import RulesError
from harness.games.lighthouse import (
    Board,
    GameState,
    KeeperDecision,
    LighthouseConfig,
    Move,
    Reason,
    RunnerDecision,
    generate_board,
    new_game,
    resolve_tick,
    results,
    transmits,
)
from harness.games.lighthouse.config import VARIANTS
from harness.games.lighthouse.observe import keeper_grid
from harness.games.lighthouse.rules import TickEvents

GOLDEN_DIR = Path(__file__).parent / "golden" / "playthroughs"
UPDATE_COMMAND = "python -m tests.golden.update"


class InputsError(ValueError):
    """An inputs file is malformed; the message names the file and line."""


@dataclass(frozen=True)
class TickInput:
    tick: int
    keeper: KeeperDecision
    moves: dict[int, Move]


@dataclass(frozen=True)
class Playthrough:
    name: str
    source: str  # how the board was obtained, for the transcript
    config: LighthouseConfig
    board: Board
    ticks: tuple[TickInput, ...]


# --- parsing ----------------------------------------------------------------------

_JSON_STRING = r'"(?:[^"\\]|\\.)*"'
_TICK_LINE = re.compile(
    r"tick (?P<tick>\d+): keeper (?P<keeper>silent|(?:transmit=(?:true|false) )?"
    + _JSON_STRING
    + r") \|(?P<moves>(?: [123]:[A-Z]+)*)"
)
_SEED_LINE = re.compile(r"seed (?P<seed>\d+) variant (?P<variant>\w+)")
_BOARD_LINE = re.compile(r"board variant (?P<variant>\w+)")
_SETTING = re.compile(r"(?P<key>[A-Za-z]+)=(?P<value>\S+)")


def _keeper_decision(text: str) -> KeeperDecision:
    if text == "silent":
        return KeeperDecision(transmit=None, message="")
    transmit: bool | None = None
    if text.startswith("transmit="):
        flag, text = text.split(" ", 1)
        transmit = flag == "transmit=true"
    message = json.loads(text)
    assert isinstance(message, str)
    return KeeperDecision(transmit=transmit, message=message)


def keeper_text(decision: KeeperDecision) -> str:
    """The inputs-file spelling of a keeper decision (inverse of :func:`_keeper_decision`)."""
    if decision.transmit is None and decision.message == "":
        return "silent"
    flag = "" if decision.transmit is None else f"transmit={str(decision.transmit).lower()} "
    return flag + json.dumps(decision.message, ensure_ascii=False)


def moves_text(moves: dict[int, Move]) -> str:
    return " ".join(f"{seat}:{move.value}" for seat, move in sorted(moves.items()))


def parse_inputs(path: Path) -> Playthrough:
    name = path.name.removesuffix(".inputs.txt")
    lines = path.read_text(encoding="utf-8").splitlines()
    source: str | None = None
    variant = "default"
    seed: int | None = None
    drawn: list[str] = []
    overrides: dict[str, Any] = {}
    ticks: list[TickInput] = []
    in_board = False

    def fail(lineno: int, why: str) -> InputsError:
        return InputsError(f"{path.name}:{lineno}: {why}: {lines[lineno - 1]!r}")

    for lineno, raw in enumerate(lines, start=1):
        if in_board and raw[:1].isspace() and raw.strip():
            drawn.append(raw.strip())
            continue
        in_board = False
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if m := _SEED_LINE.fullmatch(line):
            if source is not None:
                raise fail(lineno, "a second board source")
            seed, variant = int(m["seed"]), m["variant"]
            source = f"seed {seed} variant {variant}"
        elif m := _BOARD_LINE.fullmatch(line):
            if source is not None:
                raise fail(lineno, "a second board source")
            variant = m["variant"]
            source = f"drawn in {path.name}, variant {variant}"
            in_board = True
        elif line.startswith("config"):
            for item in line.split()[1:]:
                setting = _SETTING.fullmatch(item)
                if setting is None:
                    raise fail(lineno, f"config items are key=value, not {item!r}")
                overrides[to_snake(setting["key"])] = json.loads(setting["value"])
        elif m := _TICK_LINE.fullmatch(line):
            if int(m["tick"]) != len(ticks):
                raise fail(lineno, f"expected tick {len(ticks)}")
            moves: dict[int, Move] = {}
            for item in m["moves"].split():
                seat, token = item.split(":")
                if int(seat) in moves:
                    raise fail(lineno, f"two moves for runner {seat}")
                try:
                    moves[int(seat)] = Move(token)
                except ValueError:
                    raise fail(lineno, f"{token!r} is not one of N, E, S, W, WAIT") from None
            ticks.append(TickInput(int(m["tick"]), _keeper_decision(m["keeper"]), moves))
        else:
            raise fail(lineno, "not a seed, board, config or tick line")

    if source is None:
        raise InputsError(f"{path.name}: no board source (a 'seed' or 'board' line)")
    if variant not in VARIANTS:
        raise InputsError(f"{path.name}: unknown variant {variant!r}; choose one of {VARIANTS}")
    if seed is not None:
        config = LighthouseConfig.for_variant(variant, **overrides)
        board = generate_board(config, seed)
    else:
        board = Board.from_ascii(drawn)
        drawn_size = {"width": board.width, "height": board.height, "key_count": len(board.keys)}
        config = LighthouseConfig.for_variant(variant, **drawn_size, **overrides)
    return Playthrough(name, source, config, board, tuple(ticks))


# --- rendering --------------------------------------------------------------------


def _pos(pos: tuple[int, int]) -> str:
    return f"({pos[0]},{pos[1]})"


def _grid(rows: tuple[str, ...], indent: str = "    ") -> list[str]:
    width = len(rows[0])
    header = indent + "   " + "".join(str(x % 10) for x in range(width))
    return [header, *(f"{indent}{y:>2} {row}" for y, row in enumerate(rows))]


def _water(state: GameState, clock: int) -> str:
    line = state.tide.water_line(clock)
    rows = state.tide.rows(clock)
    return f"water line y={line} ({rows} of {state.board.height} rows flooded)"


def _describe_header(game: Playthrough) -> list[str]:
    config, board = game.config, game.board
    state = new_game(config, board)
    floods = ", ".join(
        f"y={y} at {state.tide.row_flood_clock(y)}" for y in range(board.height - 1, -1, -1)
    )
    aliases = ", ".join(f"{seat} {alias}" for seat, alias in enumerate(config.aliases, start=1))
    return [
        f"# Golden playthrough {game.name!r}: rendered from {game.name}.inputs.txt by",
        "# tests/test_golden_playthroughs.py; changed only by python -m tests.golden.update.",
        "config " + json.dumps(config.to_json(), separators=(", ", ": ")),
        f"board {game.source}: {board.width} x {board.height}",
        *_grid(board.to_ascii()),
        f"exit {_pos(board.exit)}; keys {' '.join(_pos(k) for k in board.keys)}; "
        f"starts {' '.join(_pos(s) for s in board.starts)}",
        f"runners {aliases}",
        f"floodClock {state.flood_clock}; rows flood at clock: {floods}",
    ]


def _describe_tick(
    before: GameState, inputs: TickInput, after: GameState, ev: TickEvents
) -> list[str]:
    keeper = inputs.keeper
    lines = [f"tick {inputs.tick}: keeper {keeper_text(keeper)} | {moves_text(inputs.moves)}"]
    alias = {r.seat: f"{r.seat} {r.alias}" for r in before.runners}
    if ev.transmission is not None:
        lines.append(
            f"  keeper transmits {json.dumps(ev.transmission, ensure_ascii=False)} "
            f"(inbox of tick {ev.tick + 1})"
        )
    elif keeper.message.strip() and keeper.transmit is False:
        lines.append("  keeper silent (transmit=false: the message is not sent)")
    elif keeper.message:
        lines.append("  keeper silent (the message is only whitespace)")
    else:
        lines.append("  keeper silent")
    board = before.board
    for r in ev.runners:
        dx, dy = r.move.delta
        target = (r.start[0] + dx, r.start[1] + dy)
        if r.move is Move.WAIT:
            what = f"WAIT at {_pos(r.start)}"
        elif r.bumped:
            if not board.in_bounds(target):
                obstacle = "off the board"
            elif not board.is_floor(target):
                obstacle = "wall"
            else:
                obstacle = "water"
            what = f"{r.move.value} bumps: {obstacle} at {_pos(target)}, stays at {_pos(r.start)}"
        else:
            what = f"{r.move.value} {_pos(r.start)} -> {_pos(r.end)}"
        lines.append(f"  move {alias[r.seat]}: {what}")
    collected = len(before.collected)
    for r in ev.runners:
        if r.picked_key is not None:
            collected += 1
            lines.append(
                f"  key {alias[r.seat]} picks up the key at {_pos(r.picked_key)} "
                f"({collected} of {len(board.keys)} collected)"
            )
    if ev.gate_opened:
        lines.append("  gate opens")
    for r in ev.runners:
        if r.escaped:
            lines.append(f"  exit {alias[r.seat]} escapes at {_pos(r.end)}")
        elif r.end == board.exit:
            lines.append(f"  exit {alias[r.seat]} waits on the exit: the gate is shut")
    spoke = " (keeper transmitted)" if ev.transmission is not None else ""
    lines.append(f"  clock {ev.clock_before} -> {ev.clock_after}{spoke}")
    before_line = before.tide.water_line(ev.clock_before)
    if ev.water_line != before_line:
        lines.append(
            f"  tide rises: {_water(before, ev.clock_before)} -> {_water(after, ev.clock_after)}"
        )
    else:
        lines.append(f"  tide {_water(after, ev.clock_after)}")
    for r in ev.runners:
        if r.drowned:
            lines.append(f"  drown {alias[r.seat]} drowns at {_pos(r.end)}")
    lines.append(f"  end {ev.reason.value if ev.reason else 'play on'}")
    lines.append(f"  grid after tick {ev.tick}:")
    lines.extend(_grid(keeper_grid(after)))
    return lines


def play(game: Playthrough) -> tuple[GameState, str]:
    """Play ``game`` with the engine; return the final state and the transcript text."""
    state = new_game(game.config, game.board)
    lines = _describe_header(game)
    for inputs in game.ticks:
        if state.over:
            raise InputsError(f"{game.name}: tick {inputs.tick} given, but the game is over")
        decisions = {seat: RunnerDecision(move) for seat, move in inputs.moves.items()}
        before = state
        state, events = resolve_tick(state, inputs.keeper, decisions)
        assert transmits(inputs.keeper) == (events.transmission is not None)
        lines.append("")
        lines.extend(_describe_tick(before, inputs, state, events))
    if not state.over:
        raise InputsError(f"{game.name}: the inputs end at tick {state.tick}; the game is not over")
    res = results(state)
    lines += [
        "",
        "results",
        f"  reason {res.reason.value}",
        f"  teamScore {res.team_score!r}",
        f"  K {res.keys_collected} of keyCount {res.key_count}; E {res.escaped}; "
        f"B {res.time_bonus!r}",
        f"  clock {res.clock}; floodClock {res.flood_clock}; ticks {res.ticks}",
        "  runners "
        + ", ".join(f"{r.seat} {r.alias} {r.status.value} at {_pos(r.pos)}" for r in state.runners),
    ]
    return state, "\n".join(lines) + "\n"


# --- the tests --------------------------------------------------------------------

INPUT_FILES = sorted(GOLDEN_DIR.glob("*.inputs.txt"))


def test_every_playthrough_has_a_transcript_and_a_story() -> None:
    games = {path.name.removesuffix(".inputs.txt") for path in INPUT_FILES}
    transcripts = {
        path.name.removesuffix(".txt")
        for path in GOLDEN_DIR.glob("*.txt")
        if not path.name.endswith(".inputs.txt")
    }
    # No transcript without its inputs, none missing, and each game's story is checked.
    assert games == transcripts == set(COVERAGE)
    assert len(games) >= 3


@pytest.mark.parametrize("inputs_path", INPUT_FILES, ids=lambda p: p.name.split(".")[0])
def test_playthrough_matches_its_transcript(inputs_path: Path) -> None:
    game = parse_inputs(inputs_path)
    _, actual = play(game)
    expected_path = inputs_path.with_name(f"{game.name}.txt")
    if not expected_path.exists():
        pytest.fail(f"{expected_path} is missing; create it with {UPDATE_COMMAND}", pytrace=False)
    expected = expected_path.read_text(encoding="utf-8")
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                fromfile=f"{expected_path.name} (pinned)",
                tofile=f"{expected_path.name} (engine now)",
            )
        )
        pytest.fail(
            f"the playthrough {game.name!r} no longer matches its transcript "
            f"(if the change is intended, run {UPDATE_COMMAND}, review the diff and "
            f"commit it saying why):\n{diff}",
            pytrace=False,
        )


# What each game is there to cover; pinned apart from the transcripts so that a
# careless regeneration cannot quietly turn a game into a different story.
def _all_escape(state: GameState) -> None:
    res = results(state)
    assert res.reason is Reason.COMPLETE
    assert (res.keys_collected, res.escaped) == (res.key_count, 3)
    assert res.time_bonus > 0
    assert state.config.tide_period == 7


def _spring_flood(state: GameState) -> None:
    res = results(state)
    assert state.config.tide_period == 5
    assert res.reason is Reason.COMPLETE
    assert any(r.status.value == "drowned" for r in state.runners)
    assert state.clock >= state.flood_clock or not any(r.active for r in state.runners)
    assert len(state.transmissions) >= state.tick // 2  # a chatty keeper


def _tick_cap(state: GameState) -> None:
    res = results(state)
    assert res.reason is Reason.TIMEUP
    assert state.tick == state.config.max_ticks < 60
    assert any(r.active for r in state.runners)


def _pilot_default(state: GameState) -> None:
    # A quiet planner: every key out and everyone escaped, talking on few ticks.
    res = results(state)
    assert state.config.tide_period == 7
    assert res.reason is Reason.COMPLETE
    assert (res.keys_collected, res.escaped) == (res.key_count, 3)
    assert 0 < len(state.transmissions) <= state.tick // 4


def _pilot_spring(state: GameState) -> None:
    # At spring tide the planner still brings every key out, at the cost of a runner.
    res = results(state)
    assert state.config.tide_period == 5
    assert res.reason is Reason.COMPLETE
    assert (res.keys_collected, res.escaped) == (res.key_count, 2)
    assert [r.status.value for r in state.runners].count("drowned") == 1


def _scout_silent_default(state: GameState) -> None:
    # Explorers on their own: no word said, every key found, everyone out.
    res = results(state)
    assert state.config.tide_period == 7
    assert state.transmissions == ()
    assert res.reason is Reason.COMPLETE
    assert (res.keys_collected, res.escaped) == (res.key_count, 3)


def _scout_pilot_spring(state: GameState) -> None:
    # Orders obeyed between explorations: every key, two out, one cut off by the water.
    res = results(state)
    assert state.config.tide_period == 5
    assert res.reason is Reason.COMPLETE
    assert (res.keys_collected, res.escaped) == (res.key_count, 2)
    assert [r.status.value for r in state.runners].count("drowned") == 1
    assert len(state.transmissions) >= 3


COVERAGE = {
    "01_all_escape": _all_escape,
    "02_spring_flood": _spring_flood,
    "03_tick_cap": _tick_cap,
    "04_pilot_default_seed12": _pilot_default,
    "05_pilot_spring_seed16": _pilot_spring,
    "06_scout_silent_default_seed12": _scout_silent_default,
    "07_scout_pilot_spring_seed16": _scout_pilot_spring,
}


@pytest.mark.parametrize("name", sorted(COVERAGE))
def test_playthrough_covers_its_story(name: str) -> None:
    state, _ = play(parse_inputs(GOLDEN_DIR / f"{name}.inputs.txt"))
    COVERAGE[name](state)


def test_inputs_round_trip_through_the_canonical_spelling() -> None:
    for decision in (
        KeeperDecision(None, ""),
        KeeperDecision(None, "Sprocket N; Gizmo hold"),
        KeeperDecision(True, 'say "hi" | 1:N'),
        KeeperDecision(False, "   "),
    ):
        assert _keeper_decision(keeper_text(decision)) == decision


def test_a_move_for_a_resolved_runner_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bad.inputs.txt"
    path.write_text(
        "board variant default\n"
        "    #####E#####\n"
        "    #....K....#\n"
        "    #.#######.#\n"
        "    #.#.....#.#\n"
        "    #.#.###.#.#\n"
        "    #1..#2..#3#\n"
        "    ###########\n"
        "config maxTicks=5 tideDelay=0 tidePeriod=1\n"
        "tick 0: keeper silent | 1:N 2:WAIT 3:WAIT\n"
        "tick 1: keeper silent | 1:N 2:WAIT 3:WAIT\n"
        "tick 2: keeper silent | 1:N 2:WAIT\n",
        encoding="utf-8",
    )
    game = parse_inputs(path)
    # Runners 2 and 3 drown at the end of tick 1 (water line y=5 at clock 2).
    with pytest.raises(RulesError, match=r"tick 2: .*active runners are \[1\]"):
        play(game)
