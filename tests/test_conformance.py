"""What every registered game must do with the shared machinery: one suite, every game.

A new game gets all of this by registering (harness/registry.py): a baseline episode
plays to its end, its record validates against the game's published schema and
round-trips, replay verifies it and catches a tampered line, the viewers draw every
frame (terminal, HTML and, when installed, a real Chromium), and a game with an HTTP
API answers init and action over real HTTP, and a plain Python function can take a
seat.
"""

from __future__ import annotations

import asyncio
import html
import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from harness.episode import EpisodeOutcome, run_episode
from harness.protocol import GameConfig, GameEntry, GameResults
from harness.protocol.view import frame_docs
from harness.reader import open_record
from harness.records import RecordWriter, dump_line
from harness.registry import game_names, get_game, http_apis
from harness.replay import replay
from harness.seats import baseline_seats
from harness.viewer.html import render_html
from tests.browser import CHROMIUM, DRIVER, chromium
from tests.relayroam.live_server import Reply, http, running_server

ROOT = Path(__file__).resolve().parents[1]
SEED = 7
KEY = b"conformance-test-key-0123456789abcdef"


@pytest.fixture(scope="module", params=game_names())
def game(request: pytest.FixtureRequest) -> GameEntry:
    entry: GameEntry = get_game(request.param)
    return entry


@pytest.fixture(scope="module")
def played(
    game: GameEntry, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, EpisodeOutcome]:
    """A baseline episode of ``game`` (its default variant, seed 7), and its record."""
    path = tmp_path_factory.mktemp(game.name) / f"{game.name}-baseline.jsonl"
    config = game.rules.make_config(game.variants[0], {})
    state = game.rules.new_state(config, SEED)

    async def play() -> EpisodeOutcome:
        with RecordWriter(path) as writer:
            return await run_episode(
                game,
                state,
                baseline_seats(game, state),
                episode_id=f"{game.name}-conformance",
                seed=SEED,
                variant=game.variants[0],
                writer=writer,
            )

    return path, asyncio.run(play())


def records_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def timeless(value: Any) -> Any:
    """A dumped record line without its wall-clock fields (the only ones a rerun changes)."""
    if isinstance(value, dict):
        return {k: timeless(v) for k, v in value.items() if k != "wall_clock"}
    if isinstance(value, list):
        return [timeless(v) for v in value]
    return value


def rewritten(path: Path, out: Path, edit: Callable[[list[dict[str, Any]]], None]) -> Path:
    lines = records_lines(path)
    edit(lines)
    out.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return out


def test_a_baseline_episode_plays_to_its_end(
    game: GameEntry, played: tuple[Path, EpisodeOutcome]
) -> None:
    path, outcome = played
    assert game.rules.is_over(outcome.state)
    assert game.rules.active_seats(outcome.state) == ()
    kinds = [line["type"] for line in records_lines(path)]
    assert kinds[0] == "header"
    assert kinds[-1] == "end"
    assert set(kinds[1:-1]) == {"tick"}
    assert len(kinds) - 2 == game.rules.tick(outcome.state) > 0
    assert len(outcome.results.scores) == len(game.rules.seats(outcome.state))
    assert outcome.results.reason not in (None, "deadline")


def test_its_config_and_results_keep_the_conventions(
    game: GameEntry, played: tuple[Path, EpisodeOutcome]
) -> None:
    # checked when the classes are defined; here, that the game's are such classes
    _, outcome = played
    config = game.rules.config(outcome.state)
    assert isinstance(config, GameConfig)
    assert isinstance(config, game.rules.config_type)
    assert game.variants == type(config).VARIANTS
    assert config.play_budget_seconds == 0.6 * config.episode_timeout_seconds
    assert 0 < game.rules.tick(outcome.state) <= config.tick_cap
    assert isinstance(outcome.results, GameResults)
    assert list(type(outcome.results).model_fields)[-1] == "reason"


def test_every_seat_group_has_a_fallback_baseline_and_seats_of_its_role(
    game: GameEntry, played: tuple[Path, EpisodeOutcome]
) -> None:
    _, outcome = played
    roles = {spec.seat: spec.role for spec in game.rules.seats(outcome.state)}
    for group in game.seat_groups:
        assert game.baseline_names(group.role), group
        assert all(roles[seat] == group.role for seat in group.seats), group
    assert {seat for g in game.seat_groups for seat in g.seats} == set(roles)


