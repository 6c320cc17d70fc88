"""SCOUT over whole games: what it sees, what it writes, how it replays, how it plays.

The properties here are checked against the engine over games of SCOUT runners with
the SILENT, LANTERN and PILOT keepers on many seeds at both tides, played once per
module and shared. Two games are pinned as golden playthroughs under
``tests/golden/playthroughs/`` (``06_scout_*``, ``07_scout_*``): the transcript test
checks them against the engine, and :func:`test_scout_still_plays_its_golden_games`
checks that SCOUT still makes exactly those moves, given the keeper's pinned words.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import pytest

import harness
from baselines.lighthouse.scout import scout, scout_move
from baselines.lighthouse.scout.memory import fit, read_notes, recall
from baselines.lighthouse.wallhug import ordered_move, wallhug, wallhug_move
from harness.agents import AgentInput
from harness.cli import main
from harness.errors import ConfigError
from harness.games.lighthouse.board import generate_board
from harness.games.lighthouse.config import LighthouseConfig, Variant
from harness.games.lighthouse.game import KEEPER, RUNNER
from harness.games.lighthouse.observe import RunnerObservation, observe_keeper, observe_runner
from harness.games.lighthouse.replies import parse_keeper_reply, parse_runner_reply
from harness.games.lighthouse.rules import resolve_tick, results, transmits
from harness.games.lighthouse.state import (
    GameState,
    KeeperDecision,
    Move,
    RunnerDecision,
    new_game,
)
from harness.records import RecordWriter
from harness.registry import get_game
from harness.replay import counterfactual, replay
from harness.seats import BaselineSeat
from harness.tournament.config import load_tournament
from tests.test_golden_playthroughs import GOLDEN_DIR, keeper_text, moves_text, parse_inputs

GAME = get_game("lighthouse")
SEEDS = range(12)
VARIANTS: tuple[Variant, ...] = ("default", "spring")
KEEPERS = ("silent", "lantern", "pilot")
SILENT = KeeperDecision(transmit=None, message="")
ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Turn:
    """One tick of a game: the state before, each runner's observation and decision."""

    before: GameState
    keeper: KeeperDecision
    seen: dict[int, RunnerObservation]
    decided: dict[int, RunnerDecision]


def keeper_decision(name: str, state: GameState) -> KeeperDecision:
    obs = observe_keeper(state)
    decision = parse_keeper_reply(
        GAME.baselines[KEEPER][name](obs), message_cap=obs.message_cap, notes_cap=obs.notes_cap
    )
    assert isinstance(decision, KeeperDecision)
    return decision


def runner_decision(obs: RunnerObservation, runner: str = "scout") -> RunnerDecision:
    """The runner's decision as the game's parser makes it of the reply text."""
    decision = parse_runner_reply(GAME.baselines[RUNNER][runner](obs), notes_cap=obs.notes_cap)
    assert isinstance(decision, RunnerDecision)
    return decision


def play(config: LighthouseConfig, seed: int, keeper: str, runner: str = "scout") -> list[Turn]:
    state = new_game(config, generate_board(config, seed))
    turns = []
    while not state.over:
        seen = {r.seat: observe_runner(state, r.seat) for r in state.runners if r.active}
        decided = {seat: runner_decision(obs, runner) for seat, obs in seen.items()}
        said = keeper_decision(keeper, state)
        turns.append(Turn(state, said, seen, decided))
        state = resolve_tick(state, said, decided)[0]
    turns.append(Turn(state, SILENT, {}, {}))  # the final state, nothing decided
    return turns


@cache
def game(keeper: str, variant: Variant, seed: int, runner: str = "scout") -> tuple[Turn, ...]:
    return tuple(play(LighthouseConfig.for_variant(variant), seed, keeper, runner))


def every_turn(keeper: str) -> list[Turn]:
    return [t for v in VARIANTS for seed in SEEDS for t in game(keeper, v, seed)[:-1]]


def score(keeper: str, variant: Variant, seed: int, runner: str = "scout") -> float:
    return results(game(keeper, variant, seed, runner)[-1].before).team_score


# --- a runner baseline like WALLHUG -----------------------------------------------------


