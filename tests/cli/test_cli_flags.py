"""Every flag explained, every command with an example, every bad flag value one line."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import COMMANDS, build_parser, main
from harness.commands.parser import HelpFormatter
from harness.validation import MAX_SEED

ROOT = Path(__file__).resolve().parents[2]


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def test_every_command_is_built_and_listed() -> None:
    assert list(_subparsers()) == list(COMMANDS)
    listed = build_parser("").format_help()
    for name, command in COMMANDS.items():
        assert name in listed
        assert command.help.split()[0] in listed


def test_every_flag_has_help_and_shows_its_default() -> None:
    missing: list[str] = []
    for name, parser in _subparsers().items():
        formatter = HelpFormatter(parser.prog)
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            where = f"{name} {'/'.join(action.option_strings) or action.dest}"
            text = formatter._get_help_string(action) or ""
            if not text.strip():
                missing.append(f"{where}: no help")
            takes_value = action.nargs != 0 and action.option_strings and not action.required
            if takes_value and "default" not in text:
                missing.append(f"{where}: no default shown")
    assert missing == []


def test_a_shown_default_is_the_real_one() -> None:
    help_text = _subparsers()["report"].format_help()
    assert "the report's format (default: md)" in help_text
    assert "(default: 8000)" in _subparsers()["serve"].format_help()


def test_every_command_has_an_example() -> None:
    for name, parser in _subparsers().items():
        epilog = parser.epilog or ""
        assert epilog.startswith("examples:\n"), name
        assert f"  lighthouse {name}" in epilog or (
            name == "serve" and "lighthouse serve" in epilog
        ), name
        # the examples keep their lines in the help
        assert epilog.splitlines()[1] in parser.format_help()


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small results folder: the smoke config on one seed."""
    out = tmp_path_factory.mktemp("smoke") / "out"
    argv = ["run", str(ROOT / "configs/smoke.toml"), "--out", str(out), "--seeds", "0:1"]
    assert main([*argv, "--no-report", "--workers", "0"]) == 0
    return out


BAD = [
    (["run", "configs/smoke.toml", "--concurrency", "-2"],
     "--concurrency: must be a whole number >= 1, got -2"),
    # 0 is refused, not taken as "the config's value"
    (["run", "configs/smoke.toml", "--concurrency", "0"],
     "--concurrency: must be a whole number >= 1, got 0"),
    (["run", "configs/smoke.toml", "--concurrency", "many"], "--concurrency: 'many' is not a whole number"),
    (["run", "configs/smoke.toml", "--limit", "0"], "--limit: must be a whole number >= 1, got 0"),
    (["run", "configs/smoke.toml", "--ceiling", "nobody", "--dry-run"],
     "--ceiling: 'nobody' is neither an entrant nor a baseline of lighthouse"),
    (["serve", "--port", "99999"], "--port: '99999' is not a port number 0..65535"),
    (["serve", "--host", "no such host.invalid"], "--host: 'no such host.invalid' is not an address to listen on"),
    (["play", "--seed", "-1"], f"--seed: seed must be an integer 0..{MAX_SEED}, got -1"),
    (["play", "--seed", "99999999999999999999999"],
     f"--seed: seed must be an integer 0..{MAX_SEED}, got 99999999999999999999999"),
    (["play", "--seed", "9" * 5000], f"--seed: seed must be an integer 0..{MAX_SEED}, got a 5,000-digit number"),
    (["board", "--seed", "seven"], f"--seed: seed must be an integer 0..{MAX_SEED}, got 'seven'"),
    (["play", "--seed", "1", "--delay", "nan"], "--delay: 'nan' is not a number of seconds 0 or more"),
    (["play", "--seed", "1", "--episode-timeout", "-5"], "--episode-timeout: '-5' is not a number of seconds over 0"),
    (["play", "--seed", "1", "--temperature", "3"], "--temperature: '3' is not a number 0..2"),
    (["play", "--seed", "1", "--call-timeout", "inf"], "--call-timeout: 'inf' is not a number of seconds over 0"),
    (["play", "--seed", "1", "--max-tokens", "0"], "--max-tokens: must be a whole number >= 1, got 0"),
    (["report", "RESULTS", "--format", "xml"], "--format: invalid choice: 'xml'"),
    (["report", "RESULTS", "--plot", "MISSING/plot.svg"], "--plot: there is no folder MISSING to write plot.svg into"),
    (["report", "RESULTS", "--plot", "TMP/x.png"], "--plot: TMP/x.png does not end in .svg"),
    (["report", "RESULTS", "--reference", "nobody"],
     "--reference: 'nobody' is not an entrant of RESULTS (its entrants: lantern, silent, pilot)"),
    (["replay", "RECORD", "--until-tick", "-1"], "--until-tick: must be a whole number >= 0, got -1"),
    (["replay", "RECORD", "--until-tick", "500"], "--until-tick: 500 is outside 0.."),
    (["nonsense"], "COMMAND: invalid choice: 'nonsense'"),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "message"), BAD)
def test_a_bad_flag_value_is_one_line_and_exit_2(
    argv: list[str],
    message: str,
    results: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(ROOT)
    record = next((results / "records").glob("*.jsonl"))
    places = {
        "RESULTS": str(results),
        "RECORD": str(record),
        "MISSING": str(tmp_path / "missing"),
        "TMP": str(tmp_path),
    }

    def fill(text: str) -> str:
        for key, value in places.items():
            text = text.replace(key, value)
        return text

    capsys.readouterr()
    assert main([fill(word) for word in argv]) == 2
    out, err = capsys.readouterr()
    assert out == ""  # nothing half-done: no report, no board
    assert err.count("\n") == 1, err
    assert err.startswith("lighthouse: error: ")
    assert fill(message) in err
    assert "Traceback" not in err
    assert list(tmp_path.iterdir()) == []  # no plot, no record written
    assert sorted(p.name for p in record.parent.iterdir() if "--from-t" in p.name) == []


def test_a_bad_flag_value_from_the_shell_is_one_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "harness.cli", "serve", "--port", "99999"],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr == (
        "lighthouse: error: --port: '99999' is not a port number 0..65535 "
        "(see: lighthouse serve --help)\n"
    )
    assert proc.stdout == ""


def test_a_plot_in_a_folder_that_exists_is_written(
    results: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plot = tmp_path / "scores.SVG"
    assert main(["report", str(results), "--plot", str(plot)]) == 0
    assert plot.read_text().startswith("<svg")


def test_a_config_error_is_one_line_that_names_the_entrant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "t.toml"
    config.write_text(
        'name = "t"\nseeds = [1]\n[[entrants]]\nname = "gpt"\n'
        'keeper = { provider = "mine", model = "m" }\nrunners = { baseline = "wallhug" }\n'
    )
    assert main(["run", str(config), "--dry-run"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        f"lighthouse: error: {config}: entrant 'gpt', keeper.provider: there is no "
        '[providers.mine] table; add one for this model seat, with kind = "openai" or '
        '"anthropic" (and base_url for another OpenAI-compatible server): see '
        "docs/tournaments.md\n"
    )
