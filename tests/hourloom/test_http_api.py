"""Hourloom's HTTP API (H28, H31, H32) over real HTTP: uvicorn on 127.0.0.1, urllib."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from baselines.hourloom import chamber_plan, planner
from harness.games.hourloom.api import HourloomApi
from harness.games.hourloom.grid import DIRECTIONS, Input
from harness.games.hourloom.response import init_json, result_json
from harness.games.hourloom.rng import MAX_SEED
from harness.games.hourloom.rules import legal_actions, new_game, refusal_of, step
from harness.games.hourloom.state import State, state_json
from harness.games.hourloom.validate import state_from_json
from harness.json_reply import MAX_JSON_TOKENS
from harness.scan import json_shape
from harness.server.app import MAX_BODY_BYTES, create_app
from tests.relayroam.live_server import Reply, http, running_server

INIT = "/api/games/hourloom/init"
ACTION = "/api/games/hourloom/action"
RESPONSE_KEYS = {"state", "observation", "legalActions", "score", "gameOver", "ok", "events"}
WAIT = {"type": "WAIT"}
DESCEND = {"type": "DESCEND"}
END_RUN = {"type": "END_RUN"}


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with running_server(b"hourloom-needs-no-key-but-relayroam-does") as url:
        yield url


def init(base: str, seed: int = 7) -> dict[str, Any]:
    reply = http("GET", f"{base}{INIT}?seed={seed}")
    assert reply.status == 200, reply.raw
    body: dict[str, Any] = reply.json()
    return body


def post(base: str, body: object) -> Reply:
    return http("POST", base + ACTION, json.dumps(body).encode())


def act(base: str, state: object, action: object) -> dict[str, Any]:
    reply = post(base, {"state": state, "action": action})
    assert reply.status == 200, reply.raw
    assert reply.headers["content-type"].startswith("application/json")
    assert reply.headers["cache-control"] == "no-store"
    body: dict[str, Any] = reply.json()
    assert RESPONSE_KEYS | {"message"} <= set(body) <= RESPONSE_KEYS | {"message", "reason"}
    return body


def assert_boundary_error(reply: Reply, error: str, status: int = 400) -> str:
    assert reply.status == status, reply.raw
    assert reply.headers["content-type"].startswith("application/json")
    body = reply.json()
    assert set(body) == {"error", "message"}
    assert body["error"] == error
    message: str = body["message"]
    assert len(message) > 10
    return message


def played(seed: int, actions: list[dict[str, str]]) -> State:
    state = new_game(seed)
    for action in actions:
        result = step(state, action)
        assert result.ok, result.message
        state = result.state
    return state


# init


def test_init_answers_with_h28s_fields_and_the_first_state(base: str) -> None:
    reply = http("GET", f"{base}{INIT}?seed=7")
    assert reply.status == 200
    assert reply.headers["cache-control"] == "no-store"
    body = reply.json()
    assert set(body) == RESPONSE_KEYS | {"message"}
    assert body == init_json(new_game(7))
    assert (body["ok"], body["gameOver"], body["score"], body["events"]) == (True, False, 0, [])
    assert body["state"]["rngState"] != f"{7:016x}"  # chamber 1 drawn from the seed
    assert state_from_json(body["state"]) == new_game(7)
    assert body["legalActions"][-2:] == [WAIT, END_RUN]


@pytest.mark.parametrize("seed", [0, 1, 123456789, MAX_SEED])
def test_init_accepts_every_seed_in_range(base: str, seed: int) -> None:
    assert state_from_json(init(base, seed)["state"]) == new_game(seed)


@pytest.mark.parametrize(
    "query",
    ["", "?seed=", "?seed=-1", f"?seed={MAX_SEED + 1}", "?seed=abc", "?seed=1.5", "?seed=0x10",
     "?seed=%2B7", "?seed=99999999999999999999", "?seed=1&seed=2", "?Seed=7"],
)  # fmt: skip
def test_a_bad_or_missing_seed_is_a_400(base: str, query: str) -> None:
    message = assert_boundary_error(http("GET", f"{base}{INIT}{query}"), "invalid_seed")
    assert str(MAX_SEED) in message or "more than once" in message


# A whole chamber, its seal and a DESCEND


def test_a_whole_chamber_by_posts_then_its_seal_and_a_descend(base: str) -> None:
    sent = init(base, 7)["state"]
    state = new_game(7)
    plan = chamber_plan(7, 1).plan
    kinds: list[str] = []
    actions = 0
    while state.phase == "lap":
        action = planner(state)
        reply = act(base, sent, action)
        expected = step(state, action)
        # the answer is the rules' own result, state and observation included
        assert reply == result_json(expected)
        assert reply["ok"] is True
        assert "reason" not in reply
        state, sent = expected.state, reply["state"]
        kinds += [e["type"] for e in reply["events"]]
        actions += 1
    assert actions == sum(len(lap) for lap in plan)  # PLANNER played its plan, no more
    assert kinds.count("lapCompleted") == state.chamber.laps == 3
    assert "gateCrossed" in kinds  # a later lap passed the gate its echo held open
    assert kinds[-1] == "chamberSealed"
    assert (reply["state"]["phase"], reply["state"]["turn"]) == ("sealed", 0)
    assert reply["legalActions"] == [DESCEND, END_RUN]
    assert reply["gameOver"] is False
    sealed_score = reply["score"]
    assert sealed_score > 150

    deeper = act(base, sent, DESCEND)
    assert deeper == result_json(step(state, DESCEND))
    assert [e["type"] for e in deeper["events"]] == ["chamberStarted"]
    assert deeper["observation"]["chamber"] == 2
    assert deeper["observation"]["multiplierPct"] == 125
    assert (deeper["state"]["phase"], deeper["state"]["lap"], deeper["score"]) == (
        "lap",
        1,
        sealed_score,
    )
    # the seed fixes the chamber (H5): the one PLANNER was generated around
    assert state_from_json(deeper["state"]).chamber == chamber_plan(7, 2).chamber

    ended = act(base, deeper["state"], END_RUN)
    assert (ended["ok"], ended["gameOver"], ended["legalActions"]) == (True, True, [])
    assert ended["state"]["endReason"] == "end_run"
    after = act(base, ended["state"], WAIT)
    assert (after["ok"], after["reason"]) == (False, "run_ended")


def test_the_server_keeps_nothing_a_state_can_be_sent_twice(base: str) -> None:
    sent = init(base, 7)["state"]
    first = act(base, sent, planner(new_game(7)))
    assert act(base, sent, planner(new_game(7))) == first
    assert act(base, sent, WAIT)["state"]["log"] == ["WAIT"]


def test_a_state_built_elsewhere_is_played_identically(base: str) -> None:
    # H7's shape is a contract, not its key order: the same state with every object's
    # keys reversed (as another implementation might write it) plays the same.
    state = played(7, [planner(new_game(7))])

    def reversed_keys(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: reversed_keys(value[k]) for k in reversed(list(value))}
        if isinstance(value, list):
            return [reversed_keys(v) for v in value]
        return value

    canonical = act(base, state_json(state), WAIT)
    assert act(base, reversed_keys(state_json(state)), WAIT) == canonical


def test_extra_keys_in_an_action_are_ignored(base: str) -> None:
    sent = init(base, 7)["state"]
    reply = act(base, sent, {"type": "WAIT", "dir": "N", "why": "to let an echo pass"})
    assert reply == act(base, sent, WAIT)
    assert reply["ok"] is True


@pytest.mark.parametrize("seed", [3, 7])
def test_the_longest_state_of_a_deep_chamber_fits_the_servers_bounds(base: str, seed: int) -> None:
    # Chamber 15 (9 x 9, 6 laps, every value at its ceiling), lap 6 one turn short of its
    # budget, every finished log as long as its budget allows: the longest state this
    # chamber has. All WAITs, so every body stands on its alcove and the state is
    # consistent. It is far inside the server's body and token bounds.
    chamber = chamber_plan(seed, 15).chamber
    budgets = chamber.lap_budgets
    turn = budgets[5] - 1
    wait: tuple[Input, ...] = ("WAIT",)
    state = replace(
        new_game(seed),
        chamber=chamber,
        lap=6,
        turn=turn,
        sand=1,
        player=chamber.alcoves[5],
        sparks_left=chamber.sparks,
        logs=tuple(wait * b for b in budgets[:5]),
        log=wait * turn,
        echoes=tuple(
            a if turn < b else None for a, b in zip(chamber.alcoves[:5], budgets[:5], strict=True)
        ),
    )
    assert state_from_json(state_json(state)) == state
    raw = json.dumps({"state": state_json(state), "action": WAIT}).encode()
    tokens = json_shape(raw.decode(), max_depth=64).tokens
    assert len(raw) * 4 < MAX_BODY_BYTES
    assert tokens * 3 < MAX_JSON_TOKENS
    reply = http("POST", base + ACTION, raw)
    assert reply.status == 200, reply.raw
    assert reply.json() == result_json(step(state, WAIT))


# Rules refusals: HTTP 200, ok false, the very state sent


def refusal_case(reason: str) -> tuple[State, dict[str, str]]:
    """The first state along PLANNER's run of seed 7 where a MOVE is refused for ``reason``."""
    state = new_game(7)
    for _ in range(400):
        if state.phase == "lap":
            for d in DIRECTIONS:
                found = refusal_of(state, {"type": "MOVE", "dir": d})
                if found is not None and found[0] == reason:
                    return state, {"type": "MOVE", "dir": d}
        state = step(state, planner(state)).state
    raise AssertionError(f"no {reason} along the planner's run")


