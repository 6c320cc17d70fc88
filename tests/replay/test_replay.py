"""Offline replay: verified re-execution, reparse, hand-written records, counterfactuals."""

from __future__ import annotations

import asyncio
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from harness.records import RecordWriter
from harness.registry import get_game
from harness.replay import counterfactual, load_record, replay
from harness.seats import BaselineSeat
from harness.viewer.terminal import step_through
from tests.in_process import lighthouse
from tests.older_records import before_prompts

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = sorted((ROOT / "tests/golden/records").glob("*.jsonl"))
HAND = ROOT / "tests/golden/hand/short-game.jsonl"
SCHEMA = json.loads((ROOT / "docs/schemas/lighthouse-record.schema.json").read_text())
GAME = get_game("lighthouse")


def real_process(*args: str) -> subprocess.CompletedProcess[str]:
    """The command as a real subprocess (everywhere else: in this process)."""
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *args],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip


def rewrite(src: Path, dst: Path, tick: int, edit: Any) -> Path:
    lines = [json.loads(line) for line in src.read_text().splitlines()]
    target = lines[-1] if tick == -1 else next(x for x in lines if x.get("tick") == tick)
    edit(target)
    dst.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return dst


@pytest.mark.parametrize("record", GOLDEN, ids=lambda p: p.name)
def test_every_golden_record_replays_clean(record: Path) -> None:
    result = asyncio.run(replay(record, GAME))
    assert result.clean, result.mismatch and result.mismatch.describe()
    assert len([x for x in result.lines if x.type == "tick"]) == len(result.record.ticks)


def test_the_golden_records_include_retries_fallbacks_and_a_deadline() -> None:
    sources, reasons = set(), set()
    for record in GOLDEN:
        loaded = load_record(record, GAME)
        ticks: list[Any] = loaded.ticks
        sources |= {t["source"] for line in ticks for t in line["seats"].values()}
        end: Any = loaded.end
        assert end is not None
        reasons.add(end["results"]["reason"])
    assert {"baseline", "llm", "llm_retry", "fallback_parse", "fallback_api"} <= sources
    assert "deadline" in reasons


@pytest.mark.slow  # the whole smoke tournament, 300 episodes, played and replayed
def test_a_fresh_smoke_tournament_replays_clean(tmp_path: Path) -> None:
    out = tmp_path / "smoke"
    assert (
        lighthouse(
            "run", str(ROOT / "configs/smoke.toml"), "--out", str(out), "--no-report"
        ).returncode
        == 0
    )
    proc = lighthouse("replay", str(out))
    assert proc.returncode == 0, proc.stdout
    assert "300 records: 300 clean, 0 not clean" in proc.stdout
    assert "300 results lines: 300 match their records, 0 do not" in proc.stdout


@pytest.mark.parametrize(
    ("tick", "edit", "field"),
    [
        (4, lambda t: t["seats"]["runner1"]["decision"].update(move="W"), "state.runners.0.pos.0"),
        (6, lambda t: t["state"].update(clock=t["state"]["clock"] + 1), "state.clock"),
        (-1, lambda t: t["results"].update(teamScore=41.0), "results.teamScore"),
        (-1, lambda t: t["results"]["scores"].__setitem__(2, 1.5), "results.scores.2"),
        (9, lambda t: t["state"]["runners"][2].update(status="drowned"), "state.runners.2.status"),
    ],
)
def test_a_tampered_record_is_caught_at_the_right_tick_and_field(
    tmp_path: Path, tick: int, edit: Any, field: str
) -> None:
    original = ROOT / "tests/golden/records/baseline-default-seed7.jsonl"
    tampered = rewrite(original, tmp_path / "t.jsonl", tick, edit)
    result = asyncio.run(replay(tampered, GAME))
    assert result.mismatch is not None
    assert result.mismatch.tick == (None if tick == -1 else tick)
    assert result.mismatch.field == field
    proc = lighthouse("replay", str(tampered))
    assert proc.returncode == 1
    where = "results" if tick == -1 else f"tick {tick}"
    assert f"MISMATCH at {where}: {field}:" in proc.stdout


def test_a_decision_of_the_wrong_kind_is_a_mismatch_not_a_traceback(tmp_path: Path) -> None:
    original = ROOT / "tests/golden/records/llm-keeper-retries-fallbacks.jsonl"

    def keepers_decision(line: dict[str, Any]) -> None:
        line["seats"]["runner1"]["decision"] = {"transmit": True, "message": "x", "notes": None}

    edited = rewrite(original, tmp_path / "r.jsonl", 3, keepers_decision)
    result = asyncio.run(replay(edited, GAME))
    assert result.mismatch is not None
    assert result.mismatch.tick == 3
    assert "runner1's decision has no move" in str(result.mismatch.replayed)
    proc = lighthouse("replay", str(edited))
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "MISMATCH at tick 3" in proc.stdout


