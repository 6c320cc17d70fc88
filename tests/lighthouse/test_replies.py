"""Reply parsing: R1-R4 and R8."""

from __future__ import annotations

import hashlib
import json

import pytest

from harness.games.lighthouse.replies import (
    MAX_REPLY_BYTES,
    FailureKind,
    ParseFailure,
    clip_reply,
    parse_keeper_reply,
    parse_move,
    parse_runner_reply,
    scrub_surrogates,
    truncate_runes,
)
from harness.games.lighthouse.state import KeeperDecision, Move, RunnerDecision


def keeper(text: str, message_cap: int = 160, notes_cap: int = 400) -> KeeperDecision:
    result = parse_keeper_reply(text, message_cap=message_cap, notes_cap=notes_cap)
    assert isinstance(result, KeeperDecision), result
    return result


def runner(text: str, notes_cap: int = 200) -> RunnerDecision:
    result = parse_runner_reply(text, notes_cap=notes_cap)
    assert isinstance(result, RunnerDecision), result
    return result


def runner_fails(text: str) -> ParseFailure:
    result = parse_runner_reply(text, notes_cap=200)
    assert isinstance(result, ParseFailure), result
    return result


def keeper_fails(text: str) -> ParseFailure:
    result = parse_keeper_reply(text, message_cap=160, notes_cap=400)
    assert isinstance(result, ParseFailure), result
    return result


# --- R1: one optional fence, one strict JSON object -------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"move": "N"}',
        '  \n{"move": "N"}\n ',
        '```\n{"move": "N"}\n```',
        '```json\n{"move": "N"}\n```',
        '```JSON\n{"move": "N"}\n```',
        '```Json {"move": "N"} ```',
        '```{"move": "N"}```',
        '\n```json\n{"move": "N"}\n```\n',
    ],
)
def test_accepted_wrappings(text: str) -> None:  # R1
    assert runner(text).move is Move.N


@pytest.mark.parametrize(
    ("text", "kind", "says"),
    [
        ('Sure! {"move": "N"}', FailureKind.NOT_JSON, "nothing before or after"),
        ('{"move": "N"} Good luck!', FailureKind.NOT_JSON, "nothing before or after"),
        ('{"move": "N"}{"move": "S"}', FailureKind.NOT_JSON, "Extra data"),
        ('```python\n{"move": "N"}\n```', FailureKind.BAD_FENCE, "tagged 'python'"),
        ('```json\n{"move": "N"}', FailureKind.BAD_FENCE, "not closed"),
        ('```json\n{"move": "N"}\n```\nthanks', FailureKind.BAD_FENCE, "not closed"),
        ('```\n{"move": "N"}\n``` ```\n{"move": "S"}\n```', FailureKind.NOT_JSON, "JSON"),
        ('Here you go:\n```json\n{"move": "N"}\n```', FailureKind.NOT_JSON, "JSON"),
        ("", FailureKind.EMPTY, "empty"),
        ("   \n ", FailureKind.EMPTY, "empty"),
        ("{'move': 'N'}", FailureKind.NOT_JSON, "not valid JSON"),
        ('{"move": "N",}', FailureKind.NOT_JSON, "not valid JSON"),
        ('["N"]', FailureKind.NOT_OBJECT, "JSON array, not an object"),
        ('"N"', FailureKind.NOT_OBJECT, "JSON string"),
        ('{"move": "N", "x": NaN}', FailureKind.NOT_JSON, "NaN is not JSON"),
        ('{"move": "N", "x": Infinity}', FailureKind.NOT_JSON, "Infinity is not JSON"),
        ('{"move": "N", "x": -Infinity}', FailureKind.NOT_JSON, "Infinity is not JSON"),
    ],
)
def test_rejected_shapes_name_the_problem(text: str, kind: FailureKind, says: str) -> None:
    failure = runner_fails(text)
    assert failure.kind is kind
    assert says in failure.message
    assert '{"move": "N", "notes": "..."}' in failure.message or kind is FailureKind.BAD_FENCE


def test_duplicate_keys_last_wins() -> None:  # R1
    assert runner('{"move": "N", "move": "S"}').move is Move.S


# --- R2: keys and types --------------------------------------------------------------


def test_unknown_keys_are_ignored() -> None:  # R2
    d = runner('{"move": "E", "reasoning": "because", "confidence": 0.9}')
    assert d == RunnerDecision(Move.E, None)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"move": null}', '"move" must be a string, got null'),
        ('{"move": 1}', '"move" must be a string, got number'),
        ('{"move": ["N"]}', '"move" must be a string, got array'),
        ('{"move": "N", "notes": null}', '"notes" must be a string, got null'),
        ('{"move": "N", "notes": {"a": 1}}', '"notes" must be a string, got object'),
    ],
)
def test_runner_wrong_types(text: str, says: str) -> None:  # R2
    failure = runner_fails(text)
    assert failure.kind is FailureKind.WRONG_TYPE
    assert says in failure.message


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"transmit": "yes", "message": "hi"}', '"transmit" must be a boolean'),
        ('{"transmit": null}', '"transmit" must be a boolean (true or false), got null'),
        ('{"transmit": 1, "message": "hi"}', "got number"),
        ('{"message": 5}', '"message" must be a string, got number'),
        ('{"message": null}', '"message" must be a string, got null'),
    ],
)
def test_keeper_wrong_types(text: str, says: str) -> None:  # R2
    failure = keeper_fails(text)
    assert failure.kind is FailureKind.WRONG_TYPE
    assert says in failure.message


