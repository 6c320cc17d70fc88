"""Running tournaments: every episode once, resume, refusal, shards and merge, recovery."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from harness.episode import run_episode
from harness.errors import ConfigError
from harness.games.lighthouse.board import generate_board
from harness.games.lighthouse.config import LighthouseConfig
from harness.games.lighthouse.state import new_game
from harness.records import AgentInfo
from harness.registry import get_game
from harness.seats import BaselineSeat, Seat, SeatReply, SeatRequest
from harness.tournament.config import TournamentConfig, load_tournament
from harness.tournament.manifest import MANIFEST_VERSION
from harness.tournament.merge import merge_folders
from harness.tournament.run import plan_episodes, run_tournament
from harness.tournament.store import ResultsFolder
from tests.in_process import lighthouse

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs/schemas/lighthouse-record.schema.json").read_text())
BASELINES = {"keeper": ("lantern", "silent"), "runner": ("wallhug",)}
SMALL = """
name = "small"
seeds = [3, 4, 5]
variants = ["default", "spring"]
repetitions = 2
reference = "silent"
rules = { maxTicks = 30 }

[[entrants]]
name = "lantern"
keeper = { baseline = "lantern" }
runners = { baseline = "wallhug" }

[[entrants]]
name = "silent"
keeper = { baseline = "silent" }
runners = { baseline = "wallhug" }
"""


def config_at(tmp_path: Path, text: str = SMALL) -> TournamentConfig:
    path = tmp_path / "small.toml"
    path.write_text(text)
    return load_tournament(path)


def run(config: TournamentConfig, out: Path, **kwargs: Any) -> Any:
    return asyncio.run(run_tournament(config, out, **kwargs))


def test_every_episode_once_and_a_rerun_plays_nothing(tmp_path: Path) -> None:
    config = config_at(tmp_path)
    out = tmp_path / "out"
    first = run(config, out)
    assert (first.planned, first.already_done, first.played) == (24, 0, 24)
    folder = ResultsFolder(out)
    ids = [s.episode_id for s in folder.summaries()]
    assert sorted(ids) == sorted(p.episode_id for p in plan_episodes(config))
    assert len(set(ids)) == len(ids)
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for record in folder.iter_records():
        lines = [json.loads(line) for line in record.read_text().splitlines()]
        for line in lines:
            validator.validate(line)
        assert lines[-1]["type"] == "end"
    manifest = folder.manifest()
    assert manifest.config_hash == config.config_hash()
    assert manifest.run.name == "small"
    assert manifest.started_at is not None
    assert manifest.harness_version is not None
    assert manifest.version == MANIFEST_VERSION
    second = run(config, out)
    assert (second.already_done, second.played) == (24, 0)
    assert len(folder.summaries()) == 24


def test_results_lines_match_the_records(tmp_path: Path) -> None:
    config = config_at(tmp_path)
    out = tmp_path / "out"
    run(config, out)
    folder = ResultsFolder(out)
    summaries = folder.summaries()
    assert len(summaries) == 24
    for summary in summaries:
        end = json.loads(folder.record_path(summary.episode_id).read_text().splitlines()[-1])
        assert summary.scores == end["results"]["scores"]
        assert summary.metrics["K"] == end["results"]["K"]
        assert summary.reason == end["results"]["reason"]
        assert summary.seats["keeper"].agent == summary.entrant


def test_same_seeds_for_every_entrant(tmp_path: Path) -> None:
    plans = plan_episodes(config_at(tmp_path))
    by_entrant: dict[str, set[tuple[int, str, int]]] = {}
    for p in plans:
        by_entrant.setdefault(p.entrant.name, set()).add((p.seed, p.variant, p.repetition))
    assert by_entrant["lantern"] == by_entrant["silent"]
    assert len(by_entrant["lantern"]) == 3 * 2 * 2


def test_a_folder_of_another_game_or_shard_split_is_refused_naming_what_differs(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    run(config_at(tmp_path), out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and p.name != ".lock"}
    with pytest.raises(ConfigError, match=r"shard was '1/1', now '1/2'"):
        run(config_at(tmp_path), out, shard=(1, 2))
    relayroam = load_tournament(ROOT / "configs/relayroam-smoke.toml")
    with pytest.raises(ConfigError, match=r"game was 'lighthouse', now 'relayroam'") as info:
        run(relayroam, out)
    assert "shard" not in str(info.value)  # only what differs is named
    after = {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and p.name != ".lock"}
    assert after == before


def test_shards_merge_into_the_unsharded_results(tmp_path: Path) -> None:
    config = config_at(tmp_path)
    whole = run(config, tmp_path / "whole")
    a = run(config, tmp_path / "a", shard=(1, 2))
    b = run(config, tmp_path / "b", shard=(2, 2))
    assert a.planned + b.planned == whole.planned
    assert merge_folders([tmp_path / "a", tmp_path / "b"], tmp_path / "m") == 24
    merged = {s.episode_id: s.scores for s in ResultsFolder(tmp_path / "m").summaries()}
    expected = {s.episode_id: s.scores for s in ResultsFolder(tmp_path / "whole").summaries()}
    assert merged == expected
    other = config_at(tmp_path, SMALL.replace("repetitions = 2", "repetitions = 1"))
    run(other, tmp_path / "c")
    with pytest.raises(ConfigError, match=r"different configs \(they differ in: repetitions\)"):
        merge_folders([tmp_path / "a", tmp_path / "c"], tmp_path / "m2")


def test_recovery_after_a_crash_between_and_during_writes(tmp_path: Path) -> None:
    config = config_at(tmp_path)
    out = tmp_path / "out"
    run(config, out)
    folder = ResultsFolder(out)
    lines = folder.episodes_path.read_bytes().splitlines(keepends=True)
    ids = [json.loads(line)["episodeId"] for line in lines]
    # Crash A: the last results line was torn mid-write (its record is complete).
    # Crash B: a record was renamed into place but its results line never written.
    # Crash C: an episode was in play: only its partial record exists.
    in_play = ids[0]
    kept = [line for line in lines[:-2] if json.loads(line)["episodeId"] != in_play]
    torn = lines[-1][: len(lines[-1]) // 2]
    folder.episodes_path.write_bytes(b"".join(kept) + torn)
    folder.record_path(in_play).rename(folder.partial_path(in_play))
    with folder.partial_path(in_play).open("r+b") as handle:  # cut it mid-line
        handle.truncate(handle.seek(0, 2) // 2)
    record_times = {p.name: p.stat().st_mtime_ns for p in folder.iter_records()}

    again = run(config, out)

    after = [s.episode_id for s in folder.summaries()]
    assert sorted(after) == sorted(ids)  # every episode exactly once
    assert again.played == 1  # only the one that was in play
    assert not folder.partial_path(in_play).exists()
    assert folder.record_path(in_play).exists()
    # the two whose lines were lost were summarised from their records, not replayed
    assert all(
        p.stat().st_mtime_ns == record_times[p.name]
        for p in folder.iter_records()
        if p.name in record_times
    )
    assert folder.episodes_path.read_bytes().endswith(b"\n")


def test_a_record_deleted_by_hand_is_played_again(tmp_path: Path) -> None:
    config = config_at(tmp_path)
    out = tmp_path / "out"
    run(config, out)
    folder = ResultsFolder(out)
    victim = folder.summaries()[5].episode_id
    folder.record_path(victim).unlink()
    again = run(config, out)
    assert again.played == 1
    ids = [s.episode_id for s in folder.summaries()]
    assert ids.count(victim) == 1
    assert len(ids) == 24


class Scripted:
    """A seat that answers from a per-tick script, through the game's parser."""

    def __init__(self, replies: dict[int, str], default: str) -> None:
        self.replies, self.default = replies, default

    @property
    def agent(self) -> AgentInfo:
        return AgentInfo(kind="scripted", name="script")

    async def decide(self, request: SeatRequest) -> SeatReply:
        raw = self.replies.get(request.tick, self.default)
        return SeatReply(raw, request.io.parse_reply(request.observation, raw), "baseline")


