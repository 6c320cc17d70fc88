"""Prompt layout 2: every game's observation text puts what does not change first, says
the same as layout 1 did, and layout 1 is still rendered for older records."""

from __future__ import annotations

import itertools

import pytest

from harness.games.hourloom.observe import observe as hourloom_observe
from harness.games.hourloom.observe import prompt_text
from harness.games.relayroam.observe import render_prompt, render_text
from harness.protocol import GameEntry
from harness.registry import game_names, get_game
from harness.testing.llm_server import common_start


def playthrough(game: GameEntry, seed: int = 0, ticks: int = 12) -> list[dict[str, object]]:
    """Each tick's observations (by seat) while the baselines play ``game``."""
    config = game.rules.make_config(game.variants[0], {}, None)
    state = game.rules.new_state(config, seed)
    seen: list[dict[str, object]] = []
    for _ in range(ticks):
        seats = game.rules.active_seats(state)
        if not seats:
            break
        observations = {seat: game.rules.observe(state, seat) for seat in seats}
        seen.append(observations)
        roles = {s.seat: s.role for s in game.rules.seats(state)}
        decisions = {}
        for seat, obs in observations.items():
            bot = next(iter(game.role_baselines(roles[seat]).values()))
            decision = game.seat_io.parse_reply(obs, bot(obs))
            decisions[seat] = decision
        state, _ = game.rules.resolve(state, decisions)
        if game.rules.is_over(state):
            break
    return seen


@pytest.mark.parametrize("name", game_names())
def test_consecutive_ticks_share_a_longer_start_than_layout_1_gave(name: str) -> None:
    game = get_game(name)
    io = game.seat_io
    assert io.prompt_layout == 2
    ticks = playthrough(game)
    shared = {1: 0, 2: 0}
    for before, after in itertools.pairwise(ticks):
        for seat in set(before) & set(after):
            for layout in (1, 2):
                a = io.render_observation_as(before[seat], layout)
                b = io.render_observation_as(after[seat], layout)
                shared[layout] += common_start(a, b)
    assert shared[2] > shared[1] > 0


@pytest.mark.parametrize("name", game_names())
def test_layout_2_is_what_a_seat_reads_now(name: str) -> None:
    game = get_game(name)
    first = playthrough(game, ticks=1)[0]
    for obs in first.values():
        now = game.seat_io.render_observation(obs)
        assert game.seat_io.render_observation_as(obs, 2) == now
        assert game.seat_io.render_observation_as(obs, 1) != now


def test_hourloom_layout_2_has_layout_1s_lines_in_another_order() -> None:
    for ticks in playthrough(get_game("hourloom"), ticks=20):
        for state in ticks.values():
            old = hourloom_observe(state).text.splitlines()  # type: ignore[arg-type]
            new = prompt_text(state).splitlines()  # type: ignore[arg-type]
            assert sorted(old) == sorted(new)
            assert new[0].startswith("Legend:")


def test_relayroam_layout_2_says_what_layout_1_said() -> None:
    for ticks in playthrough(get_game("relayroam"), ticks=20):
        for obs in ticks.values():
            old = render_text(obs).splitlines()  # type: ignore[arg-type]
            new = render_prompt(obs)  # type: ignore[arg-type]
            # every line but the two that were split or reworded is there as it was
            kept = [ln for ln in old if not ln.startswith(("Charge ", "You (@)", "Grid ("))]
            assert all(ln in new.splitlines() for ln in kept if ln.strip())
            for part in ("Charge ", "Turn ", "You (@) are at", "Exit at", "Grid legend"):
                assert part in new
