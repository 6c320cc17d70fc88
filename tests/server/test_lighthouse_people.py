"""A person at a Lighthouse seat over HTTP (decision L4): ``init`` with ``player`` (and
``tickSeconds``) makes the seats the client plays a person's, judged as any seat's,
their turns tagged as theirs, a timer that ran out the baseline's."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.defaults import MAX_EPISODE_TIMEOUT_SECONDS
from harness.replay import replay
from tests.relayroam.live_server import Reply, http, running_server

KEY = b"lighthouse-people-test-key-32-by"
ROOT = "/api/games/lighthouse"


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with running_server(KEY) as url:
        yield url


def init(base: str, query: str) -> Reply:
    return http("GET", f"{base}{ROOT}/init?{query}")


def act(base: str, token: str, action: Any) -> Reply:
    body = json.dumps({"stateToken": token, "action": action}).encode()
    return http("POST", f"{base}{ROOT}/action", body)


def to_the_end(base: str, first: dict[str, Any], seat: str) -> list[dict[str, Any]]:
    """Play ``seat`` to the end with the baseline's own replies... as typed by a person:
    the first tick once wrongly (then the retry), the second left to the timer."""
    now = first
    while not now["over"]:
        tick = now["tick"]
        mine = now["observations"][seat]
        if tick == 0 and mine["problem"] is None:
            reply: Any = "hold on, which way?"
        elif tick == 1:
            reply = None  # the timer ran out
        else:
            reply = {"move": "WAIT"} if seat != "keeper" else {"transmit": False}
        answered = act(base, now["stateToken"], {seat: reply})
        assert answered.status == 200, answered.raw
        now = answered.json()
    record = http(
        "POST", f"{base}{ROOT}/record", json.dumps({"stateToken": now["stateToken"]}).encode()
    )
    assert record.status == 200
    lines: list[dict[str, Any]] = record.json()["record"]
    return lines


@pytest.mark.parametrize("seat", ["keeper", "runner2"])
def test_a_persons_turns_are_theirs_and_their_record_replays(
    base: str, seat: str, tmp_path: Path
) -> None:
    first = init(base, f"seed=5&seats={seat}&player=Ada%20L.&tickSeconds=30")
    assert first.status == 200
    lines = to_the_end(base, first.json(), seat)
    header = lines[0]
    agents = {s["seat"]: s["agent"] for s in header["seats"]}
    assert agents[seat] == {"kind": "human", "name": "Ada L.", "details": {"tickSeconds": "30"}}
    assert {a["kind"] for s, a in agents.items() if s != seat} == {"baseline"}
    # no wall-clock play budget: the record's config says so (the longest timeout)
    assert header["config"]["episodeTimeoutSeconds"] == MAX_EPISODE_TIMEOUT_SECONDS
    turns = [line["seats"][seat] for line in lines[1:-1] if seat in line["seats"]]
    assert turns[0]["source"] == "human_retry"  # judged, sent back once, then used
    assert turns[0]["replies"][0]["parseError"] is not None
    assert turns[1]["source"] == "fallback_timeout"  # the timer ran out: the baseline's
    assert {t["source"] for t in turns[2:]} == {"human"}
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = asyncio.run(replay(path))
    assert result.mismatch is None
    assert not result.incomplete


def test_a_program_is_no_person_and_a_timeout_needs_a_timer(base: str) -> None:
    program = init(base, "seed=5&seats=keeper").json()
    # without a player the seat is a Python agent's, as before
    assert act(base, program["stateToken"], {"keeper": None}).status == 400
    person = init(base, "seed=5&seats=keeper&player=Ada").json()
    refused = act(base, person["stateToken"], {"keeper": None})
    assert refused.status == 400  # no timer: nothing ran out
    assert refused.json()["error"] == "invalid_reply"


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("player=a:b", "player: 'a:b' is not a player's name"),
        ("player=" + "x" * 41, "player:"),
        ("player=%20Ada", "player:"),
        ("player=Ada&tickSeconds=-1", "tickSeconds: Input should be greater than 0"),
        ("player=Ada&tickSeconds=soon", "tickSeconds: 'soon' is not a number of seconds"),
        ("player=Ada&tickSeconds=inf", "tickSeconds:"),
        ("tickSeconds=5", "tickSeconds is a person's per-tick timer: give player=NAME"),
    ],
)
def test_a_bad_player_or_timer_is_refused_with_a_reason(
    base: str, query: str, message: str
) -> None:
    refused = init(base, f"seed=5&seats=keeper&{query}")
    assert refused.status == 400
    assert refused.json()["error"] == "invalid_player"
    assert message in refused.json()["message"]


def test_a_person_at_a_runner_is_sent_only_what_that_runner_sees(base: str) -> None:
    person = init(base, "seed=5&seats=runner2&player=Ada").json()
    program = init(base, "seed=5&seats=runner2").json()
    # a program is sent every seat's observation, the tick lines and the score
    assert set(program["observations"]) == {"keeper", "runner1", "runner2", "runner3"}
    assert program["score"] is not None
    now = person
    seen_over = False
    while not now["over"]:
        # a person at runner2 gets runner2's window and inbox, never the map: no other
        # seat's observation, no tick line (a tick line holds the whole state), no score
        assert set(now["observations"]) <= {"runner2"}
        assert (now["ticks"], now["lastTick"], now["score"], now["scores"]) == (
            [],
            None,
            None,
            None,
        )
        if now["waiting"]:
            assert set(now["observations"]) == {"runner2"}
            assert "keeper" not in json.dumps(now["observations"]["runner2"]["observation"])
        answered = act(base, now["stateToken"], {s: {"move": "WAIT"} for s in now["waiting"]})
        assert answered.status == 200, answered.raw
        now = answered.json()
        seen_over = now["over"]
    # once over, everything may be shown
    assert seen_over
    assert now["results"] is not None
    assert now["score"] is not None