def test_scout_is_a_runner_baseline_and_wallhug_stays_the_default_and_fallback() -> None:
    assert GAME.baseline_names(RUNNER) == ("wallhug", "scout")
    assert GAME.baselines[RUNNER]["scout"] is scout
    assert GAME.fallback(RUNNER) is wallhug
    assert "scout" not in GAME.baseline_names(KEEPER)


def test_a_runner_whose_replies_do_not_parse_falls_back_to_wallhug_not_scout() -> None:
    seen: dict[int, RunnerObservation] = {}

    def babbler(given: AgentInput) -> str:
        seen[given.tick] = given.observation
        return "I would rather not say"

    result = harness.play("lighthouse", 5, keeper="silent", runners=[babbler, "scout", "scout"])
    asked = [tick for tick in result.ticks if "runner1" in tick["seats"]]
    assert len(asked) == len(seen) > 5
    for tick in asked:
        turn = tick["seats"]["runner1"]
        assert turn["source"] == "fallback_parse"
        obs = seen[tick["tick"]]
        assert turn["decision"]["move"] == wallhug_move(obs).value
        assert obs.notes == ""  # a fallback never writes notes (R7)
        for seat in ("runner2", "runner3"):
            if seat in tick["seats"]:
                assert tick["seats"][seat]["source"] == "baseline"
                assert read_notes(tick["seats"][seat]["decision"]["notes"]) is not None