def other_cases() -> list[tuple[str, State, object]]:
    sealed = played(7, [planner(s) for s in _plan_states(7)])
    assert sealed.phase == "sealed"
    over = step(new_game(7), END_RUN).state
    return [
        ("bad_direction", new_game(7), {"type": "MOVE", "dir": "Q"}),
        ("bad_direction", new_game(7), {"type": "MOVE", "dir": "north"}),
        ("bad_direction", new_game(7), {"type": "MOVE", "dir": "n"}),
        ("bad_direction", new_game(7), {"type": "MOVE", "dir": ""}),
        ("chamber_not_sealed", new_game(7), DESCEND),
        ("lap_not_running", sealed, WAIT),
        ("lap_not_running", sealed, {"type": "MOVE", "dir": "N"}),
        ("run_ended", over, WAIT),
        ("run_ended", over, END_RUN),
        ("run_ended", over, {"type": "MOVE", "dir": "Q"}),
    ]


def _plan_states(seed: int) -> list[State]:
    """The states PLANNER acts in through chamber 1 of ``seed``."""
    states = [new_game(seed)]
    while states[-1].phase == "lap":
        states.append(step(states[-1], planner(states[-1])).state)
    return states[:-1]


@pytest.mark.parametrize("reason", ["edge_of_chamber", "wall", "echo_in_the_way", "gate_shut"])
def test_a_blocked_move_is_200_ok_false_with_its_reason_and_the_very_state(
    base: str, reason: str
) -> None:
    state, action = refusal_case(reason)
    check_refusal(base, state, action, reason)


