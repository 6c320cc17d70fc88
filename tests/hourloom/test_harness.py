"""Hourloom through the shared machinery: the CLI, caps, records, replay, reports, LLM seats."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from baselines.hourloom import planner, timestep, timestep_fallback
from harness.cli import main
from harness.episode import run_episode
from harness.games.hourloom.capped import play_capped
from harness.games.hourloom.planned import planned_run, planned_score
from harness.games.hourloom.rules import new_game, step
from harness.llm.options import LLMSeatOptions
from harness.llm.scripted import ScriptedProvider
from harness.llm.seat import SeatFactory
from harness.protocol.view import frame_docs
from harness.records import AgentInfo, RecordWriter
from harness.registry import get_game
from harness.replay import replay
from harness.seats import BaselineSeat, Seat, SeatReply, SeatRequest
from harness.testing.llm_server import Reply, ScriptedLLMServer
from tests import in_process

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs/schemas/hourloom-record.schema.json").read_text())
GAME = get_game("hourloom")
KEY_ENV = "HOURLOOM_TEST_API_KEY"
HINT_MARK = "could not be used"


def lighthouse(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The command in this process, with ``env`` added to the environment."""
    return in_process.lighthouse(*args, env={**os.environ, **(env or {})})


def play(seat: Seat, path: Path | None = None, seed: int = 7, **rules: Any) -> Any:
    config = GAME.rules.make_config("default", rules)
    state = GAME.rules.new_state(config, seed)
    writer = RecordWriter(path) if path else None

    async def go() -> Any:
        try:
            return await run_episode(
                GAME, state, {"player": seat}, episode_id="hl", seed=seed, writer=writer
            )
        finally:
            if writer:
                writer.close()

    return asyncio.run(go())


def record_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_published_schema_matches_the_models(capsys: pytest.CaptureFixture[str]) -> None:
    assert GAME.codec.record_schema() == SCHEMA
    assert main(["schema", "--game", "hourloom"]) == 0
    assert json.loads(capsys.readouterr().out) == SCHEMA


@pytest.mark.parametrize(("name", "bot"), [("planner", planner), ("timestep", timestep)])
def test_play_from_the_command_line_with_each_baseline(name: str, bot: Any, tmp_path: Path) -> None:
    # The harness's run is the capped run of the rules core, action for action.
    record = tmp_path / f"{name}.jsonl"
    proc = lighthouse(
        "play", "--game", "hourloom", "--seed", "7", "--player", name, "--record", str(record)
    )
    assert proc.returncode == 0, proc.stderr
    expected = play_capped(7, bot)
    planned = planned_score(7, 6, 1500)
    assert f"Hourloom, seed 7, variant default: player {name}" in proc.stdout
    assert (
        f"score {expected.score} of a planned {planned} "
        f"({100 * expected.score / planned:.1f}%)  chambers sealed {expected.chambers_sealed}  "
        f"laps {expected.laps_completed}  actions {expected.actions}  refusals 0  "
        f"reason {expected.reason}"
    ) in proc.stdout
    lines = record_lines(record)
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for line in lines:
        validator.validate(line)
    ticks = [line for line in lines if line["type"] == "tick"]
    assert len(ticks) == expected.actions
    assert {t["seats"]["player"]["source"] for t in ticks} == {"baseline"}
    results = lines[-1]["results"]
    assert (
        results["score"],
        results["planned"],
        results["chambersSealed"],
        results["lapsCompleted"],
        results["actions"],
        results["refusals"],
        results["reason"],
    ) == (
        expected.score,
        planned,
        expected.chambers_sealed,
        expected.laps_completed,
        expected.actions,
        0,
        expected.reason,
    )
    assert ticks[-1]["state"]["score"] == expected.score
    verified = lighthouse("replay", str(record))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "clean" in verified.stdout


def test_the_chamber_cap_ends_the_run_after_the_seal() -> None:
    outcome = play(BaselineSeat("planner"), max_chambers=2)
    r = outcome.results
    expected = play_capped(7, planner, max_chambers=2)
    assert (r.reason, r.chambers_sealed, r.chamber, r.score) == (
        "chamber_cap",
        2,
        2,
        expected.score,
    )
    assert r.planned == r.score  # PLANNER is the planned run
    last = outcome.lines[-2].state
    assert last.auto_end == "chamber_cap"
    assert [e["type"] for e in last.events][-2:] == ["chamberSealed", "runEnded"]
    assert (last.phase, last.end_reason) == ("over", "end_run")
    # the tick before: the run was still in chamber 2's last lap
    assert outcome.lines[-3].state.auto_end is None


