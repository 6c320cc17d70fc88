"""PILOT, the planning keeper: exact predictions, safe orders, words only when needed.

Most tests here are properties checked against the engine over whole games of PILOT
and three WALLHUG runners on many seeds at both tides; the games are played once per
module and shared. Two of the games are also pinned as golden playthroughs under
``tests/golden/playthroughs/`` (``04_pilot_*``, ``05_pilot_*``): the transcript test
checks them against the engine, and :func:`test_pilot_still_plays_its_golden_games`
checks that PILOT still makes exactly those decisions.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

import pytest

from baselines.lighthouse.lantern import lantern
from baselines.lighthouse.pilot import decide, pilot
from baselines.lighthouse.pilot.memory import encode, recall
from baselines.lighthouse.pilot.route import MAX_PLANS, plan_count
from baselines.lighthouse.pilot.world import World
from baselines.lighthouse.wallhug import wallhug_move
from harness.games.lighthouse.board import generate_board
from harness.games.lighthouse.config import LighthouseConfig, Variant
from harness.games.lighthouse.game import KEEPER, RUNNER
from harness.games.lighthouse.observe import KeeperObservation, observe_keeper, observe_runner
from harness.games.lighthouse.orders import find_order
from harness.games.lighthouse.replies import parse_keeper_reply
from harness.games.lighthouse.rules import resolve_tick, results, transmits
from harness.games.lighthouse.state import (
    GameState,
    KeeperDecision,
    Move,
    MoveRecord,
    RunnerDecision,
    new_game,
)
from harness.registry import get_game
from tests.conftest import OPEN_ROOM, state_from
from tests.test_golden_playthroughs import GOLDEN_DIR, keeper_text, moves_text, parse_inputs

GAME = get_game("lighthouse")
SEEDS = range(30)
VARIANTS: tuple[Variant, ...] = ("default", "spring")
SILENT = KeeperDecision(transmit=None, message="")


@dataclass(frozen=True)
class Step:
    """One tick of a PILOT game: the state before, what PILOT saw and said, what followed."""

    before: GameState
    obs: KeeperObservation
    keeper: KeeperDecision
    moves: dict[int, Move]
    after: GameState


def _parse_keeper(obs: KeeperObservation, reply: str) -> KeeperDecision:
    decision = parse_keeper_reply(reply, message_cap=obs.message_cap, notes_cap=obs.notes_cap)
    assert isinstance(decision, KeeperDecision), reply
    return decision


def _runner_moves(state: GameState) -> dict[int, Move]:
    return {r.seat: wallhug_move(observe_runner(state, r.seat)) for r in state.runners if r.active}


@cache
def playthrough(variant: Variant, seed: int) -> tuple[Step, ...]:
    """PILOT and three WALLHUG runners on ``seed``, through the game's own reply parser."""
    config = LighthouseConfig.for_variant(variant)
    state = new_game(config, generate_board(config, seed))
    steps = []
    while not state.over:
        obs = observe_keeper(state)
        keeper = _parse_keeper(obs, GAME.baselines[KEEPER]["pilot"](obs))
        moves = _runner_moves(state)
        after, _ = resolve_tick(state, keeper, {s: RunnerDecision(m) for s, m in moves.items()})
        steps.append(Step(state, obs, keeper, moves, after))
        state = after
    return tuple(steps)


def every_step() -> list[Step]:
    return [step for v in VARIANTS for seed in SEEDS for step in playthrough(v, seed)]


def every_game() -> list[tuple[Step, ...]]:
    return [playthrough(v, seed) for v in VARIANTS for seed in SEEDS]


# --- a baseline like the others -----------------------------------------------------------


def test_pilot_is_a_keeper_baseline_and_lantern_stays_the_fallback() -> None:
    assert "pilot" in GAME.baseline_names(KEEPER)
    assert "pilot" not in GAME.baseline_names(RUNNER)
    assert GAME.baseline_names(KEEPER)[0] == "lantern"  # an LLM keeper still falls back to LANTERN


