"""Relayroam through the shared machinery: seats, refusals, bounds, records, replay, reports."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from harness.episode import run_episode
from harness.games.relayroam.game import optimum
from harness.games.relayroam.solver import solve_chamber, solve_seeded_chamber
from harness.llm.options import LLMSeatOptions
from harness.llm.scripted import ScriptedProvider
from harness.llm.seat import SeatFactory
from harness.llm.types import CompletionRequest
from harness.protocol.view import frame_docs
from harness.records import AgentInfo, RecordWriter
from harness.registry import get_game
from harness.replay import replay
from harness.seats import BaselineSeat, Seat, SeatReply, SeatRequest
from harness.viewer.html import render_html
from tests.in_process import lighthouse

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs/schemas/relayroam-record.schema.json").read_text())
GAME = get_game("relayroam")


def play(seat: Seat, path: Path | None = None, seed: int = 7, **rules: Any) -> Any:
    config = GAME.rules.make_config("default", rules)
    state = GAME.rules.new_state(config, seed)
    writer = RecordWriter(path) if path else None

    async def go() -> Any:
        try:
            return await run_episode(
                GAME, state, {"player": seat}, episode_id="rr", seed=seed, writer=writer
            )
        finally:
            if writer:
                writer.close()

    return asyncio.run(go())


def test_the_registry_serves_both_games() -> None:
    assert get_game("relayroam").name == "relayroam"
    assert get_game("lighthouse").name == "lighthouse"


def test_the_published_schema_matches_the_models() -> None:
    assert GAME.codec.record_schema() == SCHEMA


def test_the_harness_banks_at_the_chamber_cap(tmp_path: Path) -> None:
    # RR22: GREEDY clears chamber 1 (A) with 455; with chamberCap 1 the harness banks.
    path = tmp_path / "r.jsonl"
    outcome = play(BaselineSeat("greedy"), path, chamber_cap=1)
    results = outcome.results
    assert (results.score, results.reason, results.cleared_chamber_count) == (455, "chamber_cap", 1)
    assert results.optimum == solve_chamber(1, False, (0,)).score == 544
    last = json.loads(path.read_text().splitlines()[-2])
    assert last["state"]["autoBank"] == "chamber_cap"
    assert [e["type"] for e in last["state"]["events"]][-2:] == ["cleared", "banked"]
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for line in path.read_text().splitlines():
        validator.validate(json.loads(line))
    assert asyncio.run(replay(path, GAME)).clean


def test_greedy_depletes_in_chamber_two() -> None:
    # RR22: GREEDY 455 in chamber 1, then 200 in chamber 2 (B) and the run depletes.
    outcome = play(BaselineSeat("greedy"))
    assert (outcome.results.score, outcome.results.reason) == (655, "depleted")
    assert outcome.results.optimum == optimum(7, 6)


class Waiter:
    agent = AgentInfo(kind="scripted", name="waiter")

    async def decide(self, request: SeatRequest) -> SeatReply:
        return SeatReply('{"type": "wait"}', {"type": "wait"}, "scripted")


def test_the_decision_guard_banks() -> None:
    outcome = play(Waiter(), decisions_per_chamber=5)
    assert (outcome.results.reason, outcome.results.ticks) == ("decision_guard", 5)
    assert outcome.state.rules.end_reason == "banked"


def llm_seat(replies: list[str]) -> Seat:
    options = LLMSeatOptions.model_validate(
        {
            "provider": {"kind": "scripted"},
            "model": "m",
            "call_timeout_seconds": 5,
            "allowance_seconds": 5,
        }
    )
    provider = ScriptedProvider(replies, cycle=False)
    return SeatFactory().seat(GAME, "player", options, provider=provider)


def test_a_refusal_is_the_one_retry_hint_then_fallback_refused(tmp_path: Path) -> None:
    # From the start (0, 2): left is off the grid, right is the battery.
    replies = [
        '{"type": "move", "direction": "left"}',  # refused: off_grid
        '{"type": "move", "direction": "down"}',  # the retry: accepted
        '{"type": "fly"}',  # refused: malformed_action
        '{"type": "move", "direction": "left"}',  # refused again: fallback_refused
        "not json",
        "still not json",  # fallback_parse
        '{"type": "bank"}',
    ]
    seat = llm_seat(replies)
    path = tmp_path / "r.jsonl"
    play(seat, path)
    ticks = [json.loads(x) for x in path.read_text().splitlines()[1:-1]]
    assert [t["seats"]["player"]["source"] for t in ticks] == [
        "llm_retry", "fallback_refused", "fallback_parse", "llm",
    ]  # fmt: skip
    first = ticks[0]["seats"]["player"]["replies"][0]["parseError"]
    assert first["kind"] == "refused:off_grid"
    assert "Legal actions now:" in first["message"]
    assert (
        ticks[1]["seats"]["player"]["replies"][0]["parseError"]["kind"]
        == "refused:malformed_action"
    )
    assert ticks[3]["state"]["endReason"] == "banked"
    provider: ScriptedProvider = seat.provider  # type: ignore[attr-defined]
    hint = provider.requests[1].messages[-1].content
    assert "off_grid" in hint
    assert 'Legal actions now: [{"type": "move", "direction": "up"}' in hint
    assert asyncio.run(replay(path, GAME, reparse=True)).reparse == []


def test_the_viewer_draws_relayroam(tmp_path: Path) -> None:
    outcome = play(BaselineSeat("vent-aware-greedy"), chamber_cap=1)
    page = render_html(GAME.view, outcome.lines)
    assert "Relayroam" in page
    frames: list[Any] = frame_docs(GAME.view.view_frames(outcome.lines))
    assert len(frames) == outcome.results.ticks + 1
    assert frames[-1]["phase"] == "ended"
    assert any("@" in row for row in frames[0]["grid"])


def test_a_relayroam_tournament_reports_score_over_optimum(tmp_path: Path) -> None:
    config = tmp_path / "rr.toml"
    config.write_text(
        'name = "rr"\ngame = "relayroam"\nseeds = [1, 2]\nreference = "greedy"\n'
        "rules = { chamberCap = 3 }\n"
        '[[entrants]]\nname = "greedy"\nplayer = { baseline = "greedy" }\n'
        '[[entrants]]\nname = "vent-aware"\nplayer = { baseline = "vent-aware-greedy" }\n'
    )
    out = tmp_path / "out"
    proc = lighthouse("run", config, "--out", out, "--workers", "0")
    assert proc.returncode == 0, proc.stderr
    assert "| entrant | score / optimum |" in proc.stdout
    assert "## Player leaderboard" not in proc.stdout or "vent-aware-greedy" in proc.stdout
    lines = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]
    assert len(lines) == 4
    for line in lines:
        assert line["metrics"]["optimum"] == optimum(line["seed"], 3)
    proc = lighthouse("replay", out)
    assert proc.returncode == 0, proc.stdout
    assert "4 records: 4 clean" in proc.stdout


def test_play_from_the_command_line(tmp_path: Path) -> None:
    record = tmp_path / "r.jsonl"
    proc = lighthouse("play", "--game", "relayroam", "--seed", "3",
                      "--player", "vent-aware-greedy", "--record", record)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "score 655 of an optimum" in proc.stdout
    proc = lighthouse("play", "--game", "relayroam", "--seed", "3", "--keeper", "lantern")
    assert proc.returncode == 2
    assert "relayroam has no such seat" in proc.stderr


def test_scripted_provider_requests_are_stateless() -> None:
    seat = llm_seat(['{"type": "move", "direction": "down"}', '{"type": "bank"}'])
    play(seat)
    provider: ScriptedProvider = seat.provider  # type: ignore[attr-defined]
    requests: list[CompletionRequest] = provider.requests
    assert [len(r.messages) for r in requests] == [2, 2]
    assert "Relayroam" in requests[0].messages[0].content
    assert "x=0, y=3" in requests[1].messages[1].content


@pytest.mark.parametrize("seed", [0, 11])
def test_records_replay_clean(tmp_path: Path, seed: int) -> None:
    path = tmp_path / "r.jsonl"
    play(BaselineSeat("vent-aware-greedy"), path, seed=seed)
    assert asyncio.run(replay(path, GAME)).clean


def test_first_chamber_starts_where_play_would_arrive(tmp_path: Path) -> None:
    # Chamber 5 drawn from the seed as if chambers 1-4 had been played (RR10), and the
    # optimum summed over the chambers the episode holds: 5 and 6.
    from harness.games.relayroam.state import chamber_setup

    path = tmp_path / "late.jsonl"
    outcome = play(BaselineSeat("vent-aware-greedy"), path, seed=11, first_chamber=5)
    first = outcome.lines[1].state
    setup = chamber_setup(11, 5)
    assert (first.chamber, first.reflected, tuple(first.vent_offsets)) == (
        5,
        setup.reflected,
        setup.vent_offsets,
    )
    assert first.layout == "B"
    chambers = [solve_seeded_chamber(11, n).score for n in range(5, 11)]
    assert outcome.results.optimum == optimum(11, 6, 5) == sum(chambers)
    frames: list[Any] = frame_docs(GAME.view.view_frames(outcome.lines))
    assert frames[0]["chamber"] == 5
    assert asyncio.run(replay(path, GAME)).clean


def test_first_chamber_is_checked() -> None:
    from harness.errors import ConfigError

    with pytest.raises(ConfigError, match="firstChamber"):
        GAME.rules.make_config("default", {"firstChamber": 0})


@pytest.mark.parametrize(
    "seeds",
    [
        pytest.param(range(4), id="seeds0-3"),
        pytest.param(range(20), id="every-seed", marks=pytest.mark.slow),
    ],
)
def test_the_smoke_config_tells_its_two_players_apart(tmp_path: Path, seeds: range) -> None:
    # configs/relayroam-smoke.toml plays chambers 3-5, where waiting for a vent pays:
    # the two entrants must not tie (from chamber 1 they scored 655 each on every seed).
    out = tmp_path / "out"
    # in this process; its scripted episodes in worker processes, as a run plays them
    proc = lighthouse("run", ROOT / "configs/relayroam-smoke.toml", "--out", out, "--no-report",
                      "--seeds", f"{seeds.start}:{seeds.stop}")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]
    by_entrant: dict[str, dict[int, float]] = {}
    for line in lines:
        by_entrant.setdefault(line["entrant"], {})[line["seed"]] = line["score"]
    greedy, aware = by_entrant["greedy"], by_entrant["vent-aware"]
    assert sorted(greedy) == sorted(aware) == list(seeds)
    assert all(aware[s] > greedy[s] for s in greedy), (greedy, aware)
    assert sum(aware.values()) - sum(greedy.values()) >= len(seeds) * 50