def test_the_action_cap_ends_the_run_after_that_many_actions() -> None:
    outcome = play(BaselineSeat("planner"), max_actions=25)
    r = outcome.results
    assert (r.reason, r.actions) == ("action_cap", 25)
    assert len([line for line in outcome.lines if line.type == "tick"]) == 25
    assert outcome.lines[-2].state.auto_end == "action_cap"
    assert r.score == play_capped(7, planner, max_actions=25).score
    assert r.planned == planned_score(7, 6, 25) == r.score


@pytest.mark.parametrize("seed", [0, 3, 11])
def test_planned_is_planners_score_on_the_same_seed_and_caps(seed: int) -> None:
    for chambers, actions in [(6, 1500), (2, 1500), (6, 90)]:
        mine = planned_run(seed, max_chambers=chambers, max_actions=actions)
        theirs = play_capped(seed, planner, max_chambers=chambers, max_actions=actions)
        assert (mine.score, mine.actions, mine.reason) == (
            theirs.score,
            theirs.actions,
            theirs.reason,
        )


def test_a_rules_config_out_of_range_is_a_config_error() -> None:
    from harness.errors import ConfigError

    with pytest.raises(ConfigError, match="maxChambers"):
        GAME.rules.make_config("default", {"maxChambers": 0})
    with pytest.raises(ConfigError, match="maxActions"):
        GAME.rules.make_config("default", {"maxActions": 10**9})
    with pytest.raises(ConfigError, match="decisionsPerChamber"):
        GAME.rules.make_config("default", {"decisionsPerChamber": 5})


def test_board_shows_the_chamber_the_run_reaches(capsys: pytest.CaptureFixture[str]) -> None:
    def board(*args: str) -> tuple[int, str, str]:
        status = main(["board", "--game", "hourloom", "--seed", "7", *args])
        out, err = capsys.readouterr()
        return status, out, err

    status, out, _ = board("--chamber", "3", "--json")
    assert status == 0
    shown = json.loads(out)
    assert (shown["seed"], shown["chamber"], shown["state"]["chamber"]["number"]) == (7, 3, 3)
    # PLANNER's run enters chamber 3 on its second DESCEND: the same rows and sand
    outcome = play(BaselineSeat("planner"), max_chambers=3)
    entered = next(
        line.state
        for line in outcome.lines
        if line.type == "tick"
        and any(e["type"] == "chamberStarted" for e in line.state.events)
        and line.state.chamber == 3
    )
    assert shown["rows"] == entered.grid
    assert shown["sand"] == shown["lapBudget"] == entered.sand
    status, out, _ = board("--chamber", "3")
    assert status == 0
    assert out.startswith("Hourloom, seed 7, variant default, chamber 3\nChamber 3 (8 x 8)")
    for row in entered.grid:
        assert row in out
    status, out, _ = board("--json")
    assert (status, json.loads(out)["chamber"]) == (0, 1)
    status, _, err = board("--chamber", "0")
    assert status == 2
    assert "--chamber: must be a whole number >= 1, got 0" in err
    status, _, err = board("--chamber", "501")
    assert status == 2
    assert "chamber: must be 1..500, got 501" in err
    assert main(["board", "--game", "relayroam", "--seed", "7", "--chamber", "2"]) == 2
    assert "--chamber: relayroam has no chambers a seed fixes" in capsys.readouterr().err


