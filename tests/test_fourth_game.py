"""A fourth one-seat game, written with the six methods docs/games.md lists, passes the
conformance suite: it plays, records, round-trips, replays, is caught when tampered
with, draws in the terminal and in a browser, and takes a Python seat.

Climb (tests/climb.py) is registered for this module only; the suite's own tests are
run against it as they are run against every hosted game (all but the published
schema's, which only a hosted game has, and the HTTP API's, which Climb has not).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness import registry
from harness.episode import play_scripted
from harness.errors import RulesError
from harness.llm import prompts as llm_prompts
from harness.llm.prompts import PROMPTS_DIR
from harness.protocol import GameConfig, GameEntry, Report, SoloRules, TextView
from harness.protocol.seat_io import JsonActionSeatIO
from harness.replay import replay
from harness.seats import baseline_seats
from harness.viewer import prompts as viewer_prompts
from tests import climb
from tests.test_conformance import (  # noqa: F401 (fixtures and tests run against Climb)
    browser,
    played,
    test_a_baseline_episode_plays_to_its_end,
    test_a_custom_python_seat_plays_it,
    test_every_seat_group_has_a_fallback_baseline_and_seats_of_its_role,
    test_its_config_and_results_keep_the_conventions,
    test_replay_catches_a_changed_score_in_the_end_line,
    test_replay_catches_a_changed_tick_state,
    test_replay_verifies_the_record,
    test_the_html_page_holds_every_frame,
    test_the_html_viewer_draws_every_frame_in_a_browser,
    test_the_record_round_trips,
    test_the_terminal_views_draw_every_frame,
)


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GameEntry]:
    """Climb, registered while this module runs, with its prompts beside the shipped ones."""
    entry = climb.climb_entry()
    prompts = tmp_path_factory.mktemp("prompts")
    for shipped in PROMPTS_DIR.iterdir():
        (prompts / shipped.name).symlink_to(shipped)
    climb.write_prompts(prompts / climb.NAME)
    saved = dict(registry.GAMES)
    registry.GAMES[climb.NAME] = lambda: entry
    registry.get_game.cache_clear()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(llm_prompts, "PROMPTS_DIR", prompts)
        patch.setattr(viewer_prompts, "PROMPTS_DIR", prompts)
        try:
            yield entry
        finally:
            registry.GAMES.clear()
            registry.GAMES.update(saved)
            registry.get_game.cache_clear()


def _written(cls: type, base: type) -> set[str]:
    """The methods ``cls`` (and its bases up to ``base``) defines itself (a frozen
    model's generated ``__hash__`` left out)."""
    names = set()
    for klass in cls.__mro__:
        if klass is base or not issubclass(klass, base):
            break
        names |= {
            n
            for n, v in vars(klass).items()
            if not n.startswith("__") and (inspect.isfunction(v) or isinstance(v, property))
        }
    return names


def test_climb_writes_the_six_methods_and_no_more() -> None:
    assert _written(climb.ClimbRules, SoloRules) == {"new_state", "step", "results", "observation"}
    assert _written(climb.ClimbSeatIO, JsonActionSeatIO) == {"render_observation"}
    assert _written(climb.ClimbConfig, GameConfig) == {"tick_cap"}
    entry = climb.climb_entry()
    assert isinstance(entry.view, TextView)
    assert type(entry.report) is Report


def test_a_reply_outside_the_grammar_is_a_parse_failure_with_the_grammar() -> None:
    io = climb.ClimbSeatIO()
    slope = climb.Slope(seed=0, height=0, summit=3)
    failure = io.parse_reply(slope, '{"type": "jump"}')
    assert not isinstance(failure, dict)
    assert (failure.kind, failure.message.split(";")[0]) == (
        "wrong_type",
        "type: Input should be 'up' or 'rest'",
    )
    assert io.parse_reply(slope, '{"type": "up"}') == {"type": "up"}
    assert io.reply_schema("player")["properties"] == {
        "type": {"enum": ["up", "rest"], "title": "Type", "type": "string"}
    }


def test_the_base_keeps_the_bookkeeping(game: GameEntry, tmp_path: Path) -> None:
    rules = climb.ClimbRules()
    state = rules.new_state(climb.ClimbConfig(max_moves=2), 4)  # summit 7: the climber tires
    assert (rules.seats(state)[0].seat, rules.active_seats(state), rules.tick(state)) == (
        "player",
        ("player",),
        0,
    )
    with pytest.raises(RulesError, match="need player"):
        rules.resolve(state, {"other": {"type": "up"}})
    with pytest.raises(RulesError, match="not over yet"):
        rules.results(state)
    state, _ = rules.resolve(state, {"player": {"type": "up"}})
    state, _ = rules.resolve(state, {"player": {"type": "rest"}})
    assert (rules.is_over(state), state.cause, rules.active_seats(state)) == (True, "tired", ())
    with pytest.raises(RulesError, match="is over"):
        rules.resolve(state, {"player": {"type": "up"}})
    assert rules.results(state).model_dump() == {
        "scores": [1.0],
        "height": 1,
        "summit": 7,
        "reason": "tired",
    }
    assert rules.end_by_deadline(rules.new_state(climb.ClimbConfig(), 0)).cause == "deadline"
    # and its default report: the results' numbers
    start = game.rules.new_state(game.rules.make_config("default", {}), 1)
    outcome = play_scripted(game, start, baseline_seats(game, start), episode_id="e")
    assert game.report.episode_metrics(outcome.docs) == {"height": 4.0, "summit": 4.0}
    assert asyncio.run(replay(_written_record(game, tmp_path))).clean


def _written_record(game: GameEntry, tmp_path: Path) -> Path:
    from harness.records import RecordWriter

    path = tmp_path / "climb.jsonl"
    start = game.rules.new_state(game.rules.make_config("default", {}), 2)
    with RecordWriter(path) as writer:
        play_scripted(game, start, baseline_seats(game, start), episode_id="c", writer=writer)
    return path
