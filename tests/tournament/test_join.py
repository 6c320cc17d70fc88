"""A person's episode joins a results folder (``lighthouse add``), and a run leaves a
human entrant's episodes to the page (decision L4)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from harness.errors import ConfigError, RecordError
from harness.results import read_results
from harness.tournament.audit import audit
from harness.tournament.config import load_tournament
from harness.tournament.join import add_record
from harness.tournament.run import run_tournament
from harness.tournament.store import ResultsFolder
from tests.in_process import lighthouse as cli
from tests.person import human_record

SMALL = """
name = "small"
seeds = [3, 4]
variants = ["default"]
repetitions = 1
reference = "lantern"

[[entrants]]
name = "lantern"
keeper = { baseline = "lantern" }
runners = { baseline = "wallhug" }
"""


def played(tmp_path: Path, text: str = SMALL) -> Path:
    config_file = tmp_path / "small.toml"
    config_file.write_text(text)
    out = tmp_path / "out"
    asyncio.run(run_tournament(load_tournament(config_file), out))
    return out


def record(tmp_path: Path, file: str = "ada.jsonl", **kwargs: Any) -> Path:
    return asyncio.run(human_record(tmp_path / file, **kwargs))


def test_a_persons_episode_joins_as_a_human_entrant_of_the_report(tmp_path: Path) -> None:
    out = played(tmp_path)
    keeper = record(tmp_path, seed=3)
    done = cli("add", out, keeper, "--as", "ada")
    assert done.returncode == 0, done.stderr
    assert "added ada--default--s3--r0" in done.stderr
    assert 'keeper = { human = "Ada" }' in done.stderr  # for the user's config file
    folder = ResultsFolder(out)
    # the folder's plan holds the entrant, its seats a person's and the baselines'
    manifest = folder.manifest()
    assert manifest.run.entrant_names == ["lantern", "ada"]
    assert manifest.identities is not None
    assert manifest.identities["ada"]
    # the line is the record's, and every line still matches its record
    assert not audit(folder.episodes_path, folder.records, read_results(out).game).problems
    copied = folder.record_path("ada--default--s3--r0").read_bytes().split(b"\n")
    original = keeper.read_bytes().split(b"\n")
    assert copied[1:] == original[1:]  # only the header is rewritten
    assert json.loads(copied[0])["seats"][0]["agent"]["kind"] == "human"
    # the report counts it and names the person as such, never as a bot or a model
    results = read_results(out)
    row = {r.entrant: r for r in results.report.entrants}["ada"]
    assert row.episodes == 1
    assert row.seats == {"keeper": "Ada (human)", "runners": "wallhug"}
    text = cli("report", out).stdout
    assert "| ada | Ada (human) | wallhug |" in text
    assert "ada 1/2" in text  # its seed 4 is not played: marked incomplete


def test_a_runners_episode_keeps_its_team_as_a_list(tmp_path: Path) -> None:
    out = played(tmp_path)
    runner = record(tmp_path, "bob.jsonl", seat="runner2", name="Bob", seed=4)
    joined = add_record(out, runner, entrant="bob")
    assert joined.episode_id == "bob--default--s4--r0"
    assert 'runners = [{ baseline = "wallhug" }, { human = "Bob" }' in joined.toml
    row = {r.entrant: r for r in read_results(out).report.entrants}["bob"]
    assert row.seats["runners"] == "Bob (human), wallhug"
    # a second episode of the same entrant on the other seed joins it
    again = add_record(out, record(tmp_path, "b3.jsonl", seat="runner2", name="Bob", seed=3),
                       entrant="bob")  # fmt: skip
    assert not again.new_entrant
    assert {r.entrant: r for r in read_results(out).report.entrants}["bob"].episodes == 2


def test_a_run_plays_everyone_else_and_leaves_the_persons_episodes(tmp_path: Path) -> None:
    out = played(tmp_path)
    add_record(out, record(tmp_path, seed=3), entrant="ada")
    grown = (
        SMALL.replace('name = "small"', 'name = "small"').replace(
            "seeds = [3, 4]", "seeds = [3, 4, 5]"
        )
        + '\n[[entrants]]\nname = "ada"\nkeeper = { human = "Ada" }\nruns = 1\n'
    )
    grown = grown.replace("runs = 1\n", 'runners = "wallhug"\n')
    (tmp_path / "small.toml").write_text(grown)
    outcome = asyncio.run(run_tournament(load_tournament(tmp_path / "small.toml"), out))
    assert outcome.played == 1  # lantern's seed 5; ada's seeds 4 and 5 are the page's
    counts = {r.entrant: r.episodes for r in read_results(out).report.entrants}
    assert counts == {"lantern": 3, "ada": 1}
    # a run says so, and a dry run counts none of them to play
    again = cli("run", tmp_path / "small.toml", "--out", out)
    assert again.returncode == 0, again.stderr
    assert "entrant 'ada' is a person's: a run does not play its 2 episode(s) left" in (
        again.stderr
    )
    dry = cli("run", tmp_path / "small.toml", "--out", out, "--dry-run")
    assert "0 to play" in dry.stdout + dry.stderr


@pytest.mark.parametrize(
    ("kwargs", "entrant", "error", "message"),
    [
        ({"seed": 9}, "ada", ConfigError, "seed 9 is not one of the folder's seeds (3, 4)"),
        ({"variant": "spring"}, "ada", ConfigError, "variant 'spring' is not one of"),
        ({}, "lantern", ConfigError, "the folder's entrant 'lantern' plays other seats"),
        ({}, "LANTERN", ConfigError, "differs from the entrant 'lantern' by case"),
        ({}, "a/b", ConfigError, "--as: 'a/b' must be"),
    ],
)  # fmt: skip
def test_a_record_that_does_not_fit_the_folder_is_refused_untouched(
    tmp_path: Path, kwargs: dict[str, Any], entrant: str, error: type[Exception], message: str
) -> None:
    out = played(tmp_path)

    def files() -> dict[Path, bytes]:  # the lock file names its last holder: left out
        return {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and p.name != ".lock"}

    before = files()
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        add_record(out, record(tmp_path, **kwargs), entrant=entrant)
    assert files() == before


def test_only_a_finished_clean_persons_record_joins(tmp_path: Path) -> None:
    out = played(tmp_path)
    keeper = record(tmp_path, seed=3)
    lines = keeper.read_text().splitlines()
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(lines[:-1]) + "\n")
    with pytest.raises(RecordError, match="no end line"):
        add_record(out, cut, entrant="ada")
    edited = tmp_path / "edited.jsonl"
    tick = json.loads(lines[3])
    tick["state"]["clock"] += 1
    edited.write_text("\n".join([*lines[:3], json.dumps(tick), *lines[4:]]) + "\n")
    with pytest.raises(RecordError, match="does not replay clean"):
        add_record(out, edited, entrant="ada")
    bots = next((out / "records").glob("lantern--*.jsonl"))
    with pytest.raises(ConfigError, match="no seat of it was played by a person"):
        add_record(out, bots, entrant="again")
    # a second add of the same seed finds no repetition left for it
    add_record(out, keeper, entrant="ada")
    with pytest.raises(ConfigError, match="every repetition of seed 3"):
        add_record(out, keeper, entrant="ada")