def test_required_keys() -> None:  # R2
    assert runner_fails('{"notes": "hm"}').kind is FailureKind.MISSING_KEY
    assert keeper_fails('{"notes": "hm"}').kind is FailureKind.MISSING_KEY
    assert keeper('{"transmit": false}') == KeeperDecision(False, "", None)
    assert keeper('{"message": "Gizmo E"}') == KeeperDecision(None, "Gizmo E", None)


ALIASES = {
    "N": Move.N, "north": Move.N, "Up": Move.N,
    "s": Move.S, "SOUTH": Move.S, "down": Move.S,
    "e": Move.E, "East": Move.E, "RIGHT": Move.E,
    "w": Move.W, "west": Move.W, "Left": Move.W,
    "wait": Move.WAIT, "Stay": Move.WAIT, "HOLD": Move.WAIT, "h": Move.WAIT, "H": Move.WAIT,
}  # fmt: skip


@pytest.mark.parametrize(("token", "move"), sorted(ALIASES.items()))
def test_every_move_alias_in_any_case(token: str, move: Move) -> None:  # R2
    assert runner(json.dumps({"move": token})).move is move
    assert parse_move(token.swapcase()) is move


@pytest.mark.parametrize(
    "token", [" N", "N ", "n\n", "\u017f", "NORTHWEST", "", "Nord", "\uff2e", "\u212a", "go N"]
)
def test_moves_are_matched_exactly(token: str) -> None:  # R2
    failure = runner_fails(json.dumps({"move": token}))
    assert failure.kind is FailureKind.BAD_MOVE
    assert json.dumps(token) in failure.message
    assert "N, S, E, W, WAIT" in failure.message


# --- R3: runes and surrogates ----------------------------------------------------------


def test_caps_count_code_points_not_bytes() -> None:  # R3
    message = "\U0001f30a" * 200  # a wave, four bytes each
    d = keeper(json.dumps({"message": message}))
    assert d.message == "\U0001f30a" * 160
    d = keeper(json.dumps({"message": "e\u0301" * 100}), message_cap=5)
    assert d.message == "e\u0301e\u0301e"  # a combining mark is a rune of its own
    assert runner(json.dumps({"move": "N", "notes": "x" * 500})).notes == "x" * 200
    assert keeper(json.dumps({"transmit": False, "notes": "y" * 500})).notes == "y" * 400
    assert truncate_runes("\u00e9t\u00e9", 2) == "\u00e9t"


def test_lone_surrogates_become_replacement_characters() -> None:  # R3
    # a JSON escape of a lone surrogate, and a raw one in the reply text
    d = keeper('{"message": "hi \\ud800 there", "notes": "\\udfff"}')
    assert d.message == "hi \ufffd there"
    assert d.notes == "\ufffd"
    d = keeper('{"message": "raw \ud83d"}')
    assert d.message == "raw \ufffd"
    d.message.encode("utf-8")  # valid UTF-8: does not raise
    # a correctly paired escape is one character, untouched
    assert keeper('{"message": "\\ud83c\\udf0a"}').message == "\U0001f30a"
    assert scrub_surrogates("a\udc00b") == "a\ufffdb"


def test_surrogates_are_replaced_before_truncation() -> None:  # R3
    d = keeper('{"message": "\\ud800\\ud800\\ud800"}', message_cap=2)
    assert d.message == "\ufffd\ufffd"


# --- R4: notes -----------------------------------------------------------------------


def test_notes_absent_is_none_and_present_is_kept() -> None:  # R4
    assert runner('{"move": "N"}').notes is None
    assert runner('{"move": "N", "notes": ""}').notes == ""
    assert keeper('{"transmit": false, "notes": "keep"}').notes == "keep"


# --- R8: replies over 1 MiB ------------------------------------------------------------


def test_a_reply_over_one_mib_is_a_parse_failure() -> None:  # R8
    filler = "x" * (MAX_REPLY_BYTES + 1)
    failure = runner_fails(json.dumps({"move": "N", "notes": filler}))
    assert failure.kind is FailureKind.TOO_LONG
    assert "reply too long" in failure.message
    at_limit = '{"move": "N", "notes": "' + "x" * (MAX_REPLY_BYTES - 26) + '"}'
    assert len(at_limit.encode()) == MAX_REPLY_BYTES
    assert runner(at_limit).move is Move.N


def test_clip_keeps_whole_up_to_one_mib_and_cuts_on_a_rune() -> None:  # R8
    small = clip_reply("hello")
    assert (small.text, small.length, small.clipped) == ("hello", 5, False)
    # four-byte runes after one ASCII byte: the 1 MiB limit falls inside a rune
    big = "a" + "\U0001f30a" * (MAX_REPLY_BYTES // 4 + 3)
    clipped = clip_reply(big)
    assert clipped.clipped
    assert clipped.length == len(big.encode())
    assert len(clipped.text.encode()) <= MAX_REPLY_BYTES
    assert len(clipped.text.encode()) > MAX_REPLY_BYTES - 4
    assert big.startswith(clipped.text)
    assert clipped.sha256 == hashlib.sha256(big.encode()).hexdigest()
