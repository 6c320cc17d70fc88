"""Tournaments that grow: a folder reuses every finished episode whose entrant is unchanged.

Each test counts what a second run plays (the records it writes, the calls the
scripted server sees) and checks that no finished episode of an unchanged entrant is
written again.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.llm.prompts import PROMPTS_DIR
from harness.testing.llm_server import Action, Reply, ScriptedLLMServer
from harness.tournament.config import load_tournament
from harness.tournament.identity import IDENTITY_DETAIL
from harness.tournament.run import TournamentOutcome, plan_episodes, run_tournament
from harness.tournament.store import ResultsFolder

ROOT = Path(__file__).resolve().parents[2]
KEY_ENV = "GROW_TEST_KEY"
ENVIRON = {KEY_ENV: "sk-grow-test-0123456789"}


def play(config_path: Path, out: Path, **kwargs: Any) -> TournamentOutcome:
    config = load_tournament(config_path)
    return asyncio.run(run_tournament(config, out, environ=ENVIRON, **kwargs))


def records(out: Path) -> dict[str, tuple[int, int, bytes]]:
    """Each finished record: (inode, mtime_ns, bytes), to tell whether it was written again."""
    return {
        p.name: (p.stat().st_ino, p.stat().st_mtime_ns, p.read_bytes())
        for p in (out / "records").glob("*.jsonl")
    }


def smoke_text(stop: int) -> str:
    """configs/smoke.toml with its seed range cut to [0, stop) (same entrants, same rules)."""
    text = (ROOT / "configs/smoke.toml").read_text(encoding="utf-8")
    assert "seeds = { start = 0, stop = 50 }" in text
    return text.replace("stop = 50", f"stop = {stop}")


NEW_ENTRANT = """
[[entrants]]
name = "lantern-b"
keeper = { baseline = "lantern" }
runners = [{ baseline = "wallhug" }, { baseline = "wallhug" }, { baseline = "wallhug" }]
"""


def test_one_more_seed_and_one_more_entrant_play_exactly_the_new_episodes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, out = tmp_path / "smoke.toml", tmp_path / "out"
    path.write_text(smoke_text(3))
    first = play(path, out)
    assert (first.planned, first.played) == (3 * 2 * 3, 18)
    before = records(out)
    lines_before = (out / "episodes.jsonl").read_text().splitlines()

    path.write_text(smoke_text(4) + NEW_ENTRANT)
    capsys.readouterr()
    assert main(["run", str(path), "--out", str(out), "--no-report", "--workers", "0"]) == 0
    err = capsys.readouterr().err
    # new: seed 3 for the three old entrants (2 variants), and all 4 seeds of the new one
    new = 1 * 2 * 3 + 4 * 2 * 1
    assert f"{new} episodes played, 18 already done, {18 + new} in all" in err
    assert "entrants added: lantern-b" in err
    after = records(out)
    for name, seen in before.items():
        assert after[name] == seen, f"{name} was written again"
    added = set(after) - set(before)
    config = load_tournament(path)
    expected = {f"{p.episode_id}.jsonl" for p in plan_episodes(config)} - set(before)
    assert added == expected
    assert len(added) == new
    # the old results lines are kept as they were, in front
    assert (out / "episodes.jsonl").read_text().splitlines()[:18] == lines_before
    manifest = ResultsFolder(out).manifest()
    assert manifest.episodes == 18 + new  # the plan the report counts against
    assert manifest.history is not None
    assert manifest.history[0].config_hash != manifest.config_hash
    assert manifest.identities is not None
    assert sorted(manifest.identities) == ["lantern", "lantern-b", "pilot", "silent"]
    # the same identity for a spec spelled twice (one spec for all runners, or three)
    assert manifest.identities["lantern-b"] == manifest.identities["lantern"]

    assert main(["report", str(out)]) == 0
    report = capsys.readouterr().out
    assert f"complete: {18 + new}/{18 + new} episodes" in report
    assert "Left out" not in report


def test_fewer_seeds_keep_the_others_out_of_the_report_until_the_plan_grows_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, out = tmp_path / "smoke.toml", tmp_path / "out"
    path.write_text(smoke_text(3))
    play(path, out)
    path.write_text(smoke_text(2))
    shrunk = play(path, out)
    assert (shrunk.planned, shrunk.played, shrunk.already_done) == (12, 0, 12)
    assert len(ResultsFolder(out).summaries()) == 18  # nothing is deleted
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["episodes"] == 12
    assert report["selection"]["setAside"] == 6
    assert report["completeness"]["complete"] is True
    path.write_text(smoke_text(3))
    grown = play(path, out)
    assert (grown.played, grown.already_done) == (0, 18)


LLM_CONFIG = """
name = "grow"
seeds = {{ start = 0, stop = 3 }}
variants = ["default"]
concurrency = 2
rules = {{ maxTicks = 4 }}

