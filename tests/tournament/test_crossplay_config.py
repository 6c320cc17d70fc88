"""Mixed teams and cross-play designs in a tournament config.

A seat group takes short strings as well as tables (``runners = "scout"``, one per seat
in a list); a ``[crossplay]`` section plays every keeper with every runner team. Both
make ordinary entrants: the same identity as the tables they stand for, and growth
that plays only what is new.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.seat_spec import BaselineSeatConfig, LLMSeatConfig, PythonSeatConfig
from harness.tournament.config import TournamentConfig, load_tournament
from harness.tournament.run import TournamentOutcome, run_tournament
from harness.tournament.store import ResultsFolder

HEAD = """
name = "t"
seeds = { start = 0, stop = 2 }
variants = ["default", "spring"]

[providers.local]
kind = "openai"
base_url = "http://127.0.0.1:9/v1"
api_key_env = "LOCAL_KEY"
"""

TABLES = (
    HEAD
    + """
[[entrants]]
name = "lantern"
keeper = { baseline = "lantern" }
runners = { baseline = "wallhug" }

[[entrants]]
name = "pilot-mixed"
keeper = { baseline = "pilot" }
runners = [{ baseline = "scout" }, { baseline = "wallhug" }, { baseline = "wallhug" }]
"""
)

STRINGS = (
    HEAD
    + """
[[entrants]]
name = "lantern"
keeper = "lantern"
runners = "wallhug"

[[entrants]]
name = "pilot-mixed"
keeper = "pilot"
runners = ["scout", "wallhug", "wallhug"]
"""
)

DESIGN = (
    HEAD
    + """
[crossplay.keeper]
silent = "silent"
pilot = { baseline = "pilot" }