def test_radio_figures_by_hand() -> None:
    game = get_game("lighthouse")
    config = LighthouseConfig(max_ticks=4)
    state = new_game(config, generate_board(config, 7))
    seats: dict[str, Seat] = {
        "keeper": Scripted({0: '{"message": "Sprocket N; Gizmo hold"}'}, '{"transmit": false}'),
        "runner1": Scripted({1: '{"move": "N"}', 2: '{"move": "E"}'}, '{"move": "WAIT"}'),
        "runner2": Scripted({}, '{"move": "WAIT"}'),
        "runner3": BaselineSeat("wallhug"),
    }
    outcome = asyncio.run(run_episode(game, state, seats, episode_id="radio"))
    metrics = game.report.episode_metrics(outcome.docs)
    assert metrics["transmissions"] == 1
    assert metrics["messageRunes"] == len("Sprocket N; Gizmo hold")
    assert metrics["talkClock"] == 1
    # tick 1 (inbox): Sprocket N -> N (followed), Gizmo hold -> WAIT (followed)
    # ticks 2, 3, 4 (standing order, age 1..3): Sprocket E at tick 2 (not followed),
    # WAIT at 3 (not followed); Gizmo WAIT at 2, 3 (followed); runner 3 is never named.
    assert metrics["ordersGiven"] == 6
    assert metrics["ordersFollowed"] == 4


def test_run_and_report_from_the_command_line(tmp_path: Path) -> None:
    config = tmp_path / "small.toml"
    config.write_text(SMALL)
    out = tmp_path / "out"
    # in this process (real `lighthouse run` processes: test_crash.py, test_pool.py), with
    # the command's default workers
    proc = lighthouse("run", config, "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert "# Tournament small" in proc.stdout
    assert "## Paired against silent" in proc.stdout
    assert "24/24 episodes" in proc.stderr
    for fmt in ("csv", "json"):
        proc = lighthouse("report", out, "--format", fmt, "--plot", tmp_path / "scores.svg")
        assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert [e["entrant"] for e in report["entrants"]] == ["lantern", "silent"]
    assert report["paired"][0]["pairs"] == 6
    assert (tmp_path / "scores.svg").read_text().startswith("<svg")


def test_stale_partial_records_are_removed_on_resume(tmp_path: Path) -> None:
    config, out = config_at(tmp_path), tmp_path / "out"
    run(config, out)
    before = (out / "episodes.jsonl").read_bytes()
    finished = sorted((out / "records").glob("*.jsonl"))
    # What a crash leaves: a partial beside a finished record, and one of an episode
    # that never finished (here, of no planned episode at all).
    stale = [
        finished[0].with_name(finished[0].name + ".partial"),
        out / "records" / "lantern--default--s99--r0.jsonl.partial",
    ]
    for path in stale:
        path.write_text('{"type": "header"', encoding="utf-8")
    outcome = run(config, out)
    assert outcome.played == 0
    assert not any(path.exists() for path in stale)
    assert sorted((out / "records").iterdir()) == finished
    assert (out / "episodes.jsonl").read_bytes() == before
