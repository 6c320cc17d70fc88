"""One notion of a turn a seat did not play itself, for every kind of seat: a Python
agent that raises on every call, one that always returns junk, a model that never
answers usably, and a record of them replayed are counted per entrant and seat group
from the results lines, ``lighthouse play`` says so after the results, and every
format of the report marks them and ranks them apart from the baseline that played
for them (the browser's page: tests/browse/test_not_own_browser.py)."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import uuid
from pathlib import Path

import pytest

from harness.cli import main
from harness.reader import open_record
from harness.registry import get_game
from harness.summary import TurnCount, entrant_turns, group_turns, summarize_read
from harness.testing.llm_server import Reply, ScriptedLLMServer
from harness.tournament.config import load_tournament
from harness.tournament.run import run_tournament
from harness.tournament.store import ResultsFolder

GAME = get_game("lighthouse")
KEY_ENV = "NOT_OWN_TEST_KEY"

AGENTS = """
def broken(inp):
    raise RuntimeError("this keeper cannot keep")


def junk(inp):
    return "I would rather not say."


def fine(inp):
    return {"transmit": False, "message": ""}
"""

CONFIG = """
name = "not-own"
seeds = [1, 2]
variants = ["default"]
rules = {{ maxTicks = 5 }}

[providers.local]
kind = "openai"
base_url = "{url}"
api_key_env = "{key_env}"

[[entrants]]
name = "broken"
keeper = {{ python = "{module}:broken", isolation = "none" }}
runners = {{ baseline = "wallhug" }}

[[entrants]]
name = "junk"
keeper = {{ python = "{module}:junk", isolation = "none" }}
runners = {{ baseline = "wallhug" }}

[[entrants]]
name = "mixed"
keeper = {{ python = "{module}:fine", isolation = "none" }}
runners = [{{ baseline = "wallhug" }}, {{ python = "{module}:broken", isolation = "none" }},
           {{ baseline = "wallhug" }}]

[[entrants]]
name = "junk-llm"
keeper = {{ provider = "local", model = "junk", structured_output = "off" }}
runners = {{ baseline = "wallhug" }}

[[entrants]]
name = "lantern"
keeper = {{ baseline = "lantern" }}
runners = {{ baseline = "wallhug" }}

