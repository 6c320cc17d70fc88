"""Hourloom's action route fed hostile bodies over real HTTP: never a server error.

Whatever arrives, the answer is HTTP 200 (the rules' answer, a refusal included) or
a client error with ``{error, message}``: random bytes, hostile JSON, and real states
with any part replaced by any JSON value or by a nearby integer (which the structural
check lets through more often, so the rules themselves meet odd states).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baselines.hourloom import planner
from harness.games.hourloom.rules import END_RUN, new_game, step
from harness.games.hourloom.state import State, state_json
from harness.json_reply import MAX_INT_DIGITS
from tests.relayroam.live_server import Reply, http, running_server

ACTION = "/api/games/hourloom/action"
BOUNDARY_ERRORS = {"invalid_json", "invalid_body", "invalid_state", "invalid_action"}
FUZZ = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with running_server(b"fuzz-key-unused-by-hourloom-0123") as url:
        yield url


def run_states(seed: int) -> list[State]:
    """PLANNER's run of ``seed`` through chamber 1, its seal, chamber 2's start, an end."""
    states = [new_game(seed)]
    while states[-1].phase == "lap":
        states.append(step(states[-1], planner(states[-1])).state)
    states.append(step(states[-1], planner(states[-1])).state)  # DESCEND
    states.append(step(states[-1], END_RUN).state)
    return states


STATES: list[Any] = [state_json(s) for s in run_states(7)]
# Every state's kind is here: lap 1 (no echoes), later laps (echoes, a gate), sealed, over.
assert {s["phase"] for s in STATES} == {"lap", "sealed", "over"}
assert any(any(e is not None for e in s["echoes"]) for s in STATES)

ACTIONS: list[Any] = (
    [{"type": "MOVE", "dir": d} for d in ("N", "E", "S", "W", "Q", "")]
    + [{"type": t} for t in ("WAIT", "DESCEND", "END_RUN", "MOVE", "JUMP")]
    + [None, [], "WAIT"]
)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**64), max_value=2**64)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)  # fmt: skip


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path to a part of ``value`` (the whole included)."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from paths(item, (*prefix, i))


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    out = copy.deepcopy(value)
    target = out
    for step_ in path[:-1]:
        target = target[step_]
    target[path[-1]] = new
    return out


def part(value: Any, path: tuple[Any, ...]) -> Any:
    for step_ in path:
        value = value[step_]
    return value


def assert_answered(reply: Reply, sent_state: Any) -> None:
    assert reply.status in (200, 400), reply.raw
    body = reply.json()
    if reply.status == 400:
        assert set(body) == {"error", "message"}
        assert body["error"] in BOUNDARY_ERRORS
        return
    assert isinstance(body["ok"], bool)
    if not body["ok"]:
        assert body["state"] == sent_state  # a refusal answers with the very state sent
        assert isinstance(body["reason"], str)


HOSTILE = {
    "deep arrays": b'{"action": ' + b"[" * 20_000 + b"]" * 20_000 + b"}",
    "deep objects": b'{"state": {}, "action": ' + b'{"a":' * 5000 + b"1" + b"}" * 5001,
    "a 5000-digit integer": b'{"state": ' + b"9" * 5000 + b', "action": {}}',
    "a long integer as a tile": json.dumps(
        {"state": {**STATES[3], "player": 0}, "action": {"type": "WAIT"}}
    )
    .replace('"player": 0', '"player": ' + "9" * (MAX_INT_DIGITS + 1))
    .encode(),
    "1e999": b'{"state": {}, "action": 1e999}',
    "many tokens": b'{"state": [' + b"[]," * 20_000 + b'[]], "action": {}}',
    "an unclosed string": b'{"state": "' + b'\\"' * 30_000,
    "an escaped lone surrogate key": b'{"\\ud800": 1, "state": {}, "action": {}}',
    "a lone surrogate in the state": json.dumps({"state": {**STATES[3], "game": "\ud800"}, "action": {}}, ensure_ascii=True).encode(),
    "walls listed 4000 times": json.dumps(
        {"state": {**STATES[3], "chamber": {**STATES[3]["chamber"], "walls": [0] * 4000}},
         "action": {"type": "WAIT"}}
    ).encode(),
    "a log of 3000 inputs": json.dumps(
        {"state": {**STATES[3], "log": ["WAIT"] * 3000}, "action": {"type": "WAIT"}}
    ).encode(),
}  # fmt: skip


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_hostile_bodies_are_a_client_error(server: str, kind: str) -> None:
    reply = http("POST", server + ACTION, HOSTILE[kind])
    assert reply.status in (400, 413), reply.raw
    body = reply.json()
    assert set(body) == {"error", "message"}
    assert body["error"] in BOUNDARY_ERRORS | {"body_too_large"}


@FUZZ
@given(st.binary(max_size=300))
def test_any_bytes_are_a_client_error(server: str, raw: bytes) -> None:
    reply = http("POST", server + ACTION, raw)
    assert reply.status == 400, reply.raw
    assert reply.json()["error"] in BOUNDARY_ERRORS


@FUZZ
@given(
    st.sampled_from(range(len(STATES))),
    st.integers(min_value=0, max_value=10**6),
    json_values,
    st.sampled_from(ACTIONS),
)
def test_a_state_with_any_part_replaced_is_answered(
    server: str, which: int, where: int, new: Any, action: Any
) -> None:
    state = STATES[which]
    every = list(paths(state))
    sent = replaced(state, every[where % len(every)], new)
    reply = http("POST", server + ACTION, json.dumps({"state": sent, "action": action}).encode())
    assert_answered(reply, sent)


@FUZZ
@given(
    st.sampled_from(range(len(STATES))),
    st.integers(min_value=0, max_value=10**6),
    st.integers(min_value=-3, max_value=3),
    st.sampled_from(ACTIONS),
)
def test_a_state_with_an_integer_nudged_is_answered(
    server: str, which: int, where: int, delta: int, action: Any
) -> None:
    state = STATES[which]
    numbers = [p for p in paths(state) if type(part(state, p)) is int and p[-1:] != ("rngState",)]
    path = numbers[where % len(numbers)]
    sent = replaced(state, path, part(state, path) + delta)
    reply = http("POST", server + ACTION, json.dumps({"state": sent, "action": action}).encode())
    assert_answered(reply, sent)
