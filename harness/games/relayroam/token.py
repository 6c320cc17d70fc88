"""Relayroam state tokens (decision RR17): the whole game state, signed, in one string.

A token is ``rr1.<payload>.<signature>`` where ``payload`` is the base64url (no
padding) of the state's canonical JSON (:func:`~.state.to_canonical_json`: sorted
keys, compact separators, ASCII) and ``signature`` is the base64url (no padding) of
``HMAC-SHA256(key, "rr1." + payload)``. The server keeps no sessions: a client
carries the token forward, and the signature makes sure it came from the server.

:func:`decode_token` runs its checks in a fixed order and names the first that
fails: shape, alphabet, signature (compared in constant time), then the state's own
checks (:func:`~.state.from_canonical_json`). No message ever contains the key or a
signature the server computed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Literal

from harness.errors import HarnessError
from harness.games.relayroam.state import State, StateError, from_canonical_json, to_canonical_json
from harness.signed import check_key, hex_key, process_key, seal, unseal
from harness.text import cut_short

#: The version prefix of every token (the first dot-separated part).
PREFIX = "rr1"
#: The environment variable that holds the server's signing key, as hex digits.
KEY_ENV = "RELAYROAM_TOKEN_KEY"
#: Longer tokens are refused before any decoding (a real one is a few hundred chars).
MAX_TOKEN_LENGTH = 4096
#: A state check's message is quoted up to this many characters.
MAX_DETAIL = 240

TokenCheck = Literal["shape", "alphabet", "signature", "state"]


class InvalidStateToken(HarnessError, ValueError):
    """A state token was refused; ``check`` names the check that failed (RR17).

    The message is one sentence saying what is wrong; it never holds the key.
    """

    def __init__(self, check: TokenCheck, message: str) -> None:
        super().__init__(message)
        self.check: TokenCheck = check


def encode_token(state: State, key: bytes) -> str:
    """The RR17 token of ``state`` signed with ``key``."""
    return seal(PREFIX, to_canonical_json(state).encode("ascii"), key)


def decode_token(token: str, key: bytes) -> State:
    """The state inside ``token``, once every check passes; else :class:`InvalidStateToken`.

    Checks, in order: shape (a string of at most :data:`MAX_TOKEN_LENGTH` characters,
    three dot-separated non-empty parts, the first ``rr1``), alphabet (payload and
    signature are canonical unpadded base64url, the signature 32 bytes), signature
    (HMAC-SHA256 with ``key``, compared with :func:`hmac.compare_digest`), state (the
    payload is ASCII canonical JSON that :func:`from_canonical_json` accepts).
    """
    check_key(key)
    if not isinstance(token, str):
        raise InvalidStateToken(
            "shape", f"invalid state token: it must be a string, not {type(token).__name__}"
        )
    raw_payload = unseal(
        token,
        key,
        prefix=PREFIX,
        max_chars=MAX_TOKEN_LENGTH,
        refuse=InvalidStateToken,
        version="the only token version this server issues",
        forged="invalid state token: its signature is not from this server's key, so "
        "this game cannot go on; start a new game. The server's key has changed since "
        "the game began (a restart without a kept key does that: see `lighthouse serve "
        "--help`), or the token was edited",
    )
    try:
        text = raw_payload.decode("ascii")
    except UnicodeDecodeError:
        raise InvalidStateToken(
            "state", "invalid state token: the payload is not ASCII JSON"
        ) from None
    try:
        state = from_canonical_json(text)
    except StateError as exc:  # every failure of a state's JSON, however deep or large
        detail = cut_short(str(exc), MAX_DETAIL)
        raise InvalidStateToken(
            "state", f"invalid state token: the state fails its checks ({detail})"
        ) from None
    if to_canonical_json(state) != text:
        raise InvalidStateToken(
            "state", "invalid state token: the payload is not the state's canonical JSON"
        )
    return state


def server_key(
    environ: Mapping[str, str] | None = None, fallback: Callable[[], bytes] | None = None
) -> bytes:
    """The server's signing key.

    From :data:`KEY_ENV` (``RELAYROAM_TOKEN_KEY``) when it is set and non-empty: the
    value is **hex**, at least 32 digits (16 bytes), e.g. the output of
    ``python -c "import secrets; print(secrets.token_hex(32))"``; anything else raises
    :class:`~harness.errors.ConfigError` (whose message never repeats the value).
    Otherwise ``fallback()`` when given (``lighthouse serve`` keeps a key in a file, so
    tokens outlive a restart), else a random 32-byte key, made once and kept for the
    process's life, so tokens stay valid until the process ends. ``environ`` defaults
    to ``os.environ``.
    """
    env = os.environ if environ is None else environ
    value = env.get(KEY_ENV, "").strip()
    if not value:
        return process_key() if fallback is None else fallback()
    return hex_key(value, KEY_ENV)


__all__ = [
    "KEY_ENV",
    "MAX_TOKEN_LENGTH",
    "PREFIX",
    "InvalidStateToken",
    "TokenCheck",
    "decode_token",
    "encode_token",
    "server_key",
]
