"""A Python agent's code is part of its entrant's identity: an edit plays that entrant's
episodes again, and only its; ``--keep-agent-episodes`` keeps them when the edit changed
nothing, and says so in the manifest; a folder from before code counted resumes whole.

Each test counts what a run plays (its last line, the records it writes) and which
records stay untouched.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.tournament.config import load_tournament
from harness.tournament.identity import entrant_identities
from harness.tournament.run import game_of, prompt_hashes
from harness.tournament.sources import MAX_FILES, agent_sources, module_file, source_digest
from harness.tournament.store import ResultsFolder

AGENT = '''
def keeper(inp):
    """Never speaks: a keeper as quiet as SILENT."""
    return {"transmit": False, "message": ""}
'''

CONFIG = """
name = "mine"
seeds = {{ start = 0, stop = 2 }}
variants = ["default"]
rules = {{ maxTicks = 6 }}

[[entrants]]
name = "mine"
keeper = {{ python = "{module}:keeper", isolation = "none" }}
runners = {{ baseline = "wallhug" }}

[[entrants]]
name = "lantern"
keeper = {{ baseline = "lantern" }}
runners = {{ baseline = "wallhug" }}
"""


def unique_module() -> str:
    # a module name of its own per test: one imported already would be reused as it is
    return f"agent_{uuid.uuid4().hex[:12]}"


def make(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A config whose entrant ``mine`` is a Python keeper; the agent's file, the
    config and the results folder."""
    module = unique_module()
    agent = tmp_path / f"{module}.py"
    agent.write_text(AGENT, encoding="utf-8")
    config = tmp_path / "mine.toml"
    config.write_text(CONFIG.format(module=module), encoding="utf-8")
    return agent, config, tmp_path / "out"


def run(config: Path, out: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> str:
    """``lighthouse run`` with ``flags``; its standard error."""
    capsys.readouterr()
    args = ["run", str(config), "--out", str(out), "--no-report", "--workers", "0", *flags]
    assert main(args) == 0
    return capsys.readouterr().err


def records(out: Path) -> dict[str, tuple[int, int, bytes]]:
    """Each finished record: (inode, mtime_ns, bytes), to tell whether it was written again."""
    return {
        p.name: (p.stat().st_ino, p.stat().st_mtime_ns, p.read_bytes())
        for p in (out / "records").glob("*.jsonl")
    }


def test_an_edit_of_the_agent_plays_its_entrants_episodes_again_and_only_theirs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent, config, out = make(tmp_path)
    assert "4 episodes played, 0 already done, 4 in all" in run(config, out, capsys)
    before = records(out)
    assert len(before) == 4
    manifest = ResultsFolder(out).manifest()
    assert manifest.sources is not None
    assert list(manifest.sources) == [agent.stem]

    agent.write_text(AGENT + "\n# tuned: speaks never, still\n", encoding="utf-8")
    err = run(config, out, capsys)
    assert "2 episodes played, 2 already done, 2 set aside (earlier specs), 4 in all" in err
    assert "entrants whose agent's code changed: mine" in err
    assert "--keep-agent-episodes" in err
    after = records(out)
    for name, seen in before.items():
        # LANTERN's records untouched; the agent's written again
        assert (after[name] == seen) == name.startswith("lantern--"), name
    assert len(list((out / "superseded" / "1" / "records").glob("*.jsonl"))) == 2
    again = ResultsFolder(out).manifest()
    assert again.identities is not None
    assert manifest.identities is not None
    assert again.identities["lantern"] == manifest.identities["lantern"]
    assert again.identities["mine"] != manifest.identities["mine"]
    assert again.sources != manifest.sources

    # nothing changed since: nothing plays
    assert "0 episodes played, 4 already done, 4 in all" in run(config, out, capsys)
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["episodes"], report["completeness"]["complete"]) == (4, True)
    assert report["selection"]["superseded"] == 2


def test_keep_agent_episodes_keeps_them_across_an_edit_and_the_manifest_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent, config, out = make(tmp_path)
    run(config, out, capsys)
    before = records(out)
    first = ResultsFolder(out).manifest()
    assert first.sources is not None
    assert first.kept_agent_edits is None

    agent.write_text(AGENT.replace("as quiet as SILENT", "as quiet as a stone"), "utf-8")
    err = run(config, out, capsys, "--keep-agent-episodes")
    assert "0 episodes played, 4 already done, 4 in all" in err
    assert f"{agent.stem}: its code changed; --keep-agent-episodes keeps" in err
    assert records(out) == before
    kept = ResultsFolder(out).manifest()
    assert kept.kept_agent_edits is not None
    (edit,) = kept.kept_agent_edits
    assert kept.sources is not None
    assert (edit.module, edit.earlier, edit.now) == (
        agent.stem,
        first.sources[agent.stem],
        kept.sources[agent.stem],
    )
    assert isinstance(edit.at, str)
    written = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert written["keptAgentEdits"][0]["module"] == agent.stem
    assert first.identities is not None
    assert kept.identities is not None
    assert written["identityAliases"] == {first.identities["mine"]: kept.identities["mine"]}

    # the episodes kept count as the entrant's now, in the report and the next runs
    assert "0 episodes played, 4 already done" in run(config, out, capsys)
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["episodes"], report["selection"]["setAside"]) == (4, 0)
    # a dry run counts as the run would
    agent.write_text(AGENT + "# once more\n", "utf-8")
    capsys.readouterr()
    assert main(["run", str(config), "--out", str(out), "--dry-run"]) == 0
    assert "2 already done, 2 to play" in capsys.readouterr().out
    assert main(["run", str(config), "--out", str(out), "--dry-run", "--keep-agent-episodes"]) == 0
    assert "4 already done, 0 to play" in capsys.readouterr().out
    # and a second kept edit maps the first identity on to the newest in one step
    run(config, out, capsys, "--keep-agent-episodes")
    last = ResultsFolder(out).manifest()
    assert last.identity_aliases is not None
    assert last.identities is not None
    assert set(last.identity_aliases.values()) == {last.identities["mine"]}
    assert last.kept_agent_edits is not None
    assert len(last.kept_agent_edits) == 2


