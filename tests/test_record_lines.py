"""Record lines made as plain JSON, the scripted loop, and the baselines' own decisions.

The runner writes each line from a JSON object it builds in the form the record's
models dump (no model per line); these tests hold that form to the models, byte for
byte, for every game, and hold the event-loop runner and the plain loop for scripted
seats to the same records.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from harness.agents import PythonSeat
from harness.episode import play_scripted, run_episode
from harness.errors import HarnessError
from harness.llm.prompts import PromptSet, default_prompt_files
from harness.protocol import DecidedBaseline, GameEntry
from harness.reader import open_record
from harness.records import RecordWriter, dump_doc, dump_line
from harness.registry import game_names, get_game
from harness.seats import BaselineSeat, Seat, SeatRequest, baseline_seats, is_scripted
from harness.summary import episode_id, summarize, summarize_read
from harness.tournament.audit import derive
from harness.tournament.identity import IdentifiedSeat
from harness.tournament.store import summarize_played
from tests.llm_episode import record_llm_episode
from tests.test_episode import stable_lines

GAMES = [get_game(name) for name in game_names()]
SEEDS = range(12)
#: The seeds every sweep below plays: the first three in the default run, the rest
#: with the slow sweeps (CI runs both, so every seed is played there).
SWEEPS = [
    pytest.param(SEEDS[:3], id="seeds0-2"),
    pytest.param(SEEDS[3:], id="seeds3-11", marks=pytest.mark.slow),
]
# every wallClock object is flat: its value is the one place two runs may differ
WALL_CLOCK = re.compile(r'"wallClock": \{[^{}]*\}')


def test_every_game_is_covered() -> None:
    assert {game.name for game in GAMES} == {"lighthouse", "hourloom", "relayroam"}


def seat_teams(game: GameEntry, state: Any) -> list[dict[str, Seat]]:
    """Every baseline of the first seat group's role, the other seats their defaults."""
    group = game.seat_groups[0]
    teams = []
    for name in game.baseline_names(group.role):
        seats = baseline_seats(game, state)
        for seat in group.seats:
            seats[seat] = BaselineSeat(name)
        teams.append(seats)
    return teams


def episodes(game: GameEntry, seeds: range) -> list[tuple[str, int, dict[str, Seat]]]:
    return [
        (variant, seed, seats)
        for variant in game.variants
        for seed in seeds
        for seats in seat_teams(
            game, game.rules.new_state(game.rules.make_config(variant, {}), seed)
        )
    ]


@pytest.mark.parametrize("seeds", SWEEPS)
@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_each_line_is_written_as_its_model_dumps_it(game: GameEntry, seeds: range) -> None:
    adapter = game.codec.record_adapter
    kinds: set[str] = set()
    for variant, seed, seats in episodes(game, seeds):
        state = game.rules.new_state(game.rules.make_config(variant, {}), seed)
        outcome = play_scripted(game, state, seats, episode_id="e", seed=seed, variant=variant)
        for doc in outcome.docs:
            kinds.add(str(doc["type"]))
            assert dump_doc(doc) == dump_line(adapter.validate_python(doc))
    assert kinds == {"header", "tick", "end"}


def test_a_python_agents_lines_are_written_as_their_models_dump_them(tmp_path: Path) -> None:
    # a seat with prompts (the header's prompts) and replies of its own
    game = get_game("lighthouse")
    state = game.rules.new_state(game.rules.make_config("default", {}), 4)

    def keeper(given: Any) -> str:
        return '{"transmit": true, "message": "Sprocket N", "notes": "ok"}'

    seats = baseline_seats(game, state)
    seats["keeper"] = PythonSeat(
        keeper, game=game, prompts=PromptSet.load(default_prompt_files(game.name, "keeper"))
    )
    outcome = asyncio.run(run_episode(game, state, seats, episode_id="e"))
    docs: list[Any] = list(outcome.docs)
    header = docs[0]
    assert header["prompts"]
    ticks = [doc for doc in docs if doc["type"] == "tick"]
    assert all(doc["seats"]["keeper"]["replies"] for doc in ticks)
    for doc in outcome.docs:
        assert dump_doc(doc) == dump_line(game.codec.record_adapter.validate_python(doc))