def test_configs_the_api_and_play_take_scout_for_runners(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.toml"
    path.write_text(
        'name = "t"\nseeds = [0]\n'
        '[[entrants]]\nname = "scouts"\nkeeper = { baseline = "silent" }\n'
        'runners = { baseline = "scout" }\n'
    )
    config = load_tournament(path)
    specs = config.entrants[0].seat_specs(GAME)
    assert {spec.baseline for seat, (_, spec) in specs.items() if seat != "keeper"} == {"scout"}  # type: ignore[union-attr]
    path.write_text(path.read_text().replace('"scout"', '"scoot"'))
    with pytest.raises(
        ConfigError, match=r"'scoot' is not a runner baseline; choose one of \['wallhug', 'scout'\]"
    ):
        load_tournament(path)
    result = harness.play("lighthouse", 3, keeper="silent", runners="scout")
    agents = {seat["seat"]: seat["agent"]["name"] for seat in result.lines[0]["seats"]}
    assert agents == {
        "keeper": "silent",
        "runner1": "scout",
        "runner2": "scout",
        "runner3": "scout",
    }
    assert main(["play", "--seed", "3", "--keeper", "silent", "--runners", "scout", "--quiet"]) == 0
    assert "keeper silent, runners scout" in capsys.readouterr().out


# --- L5: it sees what WALLHUG sees, and remembers only in its notes -----------------------


def test_it_depends_on_the_runner_observation_alone() -> None:
    # What a runner cannot see (the map beyond its window, the other runners, the
    # clock and the tide below its window, the keeper's notes) changes nothing.
    for turn in every_turn("lantern")[::7]:
        s = turn.before
        others = tuple(
            r if r.seat == 1 else replace(r, pos=s.board.exit, notes="whatever they wrote")
            for r in s.runners
        )
        hidden = replace(s, runners=others, keeper_notes="secret plans")  # type: ignore[arg-type]
        hidden = (
            replace(hidden, clock=s.clock + 1)
            if s.tide.water_line(s.clock + 1) == s.water_line
            else hidden
        )
        if 1 not in turn.seen:
            continue
        obs = observe_runner(hidden, 1)
        assert obs == turn.seen[1]
        assert scout(obs) == scout(turn.seen[1])


def test_it_keeps_no_state_but_its_notes() -> None:
    # Asked about two games tick by tick in turn, it answers as it does for each alone.
    a, b = game("silent", "default", 3), game("silent", "spring", 4)
    for ta, tb in zip(a, b, strict=False):
        for turn in (ta, tb):
            for seat, obs in turn.seen.items():
                assert runner_decision(obs) == turn.decided[seat]


def test_every_reply_parses_to_its_decision_and_its_notes_are_kept_whole() -> None:
    for keeper in KEEPERS:
        for turn in every_turn(keeper):
            for seat, obs in turn.seen.items():
                text, decision = scout.play(obs)
                assert parse_runner_reply(text, notes_cap=obs.notes_cap) == decision
                assert decision == turn.decided[seat]
                assert decision.notes is not None
                assert 0 < len(decision.notes) <= obs.notes_cap
                assert read_notes(decision.notes) is not None


def test_its_position_from_its_notes_is_where_it_stands() -> None:
    for keeper in KEEPERS:
        for variant in VARIANTS:
            for seed in SEEDS:
                turns = game(keeper, variant, seed)
                start = {s: r.pos for s, r in enumerate(turns[0].before.runners, start=1)}
                for turn in turns[:-1]:
                    for seat, obs in turn.seen.items():
                        m = recall(obs)
                        x, y = turn.before.runner(seat).pos
                        assert (start[seat][0] + m.pos[0], start[seat][1] + m.pos[1]) == (x, y)


def test_its_chart_holds_only_what_the_board_shows() -> None:
    for turn in every_turn("silent")[::3]:
        board = turn.before.board
        for seat, obs in turn.seen.items():
            m = recall(obs)
            sx, sy = turn.before.runner(seat).pos
            dx, dy = sx - m.pos[0], sy - m.pos[1]  # its (0, 0) on the board
            for r, row in enumerate(m.chart.rows):
                for c, tile in enumerate(row):
                    x, y = m.chart.left + c + dx, m.chart.top + r + dy
                    if tile == "#":
                        assert not board.in_bounds((x, y)) or not board.is_floor((x, y))
                    elif tile in ".K":
                        assert board.is_floor((x, y))
                    if tile == "K":
                        assert (x, y) in board.keys
            if m.exit is not None:
                assert (m.exit[0] + dx, m.exit[1] + dy) == board.exit
            if m.water is not None:
                assert m.water + dy >= turn.before.water_line


@pytest.mark.parametrize("cap", [0, 9, 20, 24, 30, 45, 60, 200])
def test_its_notes_never_pass_the_cap(cap: int) -> None:
    config = LighthouseConfig.for_variant("default", runner_notes_cap=cap)
    for seed in range(4):
        for turn in play(config, seed, "lantern")[:-1]:
            for seat, obs in turn.seen.items():
                notes = turn.decided[seat].notes
                assert notes is not None
                assert len(notes) <= cap
                if notes == "":  # no room: it plays as WALLHUG
                    assert turn.decided[seat].move is wallhug_move(obs)


def test_on_a_board_too_big_for_its_notes_it_forgets_and_plays_on() -> None:
    config = LighthouseConfig(width=25, height=25, max_ticks=200, tide_delay=150)
    cropped = 0
    for seed in range(2):
        turns = play(config, seed, "silent")
        for turn in turns[:-1]:
            for seat, obs in turn.seen.items():
                notes = turn.decided[seat].notes
                assert notes is not None
                assert len(notes) <= obs.notes_cap
                full = recall(obs)
                kept = fit(full, obs.notes_cap)
                assert kept is not None
                assert read_notes(notes) == kept[0]
                cropped += kept[0].chart != full.chart
        assert results(turns[-1].before).keys_collected >= 1
    assert cropped > 0


def test_it_replays_from_its_record(tmp_path: Path) -> None:
    path = tmp_path / "scout.jsonl"
    harness.play("lighthouse", 9, keeper="silent", runners="scout", variant="spring", record=path)
    replayed = asyncio.run(replay(path, GAME, reparse=True))
    assert replayed.clean, replayed.mismatch and replayed.mismatch.describe()
    assert replayed.reparse == []
    notes = [
        json.loads(line)["seats"]["runner1"]["decision"]["notes"]
        for line in path.read_text().splitlines()[1:-1]
        if "runner1" in json.loads(line)["seats"]
    ]
    assert all(read_notes(n) is not None for n in notes)


def test_taking_over_a_seat_mid_game_it_starts_a_chart_where_it_stands(tmp_path: Path) -> None:
    original = ROOT / "tests/golden/records/baseline-default-seed7.jsonl"
    out = tmp_path / "cf.jsonl"
    seats = {f"runner{i}": BaselineSeat("scout") for i in (1, 2, 3)}
    with RecordWriter(out) as writer:
        asyncio.run(counterfactual(original, GAME, 4, seats, writer=writer))
    ticks = [json.loads(x) for x in out.read_text().splitlines() if '"type": "tick"' in x]
    first = read_notes(ticks[4]["seats"]["runner1"]["decision"]["notes"])
    assert first is not None
    assert (first.tick, first.pos) == (4, (0, 0))
    assert asyncio.run(replay(out, GAME)).clean


def test_the_notes_its_docstring_shows_are_what_it_writes() -> None:
    from baselines.lighthouse.scout import memory

    assert memory.__doc__ is not None
    example = game("silent", "default", 7)[36].decided[1].notes
    assert example == "S36 8,-2 -1,-7,11x9 -1 8,-7 VVVlqqmWVWZamqlWVWWakZZWRlqpAFVUA"
    assert f"    {example}\n" in memory.__doc__


# --- orders, and how well it plays ------------------------------------------------------


def test_under_an_order_it_moves_exactly_as_wallhug() -> None:
    ordered = 0
    for keeper in ("lantern", "pilot"):
        for turn in every_turn(keeper):
            for seat, obs in turn.seen.items():
                if ordered_move(obs) is not None:
                    ordered += 1
                    assert turn.decided[seat].move is wallhug_move(obs)
    assert ordered > 1000


@pytest.mark.parametrize("variant", VARIANTS)
def test_with_a_silent_keeper_it_does_far_better_than_wallhug(variant: Variant) -> None:
    seeds = range(30)
    scouts = [score("silent", variant, s) for s in seeds]
    wallhugs = [score("silent", variant, s, "wallhug") for s in seeds]
    wins = sum(a > b for a, b in zip(scouts, wallhugs, strict=True))
    losses = sum(a < b for a, b in zip(scouts, wallhugs, strict=True))
    assert wins > 2 * losses
    assert sum(scouts) > sum(wallhugs) + 5 * len(seeds)


def test_it_moves_only_where_its_window_shows_dry_floor() -> None:
    for keeper in KEEPERS:
        for turn in every_turn(keeper):
            for seat, decision in turn.decided.items():
                if decision.move is not Move.WAIT:
                    obs = turn.seen[seat]
                    dx, dy = decision.move.delta
                    assert obs.window[1 + dy][1 + dx] not in "#~", (obs.window, decision)
                    assert scout_move(obs) is decision.move


# --- golden games -------------------------------------------------------------------------

GOLDEN: dict[str, tuple[str, Variant, int]] = {
    "06_scout_silent_default_seed12": ("silent", "default", 12),
    "07_scout_pilot_spring_seed16": ("pilot", "spring", 16),
}


def tick_lines(keeper: str, variant: Variant, seed: int) -> list[str]:
    """A game of ``keeper`` and three SCOUT runners as the tick lines of an inputs file."""
    lines = []
    for turn in game(keeper, variant, seed)[:-1]:
        said = turn.keeper
        pinned = KeeperDecision(None, said.message) if transmits(said) else SILENT
        moves = {seat: decision.move for seat, decision in turn.decided.items()}
        lines.append(f"tick {turn.before.tick}: keeper {keeper_text(pinned)} | {moves_text(moves)}")
    return lines


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_scout_still_plays_its_golden_games(name: str) -> None:
    path = GOLDEN_DIR / f"{name}.inputs.txt"
    _, variant, seed = GOLDEN[name]
    pinned = parse_inputs(path)
    assert pinned.source == f"seed {seed} variant {variant}"
    # The keeper's words come from the file: only SCOUT's moves are checked.
    state = new_game(pinned.config, pinned.board)
    for inputs in pinned.ticks:
        decided = {
            r.seat: runner_decision(observe_runner(state, r.seat))
            for r in state.runners
            if r.active
        }
        assert {seat: d.move for seat, d in decided.items()} == inputs.moves, inputs.tick
        state = resolve_tick(state, inputs.keeper, decided)[0]
    assert state.over
