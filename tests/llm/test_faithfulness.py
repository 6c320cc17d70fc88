"""Faithfulness: a model that echoes its prompt's example reply is seen doing so.

A tournament's two entrants call one scripted server through the real OpenAI SDK: the
``parrot`` model answers every request with the first example reply its system prompt
shows (read from the request, as a base model copying its prompt does), the ``player``
with replies of its own. The report marks the parrot's seat groups in every format and
leaves the player's alone; every call's stop reason is in the record.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import re
from pathlib import Path
from typing import Any

from pydantic import JsonValue

from harness.browse.folder import read_folder
from harness.browse.index import index_page
from harness.commands.tournament import report_text
from harness.llm.examples import PromptExamples, example_replies
from harness.models import JsonObject
from harness.protocol import Report
from harness.registry import get_game
from harness.report.faithfulness import PARROT_MARK
from harness.summary import summarize
from harness.testing.llm_server import Reply, ScriptedLLMServer
from harness.tournament.config import load_tournament
from harness.tournament.run import run_tournament
from harness.tournament.store import ResultsFolder

KEY_ENV = "FAITHFULNESS_TEST_KEY"
ENVIRON = {KEY_ENV: "sk-faithfulness-test-0123456789"}
TICK = re.compile(r"Tick (\d+) of")
GAME = get_game("lighthouse")

CONFIG = """
name = "faithfulness"
seeds = [4]
variants = ["default"]
concurrency = 1
rules = {{ maxTicks = 6 }}

[providers.local]
kind = "openai"
base_url = "{url}"
api_key_env = "{key_env}"

[[entrants]]
name = "parrot"
keeper = {{ provider = "local", model = "parrot" }}
runners = {{ provider = "local", model = "parrot" }}

[[entrants]]
name = "player"
keeper = {{ provider = "local", model = "player" }}
runners = {{ provider = "local", model = "player" }}
"""


def answer(path: str, body: dict[str, Any]) -> Reply:
    """The parrot echoes its prompt's example; the player says something of its own."""
    system = body["messages"][0]["content"]
    if body["model"] == "parrot":
        examples = example_replies(system) or [{}]  # the preflight's prompt shows none
        return Reply(json.dumps(examples[0]), stop_reason="stop")
    text = json.dumps(body)
    found = TICK.search(text)
    tick = found.group(1) if found else "?"
    if "You are the KEEPER" in system:
        return Reply(
            json.dumps({"transmit": True, "message": f"Sprocket N; Gizmo W {tick}"}),
            stop_reason="stop",
        )
    # the first call of a tick is cut by the length limit and its retry answers
    if "could not be used" not in text:
        return Reply('{"move": "E", "no', stop_reason="length")
    return Reply(json.dumps({"move": "W", "notes": f"went west at {tick}"}), stop_reason="stop")