def test_the_outcomes_lines_are_the_written_record_validated(tmp_path: Path) -> None:
    game = get_game("lighthouse")
    state = game.rules.new_state(game.rules.make_config("default", {}), 2)
    path = tmp_path / "r.jsonl"
    with RecordWriter(path) as writer:
        outcome = play_scripted(
            game, state, baseline_seats(game, state), episode_id="e", writer=writer
        )
    assert list(outcome.lines) == open_record(path).lines()


@pytest.mark.parametrize("seeds", SWEEPS)
@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_a_results_line_from_the_written_objects_is_the_one_its_record_gives(
    game: GameEntry, seeds: range, tmp_path: Path
) -> None:
    # the run summarises the objects it wrote; an audit reads the file back, validates
    # it and summarises that: the two must agree on every episode
    for n, (variant, seed, seats) in enumerate(episodes(game, seeds)):
        episode = episode_id(f"team{n}", variant, seed, 0)
        state = game.rules.new_state(game.rules.make_config(variant, {}), seed)
        path = tmp_path / f"{episode}.jsonl"
        with RecordWriter(path, flush_lines=False) as writer:
            outcome = play_scripted(
                game, state, seats, episode_id=episode, seed=seed, variant=variant, writer=writer
            )
        played = summarize_played(game, outcome, writer.sha256, entrant=f"team{n}", repetition=0)
        assert played == derive(game, path)


def test_a_results_line_with_model_calls_is_the_one_its_record_gives(tmp_path: Path) -> None:
    recorded = record_llm_episode(tmp_path / "llm.jsonl")
    report = get_game("lighthouse").report
    written = summarize(report, recorded.lines(), entrant="m", repetition=0)
    read = open_record(recorded.path).lines()
    assert written == summarize_read(report, read, entrant="m", repetition=0)
    runner1 = written.seats["runner1"]
    assert runner1.calls == runner1.turns + 1  # the retry's call
    assert runner1.retries == 1
    assert len(runner1.latencies_ms) == runner1.calls
    assert written.fallback_free


class AskedOnTheLoop:
    """A seat that answers as the seat it wraps, but only through ``decide``: the
    runner asks it in a task of its own, as it asks a model."""

    def __init__(self, seat: Seat) -> None:
        self.seat = seat

    @property
    def agent(self) -> Any:
        return self.seat.agent

    async def decide(self, request: SeatRequest) -> Any:
        return await self.seat.decide(request)


def write(
    game: GameEntry, variant: str, seed: int, seats: dict[str, Seat], path: Path, how: str
) -> Any:
    state = game.rules.new_state(game.rules.make_config(variant, {}), seed)
    with RecordWriter(path) as writer:
        if how == "plain loop":
            return play_scripted(
                game, state, seats, episode_id="e", seed=seed, variant=variant, writer=writer
            )
        if how == "tasks":
            seats = {seat_id: AskedOnTheLoop(seat) for seat_id, seat in seats.items()}
        return asyncio.run(
            run_episode(
                game, state, seats, episode_id="e", seed=seed, variant=variant, writer=writer
            )
        )


@pytest.mark.parametrize("seeds", SWEEPS)
@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_the_scripted_loop_writes_the_event_loops_records(
    game: GameEntry, seeds: range, tmp_path: Path
) -> None:
    played = 0
    for index, (variant, seed, seats) in enumerate(episodes(game, seeds)):
        paths, outcomes = [], []
        for how in ("plain loop", "event loop", "tasks"):
            path = tmp_path / f"{index}-{how}.jsonl"
            outcomes.append(write(game, variant, seed, seats, path, how))
            paths.append(path)
        a, *others = paths
        text_a = WALL_CLOCK.sub("", a.read_text(encoding="utf-8"))
        for b, outcome in zip(others, outcomes[1:], strict=True):
            assert stable_lines(a) == stable_lines(b)  # as the golden records are compared
            assert text_a == WALL_CLOCK.sub("", b.read_text(encoding="utf-8"))  # byte for byte
            assert outcome.state == outcomes[0].state
            assert outcome.results == outcomes[0].results
        played += 1
    assert played == len(game.variants) * len(seeds) * len(
        game.baseline_names(game.seat_groups[0].role)
    )