def test_pilot_is_a_pure_function_of_the_keepers_observation() -> None:
    """Asked again, in another order, after other games: the same replies."""
    games = [playthrough("default", 3), playthrough("spring", 8)]
    first = [[pilot(step.obs) for step in game] for game in games]
    again = [[pilot(step.obs) for step in reversed(game)][::-1] for game in reversed(games)]
    assert again[::-1] == first


def test_every_reply_parses_and_silence_is_transmit_false() -> None:
    for step in playthrough("spring", 4):
        reply = json.loads(pilot(step.obs))
        assert set(reply) <= {"transmit", "message", "notes"}
        assert isinstance(reply["notes"], str)
        assert len(reply["notes"]) <= step.obs.notes_cap
        if reply["transmit"]:
            assert reply["message"].strip()
            assert len(reply["message"]) <= step.obs.message_cap
        else:
            assert "message" not in reply


# --- exact prediction ---------------------------------------------------------------------


def test_its_notes_carry_each_runners_last_six_moves() -> None:
    for step in every_step():
        expected = {r.seat: r.moves for r in step.before.runners if r.active}
        assert recall(step.obs) == expected, (step.obs.tick, step.obs.notes)


def test_it_predicts_every_wallhug_move_exactly() -> None:
    for step in every_step():
        landing = decide(step.obs).landing
        for seat, move in step.moves.items():
            runner = step.after.runner(seat)
            assert landing[seat].pos == runner.pos, (step.obs.tick, seat, move)
            assert landing[seat].history == runner.moves


def test_notes_it_did_not_write_leave_it_only_the_last_move() -> None:
    step = playthrough("default", 5)[9]
    for notes in ("", "kept the radio warm", "PILOT t3 1:NNN 2: 3:", "PILOT t8 1:XYZ"):
        obs = replace(step.obs, notes=notes)
        histories = recall(obs)
        for r in obs.runners:
            if r.seat in histories:
                assert r.last_move is not None
                assert histories[r.seat] == (MoveRecord(r.last_move, r.bumped),)
        assert _parse_keeper(obs, pilot(obs)).notes == encode(obs.tick, histories)


# --- what it says -------------------------------------------------------------------------


def test_no_order_walks_a_runner_into_a_wall_or_onto_water() -> None:
    """Every direction PILOT orders is floor, dry when the order lands and after that tick."""
    checked = 0
    for game in every_game():
        for sent, landed in itertools.pairwise(game):
            if not transmits(sent.keeper):
                continue
            state = landed.before  # the tick the words arrive in the inbox
            for runner in state.runners:
                order = find_order(sent.keeper.message, runner.alias)
                if not runner.active or order is None or order is Move.WAIT:
                    continue
                dx, dy = order.delta
                target = (runner.pos[0] + dx, runner.pos[1] + dy)
                assert state.board.is_floor(target), (sent.obs.tick, runner.alias, order)
                assert not state.is_flooded(target), (sent.obs.tick, runner.alias, order)
                assert target[1] < landed.after.water_line, (sent.obs.tick, runner.alias, order)
                checked += 1
    assert checked > 200  # the property was exercised, not vacuous


def test_it_talks_only_when_a_standing_order_would_take_a_runner_off_its_route() -> None:
    """On every tick PILOT transmits, some runner that its plan needs would, under
    silence, step off its planned route next tick, and with the words steps along it.
    The counterfactual silent tick is played by the engine and WALLHUG themselves."""
    spoken = 0
    for step in every_step():
        if not transmits(step.keeper) or step.after.over:
            continue
        spoken += 1
        plan = decide(step.obs).plan
        assert plan is not None
        quiet, _ = resolve_tick(
            step.before, SILENT, {s: RunnerDecision(m) for s, m in step.moves.items()}
        )
        said, unsaid = _runner_moves(step.after), _runner_moves(quiet)
        world = World(step.obs)
        corrected = []
        for seat in plan.useful:
            runner = step.after.runner(seat)
            if not runner.active or said[seat] == unsaid[seat]:
                continue
            stops = plan.stops[seat]
            while len(stops) > 1 and runner.pos == stops[0]:
                stops = stops[1:]
            wanted = world.step(runner.pos, stops[0])
            if said[seat] == wanted and unsaid[seat] != wanted:
                corrected.append(seat)
        assert corrected, (step.obs.tick, step.keeper.message)
    assert spoken > 100


