"""Lighthouse over HTTP: every malformed request is a 4xx with a reason, never a 500.

Bodies of every wrong shape, tokens forged, truncated, signed by another server,
oversized or of another game, and random damage to good bodies, all sent to a real
server on 127.0.0.1.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness import __version__
from harness.server.app import STEPPED_MAX_BODY_BYTES
from harness.server.step_token import (
    MAX_REPLY_CHARS,
    MAX_TOKEN_CHARS,
    InvalidStepToken,
    StepHistory,
    decode_token,
    encode_token,
)
from tests.relayroam.live_server import Reply, http, running_server

KEY = b"lighthouse-refusals-key-32-bytes"
ROOT = "/api/games/lighthouse"
DOCS = Path(__file__).resolve().parents[2] / "docs" / "serve.md"
SOURCES = Path(__file__).resolve().parents[2] / "harness" / "server"


@pytest.fixture(scope="module")
def base() -> Iterator[str]:
    with running_server(KEY) as url:
        yield url


@pytest.fixture(scope="module")
def start(base: str) -> dict[str, Any]:
    """An episode at tick 0 with the client playing the keeper and runner 2."""
    reply = http("GET", f"{base}{ROOT}/init?seed=9&seats=keeper,runner2")
    assert reply.status == 200
    data: dict[str, Any] = reply.json()
    return data


def _history(**changes: Any) -> StepHistory:
    fields: dict[str, Any] = {
        "version": __version__,
        "game": "lighthouse",
        "seed": 9,
        "variant": "default",
        "plays": ("keeper", "runner2"),
        "steps": (),
    }
    return StepHistory(**{**fields, **changes})


def _signed(payload: bytes, key: bytes = KEY) -> str:
    """A token of ``payload`` (already compressed) as the server would sign it."""
    text = base64.urlsafe_b64encode(payload).rstrip(b"=").decode()
    signed = f"ep1.{text}"
    mac = hmac.new(key, signed.encode(), hashlib.sha256).digest()
    return f"{signed}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"


def _refused(reply: Reply, status: int, error: str) -> str:
    assert reply.status == status, (reply.status, reply.raw[:300])
    body = reply.json()
    assert body["error"] == error, body
    message: str = body["message"]
    assert message.strip()
    return message


def _action(base: str, body: bytes) -> Reply:
    return http("POST", f"{base}{ROOT}/action", body)


def _with(token: str, action: Any) -> bytes:
    return json.dumps({"stateToken": token, "action": action}).encode()


# --- the body's shape ---


@pytest.mark.parametrize(
    ("body", "error"),
    [
        (b"", "invalid_json"),
        (b"not json", "invalid_json"),
        (b"\xff\xfe{}", "invalid_json"),
        (b'{"stateToken": NaN, "action": {}}', "invalid_json"),
        (b'{"stateToken": "a", "stateToken": "b", "action": {}}', "invalid_json"),
        (b"[" * 200 + b"]" * 200, "invalid_json"),
        (b'{"action": ' + b"[" * 100 + b"]" * 100 + b', "stateToken": "x"}', "invalid_json"),
        (b"[]", "invalid_body"),
        (b'"text"', "invalid_body"),
        (b"42", "invalid_body"),
        (b"null", "invalid_body"),
        (b'{"stateToken": "x"}', "invalid_body"),
        (b'{"action": {}}', "invalid_body"),
        (b'{"stateToken": "x", "action": {}, "seat": "keeper"}', "invalid_body"),
    ],
)
def test_a_body_of_the_wrong_shape_is_a_400_with_a_reason(
    base: str, body: bytes, error: str
) -> None:
    _refused(_action(base, body), 400, error)


def test_a_body_over_the_limit_is_refused_unread(base: str, start: dict[str, Any]) -> None:
    huge = _with(start["stateToken"], {"keeper": "x" * STEPPED_MAX_BODY_BYTES})
    _refused(_action(base, huge), 413, "body_too_large")


@pytest.mark.parametrize(
    ("action", "error", "phrase"),
    [
        ([], "invalid_action", "is a JSON array"),
        ("keeper", "invalid_action", "is a JSON string"),
        (None, "invalid_action", "is a JSON null"),
        (7, "invalid_action", "is a JSON number"),
        ({"keeper": "{}", "runner2": "{}", "runner7": "{}"}, "unknown_seat", "'runner7'"),
        ({"keeper": "{}", "runner2": "{}", "": "{}"}, "unknown_seat", "''"),
        ({"keeper": "{}", "runner2": "{}", "runner1": "{}"}, "seat_not_played", "runner1"),
        ({"keeper": "{}"}, "missing_seat", "runner2"),
        ({}, "missing_seat", "keeper, runner2"),
        ({"keeper": 1, "runner2": "{}"}, "invalid_reply", "number"),
        ({"keeper": None, "runner2": "{}"}, "invalid_reply", "null"),
        ({"keeper": ["N"], "runner2": "{}"}, "invalid_reply", "array"),
        ({"keeper": True, "runner2": "{}"}, "invalid_reply", "boolean"),
        ({"keeper": "x" * (MAX_REPLY_CHARS + 1), "runner2": "{}"}, "reply_too_long", "4097"),
        (
            {"keeper": {"message": "m" * MAX_REPLY_CHARS}, "runner2": "{}"},
            "reply_too_long",
            "characters long",
        ),
    ],
)
def test_an_action_of_the_wrong_shape_is_a_400_naming_the_seat(
    base: str, start: dict[str, Any], action: Any, error: str, phrase: str
) -> None:
    message = _refused(_action(base, _with(start["stateToken"], action)), 400, error)
    assert phrase in message


def test_a_seat_that_is_out_or_not_retrying_is_not_waiting(
    base: str, start: dict[str, Any]
) -> None:
    retry = _action(base, _with(start["stateToken"], {"keeper": "?", "runner2": '{"move": "N"}'}))
    assert retry.json()["waiting"] == ["keeper"]
    token = retry.json()["stateToken"]
    message = _refused(
        _action(base, _with(token, {"keeper": "{}", "runner2": "{}"})), 400, "seat_not_waiting"
    )
    assert "runner2 is not waiting" in message
    assert "reply for exactly keeper" in message


# --- the token ---


def _tokens(start: dict[str, Any]) -> list[tuple[str, Any, str]]:
    good: str = start["stateToken"]
    prefix, payload, signature = good.split(".")
    flipped = payload[:5] + ("A" if payload[5] != "A" else "B") + payload[6:]
    other_key = encode_token(_history(), b"another server's key, 32 bytes!!")
    return [
        ("a number", 12, "not a number"),
        ("null", None, "not null"),
        ("an object", {"t": good}, "not an object"),
        ("empty", "", "3 non-empty"),
        ("cut short", good[:-1], "canonical"),
        ("cut in half", good[: len(good) // 2], "part"),
        ("without its signature", f"{prefix}.{payload}", "3 non-empty"),
        ("with a part more", good + ".x", "3 non-empty"),
        ("of another version", "ep2." + good[4:], "'ep1'"),
        ("of Relayroam", "rr1." + good[4:], "'ep1'"),
        ("with a character outside base64url", f"{prefix}.{payload}=.{signature}", "base64url"),
        ("with an edited payload", f"{prefix}.{flipped}.{signature}", "signature is not"),
        ("signed by another server", other_key, "signature is not"),
        ("oversized", "ep1." + "A" * MAX_TOKEN_CHARS + ".x", "characters long"),
        ("not compressed", _signed(b'{"game": "lighthouse"}'), "inflate"),
        ("not JSON", _signed(zlib.compress(b"\xff not json")), "strict JSON"),
        ("a bomb", _signed(zlib.compress(b" " * (3 << 20))), "bounded"),
        (
            "not a history",
            _signed(zlib.compress(json.dumps({"seed": -1}).encode())),
            "fails its checks",
        ),
        (
            "of another game",
            encode_token(_history(game="relayroam"), KEY),
            "a token of 'relayroam'",
        ),
        (
            "of another harness",
            encode_token(_history(version="0.0.1"), KEY),
            "issued by version 0.0.1",
        ),
        (
            "whose replies do not fit",
            encode_token(_history(steps=({"runner2": "{}"},)), KEY),
            "do not fit",
        ),
        (
            "of an unknown variant",
            encode_token(_history(variant="neap"), KEY),
            "variant or seats",
        ),
        (
            "of an unknown seat",
            encode_token(_history(plays=("keeper", "runner9")), KEY),
            "variant or seats",
        ),
    ]


def test_every_bad_token_is_refused_with_the_check_it_failed(
    base: str, start: dict[str, Any]
) -> None:
    for name, token, phrase in _tokens(start):
        for route, body in (
            ("action", {"stateToken": token, "action": {"keeper": "{}", "runner2": "{}"}}),
            ("record", {"stateToken": token}),
        ):
            reply = http("POST", f"{base}{ROOT}/{route}", json.dumps(body).encode())
            message = _refused(reply, 400, "invalid_state_token")
            assert message.startswith("invalid state token"), (name, message)
            assert phrase in message, (name, message)
            assert KEY.decode() not in message


def test_a_token_from_a_server_with_another_key_is_refused_over_http(
    start: dict[str, Any],
) -> None:
    with running_server(b"the other server's own key, 32 b") as other:
        reply = _action(other, _with(start["stateToken"], {"keeper": "{}", "runner2": "{}"}))
    message = _refused(reply, 400, "invalid_state_token")
    assert "start a new one" in message


# --- init's query ---


@pytest.mark.parametrize(
    ("query", "error"),
    [
        ("", "invalid_seed"),
        ("seed=", "invalid_seed"),
        ("seed=-1", "invalid_seed"),
        ("seed=1e3", "invalid_seed"),
        ("seed=" + "9" * 5000, "invalid_seed"),
        ("seed=1&seed=2", "invalid_seed"),
        ("seed=1&variant=neap", "invalid_variant"),
        ("seed=1&variant=", "invalid_variant"),
        ("seed=1&variant=spring&variant=default", "invalid_query"),
        ("seed=1&seats=", "invalid_seats"),
        ("seed=1&seats=runner4", "invalid_seats"),
        ("seed=1&seats=keeper,", "invalid_seats"),
        ("seed=1&seats=keeper,keeper", "invalid_seats"),
        ("seed=1&seats=" + "keeper," * 100, "invalid_query"),
        ("seed=1&role=keeper", "invalid_query"),
        ("seed=1&tickSeconds=5", "invalid_player"),  # a timer is a person's
    ],
)
def test_a_bad_init_query_is_a_400_with_a_reason(base: str, query: str, error: str) -> None:
    _refused(http("GET", f"{base}{ROOT}/init?{query}"), 400, error)


def test_the_record_route_takes_exactly_the_token(base: str, start: dict[str, Any]) -> None:
    route = f"{base}{ROOT}/record"
    _refused(http("POST", route, b"{}"), 400, "invalid_body")
    body = json.dumps({"stateToken": start["stateToken"], "action": {}}).encode()
    _refused(http("POST", route, body), 400, "invalid_body")
    _refused(http("GET", route), 405, "method_not_allowed")
    _refused(http("GET", f"{base}{ROOT}/action"), 405, "method_not_allowed")


# --- random damage ---


def test_random_damage_to_good_bodies_is_never_a_server_error(
    base: str, start: dict[str, Any]
) -> None:
    rng = random.Random(32)
    good = _with(start["stateToken"], {"keeper": '{"transmit": false}', "runner2": {"move": "N"}})
    statuses: dict[int, int] = {}
    for _ in range(150):
        body = bytearray(good)
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(body))
            choice = rng.random()
            if choice < 0.4:
                body[at] = rng.randrange(256)
            elif choice < 0.7:
                del body[at]
            else:
                body[at:at] = rng.choice([b"{", b"}", b'"', b",", b"[", b"\\", b"\x00", b"\xc3"])
        reply = _action(base, bytes(body))
        statuses[reply.status] = statuses.get(reply.status, 0) + 1
        assert reply.status in (200, 400), (reply.status, bytes(body)[:200], reply.raw[:200])
        if reply.status == 400:
            assert reply.json()["message"]
    assert statuses.get(400, 0) > 100, statuses  # nearly every damaged body is refused


# --- any JSON where the action goes, any text where the token goes ---

FUZZ = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(["keeper", "runner1", "runner2", "move", "x"]), inner,
                      max_size=4),
    max_leaves=12,
)  # fmt: skip


@FUZZ
@given(action=_json_values)
def test_any_action_is_an_answer_or_a_400(base: str, start: dict[str, Any], action: Any) -> None:
    reply = _action(base, _with(start["stateToken"], action))
    assert reply.status in (200, 400), reply.raw[:300]
    body = reply.json()
    if reply.status == 400:
        assert body["message"]
    else:
        assert body["tick"] in (0, 1)


@FUZZ
@given(token=st.text(max_size=300) | st.binary(max_size=200).map(lambda b: "ep1." + b.hex()))
def test_any_token_text_is_refused_as_a_token(token: str) -> None:
    with pytest.raises(InvalidStepToken):
        decode_token(token, KEY)


# --- the docs ---


def test_every_error_the_api_gives_is_in_its_docs() -> None:
    docs = DOCS.read_text(encoding="utf-8")
    stepped = sorted((SOURCES / "stepped").glob("*.py"))
    code = "".join(p.read_text() for p in [*stepped, SOURCES / "app.py"])
    errors = set(re.findall(r'RequestRefused\(\s*"(\w+)"', code))
    errors |= set(re.findall(r'_Refused\(\s*\d+,\s*"(\w+)"', code))
    assert {"invalid_state_token", "seat_not_waiting", "invalid_query"} <= errors
    missing = sorted(e for e in errors if f"`{e}`" not in docs)
    assert missing == []
    for route in ("init?seed=N", "POST action", "POST record"):
        assert route in docs