[crossplay.runners]
wallhug = "wallhug"
mixed = ["scout", "wallhug", "wallhug"]
"""
)


def write(tmp_path: Path, text: str, name: str = "t.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def play(path: Path, out: Path) -> TournamentOutcome:
    return asyncio.run(run_tournament(load_tournament(path), out, environ={}))


def records(out: Path) -> dict[str, tuple[int, bytes]]:
    return {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in (out / "records").iterdir()}


def test_short_strings_read_as_the_tables_they_stand_for(tmp_path: Path) -> None:
    tables = load_tournament(write(tmp_path, TABLES, "a.toml"))
    strings = load_tournament(write(tmp_path, STRINGS, "b.toml"))
    assert strings.entrants == tables.entrants
    assert strings.config_hash() == tables.config_hash()
    runners = strings.entrants[1].seats["runners"]
    assert runners == [
        BaselineSeatConfig(baseline="scout"),
        BaselineSeatConfig(baseline="wallhug"),
        BaselineSeatConfig(baseline="wallhug"),
    ]


def test_a_model_or_an_agent_among_scripted_partners(tmp_path: Path) -> None:
    (tmp_path / "crossplay_mixed_agents.py").write_text("def runner(_):\n    return 'WAIT'\n")
    text = STRINGS.replace(
        'runners = ["scout", "wallhug", "wallhug"]',
        'runners = ["local:m", "wallhug", "python:crossplay_mixed_agents:runner"]',
    )
    config = load_tournament(write(tmp_path, text))
    first, second, third = config.entrants[1].seats["runners"]
    assert isinstance(first, LLMSeatConfig)
    assert (first.provider, first.model) == ("local", "m")
    assert second == BaselineSeatConfig(baseline="wallhug")
    assert isinstance(third, PythonSeatConfig)
    assert third.python == "crossplay_mixed_agents:runner"


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('runners = ["scout", "wallhug", "wallhug"]', 'runners = ["scout", "wallhug"]',
         "t.toml: entrant 'pilot-mixed', runners: give one spec for all, or exactly 3; got 2"),
        ('runners = ["scout", "wallhug", "wallhug"]', 'runners = ["scout", "walhug", "wallhug"]',
         "t.toml: entrant 'pilot-mixed', runners.1.baseline: 'walhug' is not a runner baseline; "
         "choose one of"),
        ('runners = "wallhug"', 'runners = "lantern"',
         "t.toml: entrant 'lantern', runners.baseline: 'lantern' is not a runner baseline"),
        ('runners = "wallhug"', 'runners = "remote:m"',
         "t.toml: entrant 'lantern', runners.provider: there is no [providers.remote] table"),
        ('keeper = "pilot"', 'keeper = "python:not a path"',
         "t.toml: entrant 'pilot-mixed', keeper.python: 'not a path' is not MODULE:CALLABLE"),
        ('keeper = "pilot"', f'keeper = "{"x" * 400}"', "a seat is a table"),
    ],
)  # fmt: skip
def test_a_bad_short_string_is_a_clear_error(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    assert old in STRINGS
    with pytest.raises(ConfigError) as info:
        load_tournament(write(tmp_path, STRINGS.replace(old, new, 1)))
    assert message in str(info.value)


def test_a_folder_played_with_tables_resumes_with_strings_without_replaying(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    first = play(write(tmp_path, TABLES, "a.toml"), out)
    assert (first.planned, first.played) == (2 * 2 * 2, 8)
    before = records(out)
    identities = ResultsFolder(out).manifest().identities
    again = play(write(tmp_path, STRINGS, "b.toml"), out)
    assert (again.planned, again.played) == (8, 0)
    assert records(out) == before
    assert ResultsFolder(out).manifest().identities == identities


def test_a_design_makes_every_combination_with_readable_names(tmp_path: Path) -> None:
    config = load_tournament(write(tmp_path, DESIGN))
    names = [e.name for e in config.entrants]
    assert names == ["silent+wallhug", "silent+mixed", "pilot+wallhug", "pilot+mixed"]
    mixed = config.entrants[3]
    assert mixed.seats["keeper"] == BaselineSeatConfig(baseline="pilot")
    assert mixed.seats["runners"] == [
        BaselineSeatConfig(baseline="scout"),
        BaselineSeatConfig(baseline="wallhug"),
        BaselineSeatConfig(baseline="wallhug"),
    ]
    # the config as run (what a manifest keeps) reads back as the same config
    again = TournamentConfig.model_validate(config.model_dump(mode="json", by_alias=True))
    assert again == config
    assert again.config_hash() == config.config_hash()


def test_a_design_and_entrants_of_its_own_play_side_by_side(tmp_path: Path) -> None:
    text = DESIGN + '\n[[entrants]]\nname = "lantern"\nkeeper = "lantern"\nrunners = "scout"\n'
    names = [e.name for e in load_tournament(write(tmp_path, text)).entrants]
    assert names == ["lantern", "silent+wallhug", "silent+mixed", "pilot+wallhug", "pilot+mixed"]


def test_a_config_without_a_design_hashes_as_before(tmp_path: Path) -> None:
    config = load_tournament(write(tmp_path, TABLES))
    assert "crossplay" not in config.canonical_json()


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("[crossplay.runners]", "[crossplay.runner]",
         "t.toml: crossplay.runner: lighthouse has no such seat group; its seat groups are "
         "['keeper', 'runners']"),
        ('[crossplay.runners]\nwallhug = "wallhug"\nmixed = ["scout", "wallhug", "wallhug"]\n', "",
         "crossplay: name the members of 'runners' too ([crossplay.runners])"),
        ('silent = "silent"', '"a+b" = "silent"', "t.toml: crossplay: keeper.'a+b': a member's name is 1-64 letters"),
        ('silent = "silent"', 'silent = "scout"',
         "t.toml: crossplay.keeper.silent.baseline: 'scout' is not a keeper baseline"),
        ('mixed = ["scout", "wallhug", "wallhug"]', 'mixed = ["scout"]',
         "t.toml: crossplay.runners.mixed: give one spec for all, or exactly 3; got 1"),
    ],
)  # fmt: skip
def test_a_bad_design_is_a_clear_error(tmp_path: Path, old: str, new: str, message: str) -> None:
    assert old in DESIGN
    with pytest.raises(ConfigError) as info:
        load_tournament(write(tmp_path, DESIGN.replace(old, new, 1)))
    assert message in str(info.value)


def test_an_entrant_may_not_take_a_design_entrants_name_with_other_seats(
    tmp_path: Path,
) -> None:
    text = DESIGN + '\n[[entrants]]\nname = "pilot+mixed"\nkeeper = "lantern"\nrunners = "scout"\n'
    with pytest.raises(ConfigError) as info:
        load_tournament(write(tmp_path, text))
    assert "'pilot+mixed' is an entrant [crossplay] makes, with other seats" in str(info.value)


def test_a_config_needs_entrants_or_a_design(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_tournament(write(tmp_path, HEAD))
    assert "give at least one [[entrants]] table or a [crossplay] section" in str(info.value)


def test_a_keeper_added_to_a_design_plays_only_its_row(tmp_path: Path) -> None:
    out = tmp_path / "out"
    path = write(tmp_path, DESIGN)
    first = play(path, out)
    assert (first.planned, first.played) == (4 * 2 * 2, 16)
    before = records(out)
    path.write_text(DESIGN.replace('silent = "silent"', 'silent = "silent"\nlantern = "lantern"'))
    grown = play(path, out)
    # the new row: lantern with both teams, on 2 seeds x 2 variants
    assert (grown.planned, grown.played) == (6 * 2 * 2, 2 * 2 * 2)
    after = records(out)
    assert {k: after[k] for k in before} == before
    assert sorted({name.split("--")[0] for name in set(after) - set(before)}) == [
        "lantern+mixed",
        "lantern+wallhug",
    ]
    manifest = ResultsFolder(out).manifest()
    assert manifest.tournament_config() is not None