# --- other boards -------------------------------------------------------------------------


def play_pilot(state: GameState) -> GameState:
    """PILOT and WALLHUG to the end, checking every predicted move on the way."""
    while not state.over:
        obs = observe_keeper(state)
        landing = decide(obs).landing
        moves = _runner_moves(state)
        keeper = _parse_keeper(obs, pilot(obs))
        state, _ = resolve_tick(state, keeper, {s: RunnerDecision(m) for s, m in moves.items()})
        assert {s: w.pos for s, w in landing.items()} == {s: state.runner(s).pos for s in moves}, (
            obs.tick
        )
    return state


def test_on_an_open_room_with_loops_all_three_escape() -> None:
    final = play_pilot(state_from(OPEN_ROOM))
    assert (results(final).keys_collected, results(final).escaped) == (3, 3)


def test_with_many_keys_it_shares_them_greedily_and_still_plays_to_the_end() -> None:
    config = LighthouseConfig(width=21, height=15, key_count=6, max_ticks=120)
    assert plan_count(6, 3) > MAX_PLANS
    final = play_pilot(new_game(config, generate_board(config, 3)))
    assert results(final).keys_collected >= 1


# --- how well it plays --------------------------------------------------------------------


def lantern_score(variant: Variant, seed: int) -> float:
    config = LighthouseConfig.for_variant(variant)
    state = new_game(config, generate_board(config, seed))
    while not state.over:
        obs = observe_keeper(state)
        keeper = _parse_keeper(obs, lantern(obs))
        moves = _runner_moves(state)
        state, _ = resolve_tick(state, keeper, {s: RunnerDecision(m) for s, m in moves.items()})
    return results(state).team_score


@pytest.mark.parametrize("variant", VARIANTS)
def test_it_beats_lantern_on_the_same_seeds(variant: Variant) -> None:
    pilot_scores = [results(playthrough(variant, s)[-1].after).team_score for s in SEEDS]
    lantern_scores = [lantern_score(variant, s) for s in SEEDS]
    wins = sum(p > q for p, q in zip(pilot_scores, lantern_scores, strict=True))
    losses = sum(p < q for p, q in zip(pilot_scores, lantern_scores, strict=True))
    assert wins > 2 * losses
    assert sum(pilot_scores) > sum(lantern_scores) + 5 * len(SEEDS)


# --- golden games -------------------------------------------------------------------------

GOLDEN: dict[str, tuple[Variant, int]] = {
    "04_pilot_default_seed12": ("default", 12),
    "05_pilot_spring_seed16": ("spring", 16),
}


def tick_lines(variant: Variant, seed: int) -> list[str]:
    """A PILOT game as the tick lines of a golden inputs file."""
    lines = []
    for step in playthrough(variant, seed):
        keeper = (
            KeeperDecision(transmit=None, message=step.keeper.message)
            if transmits(step.keeper)
            else SILENT
        )
        lines.append(
            f"tick {step.obs.tick}: keeper {keeper_text(keeper)} | {moves_text(step.moves)}"
        )
    return lines


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_pilot_still_plays_its_golden_games(name: str) -> None:
    path: Path = GOLDEN_DIR / f"{name}.inputs.txt"
    variant, seed = GOLDEN[name]
    pinned = [
        line.strip()
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.startswith("tick ")
    ]
    assert parse_inputs(path).source == f"seed {seed} variant {variant}"
    assert tick_lines(variant, seed) == pinned