def test_a_scripted_loop_past_its_budget_ends_by_deadline() -> None:
    game = get_game("lighthouse")
    # a budget of a picosecond is spent before the first tick's answers are in
    config = game.rules.make_config("default", {}, episode_timeout_seconds=1e-12)
    state = game.rules.new_state(config, 1)
    outcome = play_scripted(game, state, baseline_seats(game, state), episode_id="e")
    assert [doc["type"] for doc in outcome.docs] == ["header", "end"]
    assert outcome.results.reason == "deadline"


def agent_seat(game: GameEntry) -> PythonSeat:
    return PythonSeat(
        lambda given: '{"transmit": false}',
        game=game,
        prompts=PromptSet.load(default_prompt_files(game.name, "keeper")),
    )


def test_baselines_and_their_wrappers_are_scripted_agents_are_not() -> None:
    game = get_game("lighthouse")
    assert is_scripted(BaselineSeat("lantern"))
    assert is_scripted(IdentifiedSeat(BaselineSeat("lantern"), "abc"))
    assert not is_scripted(agent_seat(game))
    assert not is_scripted(IdentifiedSeat(agent_seat(game), "abc"))


def test_the_scripted_loop_refuses_a_seat_that_is_not_scripted() -> None:
    game = get_game("lighthouse")
    state = game.rules.new_state(game.rules.make_config("default", {}), 1)
    seats = baseline_seats(game, state)
    seats["keeper"] = IdentifiedSeat(agent_seat(game), "abc")
    with pytest.raises(HarnessError, match="not scripted: keeper"):
        play_scripted(game, state, seats, episode_id="e")


@pytest.mark.parametrize("seeds", SWEEPS)
@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.name)
def test_a_baselines_decision_is_what_the_parser_makes_of_its_reply(
    game: GameEntry, seeds: range
) -> None:
    """Where a bot gives its decision with its text, the seat skips the parser: the two
    must agree on every observation the bots meet."""
    decided = {
        (role, name): bot
        for role, bots in game.baselines.items()
        for name, bot in bots.items()
        if isinstance(bot, DecidedBaseline)
    }
    if game.name == "lighthouse":
        assert {name for _, name in decided} == {"lantern", "silent", "wallhug", "scout"}
    checked: dict[tuple[str, str], int] = dict.fromkeys(decided, 0)
    spoke = 0
    for variant, seed, seats in episodes(game, seeds):
        state = game.rules.new_state(game.rules.make_config(variant, {}), seed)
        roles = {spec.seat: spec.role for spec in game.rules.seats(state)}
        while not game.rules.is_over(state):
            decisions = {}
            for seat in game.rules.active_seats(state):
                observation = game.rules.observe(state, seat)
                for (role, name), bot in decided.items():
                    if role != roles[seat]:
                        continue
                    raw, decision = bot.play(observation)
                    assert raw == bot(observation)
                    assert game.seat_io.parse_reply(observation, raw) == decision, (name, raw)
                    checked[role, name] += 1
                    spoke += '"message"' in raw
                decisions[seat] = _decide(seats[seat], game, state, seat, roles[seat], observation)
            state, _ = game.rules.resolve(state, decisions)
    assert all(count > 0 for count in checked.values()), checked
    if game.name == "lighthouse":
        assert spoke > 0  # LANTERN's messages, not only its silences


def _decide(seat: Seat, game: GameEntry, state: Any, seat_id: str, role: str, obs: Any) -> Any:
    spec = next(s for s in game.rules.seats(state) if s.seat == seat_id)
    request = SeatRequest(game.seat_io, game.baselines[role], spec, 0, obs)
    assert is_scripted(seat)
    return seat.decide_now(request).decision


def test_a_writer_without_line_flushes_holds_lines_until_it_closes(tmp_path: Path) -> None:
    flushed, held = tmp_path / "flushed.jsonl", tmp_path / "held.jsonl"
    doc = {"type": "x", "n": 1}
    with RecordWriter(flushed) as a, RecordWriter(held, flush_lines=False) as b:
        a.write_doc(doc)
        b.write_doc(doc)
        assert flushed.read_text(encoding="utf-8") == json.dumps(doc) + "\n"
        assert held.read_text(encoding="utf-8") == ""
    assert held.read_text(encoding="utf-8") == json.dumps(doc) + "\n"
