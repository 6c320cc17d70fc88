"""Lighthouse over HTTP (docs/serve.md): the same episodes as the runner's, tick for tick.

Every test here talks to a real uvicorn server on 127.0.0.1 through urllib. The
differential test plays each episode twice with the same replies: over HTTP, the
client reading only the JSON it is sent, and through ``harness.play`` with Python
agents; every seat's observation, every decision and source, the score and the end
must agree.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import json
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

import pytest

import harness
from harness.agents import AgentInput
from harness.games.lighthouse.observe import KeeperObservation, RunnerObservation
from harness.records import RecordWriter
from harness.registry import get_game
from harness.replay import replay
from harness.server.app import create_app
from harness.server.stepped import SteppedApi, observation_json
from tests.relayroam.live_server import Reply, http, running_server
from tests.test_episode import without_wall_clock

KEY = b"lighthouse-api-test-key-32-bytes"
ROOT = "/api/games/lighthouse"
GAME = get_game("lighthouse")
#: Seeds every run plays; the slow run plays the rest of the 50.
FAST_SEEDS = range(10)
SLOW_SEEDS = range(10, 50)
#: Seeds played on a server that keeps no episode between requests (each request
#: plays its episode again from the token's replies).
REPLAYED_SEEDS = range(2)
#: The seats the client plays, by seed.
SEAT_SETS = (
    ("keeper",),
    ("runner2",),
    ("keeper", "runner1", "runner2", "runner3"),
    ("runner1", "runner3"),
    ("keeper", "runner2"),
)


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with running_server(KEY) as url:
        yield url


@pytest.fixture(scope="module")
def forgetful() -> Iterator[str]:
    """A server that keeps no episode in play between requests."""
    app = create_app(KEY, apis={}, stepped={"lighthouse": SteppedApi(GAME, live_episodes=0)})
    with running_server(KEY, app) as url:
        yield url


# --- the client: replies made from what a response holds ---


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def typed(kind: Any, value: Any) -> Any:
    """``value``, an observation's JSON, as the type ``kind`` (the inverse of
    :func:`observation_json`, written from the types alone)."""
    origin, args = get_origin(kind), get_args(kind)
    if value is None:
        return None
    if origin in (Union, types.UnionType):
        return typed(next(a for a in args if a is not type(None)), value)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(typed(args[0], item) for item in value)
        return tuple(typed(a, item) for a, item in zip(args, value, strict=True))
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return kind(value)
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        hints = get_type_hints(kind)
        return kind(
            **{
                f.name: typed(hints[f.name], value[_camel(f.name)])
                for f in dataclasses.fields(kind)
            }
        )
    return value


def client_reply(seat: str, tick: int, observation: Any, retrying: bool) -> Any:
    """The reply of the client's ``seat``: its role's default baseline's (as text on even
    ticks, as decision fields on odd ones), but now and then text that does not parse,
    and on some of those a retry that fails too, so every way a turn ends happens."""
    mark = 3 * tick + (int(seat[-1]) if seat[-1].isdigit() else 0)
    if not retrying and mark % 5 == 2:
        return "no json here"
    if retrying and mark % 10 == 2:
        return {"not": "a decision"}
    role = "keeper" if seat == "keeper" else "runner"
    raw = next(iter(GAME.baselines[role].values()))(observation)
    return raw if tick % 2 == 0 else json.loads(raw)


def _observation_of(seat: str, data: Any) -> Any:
    return typed(KeeperObservation if seat == "keeper" else RunnerObservation, data)


# --- the two ways of playing an episode ---


def _post(base: str, route: str, body: Any) -> Reply:
    return http("POST", f"{base}{ROOT}/{route}", json.dumps(body).encode())


def played_over_http(base: str, seed: int, variant: str, plays: tuple[str, ...]) -> dict[str, Any]:
    """Episode ``seed`` played through the API with :func:`client_reply`: every
    response, and the record the API hands back."""
    query = f"seed={seed}&variant={variant}&seats={','.join(plays)}"
    reply = http("GET", f"{base}{ROOT}/init?{query}")
    assert reply.status == 200, reply.raw
    responses = [reply.json()]
    while not responses[-1]["over"]:
        last = responses[-1]
        action = {}
        for seat in last["waiting"]:
            seen = last["observations"][seat]
            observation = _observation_of(seat, seen["observation"])
            action[seat] = client_reply(
                seat, last["tick"], observation, seen["retryOf"] is not None
            )
        reply = _post(base, "action", {"stateToken": last["stateToken"], "action": action})
        assert reply.status == 200, reply.raw
        responses.append(reply.json())
    record = _post(base, "record", {"stateToken": responses[-1]["stateToken"]})
    assert record.status == 200, record.raw
    return {"responses": responses, "record": record.json()["record"]}


def played_by_the_runner(seed: int, variant: str, plays: tuple[str, ...]) -> dict[str, Any]:
    """Episode ``seed`` played by ``harness.play``: the client's seats Python agents
    giving :func:`client_reply`, the others the baselines; then again with every seat
    an agent (the others giving their baseline's reply), for every seat's observation."""
    asked: list[AgentInput] = []

    def agent(given: AgentInput) -> Any:
        asked.append(given)
        return client_reply(given.seat, given.tick, given.observation, given.retry_of is not None)

    def bot(given: AgentInput) -> Any:
        asked.append(given)
        return next(iter(GAME.baselines[given.role].values()))(given.observation)

    env = harness.make("lighthouse", variant=variant)
    runners = [agent if f"runner{i}" in plays else "wallhug" for i in (1, 2, 3)]
    played = env.play(seed, keeper=agent if "keeper" in plays else "lantern", runners=runners)
    mine = list(asked)
    asked.clear()
    env.play(
        seed,
        keeper=agent if "keeper" in plays else bot,
        runners=[agent if f"runner{i}" in plays else bot for i in (1, 2, 3)],
    )
    return {"played": played, "asked": mine, "everyone": list(asked)}


def _comparable(lines: Any) -> list[Any]:
    """Every line but the wall clock, the episode id and the seats' agents (a callable's
    name is not the API's ``step``)."""
    out = []
    for line in lines:
        line = without_wall_clock(line)
        if line["type"] == "header":
            line = {**line, "seats": [{**s, "agent": None} for s in line["seats"]]}
            line.pop("prompts", None)
            line.pop("episodeId")
        out.append(line)
    return out


def _score_after(tick_line: dict[str, Any], key_count: int) -> float:
    """The team score as the rules define it, from a tick line (B is 0 until all
    three runners are out, which ends the episode)."""
    state = tick_line["state"]
    escaped = sum(1 for r in state["runners"] if r["status"] == "escaped")
    return 6 * len(state["collected"]) / key_count + 10 * escaped


def assert_same_episode(http_side: dict[str, Any], runner_side: dict[str, Any]) -> None:
    played = runner_side["played"]
    responses = http_side["responses"]
    # the record: header, every tick's decisions and sources and state, the end
    assert _comparable(http_side["record"]) == _comparable(played.lines)
    # the ticks each response resolved are the record's, in order; the last is lastTick
    ticks = [without_wall_clock(line) for line in played.lines if line["type"] == "tick"]
    resolved = [without_wall_clock(t) for r in responses for t in r["ticks"]]
    assert resolved == ticks
    for response in responses[1:]:
        if response["ticks"]:
            assert response["lastTick"] == response["ticks"][-1]
    # the client's seats were asked exactly what the runner's agents were asked
    asked = [(seat, r["tick"], r["observations"][seat]) for r in responses for seat in r["waiting"]]
    given = runner_side["asked"]
    assert len(asked) == len(given)
    for (seat, tick, seen_obs), agent_in in zip(asked, given, strict=True):
        assert (seat, tick) == (agent_in.seat, agent_in.tick)
        assert seen_obs["observation"] == observation_json(agent_in.observation)
        assert _observation_of(seat, seen_obs["observation"]) == agent_in.observation
        assert seen_obs["prompt"] == agent_in.text
        assert (seen_obs["retryOf"], seen_obs["problem"], seen_obs["hint"]) == (
            agent_in.retry_of,
            agent_in.problem,
            agent_in.hint,
        )
    # every seat's observation, each tick, is the one that seat was given
    everyone = {(g.seat, g.tick): g for g in runner_side["everyone"] if g.retry_of is None}
    for response in responses:
        for seat, seen_obs in response["observations"].items():
            agent_in = everyone[(seat, response["tick"])]
            assert seen_obs["observation"] == observation_json(agent_in.observation)
            assert seen_obs["prompt"] == agent_in.text
        if not response["over"]:
            shown = {seat for seat, tick in everyone if tick == response["tick"]}
            assert set(response["observations"]) == shown
    # the score after each tick, and the end
    key_count = played.lines[0]["config"]["keyCount"]
    for response in responses[1:]:
        if response["lastTick"] is not None and not response["over"]:
            assert response["score"] == _score_after(response["lastTick"], key_count)
    final = responses[-1]
    results = played.lines[-1]["results"]
    assert final["over"] is True
    assert final["results"] == results
    assert final["reason"] == results["reason"]
    assert list(final["scores"].values()) == results["scores"]
    assert final["waiting"] == []
    assert final["observations"] == {}


def _differential(base: str, seed: int) -> set[str]:
    plays = SEAT_SETS[seed % len(SEAT_SETS)]
    variant = GAME.variants[seed % 2]
    http_side = played_over_http(base, seed, variant, plays)
    assert_same_episode(http_side, played_by_the_runner(seed, variant, plays))
    return {
        turn["source"]
        for line in http_side["record"]
        if line["type"] == "tick"
        for turn in line["seats"].values()
    }


def test_episodes_over_http_are_the_runners_tick_for_tick(base: str) -> None:
    sources: set[str] = set()
    for seed in FAST_SEEDS:
        sources |= _differential(base, seed)
    # the replies exercised every way a turn can end
    assert {"python", "python_retry", "fallback_parse", "baseline"} <= sources, sources


def test_episodes_played_again_on_every_request_are_the_runners_too(forgetful: str) -> None:
    for seed in REPLAYED_SEEDS:
        _differential(forgetful, seed)


@pytest.mark.slow
def test_fifty_episodes_over_http_are_the_runners_tick_for_tick(base: str) -> None:
    for seed in SLOW_SEEDS:
        _differential(base, seed)


def test_the_record_the_api_hands_back_replays_clean(base: str, tmp_path: Path) -> None:
    episode = played_over_http(base, 3, "spring", ("keeper", "runner2"))
    path = tmp_path / "episode.jsonl"
    with RecordWriter(path) as writer:
        for line in episode["record"]:
            writer.write_doc(line)
    replayed = asyncio.run(replay(path))
    assert replayed.mismatch is None, replayed.mismatch
    header = episode["record"][0]
    agents = {s["seat"]: s["agent"] for s in header["seats"]}
    assert (agents["keeper"]["kind"], agents["keeper"]["name"]) == ("python", "step")
    assert (agents["runner1"]["kind"], agents["runner1"]["name"]) == ("baseline", "wallhug")
    assert header["config"]["tidePeriod"] == 5


# --- one retry, then the fallback ---


def _init(base: str, query: str) -> dict[str, Any]:
    reply = http("GET", f"{base}{ROOT}/init?{query}")
    assert reply.status == 200, reply.raw
    data: dict[str, Any] = reply.json()
    return data


def _act(base: str, token: str, action: Any) -> Reply:
    return _post(base, "action", {"stateToken": token, "action": action})


def test_a_reply_that_does_not_parse_is_sent_back_once_then_the_baseline_answers(
    base: str,
) -> None:
    start = _init(base, "seed=5&seats=keeper,runner1")
    assert start["waiting"] == ["keeper", "runner1"]
    # the keeper's reply does not parse: the same tick, the keeper alone waits, with a hint
    first = _act(base, start["stateToken"], {"keeper": "hold on", "runner1": {"move": "N"}})
    assert first.status == 200, first.raw
    retry = first.json()
    assert (retry["tick"], retry["waiting"], retry["lastTick"]) == (0, ["keeper"], None)
    seen = retry["observations"]["keeper"]
    assert seen["retryOf"] == "hold on"
    assert "Your reply could not be used" in seen["hint"]
    assert seen["problem"]
    # runner1 answered: it may not answer again on the keeper's retry
    again = _act(base, retry["stateToken"], {"keeper": "x", "runner1": "N"})
    assert (again.status, again.json()["error"]) == (400, "seat_not_waiting")
    # the retry fails too: the keeper's turn is the baseline's, tagged so
    fell = _act(base, retry["stateToken"], {"keeper": "still not json"}).json()
    assert fell["tick"] == 1
    turns = fell["lastTick"]["seats"]
    assert turns["keeper"]["source"] == "fallback_parse"
    assert [r["raw"] for r in turns["keeper"]["replies"]] == ["hold on", "still not json"]
    assert turns["runner1"]["source"] == "python"
    assert turns["runner2"]["source"] == "baseline"
    # a good retry is the seat's own decision
    bad = _act(base, fell["stateToken"], {"keeper": "?", "runner1": "{}"}).json()
    assert bad["waiting"] == ["keeper", "runner1"]
    good = _act(
        base, bad["stateToken"], {"keeper": {"transmit": True, "message": "Sprocket N"},
                                  "runner1": '{"move": "w"}'}
    ).json()  # fmt: skip
    turns = good["lastTick"]["seats"]
    assert (turns["keeper"]["source"], turns["runner1"]["source"]) == (
        "python_retry",
        "python_retry",
    )
    assert turns["keeper"]["decision"]["message"] == "Sprocket N"
    assert good["lastTick"]["state"]["transmission"] == "Sprocket N"


def test_an_earlier_token_plays_again_from_its_tick(base: str) -> None:
    start = _init(base, "seed=2&seats=runner3")
    one = _act(base, start["stateToken"], {"runner3": {"move": "N"}}).json()
    two = _act(base, start["stateToken"], {"runner3": {"move": "N"}}).json()
    # the same replies, the same episode (but for the wall clock): the server keeps nothing
    assert one["stateToken"] == two["stateToken"]
    assert without_wall_clock(one["lastTick"]) == without_wall_clock(two["lastTick"])
    assert one["observations"] == two["observations"]
    other = _act(base, start["stateToken"], {"runner3": '{"move": "WAIT"}'}).json()
    assert other["lastTick"]["seats"]["runner3"]["decision"]["move"] == "WAIT"
    assert one["lastTick"]["seats"]["runner3"]["decision"]["move"] == "N"


def test_a_finished_episode_takes_no_action_and_an_unfinished_one_has_no_record(
    base: str,
) -> None:
    start = _init(base, "seed=1&seats=runner1")
    early = _post(base, "record", {"stateToken": start["stateToken"]})
    assert (early.status, early.json()["error"]) == (400, "episode_not_over")
    done = played_over_http(base, 1, "default", ("runner1",))["responses"][-1]
    late = _act(base, done["stateToken"], {"runner1": "N"})
    assert (late.status, late.json()["error"]) == (400, "episode_over")


def test_the_front_page_names_lighthouses_routes(base: str) -> None:
    page = http("GET", base + "/").raw.decode()
    assert 'data-game="lighthouse"' in page
    for route in ("GET /api/games/lighthouse/init?seed=N", "POST /api/games/lighthouse/action",
                  "POST /api/games/lighthouse/record"):  # fmt: skip
        assert route in page


def test_a_lighthouse_episode_in_play_survives_a_restart_of_lighthouse_serve(
    tmp_path: Path,
) -> None:
    from tests.server.test_serve import _serve

    key_file, log = tmp_path / "keys" / "serve.key", tmp_path / "serve.log"
    with _serve(key_file, log) as served:
        start = _init(served, "seed=4&seats=runner1")
        one = _act(served, start["stateToken"], {"runner1": '{"move": "N"}'}).json()
    with _serve(key_file, log) as served:  # restarted: the episode goes on from its token
        reply = _act(served, one["stateToken"], {"runner1": '{"move": "N"}'})
        assert reply.status == 200, reply.raw
        assert reply.json()["tick"] == 2
    with _serve(tmp_path / "other.key", log) as served:  # another key: it cannot
        reply = _act(served, one["stateToken"], {"runner1": '{"move": "N"}'})
    assert reply.status == 400
    assert "its signature is not from this server's key" in reply.json()["message"]
    assert key_file.read_text().strip() not in log.read_text()