[[entrants]]
name = "fine"
keeper = {{ python = "{module}:fine", isolation = "none" }}
runners = {{ baseline = "wallhug" }}
"""


def agents(where: Path) -> str:
    """A module of the agents above in ``where``, under a name of its own."""
    module = f"not_own_{uuid.uuid4().hex[:12]}"
    (where / f"{module}.py").write_text(AGENTS, encoding="utf-8")
    return module


def not_own_folder(where: Path) -> Path:
    """A tournament of the entrants above, played into ``where``/out."""
    module = agents(where)
    with ScriptedLLMServer(default=lambda path, body: Reply("no JSON here")) as server:
        config = where / "not-own.toml"
        config.write_text(CONFIG.format(url=server.openai_url, key_env=KEY_ENV, module=module))
        out = where / "out"
        asyncio.run(
            run_tournament(load_tournament(config), out, environ={KEY_ENV: "sk-not-own-0123"})
        )
    return out


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return not_own_folder(tmp_path_factory.mktemp("not-own"))


#: The entrants none of whose keeper turns were their own, and how the tables flag them.
NOT_OWN = {"broken": "all turns fell back", "junk": "all turns fell back",
           "junk-llm": "all turns fell back"}  # fmt: skip


def report_of(folder: Path, form: str, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["report", str(folder), "--format", form]) == 0
    return capsys.readouterr().out


def test_every_format_marks_them_and_ranks_them_apart_from_the_baseline(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(report_of(folder, "json", capsys))
    rows = {r["entrant"]: r for r in data["entrants"]}
    for name, flag in NOT_OWN.items():
        assert data["fallbackFlags"][name] == flag
        assert rows[name]["mostlyNotOwn"] is True
        assert rows[name]["rank"] is None  # apart: never beside lantern, which played it
        keeper = rows[name]["notOwn"]["keeper"]
        assert keeper["notOwn"] == keeper["turns"] > 0
    assert data["fallbackFlags"]["mixed"] == "fallback 33% of turns"  # one runner of three
    assert rows["lantern"]["rank"] is not None
    assert rows["mixed"]["rank"] is not None
    assert rows["lantern"]["notOwn"]["keeper"]["notOwn"] == 0
    # the ranked first, by rank; those apart after them
    order = [r["entrant"] for r in data["entrants"]]
    assert set(order[-3:]) == set(NOT_OWN)
    # Markdown: the ranked table itself, not only a table further down
    md = report_of(folder, "md", capsys)
    table = md.split("## Entrants")[1].split("\n\n")[1].splitlines()
    for name, flag in NOT_OWN.items():
        row = next(x for x in table if x.startswith(f"| {name} "))
        assert row.startswith(f"| {name} ⚠ {flag} |")
        assert "| apart: not its own play | keeper " in row
    assert "ranked apart" in md.split("## Entrants")[1].split("##")[0]
    board = md.split("## Keeper leaderboard")[1].split("\n## ")[0]
    for name in NOT_OWN:
        assert f"| {name} " not in board  # not ranked beside the baseline
    assert "| lantern | lantern |" in board
    assert "Ranked apart, not on this board: broken ⚠ all turns fell back" in board
    # CSV: the flag, the counts per seat group, no rank
    csv_rows = {
        r["entrant"]: r for r in csv.DictReader(io.StringIO(report_of(folder, "csv", capsys)))
    }
    for name, flag in NOT_OWN.items():
        line = csv_rows[name]
        assert (line["fallback_flag"], line["rank"], line["mostly_not_own"]) == (flag, "", "true")
        assert line["not_own_keeper"] == line["turns_keeper"] != "0"
    assert csv_rows["lantern"]["mostly_not_own"] == "false"


def test_the_leaderboard_of_folders_ranks_them_below_and_marks_them(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["leaderboard", str(folder), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["entrants"]
    ranks = {r["entrant"]: r["rank"] for r in rows}
    own = [r for r in rows if not r["mostlyNotOwn"]]
    assert {r["entrant"] for r in rows if r["mostlyNotOwn"]} == set(NOT_OWN)
    assert max(ranks[r["entrant"]] for r in own) < min(ranks[n] for n in NOT_OWN)
    assert all(r["flag"] == NOT_OWN[r["entrant"]] for r in rows if r["mostlyNotOwn"])
    assert main(["leaderboard", str(folder)]) == 0
    md = capsys.readouterr().out
    assert "| broken ⚠ all turns fell back |" in md
    assert "(below: not its own play)" in md


def test_every_seat_kind_counts_its_turns_not_its_own_per_entrant_and_group(
    folder: Path,
) -> None:
    counts = entrant_turns(ResultsFolder(folder).summaries(), GAME.seat_groups)
    assert sorted(counts) == ["broken", "fine", "junk", "junk-llm", "lantern", "mixed"]
    turns = counts["broken"]["keeper"].turns
    assert turns > 0
    # the agent that raises: every keeper turn its baseline's, each by fallback_error
    assert counts["broken"]["keeper"] == TurnCount(turns, {"fallback_error": turns})
    assert counts["broken"]["keeper"].mostly_not_own
    # junk twice (the reply, then the retry): fallback_parse, for an agent and a model
    assert counts["junk"]["keeper"].not_own_by_source == {
        "fallback_parse": counts["junk"]["keeper"].turns
    }
    assert counts["junk-llm"]["keeper"].not_own_by_source == {
        "fallback_parse": counts["junk-llm"]["keeper"].turns
    }
    assert counts["junk-llm"]["keeper"].share == 1.0
    # baselines' turns are their own; a group counts the seats the entrant gave it
    for name in ("broken", "junk", "junk-llm", "lantern"):
        assert counts[name]["runners"].not_own == 0, name
        assert counts[name]["runners"].turns > 0
    assert counts["lantern"]["keeper"] == TurnCount(counts["lantern"]["keeper"].turns, {})
    mixed = counts["mixed"]
    assert mixed["keeper"].not_own == 0
    assert 0 < mixed["runners"].not_own < mixed["runners"].turns
    assert set(mixed["runners"].not_own_by_source) == {"fallback_error"}
    assert not mixed["runners"].mostly_not_own  # one runner of three


def test_a_record_replayed_counts_the_same_turns_not_its_own(
    folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    summary = next(s for s in ResultsFolder(folder).summaries() if s.entrant == "broken")
    complete = tmp_path / "complete.jsonl"
    record = folder / "records" / f"{summary.episode_id}.jsonl"
    assert main(["replay", str(record), "--complete", str(complete)]) == 0
    again = summarize_read(
        GAME.report, open_record(complete).lines(), entrant="broken", repetition=0
    )
    assert group_turns(again, GAME.seat_groups) == group_turns(summary, GAME.seat_groups)
    assert group_turns(summary, GAME.seat_groups)["keeper"].mostly_not_own


@pytest.mark.parametrize(
    ("agent", "said"),
    [
        ("broken", "all turns fell back ({n} of {n}: fallback_error {n}): none was its own"),
        ("junk", "all turns fell back ({n} of {n}: fallback_parse {n}): none was its own"),
    ],
)
def test_play_says_which_turns_were_not_the_agents_own(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    agent: str,
    said: str,
) -> None:
    module = agents(tmp_path)
    monkeypatch.chdir(tmp_path)
    record = tmp_path / "ep.jsonl"
    args = ["play", "--seed", "7", "--quiet", "--keeper", f"python:{module}:{agent}",
            "--agent-isolation", "none", "--record", str(record)]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out.splitlines()
    ticks = [json.loads(x) for x in record.read_text(encoding="utf-8").splitlines()[1:-1]]
    n = len(ticks)
    expected = f"keeper ({module}:{agent}): " + said.format(n=n)
    assert [line for line in out if line.startswith("keeper (")] == [
        expected + ", its role's baseline played every one; the agent never gave a usable "
        "answer, see the record's errors and replies"
    ]
    score = next(i for i, x in enumerate(out) if x.startswith("score "))
    assert out[score + 1].startswith("keeper (")  # the line after the score
    assert "runners (" not in "\n".join(out)  # the baselines played their own


def test_play_with_seats_that_play_their_own_says_nothing_of_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    module = agents(tmp_path)
    monkeypatch.chdir(tmp_path)
    args = ["play", "--seed", "7", "--quiet", "--keeper", f"python:{module}:fine",
            "--agent-isolation", "none"]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out.splitlines()
    assert not [line for line in out if "fell back" in line]