def test_the_record_validates_against_the_published_schema(
    game: GameEntry, played: tuple[Path, EpisodeOutcome]
) -> None:
    schema_file = ROOT / "docs" / "schemas" / f"{game.name}-record.schema.json"
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    assert schema == game.codec.record_schema(), f"{schema_file} is stale"
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema)
    path, _ = played
    for number, line in enumerate(records_lines(path), 1):
        errors = [e.message for e in validator.iter_errors(line)]
        assert not errors, (number, errors[:3])


def test_the_record_round_trips(
    game: GameEntry, played: tuple[Path, EpisodeOutcome], tmp_path: Path
) -> None:
    path, outcome = played
    record = open_record(path)
    assert record.game is game
    lines = record.lines()
    assert lines == list(outcome.lines)
    again = tmp_path / "again.jsonl"
    again.write_text("".join(dump_line(line) + "\n" for line in lines), encoding="utf-8")
    assert again.read_bytes() == path.read_bytes()
    assert open_record(again).lines() == lines


def test_replay_verifies_the_record(played: tuple[Path, EpisodeOutcome]) -> None:
    path, outcome = played
    result = asyncio.run(replay(path))
    assert result.clean, result.mismatch and result.mismatch.describe()
    assert [timeless(line.model_dump()) for line in result.lines] == [
        timeless(line.model_dump()) for line in outcome.lines
    ]


def test_replay_catches_a_changed_score_in_the_end_line(
    played: tuple[Path, EpisodeOutcome], tmp_path: Path
) -> None:
    path, _ = played

    def edit(lines: list[dict[str, Any]]) -> None:
        lines[-1]["results"]["scores"][0] += 1

    result = asyncio.run(replay(rewritten(path, tmp_path / "t.jsonl", edit)))
    assert result.mismatch is not None
    assert (result.mismatch.tick, result.mismatch.field) == (None, "results.scores.0")
    assert not result.clean


def test_replay_catches_a_changed_tick_state(
    played: tuple[Path, EpisodeOutcome], tmp_path: Path
) -> None:
    path, _ = played
    ticks = [line for line in records_lines(path) if line["type"] == "tick"]
    tick = len(ticks) // 2
    state = ticks[tick]["state"]
    # the first whole-number field of the state after the tick, whatever the game
    key = next(k for k, v in state.items() if type(v) is int)

    def edit(lines: list[dict[str, Any]]) -> None:
        lines[1 + tick]["state"][key] += 1

    result = asyncio.run(replay(rewritten(path, tmp_path / "t.jsonl", edit)))
    assert result.mismatch is not None
    assert (result.mismatch.tick, result.mismatch.field) == (tick, f"state.{key}")
    assert (result.mismatch.recorded, result.mismatch.replayed) == (state[key] + 1, state[key])


def test_the_terminal_views_draw_every_frame(
    game: GameEntry, played: tuple[Path, EpisodeOutcome]
) -> None:
    path, outcome = played
    lines = open_record(path).lines()
    frames = game.view.view_frames(lines)
    ticks = [line for line in lines if line.type == "tick"]
    assert [frame.tick for frame in frames] == [None, *(t.tick for t in ticks)]
    drawings = [frame.text() for frame in frames]
    assert all(drawing.strip() for drawing in drawings)
    assert len(set(drawings)) > 1  # the frames are not all the same picture
    assert all(game.view.render_tick(t).startswith(f"tick {t.tick}") for t in ticks)
    assert game.view.render_start(game.codec.start_state(lines[0])).strip()
    assert game.view.render_results(outcome.results).strip()


def test_the_html_page_holds_every_frame(
    game: GameEntry, played: tuple[Path, EpisodeOutcome]
) -> None:
    path, _ = played
    lines = open_record(path).lines()
    page = render_html(game.view, lines)
    found = re.search(r'<script type="application/json" id="episode">(.*?)</script>', page, re.S)
    assert found is not None
    episode = json.loads(found.group(1).replace("<\\/", "</"))
    assert episode["frames"] == json.loads(json.dumps(frame_docs(game.view.view_frames(lines))))
    assert episode["episodeId"] == lines[0].episode_id
    assert "renderBoard" in page
    assert html.escape(f"{game.name.capitalize()} - {lines[0].episode_id}") in page


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if not (CHROMIUM and DRIVER):
        if os.environ.get("LIGHTHOUSE_REQUIRE_BROWSER"):
            pytest.fail("chromium and chromedriver are required", pytrace=False)
        pytest.skip("chromium and chromedriver are not installed")
    driver = chromium(tmp_path_factory.mktemp("chromium"), console_log=True)
    try:
        yield driver
    finally:
        driver.quit()