def test_a_model_echoing_the_prompts_example_is_marked_as_parroting(tmp_path: Path) -> None:
    with ScriptedLLMServer(default=answer) as server:
        config = tmp_path / "faithfulness.toml"
        config.write_text(CONFIG.format(url=server.openai_url, key_env=KEY_ENV))
        out = tmp_path / "out"
        asyncio.run(run_tournament(load_tournament(config), out, environ=ENVIRON))

    folder = ResultsFolder(out)
    calls = [
        call
        for path in folder.iter_records()
        for line in path.read_text(encoding="utf-8").splitlines()[1:-1]
        for turn in json.loads(line)["seats"].values()
        for call in turn["calls"]
    ]
    assert len(calls) > 20
    assert all(call["stopReason"] in {"stop", "length"} for call in calls)
    assert sum(call["stopReason"] == "length" for call in calls) > 0

    rows = {
        (r["entrant"], r["group"]): r for r in json.loads(report_text(out, "json", None))[
            "faithfulness"]
    }  # fmt: skip
    assert set(rows) == {(e, g) for e in ("parrot", "player") for g in ("keeper", "runners")}
    for group in ("keeper", "runners"):
        parrot, player = rows["parrot", group], rows["player", group]
        assert parrot["parrots"]
        assert parrot["copyShare"] == 1.0
        assert parrot["stopReasons"] == {"stop": parrot["answered"]}
        assert not player["parrots"]
        assert player["copyShare"] == 0.0
        # the parrot says one thing a seat and episode; the player a new one each tick
        seats = 1 if group == "keeper" else 3
        assert parrot["distinctShare"] == seats / parrot["ownTurns"]
    assert rows["player", "keeper"]["distinctShare"] == 1.0
    assert rows["player", "keeper"]["lengthCutShare"] == 0.0
    # every runner turn's first call was cut, and its retry answered whole
    runners = rows["player", "runners"]
    assert runners["stopReasons"]["length"] == runners["stopReasons"]["stop"]
    assert runners["lengthCutShare"] == 0.5

    markdown = report_text(out, "md", None)
    section = markdown.split("## Faithfulness", 1)[1]
    marked = [line for line in section.splitlines() if f"⚠ {PARROT_MARK}" in line]
    assert [line.split("|")[1:3] for line in marked if line.startswith("|")] == [
        [" parrot ", " keeper "],
        [" parrot ", " runners "],
    ]
    assert "⚠ Parroting: parrot (keeper), parrot (runners)." in section

    table = list(csv.DictReader(io.StringIO(report_text(out, "csv", None))))
    by_entrant = {row["entrant"]: row for row in table}
    assert by_entrant["parrot"]["faithfulness_keeper_parrots"] == "true"
    assert by_entrant["parrot"]["faithfulness_runners_parrots"] == "true"
    assert by_entrant["player"]["faithfulness_keeper_parrots"] == "false"
    assert float(by_entrant["player"]["faithfulness_runners_length_cut_share"]) == 0.5

    page = index_page(read_folder(out))
    faith = page.split('<section id="faithfulness">', 1)[1].split("</section>", 1)[0]
    flagged = re.findall(r"<tr><td>(\w+)</td><td>(\w+)</td>(?:(?!</tr>).)*parrots", faith)
    assert flagged == [("parrot", "keeper"), ("parrot", "runners")]


def _turn(raw: str, source: str = "llm", stops: tuple[str | None, ...] = ("stop",)) -> JsonObject:
    import hashlib

    calls: list[JsonValue] = [
        {
            "provider": "openai", "model": "m", "attempts": 1, "errors": [], "failure": None,
            "inputTokens": 10, "outputTokens": 5, "reasoningTokens": None, "costUsd": None,
            **({"stopReason": stop} if stop is not None else {}), "wallClock": None,
        }
        for stop in stops
    ]  # fmt: skip
    return {
        "raw": raw,
        "rawLength": len(raw.encode()),
        "rawSha256": hashlib.sha256(raw.encode()).hexdigest(),
        "source": source,
        "calls": calls,
    }


