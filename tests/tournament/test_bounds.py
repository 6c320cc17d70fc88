"""Every timeout is finite and bounded where it is read: configs, seat options, flags.

A call, a turn, a Python agent's call, a rate limit's period and a pause are at most a
day (``MAX_TIMEOUT_SECONDS``); an episode's timeout at most a year
(``MAX_EPISODE_TIMEOUT_SECONDS``), the one fitted to slow seats included. A value
past its bound (1e308, inf, nan) is refused when the config or flag is read, with
one line naming it, instead of failing later, when a record is written. Seed strings
are refused past a length before they are parsed, and a dry run works on a folder
it may not write.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import harness
from harness.cli import main
from harness.defaults import MAX_EPISODE_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS
from harness.errors import ConfigError
from harness.registry import get_game
from harness.replay import replay
from harness.tournament.config import load_tournament
from harness.tournament.episode_setup import entrant_game_config
from harness.tournament.narrow import parse_seeds
from tests.in_process import lighthouse

ROOT = Path(__file__).resolve().parents[2]
BASE = """
name = "bounds"
seeds = [1]
{top}
[providers.p]
kind = "openai"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "BOUNDS_KEY"
{provider}
[[entrants]]
name = "model"
keeper = {{ provider = "p", model = "m"{keeper} }}
runners = {{ python = "agents:runner"{runner} }}
"""


def config(tmp_path: Path, top: str = "", provider: str = "", keeper: str = "",
           runner: str = "") -> Path:  # fmt: skip
    (tmp_path / "agents.py").write_text('def runner(seat):\n    return \'{"move": "WAIT"}\'\n')
    path = tmp_path / "bounds.toml"
    path.write_text(BASE.format(top=top, provider=provider, keeper=keeper, runner=runner))
    return path


@pytest.mark.parametrize("value", ["1e308", "inf", "nan", "86400.5", "0", "-1"])
@pytest.mark.parametrize(
    ("place", "field"),
    [
        ("keeper", "call_timeout_seconds"),
        ("keeper", "allowance_seconds"),
        ("runner", "timeout_seconds"),
        ("provider", "period_seconds"),
    ],
)
def test_a_seat_or_provider_timeout_past_a_day_is_refused(
    tmp_path: Path, place: str, field: str, value: str
) -> None:
    setting = f"{field} = {value}" if place == "provider" else f", {field} = {value}"
    with pytest.raises(ConfigError) as raised:
        load_tournament(config(tmp_path, **{place: setting}))
    message = str(raised.value)
    assert field in message
    assert any(
        phrase in message
        for phrase in ("less than or equal to 86400", "finite number", "greater than 0")
    ), message


def test_a_day_is_the_longest_a_seat_may_wait(tmp_path: Path) -> None:
    day = f"{MAX_TIMEOUT_SECONDS:g}"
    loaded = load_tournament(config(
        tmp_path, top="rules = { maxTicks = 1000 }", provider=f"period_seconds = {day}",
        keeper=f", call_timeout_seconds = {day}, allowance_seconds = {day}",
        runner=f", timeout_seconds = {day}",
    ))  # fmt: skip
    game = get_game("lighthouse")
    # the episode timeout fitted to a day a tick for 1,000 ticks: capped at a year
    rules = entrant_game_config(loaded, game, loaded.entrants[0], "default")
    assert rules.episode_timeout_seconds == MAX_EPISODE_TIMEOUT_SECONDS


@pytest.mark.parametrize(
    "top",
    [
        "episode_timeout_seconds = 1e308",
        "episode_timeout_seconds = inf",
        f"episode_timeout_seconds = {MAX_EPISODE_TIMEOUT_SECONDS + 1:.0f}",
        "rules = { episodeTimeoutSeconds = 1e308 }",
    ],
)
def test_an_episode_timeout_past_a_year_is_refused(tmp_path: Path, top: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_tournament(config(tmp_path, top=top))
    assert "imeout" in str(raised.value)


def test_a_year_is_the_longest_an_episode_may_take(tmp_path: Path) -> None:
    top = f"episode_timeout_seconds = {MAX_EPISODE_TIMEOUT_SECONDS:.0f}"
    loaded = load_tournament(config(tmp_path, top=top))
    assert loaded.episode_timeout_seconds == MAX_EPISODE_TIMEOUT_SECONDS
    with pytest.raises(ConfigError, match="episodeTimeoutSeconds: at most 31,536,000 seconds"):
        harness.make("lighthouse", episode_timeout_seconds=1e308)


def test_a_record_played_before_the_bound_still_replays(tmp_path: Path) -> None:
    import asyncio

    lines = (ROOT / "tests/golden/records/baseline-default-seed7.jsonl").read_text().splitlines()
    header = json.loads(lines[0])
    header["config"]["episodeTimeoutSeconds"] = 1e308
    path = tmp_path / "old.jsonl"
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    assert asyncio.run(replay(path)).clean


@pytest.mark.parametrize(
    ("flag", "value", "most"),
    [
        ("--call-timeout", "1e308", "86,400"),
        ("--allowance", "inf", "86,400"),
        ("--agent-timeout", "nan", "86,400"),
        ("--delay", "1e308", "86,400"),
        ("--episode-timeout", "1e308", "31,536,000"),
    ],
)
def test_a_flag_past_its_bound_is_one_line(
    flag: str, value: str, most: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # in this process: the command line is the one `lighthouse` reads (harness.cli.main)
    assert main(["play", "--seed", "1", flag, value]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert f"{flag}: '{value}' is not a number of seconds" in err
    assert f"at most {most}" in err


def test_seeds_flag_is_matched_before_it_is_read(tmp_path: Path) -> None:
    for text in ("1:" + "9" * 5000, "٣:٩", "0:1e3"):
        with pytest.raises(ConfigError, match="is not A:B"):
            parse_seeds(text)
    done = lighthouse("run", "configs/smoke.toml", "--seeds", "1:" + "9" * 5000, "--dry-run",
                      cwd=ROOT)  # fmt: skip
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("lighthouse: error: --seeds: ")


def test_a_config_that_is_not_a_regular_file_or_too_large_is_refused_unread(
    tmp_path: Path,
) -> None:
    os.mkfifo(tmp_path / "fifo.toml")
    with pytest.raises(ConfigError, match=r"fifo.toml: cannot read: a FIFO"):
        load_tournament(tmp_path / "fifo.toml")
    big = tmp_path / "big.toml"
    with big.open("wb") as out:
        out.truncate(65 << 20)  # sparse: no disk
    with pytest.raises(
        ConfigError, match=r"big.toml: cannot read: 68,157,440 bytes, over the 64 MiB"
    ):
        load_tournament(big)


def test_a_config_listing_more_seeds_than_a_range_may_hold_is_refused(tmp_path: Path) -> None:
    seeds = ",".join(["1"] * 1_000_001)
    path = config(tmp_path)
    path.write_text(path.read_text().replace("seeds = [1]", f"seeds = [{seeds}]"))
    with pytest.raises(ConfigError, match="seeds"):
        load_tournament(path)


def _read_only_mount() -> list[str] | None:
    tool = shutil.which("unshare")
    if tool is None or sys.platform != "linux":
        return None
    probe = subprocess.run(
        [tool, "--mount", "--map-root-user", "sh", "-c", "mount -t tmpfs none /mnt"],
        capture_output=True, check=False,
    )  # fmt: skip
    return [tool, "--mount", "--map-root-user"] if probe.returncode == 0 else None


def test_a_dry_run_works_on_a_folder_it_may_not_write(tmp_path: Path) -> None:
    (tmp_path / "smoke.toml").write_text(
        (ROOT / "configs/smoke.toml").read_text().replace("stop = 50", "stop = 2")
    )
    made = lighthouse("run", "smoke.toml", "--out", "res", "--no-report", "--workers", "0",
                      cwd=tmp_path)  # fmt: skip
    assert made.returncode == 0, made.stderr
    before = sorted((p.name, p.stat().st_mtime_ns) for p in (tmp_path / "res").rglob("*"))
    argv = ["run", "smoke.toml", "--out", "res"]
    if os.geteuid() != 0:  # permissions hold: take them away (and run both in this process)
        for path in [tmp_path / "res", *(tmp_path / "res").rglob("*")]:
            path.chmod(0o555 if path.is_dir() else 0o444)
        dry = lighthouse(*argv, "--dry-run", cwd=tmp_path)
        real = lighthouse(*argv, "--no-report", cwd=tmp_path)
        done = subprocess.CompletedProcess(argv, real.returncode, dry.stdout + real.stdout,
                                           dry.stderr + real.stderr)  # fmt: skip
    else:  # root writes anywhere its permissions say no: a read-only mount then
        unshare = _read_only_mount()
        if unshare is None:
            pytest.skip("root, and no private mount namespace for a read-only mount")
        mount = "mount --bind res res && mount -o remount,bind,ro res"
        command = f"{sys.executable} -m harness.cli {' '.join(argv)}"
        wrapped = [*unshare, "sh", "-c", f"{mount} && {command} --dry-run; {command} --no-report"]
        done = subprocess.run(wrapped, cwd=tmp_path, capture_output=True, text=True, timeout=300,
                              check=False)  # fmt: skip
    assert "API keys: none needed" in done.stdout, done.stderr
    # the real run is refused (it would write), the dry run was not
    assert "lighthouse: error: --out: res: no permission to write in res" in done.stderr
    assert done.stderr.count("lighthouse: error:") == 1
    after = sorted((p.name, p.stat().st_mtime_ns) for p in (tmp_path / "res").rglob("*"))
    assert after == before


def test_an_inspect_seeds_string_is_bounded_before_it_is_parsed() -> None:
    pytest.importorskip("inspect_ai")
    from lighthouse_harness.params import MAX_SEEDS_TEXT
    from lighthouse_harness.params import parse_seeds as task_seeds

    with pytest.raises(ConfigError, match=f"longer than the {MAX_SEEDS_TEXT:,}"):
        task_seeds("1," * MAX_SEEDS_TEXT)
    # 3 KB of ranges that name 37 million seeds: refused as too many, under a memory
    # limit a list of them would not fit in
    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_AS, (768 << 20, 768 << 20))\n"
        "from lighthouse_harness.params import parse_seeds\n"
        "from harness.errors import ConfigError\n"
        "try:\n    parse_seeds(','.join(['0-99999'] * 375))\n"
        "except ConfigError as exc:\n    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    assert done.stdout.strip() == "seeds: at most 100,000 seeds in one task", done.stderr