@pytest.mark.parametrize("era", ["identities without code", "no identities"])
def test_a_folder_from_before_agent_code_counted_resumes_without_playing_again(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    era: str,
) -> None:
    """An old folder, made as the harness of its time made it: its python entrant's
    identity without the code (or no identities at all), no ``sources``."""
    import harness.tournament.prepare as prepare_module
    import harness.tournament.run as run_module

    agent, config, out = make(tmp_path)
    with monkeypatch.context() as patch:
        patch.setattr(
            prepare_module,
            "entrant_identities",
            lambda game, config, hashes, sources=None: entrant_identities(game, config, hashes),
        )
        if era == "no identities":
            patch.setattr(run_module, "identified", lambda seats, identity: dict(seats))
        run(config, out, capsys)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    for key in ("sources", *(("identities",) if era == "no identities" else ())):
        manifest.pop(key)
    (out / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    lines = [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines()]
    if era == "no identities":
        assert all(x["identity"] is None for x in lines)
    before = records(out)

    assert "0 episodes played, 4 already done, 4 in all" in run(config, out, capsys)
    assert records(out) == before
    upgraded = ResultsFolder(out).manifest()
    assert upgraded.sources is not None
    assert upgraded.identities is not None
    assert upgraded.identity_aliases is not None
    # only the Python entrant's identity took the code in
    assert set(upgraded.identity_aliases.values()) == {upgraded.identities["mine"]}
    assert "0 episodes played, 4 already done" in run(config, out, capsys)

    # from now on an edit counts
    agent.write_text(AGENT + "# edited\n", encoding="utf-8")
    assert "2 episodes played, 2 already done, 2 set aside" in run(config, out, capsys)
    after = records(out)
    for name, seen in before.items():
        assert (after[name] == seen) == name.startswith("lantern--"), name


def test_an_agent_in_a_package_is_identified_by_the_whole_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = f"pkg_{uuid.uuid4().hex[:12]}"
    root = tmp_path / package
    (root / "inner").mkdir(parents=True)
    (root / "__init__.py").write_text("", encoding="utf-8")
    (root / "inner" / "__init__.py").write_text("", encoding="utf-8")
    (root / "inner" / "agent.py").write_text(
        f"from {package}.helper import silence\n\ndef keeper(inp):\n    return silence()\n",
        encoding="utf-8",
    )
    (root / "helper.py").write_text(
        'def silence():\n    return {"transmit": False, "message": ""}\n', encoding="utf-8"
    )
    (root / "data.json").write_text("{}", encoding="utf-8")
    config = tmp_path / "pkg.toml"
    config.write_text(CONFIG.format(module=f"{package}.inner.agent"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)

    def identities() -> dict[str, Any]:
        loaded = load_tournament(config)
        game = game_of(loaded)
        sources = agent_sources(loaded, game)
        doc = json.loads(loaded.canonical_json())
        return {**entrant_identities(game, doc, prompt_hashes(loaded, game), sources), **sources}

    first = identities()
    assert module_file(f"{package}.inner.agent") == root / "inner" / "agent.py"
    (root / "data.json").write_text('{"not": "python"}', encoding="utf-8")
    (root / "__pycache__").mkdir()
    (root / "__pycache__" / "helper.cpython-311.pyc").write_bytes(b"\0" * 16)
    assert identities() == first  # neither data nor bytecode decides play
    (root / "helper.py").write_text(
        'def silence():\n    return {"transmit": True, "message": ""}\n', encoding="utf-8"
    )
    edited = identities()
    assert edited["mine"] != first["mine"]  # a helper beside the agent counts
    assert edited["lantern"] == first["lantern"]


def test_a_package_too_big_to_read_is_covered_by_the_module_alone(tmp_path: Path) -> None:
    root = tmp_path / "big"
    root.mkdir()
    (root / "__init__.py").write_text("", encoding="utf-8")
    for i in range(MAX_FILES + 1):
        (root / f"m{i}.py").write_text(f"X = {i}\n", encoding="utf-8")
    module = root / "m0.py"
    first = source_digest(module)
    (root / "m7.py").write_text("X = 'changed'\n", encoding="utf-8")
    assert source_digest(module) == first
    module.write_text("X = 'changed'\n", encoding="utf-8")
    assert source_digest(module) != first
