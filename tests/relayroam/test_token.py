"""Relayroam state tokens (RR17): format, round trip and every refusal."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace

import pytest

from harness.errors import ConfigError, HarnessError
from harness.games.relayroam import token as tk
from harness.games.relayroam.rules import new_game, step
from harness.games.relayroam.solver import solve_seeded_chamber
from harness.games.relayroam.state import (
    State,
    StateError,
    from_canonical_json,
    to_canonical_json,
    to_json_dict,
)
from harness.games.relayroam.token import InvalidStateToken, decode_token, encode_token

# Printable, so a leak of the raw key text would show in a message.
KEY = b"relayroam-test-key-do-not-leak-0123456789"
OTHER_KEY = b"another-server-entirely-9876543210"
B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sign(payload: str, key: bytes = KEY) -> str:
    """A token with ``payload`` (already base64url) signed as the server would."""
    mac = hmac.new(key, f"rr1.{payload}".encode(), hashlib.sha256).digest()
    return f"rr1.{payload}.{b64(mac)}"


def resigned(text: str | bytes, key: bytes = KEY) -> str:
    """A token whose payload is ``text`` (any bytes), correctly signed with ``key``."""
    raw = text.encode() if isinstance(text, str) else text
    return sign(b64(raw), key)


def played_states() -> Iterator[State]:
    """States from every phase: fresh, mid-chamber, chamber-clear, chamber 6, ended."""
    state = new_game(7)
    yield state
    for chamber in range(1, 7):
        for action in solve_seeded_chamber(7, chamber).actions:
            state = step(state, action).state
            if state.turn == 5:
                yield state
        assert state.phase == "chamber-clear"
        yield state
        if chamber < 6:
            state = step(state, {"type": "next"}).state
            yield state
    yield step(state, {"type": "bank"}).state
    yield step(new_game(123456789), {"type": "bank"}).state


def token_in_subprocess(seed: int, hash_seed: str) -> str:
    """``encode_token(new_game(seed), KEY)`` computed by a fresh interpreter."""
    code = (
        "import sys; from harness.games.relayroam.rules import new_game; "
        "from harness.games.relayroam.token import encode_token; "
        f"sys.stdout.write(encode_token(new_game({seed}), {KEY!r}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={**os.environ, "PYTHONHASHSEED": hash_seed},
    )
    return done.stdout


def refusal(token: object, key: bytes = KEY) -> InvalidStateToken:
    with pytest.raises(InvalidStateToken) as info:
        decode_token(token, key)  # type: ignore[arg-type]
    error = info.value
    assert_no_secret(str(error), key)
    return error


def assert_no_secret(message: str, key: bytes) -> None:
    """Neither the key (raw, hex, base64) nor any signature it makes shows in ``message``."""
    assert message.startswith("invalid state token: ")
    for form in (key.decode("latin-1"), key.hex(), b64(key), base64.b64encode(key).decode()):
        assert form not in message
    # No base64 run long enough to be a signature (43 characters) is ever echoed.
    assert not re.search(r"[A-Za-z0-9_-]{40,}", message)


# Format and round trip.


def test_round_trip_in_every_phase() -> None:
    states = list(played_states())
    assert {s.phase for s in states} == {"playing", "chamber-clear", "ended"}
    assert max(s.chamber for s in states) == 6
    for state in states:
        token = encode_token(state, KEY)
        assert decode_token(token, KEY) == state
        assert encode_token(decode_token(token, KEY), KEY) == token


def test_payload_is_the_canonical_json_and_signature_is_hmac_sha256() -> None:
    state = new_game(7)
    token = encode_token(state, KEY)
    prefix, payload, signature = token.split(".")
    assert prefix == "rr1"
    assert "=" not in token
    assert re.fullmatch(r"[A-Za-z0-9_-]+", payload)
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", signature)
    text = unb64(payload).decode("ascii")
    assert text == to_canonical_json(state)
    assert text == json.dumps(
        to_json_dict(state), sort_keys=True, separators=(",", ":"), ensure_ascii=True
    )
    assert text.startswith('{"chamber":1,"chamberShockCount":0,"charge":28,')
    expected = hmac.new(KEY, f"rr1.{payload}".encode(), hashlib.sha256).digest()
    assert unb64(signature) == expected
    assert token == sign(payload)


def test_tokens_are_deterministic_and_depend_on_the_key_and_state() -> None:
    a, b = new_game(7), new_game(8)
    # An equal state built another way (a separate object) gets the same token...
    twin = from_canonical_json(to_canonical_json(step(a, {"type": "wait"}).state))
    assert encode_token(twin, KEY) == encode_token(step(new_game(7), {"type": "wait"}).state, KEY)
    # ... and so does the same state in another process with another hash seed.
    for hash_seed in ("0", "4242"):
        assert token_in_subprocess(7, hash_seed) == encode_token(a, KEY)
    assert encode_token(a, KEY) != encode_token(b, KEY)
    same_payload = {t.split(".")[1] for t in (encode_token(a, KEY), encode_token(a, OTHER_KEY))}
    assert len(same_payload) == 1
    assert encode_token(a, KEY).split(".")[2] != encode_token(a, OTHER_KEY).split(".")[2]


def test_an_empty_key_is_refused() -> None:
    with pytest.raises(ConfigError, match="non-empty bytes"):
        encode_token(new_game(7), b"")
    with pytest.raises(ConfigError, match="non-empty bytes"):
        decode_token(encode_token(new_game(7), KEY), b"")


def test_the_error_is_a_harness_error_naming_its_check() -> None:
    error = refusal("nope")
    assert isinstance(error, HarnessError)
    assert error.check == "shape"


# Refusals: shape.


@pytest.mark.parametrize(
    "token",
    [
        "",
        "rr1",
        "rr1.",
        "rr1.abc",
        "rr1.abc.def.ghi",
        "rr1..def",
        "rr1.abc.",
        ".abc.def",
        "...",
        "rr2.abc.def",
        "RR1.abc.def",
        "rr1 .abc.def",
        "x" * 5000,
    ],
)
def test_wrong_shape_or_prefix_is_refused(token: str) -> None:
    assert refusal(token).check == "shape"


def test_wrong_prefix_on_an_otherwise_valid_token() -> None:
    _, payload, signature = encode_token(new_game(7), KEY).split(".")
    error = refusal(f"rr2.{payload}.{signature}")
    assert error.check == "shape"
    assert "'rr1'" in str(error)


@pytest.mark.parametrize("value", [None, 42, b"rr1.a.b", ["rr1", "a", "b"]])
def test_a_token_that_is_not_a_string_is_refused(value: object) -> None:
    error = refusal(value)
    assert error.check == "shape"
    assert "must be a string" in str(error)


def test_an_overlong_token_is_refused_before_decoding() -> None:
    _, payload, signature = encode_token(new_game(7), KEY).split(".")
    error = refusal(f"rr1.{payload * 20}.{signature}")
    assert error.check == "shape"
    assert str(tk.MAX_TOKEN_LENGTH) in str(error)


# Refusals: alphabet.


def alphabet_cases() -> list[str]:
    _, payload, signature = encode_token(new_game(7), KEY).split(".")
    return [
        f"rr1.{payload}+.{signature}",  # standard base64, not base64url
        f"rr1.{payload.replace('e', '/', 1)}.{signature}",
        f"rr1.{payload}=.{signature}",  # padding
        f"rr1.{payload}.{signature}=",
        f"rr1.{payload} .{signature}",
        f"rr1.{payload}\u00e9.{signature}",  # not ASCII
        f"rr1.{payload}.{signature[:-1]}%",
        f"rr1.{payload}\n.{signature}",
        f"rr1.{payload}.{signature[:20]}",  # a 15-byte signature
        f"rr1.{payload}.{signature}AAAA",  # a 35-byte signature
        f"rr1.A.{signature}",  # 1 character cannot be base64 at all
    ]


@pytest.mark.parametrize("token", alphabet_cases())
def test_bad_alphabet_or_encoding_is_refused(token: str) -> None:
    assert refusal(token).check == "alphabet"


def test_a_non_canonical_base64_spelling_is_refused() -> None:
    # 32 bytes are 43 characters whose last one carries 2 unused bits: a lax decoder
    # reads "...h0" and "...h1" alike. Only the canonical spelling is accepted.
    token = encode_token(new_game(7), KEY)
    prefix, payload, signature = token.split(".")
    last = B64URL.index(signature[-1])
    assert last % 4 == 0  # the unused low bits are zero
    twin = signature[:-1] + B64URL[last + 1]
    assert unb64(twin) == unb64(signature)
    assert refusal(f"{prefix}.{payload}.{twin}").check == "alphabet"


# Refusals: signature.


def test_a_token_with_any_one_character_changed_is_refused() -> None:
    for state in (new_game(7), list(played_states())[-3]):
        token = encode_token(state, KEY)
        dots = {i for i, c in enumerate(token) if c == "."}
        payload_end = token.rindex(".")
        checks: dict[str, set[str]] = {"prefix": set(), "payload": set(), "signature": set()}
        for i, char in enumerate(token):
            at = B64URL.find(char)
            for new in sorted({B64URL[(at + 1) % 64], B64URL[(at + 17) % 64]} - {char}):
                error = refusal(token[:i] + new + token[i + 1 :])
                part = "prefix" if i < 3 or i in dots else "payload"
                part = "signature" if i > payload_end else part
                checks[part].add(error.check)
        assert checks["prefix"] == {"shape"}
        # A changed payload breaks the signature; a change of the last character may
        # instead leave the canonical base64 spelling (when it has unused bits).
        assert "signature" in checks["payload"]
        assert checks["payload"] <= {"signature", "alphabet"}
        # A 43-character signature's last character has 2 unused bits.
        assert checks["signature"] == {"signature", "alphabet"}
        # and never by luck: the untouched token still decodes
        assert decode_token(token, KEY) == state


def test_a_flipped_payload_character_fails_the_signature() -> None:
    token = encode_token(new_game(7), KEY)
    i = 10  # well inside the payload, where every character is significant
    flipped = token[:i] + ("A" if token[i] != "A" else "B") + token[i + 1 :]
    error = refusal(flipped)
    assert error.check == "signature"
    assert "its signature is not from this server's key" in str(error)
    assert "start a new game" in str(error)


def test_a_token_signed_with_another_key_is_refused() -> None:
    forged = encode_token(replace(new_game(7), score=999_999), OTHER_KEY)
    error = refusal(forged)
    assert error.check == "signature"
    # the forger's own key decodes it, so only the key made the difference
    assert decode_token(forged, OTHER_KEY).score == 999_999


def test_a_tampered_payload_with_the_old_signature_is_refused() -> None:
    state = new_game(7)
    _, _, signature = encode_token(state, KEY).split(".")
    richer = b64(to_canonical_json(replace(state, score=10_000)).encode())
    assert refusal(f"rr1.{richer}.{signature}").check == "signature"


# Refusals: state checks, reached only by a payload signed with the right key.


def tampered_payloads() -> list[tuple[str, str | bytes]]:
    state = new_game(7)
    good = to_json_dict(state)
    return [
        ("charge", json.dumps({**good, "charge": 99}, sort_keys=True, separators=(",", ":"))),
        ("not on a floor", to_canonical_json(replace(state, player=(2, 2), turn=3, charge=25))),
        ("unknown field", json.dumps({**good, "cheat": 1}, sort_keys=True, separators=(",", ":"))),
        ("missing field", json.dumps({k: v for k, v in good.items() if k != "seed"})),
        ("rngCursor", to_canonical_json(replace(state, rng_cursor=3))),
        ("score", to_canonical_json(replace(state, score=-5))),
        ("must be a JSON object", "[1, 2, 3]"),
        ("not strict JSON", "{not json"),
        ("not strict JSON", '{"a":NaN}'),
        ("not ASCII", "\u00e9t\u00e9".encode()),
        ("not ASCII", b"\xff\xfe"),
        ("canonical", json.dumps(good, sort_keys=True)),  # valid, but with spaces
        ("canonical", json.dumps(good, separators=(",", ":"))),  # valid, keys unsorted
        ("seed must be", to_canonical_json(state).replace('"seed":7', f'"seed":{2**53}')),
        # from_canonical_json lets json's RecursionError through; the token wraps it
        ("fails its checks", "[" * 1400 + "]" * 1400),
    ]


@pytest.mark.parametrize(("why", "payload"), tampered_payloads())
def test_a_resigned_invalid_state_fails_the_state_checks(why: str, payload: str | bytes) -> None:
    token = resigned(payload)
    assert len(token) <= tk.MAX_TOKEN_LENGTH
    error = refusal(token)
    assert error.check == "state"
    assert why in str(error)


def test_a_huge_payload_is_refused_on_shape_before_it_is_parsed() -> None:
    # 5000 digits would trip json's int-digit limit (a ValueError, not a StateError);
    # the length check stops such a token before any decoding.
    assert refusal(resigned('{"seed":' + "9" * 5000 + "}")).check == "shape"
    assert refusal(resigned("[" * 100_000 + "]" * 100_000)).check == "shape"


def test_a_long_state_error_is_cut_short() -> None:
    # The state checks quote an out-of-range integer in full; the token keeps it short.
    payload = to_canonical_json(new_game(7)).replace('"seed":7', '"seed":' + "9" * 2000)
    with pytest.raises(InvalidStateToken) as info:
        decode_token(resigned(payload), KEY)
    assert info.value.check == "state"
    assert "seed must be 0..9007199254740991" in str(info.value)
    assert len(str(info.value)) < 400


def test_state_errors_are_quoted_from_the_state_checks() -> None:
    bad = replace(new_game(7), player=(2, 2), turn=3, charge=25)
    with pytest.raises(StateError) as info:
        from_canonical_json(to_canonical_json(bad))
    error = refusal(resigned(to_canonical_json(bad)))
    assert str(info.value) in str(error)


def test_the_state_checks_run_only_after_the_signature() -> None:
    # An invalid state under a wrong signature is a signature failure, not a state one.
    token = resigned("{not json", OTHER_KEY)
    assert refusal(token).check == "signature"


# The key never leaks.


def test_no_refusal_message_holds_the_key_or_a_valid_signature() -> None:
    keys = [KEY, bytes(range(32)), b"0123456789abcdef0123456789abcdef"]
    for key in keys:
        token = encode_token(new_game(7), key)
        _prefix, payload, signature = token.split(".")
        cases: list[object] = [
            "",
            f"rr2.{payload}.{signature}",
            f"rr1.{payload}=.{signature}",
            f"rr1.{payload}.{signature[:-2]}AA",
            encode_token(new_game(7), OTHER_KEY),
            resigned("{not json", key),
            *alphabet_cases(),
        ]
        for case in cases:
            with pytest.raises(InvalidStateToken) as info:
                decode_token(case, key)  # type: ignore[arg-type]
            message = str(info.value)
            assert_no_secret(message, key)
            assert signature not in message
            assert payload not in message


# The server key.


def test_server_key_reads_hex_from_the_environment() -> None:
    key = bytes(range(32))
    assert tk.server_key({"RELAYROAM_TOKEN_KEY": key.hex()}) == key
    assert tk.server_key({"RELAYROAM_TOKEN_KEY": f"  {key.hex().upper()}\n"}) == key
    assert tk.server_key({"RELAYROAM_TOKEN_KEY": "ab" * 16}) == b"\xab" * 16


def test_without_the_variable_one_random_key_serves_the_whole_process() -> None:
    first = tk.server_key({})
    assert len(first) == 32
    assert tk.server_key({}) == first
    assert tk.server_key({"RELAYROAM_TOKEN_KEY": ""}) == first
    assert tk.server_key({"RELAYROAM_TOKEN_KEY": "   "}) == first


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("not-hex-at-all-but-long-enough-for-a-key", "hex digits"),
        ("abc", "hex digits"),  # odd length
        ("ab" * 15, "at least 16 bytes"),
    ],
)
def test_a_bad_key_in_the_environment_is_a_config_error_that_hides_it(value: str, why: str) -> None:
    with pytest.raises(ConfigError, match=why) as info:
        tk.server_key({"RELAYROAM_TOKEN_KEY": value})
    assert value not in str(info.value)
    assert "RELAYROAM_TOKEN_KEY" in str(info.value)