def test_the_html_viewer_draws_every_frame_in_a_browser(
    game: GameEntry, played: tuple[Path, EpisodeOutcome], browser: Any, tmp_path: Path
) -> None:
    path, _ = played
    lines = open_record(path).lines()
    frames = game.view.view_frames(lines)
    page = tmp_path / "episode.html"
    page.write_text(render_html(game.view, lines), encoding="utf-8")
    browser.get(page.as_uri())
    shown = browser.execute_script(
        """
        const slider = document.getElementById("slider");
        const board = document.getElementById("board");
        const out = [];
        for (let i = 0; i <= Number(slider.max); i++) {
          slider.value = String(i);
          slider.dispatchEvent(new Event("input"));
          out.push([document.getElementById("tick-label").textContent,
                    board.childElementCount, board.innerHTML.length]);
        }
        return out;
        """
    )
    assert [label for label, _, _ in shown] == [frame.label for frame in frames]
    assert all(children > 0 and size > 0 for _, children, size in shown)
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors[:3]


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with running_server(KEY) as url:
        yield url


@pytest.mark.parametrize("name", list(http_apis()))
def test_the_http_api_answers_init_and_action(name: str, server: str) -> None:
    api = http_apis()[name]
    base = f"{server}/api/games/{name}"

    def post(state: object, action: object, **extra: object) -> Reply:
        body = {api.state_key: state, "action": action, **extra}
        return http("POST", f"{base}/action", json.dumps(body).encode())

    def assert_refused(reply: Reply) -> None:
        assert reply.status == 400, reply.raw
        assert set(reply.json()) == {"error", "message"}

    reply = http("GET", f"{base}/init?seed={SEED}")
    assert reply.status == 200, reply.raw
    first = reply.json()
    state = first[api.state_key]  # a signed token, or the state itself
    assert state
    assert http("GET", f"{base}/init?seed={api.max_seed + 1}").status == 400
    # a legal action, when the game lists them, moves the state on
    legal = first.get("legalActions") or [None]
    moved = post(state, legal[0])
    assert moved.status == 200, moved.raw
    assert moved.json()[api.state_key]
    if first.get("legalActions"):
        assert moved.json()[api.state_key] != state
    # any JSON action is the game's to judge: an answer, or a refusal at its own
    # boundary, never a server error
    junk = post(state, [1])
    if junk.status != 200:
        assert_refused(junk)
    # a state the game never issued is refused at the boundary; the envelope is the
    # server's: exactly the game's state key and "action"
    assert_refused(post([state], None))
    extra = post(state, legal[0], seed=SEED)
    assert_refused(extra)
    assert extra.json()["error"] == "invalid_body"
    page = api.page()
    if page is not None:
        shown = http("GET", f"{server}/{name}/")
        assert shown.status == 200
        assert shown.raw.decode("utf-8") == page


def test_a_custom_python_seat_plays_it(game: GameEntry, tmp_path: Path) -> None:
    # Every seat of the first group is a plain function replying what the role's
    # fallback baseline would (so the episode plays on as the baselines' would); its
    # turns are recorded as a Python agent's, and the record replays clean.
    import harness

    group = game.seat_groups[0]
    fallback = game.baselines[group.role][game.baseline_names(group.role)[0]]
    asked: list[int] = []

    def agent(given: harness.AgentInput) -> str:
        asked.append(given.tick)
        assert given.text  # the text a model would read
        return fallback(given.observation)

    record = tmp_path / "python-seat.jsonl"
    result = harness.make(game.name).play(SEED, record=record, seats={group.key: agent})
    ticks = [line for line in result.lines if line["type"] == "tick"]
    assert ticks
    assert len(asked) >= len(ticks)
    header = result.lines[0]
    kinds = {s["seat"]: s["agent"]["kind"] for s in header["seats"]}
    assert {kinds[seat] for seat in group.seats} == {"python"}
    sources = {
        turn["source"]
        for line in ticks
        for seat, turn in line["seats"].items()
        if seat in group.seats
    }
    assert sources == {"python"}
    verified = asyncio.run(replay(record))
    assert verified.mismatch is None