[providers.local]
kind = "openai"
base_url = "{url}"
api_key_env = "{key_env}"

[[entrants]]
name = "lantern"
keeper = {{ baseline = "lantern" }}
runners = {{ baseline = "wallhug" }}

[[entrants]]
name = "alpha"
keeper = {{ provider = "local", model = "scripted", prompts = {{ system = "alpha.system.md", observation = "keeper.observation.md", retry_hint = "retry-hint.md" }} }}
runners = {{ baseline = "wallhug" }}

[[entrants]]
name = "beta"
keeper = {{ provider = "local", model = "scripted", prompts = {{ system = "beta.system.md", observation = "keeper.observation.md", retry_hint = "retry-hint.md" }} }}
runners = {{ baseline = "wallhug" }}
"""
KEEPER_REPLY = Reply('{"transmit": true, "message": "Sprocket N; Gizmo W"}')


class Marks:
    """Answers every call as a keeper and counts the calls by the marker in their prompt."""

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}

    def __call__(self, path: str, body: dict[str, Any]) -> Action:
        text = json.dumps(body)
        for mark in ("alpha-v1", "alpha-v2", "beta-v1"):
            if mark in text:
                self.calls[mark] = self.calls.get(mark, 0) + 1
        return KEEPER_REPLY


def llm_folder(tmp_path: Path, server: ScriptedLLMServer) -> Path:
    source = PROMPTS_DIR / "lighthouse"
    for name in ("keeper.observation.md", "retry-hint.md"):
        shutil.copy(source / name, tmp_path / name)
    system = (source / "keeper.system.md").read_text()
    (tmp_path / "alpha.system.md").write_text(system + "\nMarker: alpha-v1\n")
    (tmp_path / "beta.system.md").write_text(system + "\nMarker: beta-v1\n")
    path = tmp_path / "grow.toml"
    path.write_text(LLM_CONFIG.format(url=server.openai_url, key_env=KEY_ENV))
    return path


def test_editing_an_entrants_prompt_replays_only_that_entrant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marks = Marks()
    out = tmp_path / "out"
    with ScriptedLLMServer(default=marks) as server:
        path = llm_folder(tmp_path, server)
        first = play(path, out)
        assert first.played == 9
        identities = ResultsFolder(out).manifest().identities or {}
        before = records(out)
        calls_before = dict(marks.calls)
        assert calls_before["alpha-v1"] > 0
        assert calls_before["beta-v1"] > 0

        system = tmp_path / "alpha.system.md"
        system.write_text(system.read_text().replace("alpha-v1", "alpha-v2"))
        second = play(path, out)
    assert (second.played, second.already_done, second.set_aside) == (3, 6, 3)
    # only alpha called the model again, and only with its new prompt
    assert marks.calls.get("alpha-v2", 0) > 0
    assert marks.calls["alpha-v1"] == calls_before["alpha-v1"]
    assert marks.calls["beta-v1"] == calls_before["beta-v1"]
    after = records(out)
    assert set(after) == set(before)  # the same episode ids
    for name, seen in before.items():
        assert (after[name] == seen) == (not name.startswith("alpha--")), name
    manifest = ResultsFolder(out).manifest()
    assert manifest.identities is not None
    assert manifest.identities["beta"] == identities["beta"]
    assert manifest.identities["alpha"] != identities["alpha"]
    # the old alpha episodes stay in the folder, out of the way and out of the report
    kept = sorted(p.name for p in (out / "superseded/1/records").iterdir())
    assert kept == sorted(n for n in before if n.startswith("alpha--"))
    for name in kept:
        assert (out / "superseded/1/records" / name).read_bytes() == before[name][2]
    # each record and results line names the identity it was played by
    for line in ResultsFolder(out).summaries():
        assert line.identity == manifest.identities[line.entrant]
        header = json.loads(
            (out / "records" / f"{line.episode_id}.jsonl").read_text().split("\n")[0]
        )
        assert {s["agent"]["details"][IDENTITY_DETAIL] for s in header["seats"]} == {line.identity}
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["episodes"] == 9
    assert report["completeness"]["complete"] is True
    assert report["selection"]["superseded"] == 3
    assert main(["report", str(out)]) == 0
    assert "3 of an earlier spec of their entrant, kept in superseded/" in capsys.readouterr().out


def test_a_folder_from_before_identities_is_reused_by_the_config_that_made_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An old folder: records and lines without identities, a manifest without them."""
    import harness.tournament.run as run_module

    path, out = tmp_path / "smoke.toml", tmp_path / "out"
    path.write_text(smoke_text(2))
    with monkeypatch.context() as patch:
        patch.setattr(run_module, "identified", lambda seats, identity: dict(seats))
        play(path, out)
    manifest = json.loads((out / "manifest.json").read_text())
    for key in ("identities", "narrowing", "maxCostUsd", "stopped", "updatedAt"):
        manifest.pop(key)
    manifest["config"].pop("maxCost")
    (out / "manifest.json").write_text(json.dumps(manifest))
    lines = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]
    assert all(x["identity"] is None for x in lines)
    (out / "episodes.jsonl").write_text(
        "".join(json.dumps({k: v for k, v in x.items() if k != "identity"}) + "\n" for x in lines)
    )
    before = records(out)

    again = play(path, out)
    assert (again.played, again.already_done) == (0, 12)
    upgraded = ResultsFolder(out).manifest()
    assert upgraded.legacy_identities == upgraded.identities

    # a changed entrant replays; the others' old records stay untouched
    path.write_text(
        smoke_text(2).replace('keeper = { baseline = "silent" }', 'keeper = { baseline = "pilot" }')
    )
    changed = play(path, out)
    assert (changed.played, changed.already_done, changed.set_aside) == (4, 8, 4)
    after = records(out)
    for name, seen in before.items():
        assert (after[name] == seen) == (not name.startswith("silent--")), name