def test_the_smoke_tournament_puts_planner_ahead_and_its_records_replay(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = lighthouse("run", str(ROOT / "configs/hourloom-smoke.toml"), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    # the ceiling is named once: score / planner, not score / planned beside it
    assert "| entrant | chambers sealed | laps |" in proc.stdout
    assert "score / planned" not in proc.stdout
    assert "score / planner (95% CI)" in proc.stdout
    rows = {
        line.split("|")[1].strip(): [cell.strip() for cell in line.split("|")[2:-1]]
        for line in proc.stdout.splitlines()
        if line.startswith(("| planner | 6", "| timestep | 0"))
    }
    assert rows["planner"] == ["6.00", "23.00"]
    entrants = {
        line.split("|")[1].strip(): [cell.strip() for cell in line.split("|")[2:-1]]
        for line in proc.stdout.splitlines()
        if line.startswith(("| planner | planner |", "| timestep | timestep |"))
    }
    share = float(entrants["timestep"][6].split(" ")[0].rstrip("%"))
    assert 0 < share < 50
    lines = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]
    assert len(lines) == 8
    score = {(x["entrant"], x["seed"]): x["metrics"]["score"] for x in lines}
    for line in lines:
        assert line["metrics"]["planned"] == planned_score(line["seed"], 6, 1500)
    for seed in range(4):
        assert score[("planner", seed)] > score[("timestep", seed)]
    verified = lighthouse("replay", str(out))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert "8 records: 8 clean" in verified.stdout


def test_play_with_an_openai_player_from_the_command_line(tmp_path: Path) -> None:
    record = tmp_path / "llm.jsonl"
    with ScriptedLLMServer(default=lambda path, body: Reply('{"type": "END_RUN"}')) as server:
        proc = lighthouse(
            "play", "--game", "hourloom", "--seed", "7", "--player", "openai:test-model",
            "--base-url", server.openai_url, "--api-key-env", KEY_ENV, "--record", str(record),
            env={KEY_ENV: "sk-hourloom-test"},
        )  # fmt: skip
        asked = len(server.requests)
    assert proc.returncode == 0, proc.stderr
    assert "player openai:test-model" in proc.stdout
    assert "reason end_run" in proc.stdout
    lines = record_lines(record)
    assert lines[0]["seats"][0]["agent"]["name"] == "openai:test-model"
    [tick] = [line for line in lines if line["type"] == "tick"]
    assert tick["seats"]["player"]["source"] == "llm"
    assert asked == 2  # the preflight, then the one action


def openai_seat(server: ScriptedLLMServer, **options: Any) -> tuple[SeatFactory, Seat]:
    opts = LLMSeatOptions.model_validate(
        {
            "provider": {"kind": "openai", "base_url": server.openai_url, "api_key_env": KEY_ENV},
            "model": "test-model",
            "call_timeout_seconds": 5.0,
            "allowance_seconds": 10.0,
            **options,
        }
    )
    factory = SeatFactory()
    return factory, factory.seat(GAME, "player", opts)


def play_openai(server: ScriptedLLMServer, path: Path, **options: Any) -> Any:
    config = GAME.rules.make_config("default", {"maxChambers": 1})
    state = GAME.rules.new_state(config, 7)

    async def go() -> Any:
        factory, seat = openai_seat(server, **options)
        try:
            with RecordWriter(path) as writer:
                return await run_episode(
                    GAME, state, {"player": seat}, episode_id="hl-llm", seed=7, writer=writer
                )
        finally:
            await factory.aclose()

    return asyncio.run(go())


def test_an_openai_seat_retries_a_refusal_once_and_falls_back_to_timestep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Seed 7 starts you on tile 21 (r3 c0): S is a wall, E and then N are free.
    monkeypatch.setenv(KEY_ENV, "sk-hourloom-test")
    path = tmp_path / "llm.jsonl"
    with ScriptedLLMServer() as server:
        server.push(
            Reply('{"type": "MOVE", "dir": "S"}'),  # refused: wall
            Reply('{"type": "MOVE", "dir": "E"}'),  # the retry: accepted
            Reply('```json\n{"type": "MOVE", "dir": "N"}\n```'),  # a good action
            Reply("I would go north."),  # not JSON
            Reply('{"type": "MOVE" "dir": "N"}'),  # still not JSON: the fallback
            Reply('{"type": "END_RUN"}'),
        )
        play_openai(server, path, structured_output="json_schema")
        requests = server.requests
    lines = record_lines(path)
    ticks = [line for line in lines if line["type"] == "tick"]
    turns = [t["seats"]["player"] for t in ticks]
    assert [t["source"] for t in turns] == ["llm_retry", "llm", "fallback_parse", "llm"]
    refused = turns[0]["replies"][0]["parseError"]
    assert refused["kind"] == "refused:wall"
    assert "Legal now:" in refused["message"]
    assert turns[0]["decision"] == {"type": "MOVE", "dir": "E"}
    # the hint went back once, naming the reason and the legal actions
    hint = json.dumps(requests[1].body)
    assert HINT_MARK in hint
    assert "refused that action (wall)" in hint
    assert sum(1 for r in requests if HINT_MARK in json.dumps(r.body)) == 2
    # structured output: the rules' grammar as the reply schema
    schema = requests[0].body["response_format"]["json_schema"]["schema"]
    assert schema == GAME.seat_io.reply_schema("player")
    assert schema["properties"]["type"]["enum"] == ["MOVE", "WAIT", "DESCEND", "END_RUN"]
    # the fallback is TIMESTEP's action on the same state, tagged
    state = new_game(7)
    for action in ({"type": "MOVE", "dir": "E"}, {"type": "MOVE", "dir": "N"}):
        state = step(state, action).state
    assert turns[2]["decision"] == timestep(state)
    assert json.loads(turns[2]["raw"]) == timestep(state)
    assert [r["parseError"]["kind"] for r in turns[2]["replies"]] == ["not_json", "not_json"]
    assert lines[-1]["results"]["reason"] == "end_run"
    assert lines[-1]["results"]["actions"] == 4
    verified = asyncio.run(replay(path, GAME, reparse=True))
    assert verified.clean
    assert verified.reparse == []


def test_a_fallback_never_ends_the_run() -> None:
    # TIMESTEP sends END_RUN once its sand cannot reach the exit (seed 7: after 40
    # actions); as a fallback it WAITs instead, and the sandglass ends the run with
    # exactly TIMESTEP's score.
    options = LLMSeatOptions.model_validate(
        {"provider": {"kind": "scripted"}, "model": "m", "allowance_seconds": 60}
    )
    provider = ScriptedProvider(["no"], cycle=True)
    seat = SeatFactory().seat(GAME, "player", options, provider=provider)
    outcome = play(seat)
    alone = play_capped(7, timestep)
    assert alone.reason == "end_run"
    r = outcome.results
    assert (r.reason, r.score) == ("sandglass_empty", alone.score)
    assert r.actions > alone.actions
    turns = [line.seats["player"] for line in outcome.lines if line.type == "tick"]
    assert {t.source for t in turns} == {"fallback_parse"}
    assert all(t.decision.type != "END_RUN" for t in turns)
    assert timestep_fallback(new_game(7)) == timestep(new_game(7))


def test_the_viewer_frames_show_echoes_gates_and_the_sandglass() -> None:
    outcome = play(BaselineSeat("planner"), max_chambers=1)
    models = GAME.view.view_frames(outcome.lines)
    frames: list[Any] = frame_docs(models)
    assert len(frames) == outcome.results.actions + 1
    start = frames[0]
    assert (start["chamber"], start["lap"], start["sand"]) == (1, 1, start["lapBudget"])
    assert start["gates"] == [{"gate": "A", "open": False, "by": ["nobody"]}]
    with_echoes = [f for f in frames if any(e["tile"] is not None for e in f["echoes"])]
    assert with_echoes
    echo = next(e for e in with_echoes[0]["echoes"] if e["tile"] is not None)
    assert echo["next"] in ("N", "E", "S", "W", "WAIT")
    assert any(g["open"] for f in frames for g in f["gates"])  # an echo held the plate
    assert frames[-1]["phase"] == "over"
    drawn = models[frames.index(with_echoes[0])].text()
    assert "echoes: 1: " in drawn
    assert "gates (for you): A " in drawn


class Stubborn:
    """A seat that answers every tick with a move into a wall, unjudged (as only a
    hand-written record could): the rules refuse it as a free no-op."""

    agent = AgentInfo(kind="scripted", name="stubborn")

    async def decide(self, request: SeatRequest) -> SeatReply:
        return SeatReply('{"type": "MOVE", "dir": "S"}', {"type": "MOVE", "dir": "S"}, "scripted")


def test_a_refused_action_is_a_free_no_op_that_counts_against_the_action_cap() -> None:
    # Seed 7 starts you on tile 21 with a wall to the south.
    outcome = play(Stubborn(), max_actions=3)
    r = outcome.results
    assert (r.reason, r.actions, r.refusals, r.score) == ("action_cap", 3, 3, 0)
    states = [line.state for line in outcome.lines if line.type == "tick"]
    assert [(s.ok, s.reason, s.actions, s.refusals) for s in states] == [
        (False, "wall", 1, 1),
        (False, "wall", 2, 2),
        (False, "wall", 3, 3),
    ]
    start = new_game(7)
    assert [(s.player, s.sand, s.turn) for s in states[:2]] == [(start.player, start.sand, 0)] * 2
    assert states[0].events == []
    assert [e["type"] for e in states[2].events] == ["runEnded"]