@pytest.mark.parametrize(
    ("reason", "state", "action"), other_cases(), ids=[f"{c[0]}-{c[2]}" for c in other_cases()]
)
def test_every_other_refusal_is_200_ok_false_too(
    base: str, reason: str, state: State, action: object
) -> None:
    check_refusal(base, state, action, reason)


def check_refusal(base: str, state: State, action: object, reason: str) -> None:
    sent: Any = state_json(state)
    sent["chamber"] = dict(reversed(list(sent["chamber"].items())))  # a key order of its own
    reply = act(base, sent, action)
    assert (reply["ok"], reply["reason"], reply["events"]) == (False, reason, [])
    assert reply["state"] == sent
    assert list(reply["state"]["chamber"]) == list(sent["chamber"])  # the very object (H6)
    assert reply["legalActions"] == legal_actions(state)
    assert reply["message"].count("Legal now") == (0 if state.phase == "over" else 1)
    assert {k: v for k, v in reply.items() if k != "state"} == {
        k: v for k, v in result_json(step(state, action)).items() if k != "state"
    }


def test_a_wall_refusal_says_which_tile_and_teaches_the_fix(base: str) -> None:
    state, action = refusal_case("wall")
    reply = act(base, state_json(state), action)
    assert "is a wall" in reply["message"]
    assert "no sand, no turn" in reply["message"]
    assert '"type":"WAIT"' in reply["message"]


# The route boundary: HTTP 400 {error, message}