def test_distinct_and_length_cut_shares_of_a_hand_made_record() -> None:
    system = 'Reply like this: {"move": "N", "notes": "..."}'
    observation = '$observation\n\nReply with one JSON object: {"move": "N|S"}'
    prompts: JsonObject = {"s" * 64: system, "o" * 64: observation, "r" * 64: "retry: $problem"}
    details: JsonObject = {
        "systemPromptSha256": "s" * 64,
        "observationPromptSha256": "o" * 64,
        "retryHintSha256": "r" * 64,
    }
    header: JsonObject = {
        "episodeId": "e",
        "seed": 1,
        "variant": "default",
        "prompts": prompts,
        "seats": [
            {"seat": "runner1", "role": "runner", "agent": {"kind": "llm", "name": "openai:m",
                                                              "details": details}},
        ],
    }  # fmt: skip
    copy = '{"move": "N", "notes": "..."}'
    turns: list[JsonObject] = [
        _turn(copy),
        _turn(copy),
        _turn('{"move": "N"}'),  # a bare move is no copy
        _turn('{"move": "S", "notes": "east wall"}', "llm_retry", ("length", "stop")),
        _turn('{"move": "WAIT"}', "fallback_length", ("length", "length")),
        _turn('{"move": "E", "notes": "..."}', stops=(None,)),  # a stop reason not recorded
    ]
    ticks: list[JsonObject] = [{"tick": i, "seats": {"runner1": t}} for i, t in enumerate(turns)]
    docs: list[JsonObject] = [
        header,
        *ticks,
        {"results": {"scores": [1.0], "reason": "done"}},
    ]
    summary = summarize(Report(), docs, entrant="x", repetition=0)
    faith = summary.seats["runner1"].faithfulness
    assert faith is not None
    # own turns: every turn but the fallback; distinct texts among them: 4 of 5
    assert (faith.own_turns, faith.distinct) == (5, 4)
    assert faith.copies == 3  # the two copies, and the one that copied the notes alone
    assert faith.answered == 8
    assert faith.stop_reasons == {"length": 3, "stop": 4}
    assert faith.length_cut == 3

    # a header without prompt texts (an older record): copies unknown, the rest counted
    without: JsonObject = {**header, "prompts": {}}
    older = summarize(Report(), [without, *docs[1:]], entrant="x", repetition=0)
    older_faith = older.seats["runner1"].faithfulness
    assert older_faith is not None
    assert older_faith.copies is None
    assert older_faith.distinct == 4


def test_the_prompts_examples_are_read_from_the_shipped_templates() -> None:
    from harness.llm.prompts import PROMPTS_DIR

    def examples(game: str, role: str) -> PromptExamples:
        folder = PROMPTS_DIR / game
        texts = [(folder / f"{role}.{part}.md").read_text() for part in ("system", "observation")]
        return PromptExamples.of(texts)

    keeper = examples("lighthouse", "keeper")
    assert ("message", "Sprocket N; Gizmo E; Ratchet hold") in keeper.texts
    assert keeper.copied_by('{"transmit": false, "message": "Sprocket N; Gizmo E; Ratchet hold"}')
    assert not keeper.copied_by('{"transmit": true, "message": "Sprocket N"}')
    assert not keeper.copied_by("not JSON at all")
    # a game whose examples name only choices (a move, an action) has nothing to copy
    assert examples("hourloom", "player").texts == frozenset()
    assert not examples("relayroam", "player").copied_by('{"type": "move", "direction": "up"}')


def test_a_folder_written_before_faithfulness_audits_clean_and_a_wrong_figure_does_not(
    tmp_path: Path,
) -> None:
    from harness.tournament.audit import audit
    from tests.golden.folders import unpack

    root = unpack("models", tmp_path)
    folder = ResultsFolder(root)
    episodes = folder.episodes_path
    lines = episodes.read_text(encoding="utf-8").splitlines()
    assert lines
    assert all('"faithfulness"' not in line for line in lines)
    found = audit(episodes, folder.records, GAME)
    assert found.problems == []
    # the record gives the figures the line lacks...
    derived = [c.derived for c in found.checks if c.derived is not None]
    assert any(s.faithfulness is not None for d in derived for s in d.seats.values())

    # ...and a line that states them is held to them
    first = json.loads(lines[0])
    seat = next(s for s, stats in first["seats"].items() if stats["calls"])
    check = next(c for c in found.checks if c.number == 1)
    assert check.derived is not None
    stated = check.derived.seats[seat].faithfulness
    assert stated is not None
    wrong = stated.model_dump(mode="json", by_alias=True) | {"distinct": stated.distinct + 1}
    first["seats"][seat]["faithfulness"] = wrong
    episodes.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8")
    (problem,) = audit(episodes, folder.records, GAME).problems
    assert problem.number == 1
    assert f"seats.{seat}.faithfulness.distinct" in (problem.problem or "")
