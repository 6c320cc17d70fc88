"""Relayroam's HTTP API (RR17, RR18) over real HTTP: uvicorn on 127.0.0.1, urllib."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from harness.games.relayroam.observe import observation_json, observe
from harness.games.relayroam.rng import MAX_SEED
from harness.games.relayroam.rules import legal_actions, new_game, result_json, step
from harness.games.relayroam.solver import solve_chamber, solve_seeded_chamber
from harness.games.relayroam.state import chamber_setup
from harness.games.relayroam.token import decode_token, encode_token
from tests.relayroam.live_server import Reply, http, running_server

KEY = b"http-api-test-key-never-shown-0123456789"
OTHER_KEY = b"some-other-server-key-0123456789abcdef"
INIT = "/api/games/relayroam/init"
ACTION = "/api/games/relayroam/action"
RESULT_KEYS = {
    "ok",
    "reason",
    "message",
    "events",
    "legalActions",
    "score",
    "phase",
    "endReason",
    "charge",
    "turn",
}
WAIT = {"type": "wait"}
UP = {"type": "move", "direction": "up"}
RIGHT = {"type": "move", "direction": "right"}


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with running_server(KEY) as url:
        yield url


def init(base: str, seed: int = 7) -> dict[str, Any]:
    reply = http("GET", f"{base}{INIT}?seed={seed}")
    assert reply.status == 200, reply.raw
    body: dict[str, Any] = reply.json()
    return body


def post(base: str, body: object) -> Reply:
    return http("POST", base + ACTION, json.dumps(body).encode())


def act(base: str, token: str, action: object) -> dict[str, Any]:
    reply = post(base, {"stateToken": token, "action": action})
    assert reply.status == 200, reply.raw
    assert reply.headers["content-type"].startswith("application/json")
    body: dict[str, Any] = reply.json()
    assert set(body) == {"stateToken", "observation"} | RESULT_KEYS
    return body


def play(base: str, token: str, actions: list[Any]) -> str:
    for action in actions:
        body = act(base, token, action)
        assert body["ok"], body
        token = body["stateToken"]
    return token


def assert_boundary_error(reply: Reply, error: str, status: int = 400) -> str:
    assert reply.status == status, reply.raw
    assert reply.headers["content-type"].startswith("application/json")
    body = reply.json()
    assert set(body) == {"error", "message"}
    assert body["error"] == error
    message: str = body["message"]
    assert isinstance(message, str)
    assert len(message) > 10
    for secret in (KEY.decode(), KEY.hex(), OTHER_KEY.decode()):
        assert secret not in message
    return message


# init


def test_init_returns_token_observation_and_rr18_fields(base: str) -> None:
    reply = http("GET", f"{base}{INIT}?seed=7")
    assert reply.status == 200
    assert reply.headers["content-type"].startswith("application/json")
    assert reply.headers["cache-control"] == "no-store"
    body = reply.json()
    assert set(body) == {"stateToken", "observation", "ok", "legalActions", "score", "phase"}
    state = new_game(7)
    assert body["ok"] is True
    assert body["observation"] == observation_json(observe(state))
    assert body["legalActions"] == [dict(a) for a in legal_actions(state)]
    assert (body["score"], body["phase"]) == (0, "playing")
    assert body["stateToken"] == encode_token(state, KEY)
    assert decode_token(body["stateToken"], KEY) == state
    assert body["observation"]["grid"] == ["H.....R", ".##.##1", "@B#.#HX", ".##.##.", "R..B..."]


@pytest.mark.parametrize("seed", [0, 1, 123456789, MAX_SEED])
def test_init_accepts_every_seed_in_range(base: str, seed: int) -> None:
    body = init(base, seed)
    assert decode_token(body["stateToken"], KEY) == new_game(seed)


@pytest.mark.parametrize(
    "query",
    [
        "",
        "?seed=",
        "?seed=-1",
        f"?seed={2**53}",
        f"?seed={MAX_SEED + 1}",
        "?seed=abc",
        "?seed=1.5",
        "?seed=1e3",
        "?seed=%2B7",
        "?seed=%207",
        "?seed=0x10",
        "?seed=99999999999999999999",
        "?seed=1&seed=2",
        "?Seed=7",
    ],
)
def test_a_bad_or_missing_seed_is_a_400(base: str, query: str) -> None:
    message = assert_boundary_error(http("GET", f"{base}{INIT}{query}"), "invalid_seed")
    assert "seed" in message


# Playing a chamber


def test_a_full_chamber_over_http_then_next_and_bank(base: str) -> None:
    body = init(base, 7)
    token: str = body["stateToken"]
    state = new_game(7)
    optimum = solve_chamber(1, False, chamber_setup(7, 1).vent_offsets)
    assert optimum.score == 544
    for action in optimum.actions:
        reply = act(base, token, action)
        expected = step(state, action)
        state = expected.state
        # the HTTP answer is the rules' own result, its observation and its token
        assert {k: reply[k] for k in RESULT_KEYS} == result_json(expected)
        assert reply["observation"] == observation_json(observe(state))
        assert reply["stateToken"] == encode_token(state, KEY)
        assert reply["stateToken"] != token
        assert reply["ok"] is True
        assert reply["reason"] is None
        token = reply["stateToken"]
    assert reply["phase"] == "chamber-clear"
    assert reply["score"] == 544
    assert reply["legalActions"] == [{"type": "next"}, {"type": "bank"}]
    assert [e["type"] for e in reply["events"]][-1] == "cleared"
    assert reply["observation"]["clearedChamberCount"] == 1

    nxt = act(base, token, {"type": "next"})
    assert nxt["ok"] is True
    assert nxt["events"][0]["type"] == "chamberStarted"
    assert nxt["observation"]["chamber"] == 2
    assert nxt["observation"]["layout"] == "B"
    assert (nxt["phase"], nxt["charge"], nxt["turn"], nxt["score"]) == ("playing", 28, 0, 544)

    banked = act(base, nxt["stateToken"], {"type": "bank"})
    assert banked["ok"] is True
    assert (banked["phase"], banked["endReason"], banked["score"]) == ("ended", "banked", 544)
    assert banked["legalActions"] == []
    assert banked["events"] == [{"type": "banked", "score": 544}]
    assert decode_token(banked["stateToken"], KEY).phase == "ended"

    after = act(base, banked["stateToken"], WAIT)
    assert (after["ok"], after["reason"]) == (False, "game_ended")
    assert after["stateToken"] == banked["stateToken"]


def test_three_chambers_at_their_optimum_over_http(base: str) -> None:
    token = init(base, 11)["stateToken"]
    total = 0
    for chamber in (1, 2, 3):
        if chamber > 1:
            token = play(base, token, [{"type": "next"}])
        optimum = solve_seeded_chamber(11, chamber)
        token = play(base, token, list(optimum.actions))
        total += optimum.score
        assert decode_token(token, KEY).score == total
    assert total == 544 + 508 + 452


def test_waiting_out_the_charge_depletes_the_run(base: str) -> None:
    token = init(base, 7)["stateToken"]
    token = play(base, token, [WAIT] * 27)
    last = act(base, token, WAIT)
    assert (last["ok"], last["phase"], last["endReason"], last["charge"]) == (
        True,
        "ended",
        "depleted",
        0,
    )
    assert last["events"] == [{"type": "depleted", "chamber": 1}]


def test_the_server_is_stateless_a_token_can_be_replayed(base: str) -> None:
    token = init(base, 7)["stateToken"]
    first = act(base, token, UP)
    second = act(base, token, UP)
    assert first == second
    # a branch from the same token is just as valid
    other = act(base, token, RIGHT)
    assert other["ok"]
    assert other["observation"]["player"] == {"x": 1, "y": 2}


def test_an_old_token_is_the_intended_undo_and_draws_nothing_new(base: str) -> None:
    # Decision (docs/relayroam.md, "Old tokens are an undo"): the server keeps no
    # record of spent tokens, so any token it issued still plays. An undo changes no
    # outcome a client could not reach by replaying from init: chamber 4+ draws come
    # from the seed and rngCursor inside the token, so undoing a `next` and doing it
    # again gives the same chamber, not a new roll.
    nxt = {"type": "next"}
    token = init(base, 11)["stateToken"]
    for chamber in (1, 2, 3):
        if chamber > 1:
            token = play(base, token, [nxt])
        token = play(base, token, list(solve_seeded_chamber(11, chamber).actions))
    saved = token  # chamber 3 cleared
    first = act(base, saved, nxt)
    assert first["observation"]["chamber"] == 4
    later = play(base, first["stateToken"], list(solve_seeded_chamber(11, 4).actions))
    assert decode_token(later, KEY).score > first["score"]

    again = act(base, saved, nxt)  # the undo: back to before chamber 4
    assert again == first
    setup = chamber_setup(11, 4)
    assert again["observation"]["reflected"] == setup.reflected
    assert [v["offset"] for v in again["observation"]["vents"]] == list(setup.vent_offsets)
    # and the same state as a fresh game played to the same point
    fresh = new_game(11)
    for chamber in (1, 2, 3):
        actions = ([nxt] if chamber > 1 else []) + list(solve_seeded_chamber(11, chamber).actions)
        for action in actions:
            fresh = step(fresh, action).state
    assert decode_token(saved, KEY) == fresh


def test_a_token_from_another_server_is_refused(base: str) -> None:
    with running_server(OTHER_KEY) as other:
        token = init(other, 7)["stateToken"]
        assert act(other, token, WAIT)["ok"]
    reply = post(base, {"stateToken": token, "action": WAIT})
    assert "signature" in assert_boundary_error(reply, "invalid_state_token")


def test_the_key_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    env_key = bytes(range(100, 132))
    monkeypatch.setenv("RELAYROAM_TOKEN_KEY", env_key.hex())
    with running_server(None) as url:
        token = init(url, 7)["stateToken"]
    assert decode_token(token, env_key) == new_game(7)


def test_serve_configures_uvicorn_with_the_address_and_limits() -> None:
    from starlette.applications import Starlette

    from harness.server.limits import ServerLimits
    from harness.server.protocol import HeaderDeadlineProtocol
    from harness.server.serving import server_config

    default = server_config()
    assert (default.host, default.port) == ("127.0.0.1", 8000)
    assert (default.limit_concurrency, default.timeout_keep_alive) == (100, 5.0)
    limits = ServerLimits(
        header_timeout=2.5, body_timeout=3.0, keep_alive_timeout=4.0, max_connections=7
    )
    config = server_config("0.0.0.0", 9123, limits)
    assert (config.host, config.port) == ("0.0.0.0", 9123)
    assert (config.limit_concurrency, config.timeout_keep_alive) == (7, 4.0)
    assert isinstance(config.app, Starlette)
    protocol = config.http
    assert isinstance(protocol, type)
    assert issubclass(protocol, HeaderDeadlineProtocol)
    assert protocol.header_timeout == 2.5
    assert "harness.server" in config.log_config["loggers"]  # type: ignore[index]


@pytest.mark.parametrize(
    "bad",
    [
        {"header_timeout": 0},
        {"body_timeout": -1.0},
        {"keep_alive_timeout": float("nan")},
        {"body_timeout": float("inf")},
        {"max_connections": 0},
        {"max_connections": True},
        {"max_connections": 2.0},
    ],
)
def test_server_limits_refuse_a_deadline_or_cap_that_is_not_one(bad: dict[str, Any]) -> None:
    from harness.server.limits import ServerLimits

    with pytest.raises(ValueError, match=next(iter(bad))):
        ServerLimits(**bad)


# Rules refusals: HTTP 200, ok false, the token sent back unchanged


CLEAR_1 = list(solve_chamber(1, False, (0,)).actions)


@pytest.mark.parametrize(
    ("before", "action", "reason"),
    [
        ([UP], RIGHT, "wall"),
        ([], {"type": "move", "direction": "left"}, "off_grid"),
        ([], {"type": "move", "direction": "north"}, "unknown_direction"),
        ([], {"type": "move", "direction": "UP"}, "unknown_direction"),
        ([], None, "malformed_action"),
        ([], "wait", "malformed_action"),
        ([], [WAIT], "malformed_action"),
        ([], {}, "malformed_action"),
        ([], {"type": "jump"}, "malformed_action"),
        ([], {"type": "move"}, "malformed_action"),
        ([], {"type": "move", "direction": 1}, "malformed_action"),
        ([], {"type": "wait", "direction": "up"}, "unknown_field"),
        ([], {"type": "wait", "stateToken": "x"}, "unknown_field"),
        ([], {"type": "next"}, "wrong_phase"),
        (CLEAR_1, WAIT, "wrong_phase"),
        (CLEAR_1, UP, "wrong_phase"),
        ([{"type": "bank"}], WAIT, "game_ended"),
        ([{"type": "bank"}], {"type": "bank"}, "game_ended"),
    ],
)
def test_a_rules_refusal_is_200_with_a_teaching_reason_and_the_same_token(
    base: str, before: list[Any], action: object, reason: str
) -> None:
    token = play(base, init(base, 7)["stateToken"], before)
    state = decode_token(token, KEY)
    reply = act(base, token, action)
    assert reply["ok"] is False
    assert reply["reason"] == reason
    assert isinstance(reply["message"], str)
    assert len(reply["message"]) > 20
    assert reply["events"] == []
    assert reply["stateToken"] == token  # the very string sent
    assert reply["legalActions"] == [dict(a) for a in legal_actions(state)]
    assert reply["observation"] == observation_json(observe(state))
    assert (reply["score"], reply["phase"], reply["charge"], reply["turn"]) == (
        state.score,
        state.phase,
        state.charge,
        state.turn,
    )
    assert {k: reply[k] for k in RESULT_KEYS} == result_json(step(state, action))


def test_a_wall_refusal_teaches_the_fix(base: str) -> None:
    token = play(base, init(base, 7)["stateToken"], [UP])
    reply = act(base, token, RIGHT)
    assert reply["reason"] == "wall"
    assert "x=1, y=1" in reply["message"]
    assert "is a wall" in reply["message"]
    assert "Legal now:" in reply["message"]


# The route boundary: HTTP 400 {error, message}


def envelope_cases() -> list[tuple[str, bytes, str]]:
    state = new_game(7)
    token = encode_token(state, KEY)
    i = 20
    flipped = token[:i] + ("A" if token[i] != "A" else "B") + token[i + 1 :]
    forged = encode_token(replace(state, seed=8), OTHER_KEY)

    def body(value: object) -> bytes:
        return json.dumps(value).encode()

    return [
        ("not JSON", b"{", "invalid_json"),
        ("empty body", b"", "invalid_json"),
        ("not UTF-8", b'{"stateToken": "\xff"}', "invalid_json"),
        ("NaN", b'{"stateToken": "' + token.encode() + b'", "action": NaN}', "invalid_json"),
        (
            "duplicate key",
            b'{"stateToken": "' + token.encode() + b'", "action": {}, "action": {}}',
            "invalid_json",
        ),
        ("nested too deeply", b'{"action": ' + b"[" * 5000 + b"]" * 5000 + b"}", "invalid_json"),
        ("JSON array", body([token, WAIT]), "invalid_body"),
        (
            "JSON array of the envelope",
            body([{"stateToken": token, "action": WAIT}]),
            "invalid_body",
        ),
        ("JSON string", body("hello"), "invalid_body"),
        ("JSON null", b"null", "invalid_body"),
        ("JSON number", b"7", "invalid_body"),
        ("missing stateToken", body({"action": WAIT}), "invalid_body"),
        ("missing action", body({"stateToken": token}), "invalid_body"),
        ("empty object", body({}), "invalid_body"),
        ("extra key", body({"stateToken": token, "action": WAIT, "seed": 7}), "invalid_body"),
        ("action fields at top level", body({"stateToken": token, "type": "wait"}), "invalid_body"),
        ("wrong case key", body({"statetoken": token, "action": WAIT}), "invalid_body"),
        ("bad token", body({"stateToken": "garbage", "action": WAIT}), "invalid_state_token"),
        ("empty token", body({"stateToken": "", "action": WAIT}), "invalid_state_token"),
        ("null token", body({"stateToken": None, "action": WAIT}), "invalid_state_token"),
        ("number token", body({"stateToken": 7, "action": WAIT}), "invalid_state_token"),
        ("flipped token", body({"stateToken": flipped, "action": WAIT}), "invalid_state_token"),
        ("forged token", body({"stateToken": forged, "action": WAIT}), "invalid_state_token"),
        (
            "wrong prefix",
            body({"stateToken": "rr2" + token[3:], "action": WAIT}),
            "invalid_state_token",
        ),
    ]


@pytest.mark.parametrize(
    ("what", "raw", "error"), envelope_cases(), ids=[c[0] for c in envelope_cases()]
)
def test_a_malformed_envelope_is_a_400(base: str, what: str, raw: bytes, error: str) -> None:
    assert_boundary_error(http("POST", base + ACTION, raw), error)


def test_every_one_character_change_of_a_token_is_a_400(base: str) -> None:
    token = play(base, init(base, 7)["stateToken"], [UP, UP])
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    for i in range(0, len(token), 7):
        char = token[i]
        new = alphabet[(alphabet.find(char) + 1) % 64]
        changed = token[:i] + new + token[i + 1 :]
        reply = post(base, {"stateToken": changed, "action": WAIT})
        assert_boundary_error(reply, "invalid_state_token")


def test_the_token_error_says_which_check_failed(base: str) -> None:
    token = init(base, 7)["stateToken"]
    cases = {
        "rr1.abc": "3 non-empty",
        "rr2" + token[3:]: "'rr1'",
        "rr1.+" + token[4:]: "base64url",
        encode_token(new_game(7), OTHER_KEY): "The server's key has changed",
    }
    for bad, phrase in cases.items():
        message = assert_boundary_error(
            post(base, {"stateToken": bad, "action": WAIT}), "invalid_state_token"
        )
        assert message.startswith("invalid state token: ")
        assert phrase in message


def test_a_huge_body_is_refused_unread(base: str) -> None:
    token = init(base, 7)["stateToken"]
    raw = json.dumps({"stateToken": token, "action": {"type": "wait", "pad": "x" * 100_000}})
    assert_boundary_error(http("POST", base + ACTION, raw.encode()), "body_too_large", 413)


def test_the_content_type_does_not_matter(base: str) -> None:
    token = init(base, 7)["stateToken"]
    raw = json.dumps({"stateToken": token, "action": WAIT}).encode()
    reply = http("POST", base + ACTION, raw, content_type="text/plain")
    assert reply.status == 200
    assert reply.json()["ok"] is True


def test_wrong_method_and_unknown_route_answer_json(base: str) -> None:
    assert_boundary_error(http("GET", base + ACTION), "method_not_allowed", 405)
    assert_boundary_error(http("POST", base + INIT, b"{}"), "method_not_allowed", 405)
    assert_boundary_error(http("GET", base + "/api/games/relayroam/undo"), "not_found", 404)


# The page


def test_the_page_is_served_self_contained(base: str) -> None:
    reply = http("GET", base + "/relayroam/")
    assert reply.status == 200
    assert reply.headers["content-type"].startswith("text/html")
    csp = reply.headers["content-security-policy"]
    assert "default-src 'none'" in csp
    assert "connect-src 'self'" in csp
    html = reply.raw.decode()
    for element_id in ("grid", "charge", "turn", "score", "chamber", "phase", "refusal"):
        assert f'id="{element_id}"' in html
    for button in ("up", "right", "down", "left", "wait", "bank", "next"):
        assert f'<button id="{button}"' in html
    assert "http://" not in html
    assert "https://" not in html
    assert "<script src" not in html
    assert '<link rel="stylesheet"' not in html


def test_the_bare_page_path_redirects_keeping_the_query(base: str) -> None:
    reply = http("GET", base + "/relayroam?seed=3")
    assert reply.status in (301, 302, 303, 307, 308)
    assert reply.headers["location"] == "/relayroam/?seed=3"
    assert http("GET", base + "/relayroam").headers["location"] == "/relayroam/"


def test_lighthouse_serve_answers_on_the_port_it_was_given() -> None:
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "serve", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        body = None
        while time.monotonic() < deadline and body is None:
            try:
                url = f"http://127.0.0.1:{port}/api/games/relayroam/init?seed=3"
                with urllib.request.urlopen(url, timeout=2) as response:
                    body = json.loads(response.read())
            except OSError:
                time.sleep(0.1)
        assert body is not None
        assert body["ok"] is True
        assert body["stateToken"].startswith("rr1.")
        assert body["phase"] == "playing"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
