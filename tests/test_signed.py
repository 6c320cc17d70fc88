"""The signed-token envelope both HTTP APIs use: what it refuses, and with which check."""

from __future__ import annotations

import pytest

from harness.errors import ConfigError
from harness.signed import seal, unseal

KEY = b"k" * 32


class Refused(Exception):
    def __init__(self, check: str, message: str) -> None:
        super().__init__(message)
        self.check = check


def opened(token: str, key: bytes = KEY) -> bytes:
    return unseal(
        token, key, prefix="t1", max_chars=200, refuse=Refused, version="v", forged="forged"
    )


def refusal(token: str, key: bytes = KEY) -> tuple[str, str]:
    with pytest.raises(Refused) as caught:
        opened(token, key)
    return caught.value.check, str(caught.value)


def test_a_sealed_payload_opens_as_it_was_and_only_under_its_key() -> None:
    token = seal("t1", b"\x00payload\xff", KEY)
    assert token.startswith("t1.")
    assert opened(token) == b"\x00payload\xff"
    assert refusal(token, b"another key") == ("signature", "forged")
    with pytest.raises(ConfigError):
        seal("t1", b"x", b"")


def test_each_way_a_token_can_be_wrong_names_its_check() -> None:
    token = seal("t1", b"payload", KEY)
    _, payload, signature = token.split(".")
    assert refusal("x" * 201)[0] == "shape"
    assert refusal(f"{payload}.{signature}")[0] == "shape"
    assert refusal(f"t2.{payload}.{signature}") == (
        "shape",
        "invalid state token: it must start with 't1', v",
    )
    assert refusal(f"t1.{payload}=.{signature}")[0] == "alphabet"
    # the last character's unused bits: another spelling of the same bytes is refused
    spelt = payload[:-1] + chr(ord(payload[-1]) ^ 1)
    assert refusal(f"t1.{spelt}.{signature}")[0] in {"alphabet", "signature"}
    assert refusal(f"t1.{payload}.{signature[:-4]}")[0] == "alphabet"
    flipped = signature[:5] + ("A" if signature[5] != "A" else "B") + signature[6:]
    assert refusal(f"t1.{payload}.{flipped}") == ("signature", "forged")