@pytest.mark.parametrize(
    "damage",
    [
        {"identities": "not a map", "legacyIdentities": 5, "history": 3},
        {"identities": {"lantern": 7}, "stopped": ["x"], "narrowing": "y"},
        {"identities": None, "legacyIdentities": {"silent": None}, "history": [1, "x"]},
    ],
)
def test_damaged_growth_fields_of_a_manifest_never_crash_a_report_or_a_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: dict[str, Any]
) -> None:
    path, out = tmp_path / "smoke.toml", tmp_path / "out"
    path.write_text(smoke_text(1))
    play(path, out)
    manifest = json.loads((out / "manifest.json").read_text())
    (out / "manifest.json").write_text(json.dumps({**manifest, **damage}))
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    # an identity that is not a text matches no episode: they are left out, and said so
    counted = report["episodes"]
    assert counted + report["selection"]["setAside"] == 6
    again = play(path, out)
    assert again.played + again.already_done == 6
    assert isinstance((ResultsFolder(out).manifest().identities or {}).get("lantern"), str)


def test_a_python_agent_is_identified_by_its_import_path_options_and_prompts(
    tmp_path: Path,
) -> None:
    from harness.tournament.identity import entrant_identities
    from harness.tournament.run import game_of, prompt_hashes

    def identities(text: str) -> dict[str, str | None]:
        path = tmp_path / "my-agents.toml"
        path.write_text(text)
        shutil.copy(ROOT / "docs/examples/my_agents.py", tmp_path / "my_agents.py")
        config = load_tournament(path)
        game = game_of(config)
        return entrant_identities(
            game, json.loads(config.canonical_json()), prompt_hashes(config, game)
        )

    text = (ROOT / "docs/examples/my-agents.toml").read_text()
    first = identities(text)
    assert all(isinstance(v, str) for v in first.values())
    slower = identities(text.replace("timeout_seconds = 10", "timeout_seconds = 11"))
    assert slower["my-keeper"] != first["my-keeper"]
    assert slower["lantern"] == first["lantern"]