def test_a_decision_for_a_resolved_runner_is_caught(tmp_path: Path) -> None:
    original = ROOT / "tests/golden/records/baseline-spring-seed3.jsonl"
    lines = [json.loads(x) for x in original.read_text().splitlines()]
    last = [x for x in lines if x["type"] == "tick"][-1]
    gone = next(r for r in last["state"]["runners"] if r["status"] != "active")
    last["seats"][f"runner{gone['seat']}"] = {"decision": {"move": "N"}}
    tampered = tmp_path / "t.jsonl"
    tampered.write_text("".join(json.dumps(x) + "\n" for x in lines))
    result = asyncio.run(replay(tampered, GAME))
    assert result.mismatch is not None
    assert result.mismatch.tick == last["tick"]
    assert result.mismatch.field == "seats"
    recorded, replayed = result.mismatch.recorded, result.mismatch.replayed
    assert isinstance(recorded, list)
    assert isinstance(replayed, list)
    assert f"runner{gone['seat']}" in recorded
    assert f"runner{gone['seat']}" not in replayed


def test_a_hand_written_record_replays_to_the_results_worked_out_by_hand(tmp_path: Path) -> None:
    # Gizmo walks north four times: picks up the only key at tick 2 (the gate opens),
    # escapes at tick 4. The keeper spoke once (clock +1). maxTicks 6: timeup.
    # K = 1 of 1, E = 1, B = 0: teamScore = 6 * 1 + 10 * 1 = 16; clock = 6 + 1 = 7.
    complete = tmp_path / "complete.jsonl"
    with RecordWriter(complete) as writer:
        result = asyncio.run(replay(HAND, GAME, writer=writer))
    assert result.clean
    end = result.lines[-1].model_dump(by_alias=True)["results"]
    assert (end["teamScore"], end["K"], end["E"], end["B"]) == (16.0, 1, 1, 0.0)
    assert (end["clock"], end["ticks"], end["reason"]) == (7, 6, "timeup")
    ticks: list[Any] = [x for x in result.lines if x.type == "tick"]
    assert ticks[2].state.gate_opened_tick == 2
    assert ticks[4].state.runners[1].status == "escaped"
    assert ticks[5].state.runners[0].bumped is True
    assert ticks[0].state.runners[1].notes == "the key is north"
    # the completed record is a full, valid record that replays clean in turn
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for line in complete.read_text().splitlines():
        validator.validate(json.loads(line))
    assert asyncio.run(replay(complete, GAME)).clean
    proc = lighthouse("replay", str(HAND), "--complete", str(tmp_path / "c2.jsonl"))
    assert proc.returncode == 0
    assert "complete record written" in proc.stdout


def test_a_deadline_ending_is_reproduced() -> None:
    record = ROOT / "tests/golden/records/llm-keeper-deadline.jsonl"
    result = asyncio.run(replay(record, GAME))
    assert result.clean
    end: Any = result.lines[-1]
    assert end.results.reason == "deadline"


def test_reparse_reports_every_decision_that_would_change(tmp_path: Path) -> None:
    original = ROOT / "tests/golden/records/llm-keeper-retries-fallbacks.jsonl"

    def break_first_reply(tick: dict[str, Any]) -> None:  # tick 0: llm, no retry recorded
        tick["seats"]["keeper"]["replies"][0]["raw"] = "```python\n{}\n```"

    def fix_first_reply(tick: dict[str, Any]) -> None:  # tick 3: fallback_parse
        tick["seats"]["keeper"]["replies"][0]["raw"] = '{"transmit": false}'

    edited = rewrite(original, tmp_path / "e.jsonl", 0, break_first_reply)
    edited = rewrite(edited, tmp_path / "e.jsonl", 3, fix_first_reply)
    result = asyncio.run(replay(edited, GAME, reparse=True))
    assert result.clean  # the decisions themselves are untouched
    changes = {(c.tick, c.seat): c for c in result.reparse}
    assert set(changes) == {(0, "keeper"), (3, "keeper")}
    assert changes[0, "keeper"].new_source == "rejected"
    assert "no retry reply was recorded" in changes[0, "keeper"].note
    assert changes[3, "keeper"].recorded_source == "fallback_parse"
    assert changes[3, "keeper"].new_source == "llm"
    assert changes[3, "keeper"].new_decision == {"transmit": False, "message": "", "notes": None}
    assert asyncio.run(replay(original, GAME, reparse=True)).reparse == []
    proc = lighthouse("replay", str(edited), "--reparse")
    assert "reparse: 2 decision(s) would change" in proc.stdout


