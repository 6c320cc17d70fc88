"""The prompts the viewer shows: made again from records, and checked against each call's hash."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from harness.reader import open_record
from harness.registry import get_game
from harness.replay import replay
from harness.viewer.html import render_html
from harness.viewer.prompts import sent_prompts
from tests.llm_episode import NOT_A_MOVE, RETRY_TICK, Recorded, record_llm_episode
from tests.older_records import before_prompts

ROOT = Path(__file__).resolve().parents[2]
KEEPER_RECORD = ROOT / "tests/golden/records/llm-keeper-retries-fallbacks.jsonl"
GAME = get_game("lighthouse")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    return record_llm_episode(tmp_path_factory.mktemp("llm") / "episode.jsonl")


def sent(body: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple((m["role"], m["content"]) for m in body["messages"])


def shown(prompt: Any) -> tuple[tuple[str, str], ...]:
    return tuple((m.role, m.content) for m in prompt.messages)


def edited(src: Path, dst: Path, edit: Any) -> Path:
    lines = [json.loads(x) for x in src.read_text().splitlines()]
    edit(lines)
    dst.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return dst


def test_every_prompt_of_an_episode_is_made_again_exactly(recorded: Recorded) -> None:
    prompts = sent_prompts(GAME, open_record(recorded.path).lines())
    assert prompts.notes == []
    requests = {sent(r.body) for r in recorded.requests}
    turns = [(tick, seat, p) for tick, seats in prompts.turns.items() for seat, p in seats.items()]
    llm_turns = sum(len(x["seats"]) for x in recorded.lines() if x["type"] == "tick")
    assert len(turns) == llm_turns == 94  # every turn of every seat
    assert all(p.check == "exact" for _, _, p in turns)
    # each is the last request its seat sent that tick: all were sent, the retry too
    assert all(shown(p) in requests for _, _, p in turns)
    retry = prompts.turns[RETRY_TICK]["runner1"]
    assert [m.role for m in retry.messages] == ["system", "user", "assistant", "user"]
    assert retry.messages[2].content == NOT_A_MOVE
    assert '"move" is "NORTHWEST"' in retry.messages[3].content
    # each distinct text is kept once in the page's data
    data: Any = prompts.to_json()
    assert len(data["texts"]) == len(set(data["texts"]))
    assert sum(len(t) for t in data["texts"]) < sum(
        len(m.content) for *_, p in turns for m in p.messages
    )


def test_a_record_from_before_prompts_shows_them_unchecked(tmp_path: Path) -> None:
    now = sent_prompts(GAME, open_record(KEEPER_RECORD).lines())
    older = before_prompts(KEEPER_RECORD, tmp_path / "older.jsonl")
    then = sent_prompts(GAME, open_record(older).lines())
    assert {p.check for seats in now.turns.values() for p in seats.values()} == {"exact"}
    assert {p.check for seats in then.turns.values() for p in seats.values()} == {"unchecked"}
    # found among the shipped prompt files by their hashes: the same messages
    assert {t: {s: shown(p) for s, p in seats.items()} for t, seats in then.turns.items()} == {
        t: {s: shown(p) for s, p in seats.items()} for t, seats in now.turns.items()
    }


def test_a_prompt_that_is_not_what_was_sent_says_so(tmp_path: Path) -> None:
    def other_template(lines: list[dict[str, Any]]) -> None:
        details = lines[0]["seats"][0]["agent"]["details"]
        sha = details["observationPromptSha256"]
        lines[0]["prompts"][sha] = "Rendered otherwise: $observation"

    path = edited(KEEPER_RECORD, tmp_path / "r.jsonl", other_template)
    prompts = sent_prompts(GAME, open_record(path).lines())
    assert {p.check for seats in prompts.turns.values() for p in seats.values()} == {"differs"}
    assert (
        prompts.turns[0]["keeper"].messages[1].content.startswith("Rendered otherwise: The board")
    )


def test_prompt_files_found_nowhere_are_named(tmp_path: Path) -> None:
    def custom(lines: list[dict[str, Any]]) -> None:
        lines[0].pop("prompts")
        lines[0]["seats"][0]["agent"]["details"]["systemPromptSha256"] = "0" * 64

    path = edited(KEEPER_RECORD, tmp_path / "r.jsonl", custom)
    prompts = sent_prompts(GAME, open_record(path).lines())
    assert prompts.turns == {}
    assert len(prompts.notes) == 1
    assert prompts.notes[0].startswith("keeper: its prompt files are not in the record")


@pytest.mark.parametrize(
    ("edit", "reason", "ticks"),
    [
        # a turn missing: tick 3's prompts are not made (whose would they be?)
        (lambda ticks: ticks[3]["seats"].pop("keeper"), "it has turns of", [0, 1, 2]),
        # a decision the rules refuse: tick 3 was still seen as recorded, the next is not
        (
            lambda ticks: ticks[3]["seats"]["runner1"].update(
                decision={"transmit": True, "message": "x", "notes": None}
            ),
            "runner1's decision has no move",
            [0, 1, 2, 3],
        ),
    ],
)
def test_a_record_the_rules_refuse_shows_the_prompts_up_to_there(
    tmp_path: Path, edit: Any, reason: str, ticks: list[int]
) -> None:
    path = edited(KEEPER_RECORD, tmp_path / "r.jsonl", lambda lines: edit(lines[1:]))
    lines = open_record(path).lines()
    prompts = sent_prompts(GAME, lines)
    assert sorted(t for t, seats in prompts.turns.items() if seats) == ticks
    assert len(prompts.notes) == 1
    assert "at tick 3" in prompts.notes[0]
    assert reason in prompts.notes[0]
    page = render_html(GAME.view, lines)  # and the page is written all the same
    found = re.search(r'<script type="application/json" id="episode">(.*?)</script>', page, re.S)
    assert found is not None
    assert json.loads(found.group(1).replace("<\\/", "</"))["prompts"]["notes"] == prompts.notes


LAYOUT_1 = sorted((ROOT / "tests/golden/layout1").glob("*.jsonl"))


@pytest.mark.parametrize("record", LAYOUT_1, ids=lambda p: p.name)
def test_records_sent_the_first_prompt_layout_still_replay_and_verify(record: Path) -> None:
    lines = open_record(record).lines()
    header: Any = lines[0]
    assert all("promptLayout" not in s.agent.details for s in header.seats)
    prompts = sent_prompts(GAME, lines)
    assert prompts.notes == []
    checks = [p.check for seats in prompts.turns.values() for p in seats.values()]
    assert checks
    assert set(checks) == {"exact"}
    # made again in layout 1: the tick leads, as it did then
    first = next(iter(prompts.turns[0].values()))
    assert "Tick 0 of" in first.messages[1].content.split("\n")[0]
    result = asyncio.run(replay(record, GAME))
    assert result.clean, result.mismatch and result.mismatch.describe()


def test_a_record_of_one_layout_does_not_verify_as_another(tmp_path: Path) -> None:
    def claim_layout_1(lines: list[dict[str, Any]]) -> None:
        for seat in lines[0]["seats"]:
            seat["agent"]["details"].pop("promptLayout", None)

    path = edited(KEEPER_RECORD, tmp_path / "r.jsonl", claim_layout_1)
    prompts = sent_prompts(GAME, open_record(path).lines())
    assert {p.check for seats in prompts.turns.values() for p in seats.values()} == {"differs"}
