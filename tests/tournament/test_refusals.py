"""Results stay where the user said: every bad name, path or flag is one line, exit 2,
and nothing is created on disk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.cli import main
from harness.games.relayroam.rng import MAX_SEED as RELAYROAM_MAX_SEED
from harness.summary import split_episode_id
from harness.validation import MAX_SEED

GOOD = """
name = "{name}"
seeds = {seeds}
rules = {{ maxTicks = 5 }}

[[entrants]]
name = "lantern"
keeper = {{ baseline = "lantern" }}
runners = {{ baseline = "wallhug" }}

[[entrants]]
name = "{second}"
keeper = {{ baseline = "silent" }}
runners = {{ baseline = "wallhug" }}
"""


def config(tmp_path: Path, name: str = "ok", seeds: str = "[1]", second: str = "silent") -> Path:
    path = tmp_path / "c.toml"
    path.write_text(GOOD.format(name=name, seeds=seeds, second=second))
    return path


def everything(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    """``lighthouse ARGV`` exits 2 with one line holding ``message`` and creates nothing."""
    before = everything(tmp_path)
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("lighthouse: error:") == 1, err
    assert message in err
    assert "Traceback" not in err
    assert everything(tmp_path) == before


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The working folder: a default results folder would be made in work/results."""
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    return tmp_path


def test_the_control_case_runs_and_writes_results_in_results_name(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", str(config(work)), "--no-report", "--workers", "0"]) == 0
    assert (work / "work/results/ok/episodes.jsonl").is_file()


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("../x", "name: '../x' must be a plain name"),
        ("a/b", "name: 'a/b' must be a plain name"),
        ("..", "name: '..' must be a plain name"),
        ("n" * 256, "must be a plain name, 1-64 letters"),
        ("a\\u0000b", "name: 'a\\x00b' must be a plain name"),
    ],
)
def test_a_name_that_is_not_plain_is_refused(
    work: Path, capsys: pytest.CaptureFixture[str], name: str, message: str
) -> None:
    refused(work, capsys, ["run", str(config(work, name=name))], message)


def test_an_absolute_name_is_refused(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = work / "elsewhere"
    refused(work, capsys, ["run", str(config(work, name=str(target)))], "must be a plain name")
    assert not target.exists()


def test_entrants_that_differ_only_in_case_are_refused(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    refused(
        work, capsys, ["run", str(config(work, second="Lantern"))],
        "entrants: 'lantern' and 'Lantern' differ only in case",
    )  # fmt: skip


def test_a_huge_seed_in_a_config_is_refused(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    refused(
        work, capsys, ["run", str(config(work, seeds=f"[{'9' * 200}]"))],
        "seeds.0: integer outside TOML's 64-bit range",
    )  # fmt: skip


def test_a_seed_past_the_shared_bound_is_refused(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    refused(
        work, capsys, ["run", str(config(work, seeds=f"[{MAX_SEED + 1}]"))],
        f"seeds: seed must be an integer 0..{MAX_SEED}, got {MAX_SEED + 1}",
    )  # fmt: skip


@pytest.mark.parametrize("flag", ["-3", "0"])
def test_concurrency_below_one_is_refused(
    work: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    refused(
        work, capsys, ["run", str(config(work)), "--concurrency", flag],
        f"--concurrency: must be a whole number >= 1, got {flag}",
    )  # fmt: skip


def test_a_file_as_out_is_refused(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "taken").write_text("mine")
    refused(
        work, capsys, ["run", str(config(work)), "--out", str(work / "taken")],
        f"--out: {work / 'taken'} is a file, not a folder",
    )  # fmt: skip
    assert (work / "taken").read_text() == "mine"


def test_out_below_a_file_is_refused(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "taken").write_text("mine")
    refused(
        work, capsys, ["run", str(config(work)), "--out", str(work / "taken" / "sub")],
        "Not a directory",
    )  # fmt: skip


def test_a_name_too_long_for_the_file_system_is_refused(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = work / "new" / ("x" * 300)
    refused(
        work, capsys, ["run", str(config(work)), "--out", str(out)], "a name longer than 255 bytes"
    )


def test_a_folder_whose_records_is_a_file_is_refused(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (work / "odd").mkdir()
    (work / "odd" / "records").write_text("")
    refused(
        work, capsys, ["run", str(config(work)), "--out", str(work / "odd")],
        "records is not a results folder's records",
    )  # fmt: skip


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_a_folder_without_write_permission_is_refused(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    locked = work / "locked"
    locked.mkdir(mode=0o555)
    refused(work, capsys, ["run", str(config(work)), "--out", str(locked / "out")], "no permission")


def test_merge_into_a_file_is_refused(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (work / "taken").write_text("mine")
    refused(
        work, capsys, ["merge", str(work), "--out", str(work / "taken")], "is a file, not a folder"
    )


def test_a_run_refused_by_its_provider_leaves_no_folder(
    work: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("REFUSAL_TEST_KEY", raising=False)
    path = config(work)
    path.write_text(
        path.read_text().replace('keeper = { baseline = "silent" }',
                                 'keeper = { provider = "p", model = "m" }')
        + '\n[providers.p]\nkind = "openai"\nbase_url = "http://127.0.0.1:9/v1"\n'
        'api_key_env = "REFUSAL_TEST_KEY"\n'
    )  # fmt: skip
    refused(work, capsys, ["run", str(path), "--out", str(work / "fresh")], "REFUSAL_TEST_KEY")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["board", "--seed", "-1"], "--seed: seed must be an integer 0..9007199254740991, got -1"),
        (["play", "--seed", "9" * 200], "--seed: seed must be an integer 0..9007199254740991, got a 200-digit number"),
        (["play", "--game", "relayroam", "--seed", str(MAX_SEED + 1)], f"got {MAX_SEED + 1}"),
    ],
)  # fmt: skip
def test_seed_flags_are_checked_like_config_seeds(
    work: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    refused(work, capsys, argv, message)


def test_one_seed_bound_for_every_game() -> None:
    assert MAX_SEED == RELAYROAM_MAX_SEED == 2**53 - 1


@pytest.mark.parametrize(
    ("episode", "variant", "seed", "expected"),
    [
        ("lantern--default--s3--r0", "default", 3, ("lantern", 0)),
        ("a--b--default--s3--r12", "default", 3, ("a--b", 12)),
        ("lantern--default--s3--r0", "spring", 3, None),
        ("lantern--default--s3--r0", "default", 4, None),
        ("--default--s3--r0", "default", 3, None),
        ("lantern--default--s3--r01", "default", 3, None),
        ("lantern--default--s3--r٣", "default", 3, None),
        ("lantern--default--s3--r0", "default", 10**300, None),
        ("x" * 100_000, "default", 3, None),
    ],
)
def test_an_episode_id_splits_only_when_it_is_exactly_what_the_plan_writes(
    episode: str, variant: str, seed: int, expected: tuple[str, int] | None
) -> None:
    assert split_episode_id(episode, variant, seed) == expected