def test_counterfactual_replays_up_to_k_then_plays_live(tmp_path: Path) -> None:
    original = ROOT / "tests/golden/records/baseline-default-seed7.jsonl"
    out = tmp_path / "cf.jsonl"
    with RecordWriter(out) as writer:
        record, _ = asyncio.run(
            counterfactual(original, GAME, 4, {"keeper": BaselineSeat("silent")}, writer=writer)
        )
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    header = lines[0]
    assert header["derivedFrom"] == {
        "episodeId": "lighthouse-default-seed7", "record": original.name, "untilTick": 4,
    }  # fmt: skip
    assert header["seats"][0]["agent"]["name"] == "silent"
    assert header["seats"][0]["agent"]["details"]["fromTick"] == "4"
    ticks = [x for x in lines if x["type"] == "tick"]
    for k in range(4):  # identical to the original up to tick K
        assert ticks[k]["state"] == record.ticks[k]["state"]
        recorded: Any = record.ticks[k]
        assert ticks[k]["seats"]["keeper"]["raw"] == recorded["seats"]["keeper"]["raw"]
    assert all(t["state"]["transmission"] is None for t in ticks[4:])  # silent from K on
    assert all(t["seats"]["keeper"]["source"] == "baseline" for t in ticks[4:])
    assert asyncio.run(replay(out, GAME)).clean  # the new record replays clean too
    proc = lighthouse("replay", str(original), "--until-tick", "2", "--keeper", "silent",
                      "--out", str(tmp_path / "cf2.jsonl"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "counterfactual from tick 2" in proc.stdout


def test_replay_keeps_the_prompts_and_a_record_from_before_them_replays_clean(
    tmp_path: Path,
) -> None:
    original = ROOT / "tests/golden/records/llm-keeper-retries-fallbacks.jsonl"
    kept = json.loads(original.read_text().splitlines()[0])["prompts"]
    assert len(kept) == 3  # the keeper's system, observation and retry-hint files
    complete = tmp_path / "complete.jsonl"
    with RecordWriter(complete) as writer:
        assert asyncio.run(replay(original, GAME, writer=writer)).clean
    lines = [json.loads(x) for x in complete.read_text().splitlines()]
    assert lines[0]["prompts"] == kept
    hashes = [c.get("promptSha256") for t in lines[1:-1] for c in t["seats"]["keeper"]["calls"]]
    assert len(hashes) == 10  # eight ticks, two of them retried
    assert all(hashes)
    # a counterfactual keeps the prompts its first ticks were played with
    with RecordWriter(tmp_path / "cf.jsonl") as writer:
        _, outcome = asyncio.run(
            counterfactual(original, GAME, 3, {"keeper": BaselineSeat("lantern")}, writer=writer)
        )
    header: Any = outcome.lines[0]
    assert header.prompts == kept
    older = before_prompts(original, tmp_path / "older.jsonl")
    assert "prompts" not in older.read_text()
    assert "promptSha256" not in older.read_text()
    assert asyncio.run(replay(older, GAME)).clean


def test_counterfactual_needs_a_player_for_a_model_seat(tmp_path: Path) -> None:
    original = ROOT / "tests/golden/records/llm-keeper-retries-fallbacks.jsonl"
    proc = lighthouse(
        "replay", str(original), "--until-tick", "3", "--out", str(tmp_path / "x.jsonl")
    )
    assert proc.returncode == 2
    assert "keeper was played by scripted:scripted-model" in proc.stderr


def test_terminal_view_steps_through_the_ticks() -> None:
    result = asyncio.run(
        replay(ROOT / "tests/golden/records/llm-keeper-retries-fallbacks.jsonl", GAME)
    )
    answers = iter(["", "", "b", "5", "q"])
    out = io.StringIO()
    step_through(GAME.view, result.lines, read=lambda prompt: next(answers), out=out)
    text = out.getvalue()
    shown = [line for line in text.splitlines() if line.startswith("== ")]
    assert [s.split()[1:3] for s in shown] == [
        ["start", "clock"], ["tick", "0"], ["tick", "1"], ["tick", "0"], ["tick", "5"],
    ]  # fmt: skip
    assert "[llm_retry] keeper:" in text
    assert "notes: fixed" in text
    assert "Sprocket:" in text  # a runner's window
    assert "windows seen at tick 5:" in text  # as it saw it when it decided


def test_replay_refuses_a_broken_record_with_a_clear_message(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "tick", "tick": 0, "seats": {}}\n')
    proc = real_process("replay", str(bad))  # a real process's exit status and stderr
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "the first line must be the header" in proc.stderr
    bad.write_text(HAND.read_text().splitlines()[0] + "\n{not json\n")
    proc = lighthouse("replay", str(bad))
    assert proc.returncode == 2
    assert "bad.jsonl:2: not a JSON line" in proc.stderr