def envelope_cases() -> list[tuple[str, bytes, str]]:
    state: Any = state_json(new_game(7))

    def body(value: object) -> bytes:
        return json.dumps(value).encode()

    def with_state(**changes: Any) -> bytes:
        return body({"state": {**state, **changes}, "action": WAIT})

    def with_action(action: object) -> bytes:
        return body({"state": state, "action": action})

    chamber = state["chamber"]
    text = json.dumps(state)
    return [
        # not JSON
        ("not JSON", b"{", "invalid_json"),
        ("empty body", b"", "invalid_json"),
        ("not UTF-8", b'{"state": "\xff"}', "invalid_json"),
        ("NaN", b'{"state": ' + text.encode() + b', "action": NaN}', "invalid_json"),
        ("duplicate key", b'{"state": {}, "action": {}, "action": {}}', "invalid_json"),
        ("nested too deeply", b'{"action": ' + b"[" * 5000 + b"]" * 5000 + b"}", "invalid_json"),
        ("trailing text", body({"state": state, "action": WAIT}) + b" x", "invalid_json"),
        # not an object, missing or extra keys
        ("JSON array", body([state, WAIT]), "invalid_body"),
        ("JSON string", body("hello"), "invalid_body"),
        ("JSON null", b"null", "invalid_body"),
        ("JSON number", b"7", "invalid_body"),
        ("missing state", body({"action": WAIT}), "invalid_body"),
        ("missing action", body({"state": state}), "invalid_body"),
        ("empty object", body({}), "invalid_body"),
        ("extra key", body({"state": state, "action": WAIT, "seed": 7}), "invalid_body"),
        ("stateToken for state", body({"stateToken": state, "action": WAIT}), "invalid_body"),
        ("action at top level", body({"state": state, "type": "WAIT"}), "invalid_body"),
        # bad action type (H31)
        ("action null", with_action(None), "invalid_action"),
        ("action a string", with_action("WAIT"), "invalid_action"),
        ("action an array", with_action([WAIT]), "invalid_action"),
        ("action without type", with_action({}), "invalid_action"),
        ("unknown type", with_action({"type": "JUMP"}), "invalid_action"),
        ("lowercase type", with_action({"type": "wait"}), "invalid_action"),
        ("type a number", with_action({"type": 7}), "invalid_action"),
        ("type an object", with_action({"type": {"type": "WAIT"}}), "invalid_action"),
        ("MOVE without dir", with_action({"type": "MOVE"}), "invalid_action"),
        ("MOVE with a number dir", with_action({"type": "MOVE", "dir": 1}), "invalid_action"),
        ("MOVE with a null dir", with_action({"type": "MOVE", "dir": None}), "invalid_action"),
        # a state failing the structural check
        ("state null", body({"state": None, "action": WAIT}), "invalid_state"),
        ("state a token", body({"state": "rr1.abc.def", "action": WAIT}), "invalid_state"),
        ("state an array", body({"state": [state], "action": WAIT}), "invalid_state"),
        ("state empty", body({"state": {}, "action": WAIT}), "invalid_state"),
        ("state extra field", with_state(signature="x"), "invalid_state"),
        ("wrong game", with_state(game="relayroam"), "invalid_state"),
        ("wrong version", with_state(version=2), "invalid_state"),
        ("rngState a number", with_state(rngState=7), "invalid_state"),
        ("rngState uppercase", with_state(rngState="ABCDEF0123456789"), "invalid_state"),
        ("seed past 2^53", with_state(seed=2**53), "invalid_state"),
        ("player off the grid", with_state(player=49), "invalid_state"),
        ("player true", with_state(player=True), "invalid_state"),
        ("player on a wall", with_state(player=chamber["walls"][0]), "invalid_state"),
        ("unknown phase", with_state(phase="won"), "invalid_state"),
        ("turn without a log", with_state(turn=1, sand=state["sand"] - 1), "invalid_state"),
        ("sand over the budget", with_state(sand=state["sand"] + 1), "invalid_state"),
        ("a log input of its own", with_state(turn=1, sand=1, log=["NORTH"]), "invalid_state"),
        ("over without a reason", with_state(phase="over"), "invalid_state"),
        ("chamber missing", with_state(chamber=None), "invalid_state"),
        ("chamber 20 wide", with_state(chamber={**chamber, "width": 20}), "invalid_state"),
        ("exit on a wall", with_state(chamber={**chamber, "exit": chamber["walls"][0]}), "invalid_state"),
        ("a gate without plates", with_state(chamber={**chamber, "gates": [{"tile": 12, "plates": []}]}), "invalid_state"),
        ("budgets short", with_state(chamber={**chamber, "lapBudgets": [12]}), "invalid_state"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("what", "raw", "error"), envelope_cases(), ids=[c[0] for c in envelope_cases()]
)
def test_a_malformed_envelope_is_a_400(base: str, what: str, raw: bytes, error: str) -> None:
    assert_boundary_error(http("POST", base + ACTION, raw), error)


def test_the_boundary_messages_name_what_is_wrong(base: str) -> None:
    state: Any = state_json(new_game(7))
    cases = {
        json.dumps({"state": {**state, "player": 99}, "action": WAIT}): "state.player: must be 0..48",
        json.dumps({"state": {**state, "rngState": "x"}, "action": WAIT}): "state.rngState",
        json.dumps({"state": state, "action": {"type": "JUMP"}}): '"type" is "JUMP"',
        json.dumps({"state": state, "action": {"type": "MOVE"}}): 'a MOVE needs "dir"',
        json.dumps({"state": state, "action": WAIT, "x": 1}): 'unknown "x"',
        json.dumps({"state": state}): 'missing "action"',
    }  # fmt: skip
    for raw, phrase in cases.items():
        reply = http("POST", base + ACTION, raw.encode())
        assert phrase in reply.json()["message"], reply.raw


def test_a_huge_body_is_refused_unread(base: str) -> None:
    state: Any = state_json(new_game(7))
    raw = json.dumps({"state": state, "action": {"type": "WAIT", "pad": "x" * MAX_BODY_BYTES}})
    message = assert_boundary_error(
        http("POST", base + ACTION, raw.encode()), "body_too_large", 413
    )
    assert '{"state": ..., "action": ...}' in message


def test_wrong_method_and_unknown_route_answer_json(base: str) -> None:
    assert_boundary_error(http("GET", base + ACTION), "method_not_allowed", 405)
    assert_boundary_error(http("PUT", base + ACTION, b"{}"), "method_not_allowed", 405)
    assert_boundary_error(http("POST", base + INIT, b"{}"), "method_not_allowed", 405)
    for path in ("/api/games/hourloom/undo", "/api/games/hourloom/", "/api/games/hourloom"):
        assert_boundary_error(http("GET", base + path), "not_found", 404)
    assert_boundary_error(http("GET", base + "/hourloom/page.html"), "not_found", 404)


# The page and the server's wiring


def test_the_page_is_served_self_contained(base: str) -> None:
    reply = http("GET", base + "/hourloom/")
    assert reply.status == 200
    assert reply.headers["content-type"].startswith("text/html")
    csp = reply.headers["content-security-policy"]
    assert "default-src 'none'" in csp
    assert "connect-src 'self'" in csp
    html = reply.raw.decode()
    assert html == HourloomApi().page()
    for element_id in ("grid", "sand", "lap-budget", "score", "multiplier", "echoes", "refusal"):
        assert f'id="{element_id}"' in html
    for button in ("north", "east", "south", "west", "wait", "descend", "end-run"):
        assert f'<button id="{button}"' in html
    for external in ("http://", "https://", "<script src", '<link rel="stylesheet"'):
        assert external not in html
    redirect = http("GET", base + "/hourloom?seed=3")
    assert (redirect.status, redirect.headers["location"]) == (307, "/hourloom/?seed=3")


def test_the_registry_serves_relayroam_and_hourloom_each_with_a_page() -> None:
    from harness.registry import http_apis

    apis = http_apis()
    assert list(apis) == ["relayroam", "hourloom"]  # Lighthouse: harness.server.stepped
    assert isinstance(apis["hourloom"], HourloomApi)
    assert (apis["relayroam"].state_key, apis["hourloom"].state_key) == ("stateToken", "state")
    assert all(api.page() is not None for api in apis.values())


def test_an_app_of_hourloom_alone_needs_no_key() -> None:
    from starlette.applications import Starlette

    app = create_app(apis={"hourloom": HourloomApi()})
    assert isinstance(app, Starlette)
    paths = {getattr(route, "path", "") for route in app.routes}
    assert paths == {"/", INIT, ACTION, "/hourloom/", "/hourloom"}  # "/": the games served


def test_lighthouse_serve_names_every_page_and_serves_hourloom() -> None:
    import socket
    import subprocess
    import sys

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        lines: list[str] = []
        # the pages are named once the port is bound (connections wait in its backlog
        # until uvicorn takes them), then how to stop
        while not any("Ctrl-C stops the server" in line for line in lines) and len(lines) < 50:
            lines.append(proc.stderr.readline())
        assert f"Relayroam: http://127.0.0.1:{port}/relayroam/\n" in lines
        assert f"Hourloom: http://127.0.0.1:{port}/hourloom/\n" in lines
        assert f"Lighthouse: http://127.0.0.1:{port}/lighthouse/\n" in lines  # a person's page
        body = init(f"http://127.0.0.1:{port}", 3)
        assert state_from_json(body["state"]) == new_game(3)
        assert http("GET", f"http://127.0.0.1:{port}/hourloom/").status == 200
    finally:
        proc.terminate()
        proc.wait(timeout=10)
