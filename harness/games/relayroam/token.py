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

import base64
import binascii
import hashlib
import hmac
import os
import re
import secrets
import threading
from collections.abc import Callable, Mapping
from typing import Literal

from harness.errors import ConfigError, HarnessError
from harness.games.relayroam.state import State, StateError, from_canonical_json, to_canonical_json

#: The version prefix of every token (the first dot-separated part).
PREFIX = "rr1"
#: The environment variable that holds the server's signing key, as hex digits.
KEY_ENV = "RELAYROAM_TOKEN_KEY"
#: The fewest bytes a key from the environment may have (32 hex digits).
MIN_KEY_BYTES = 16
#: The length of a random per-process key.
RANDOM_KEY_BYTES = 32
#: Longer tokens are refused before any decoding (a real one is a few hundred chars).
MAX_TOKEN_LENGTH = 4096
#: HMAC-SHA256 digests are 32 bytes: 43 base64url characters without padding.
SIGNATURE_BYTES = hashlib.sha256().digest_size
#: A state check's message is quoted up to this many characters.
MAX_DETAIL = 240

TokenCheck = Literal["shape", "alphabet", "signature", "state"]

_B64URL = re.compile(r"[A-Za-z0-9_-]+")
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})+")


class InvalidStateToken(HarnessError, ValueError):
    """A state token was refused; ``check`` names the check that failed (RR17).

    The message is one sentence saying what is wrong; it never holds the key.
    """

    def __init__(self, check: TokenCheck, message: str) -> None:
        super().__init__(message)
        self.check: TokenCheck = check


def _b64encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64decode(text: str, part: str) -> bytes:
    """Decode unpadded base64url ``text``, accepting only its one canonical spelling.

    The last character of unpadded base64 carries unused low bits; a decoder that
    ignores them would accept several spellings of one token, so a changed character
    could slip through. Re-encoding and comparing rules that out.
    """
    if not _B64URL.fullmatch(text):
        raise InvalidStateToken(
            "alphabet",
            f"invalid state token: the {part} holds characters outside base64url "
            "(A-Z, a-z, 0-9, '-', '_'; no padding)",
        )
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        data = None
    if data is None or _b64encode(data) != text:
        raise InvalidStateToken(
            "alphabet",
            f"invalid state token: the {part} is not canonical unpadded base64url",
        )
    return data


def _signature(key: bytes, signed: str) -> bytes:
    return hmac.new(key, signed.encode("ascii"), hashlib.sha256).digest()


def _check_key(key: bytes) -> None:
    if not isinstance(key, bytes) or not key:
        raise ConfigError("a state token key must be non-empty bytes")


def encode_token(state: State, key: bytes) -> str:
    """The RR17 token of ``state`` signed with ``key``."""
    _check_key(key)
    payload = _b64encode(to_canonical_json(state).encode("ascii"))
    signed = f"{PREFIX}.{payload}"
    return f"{signed}.{_b64encode(_signature(key, signed))}"


def decode_token(token: str, key: bytes) -> State:
    """The state inside ``token``, once every check passes; else :class:`InvalidStateToken`.

    Checks, in order: shape (a string of at most :data:`MAX_TOKEN_LENGTH` characters,
    three dot-separated non-empty parts, the first ``rr1``), alphabet (payload and
    signature are canonical unpadded base64url, the signature 32 bytes), signature
    (HMAC-SHA256 with ``key``, compared with :func:`hmac.compare_digest`), state (the
    payload is ASCII canonical JSON that :func:`from_canonical_json` accepts).
    """
    _check_key(key)
    if not isinstance(token, str):
        raise InvalidStateToken(
            "shape", f"invalid state token: it must be a string, not {type(token).__name__}"
        )
    if len(token) > MAX_TOKEN_LENGTH:
        raise InvalidStateToken(
            "shape",
            f"invalid state token: it is {len(token)} characters long, more than the "
            f"{MAX_TOKEN_LENGTH} a token can have",
        )
    parts = token.split(".")
    if len(parts) != 3 or not all(parts):
        raise InvalidStateToken(
            "shape",
            f"invalid state token: it must be {PREFIX}.<payload>.<signature> (3 non-empty "
            f"dot-separated parts), but it has {len(parts)} part(s)"
            + ("" if len(parts) != 3 else ", some of them empty"),
        )
    prefix, payload, signature = parts
    if prefix != PREFIX:
        raise InvalidStateToken(
            "shape",
            f"invalid state token: it must start with {PREFIX!r}, the only token version "
            "this server issues",
        )
    raw_payload = _b64decode(payload, "payload")
    given = _b64decode(signature, "signature")
    if len(given) != SIGNATURE_BYTES:
        raise InvalidStateToken(
            "alphabet",
            f"invalid state token: the signature decodes to {len(given)} bytes, not the "
            f"{SIGNATURE_BYTES} of an HMAC-SHA256",
        )
    expected = _signature(key, f"{PREFIX}.{payload}")
    if not hmac.compare_digest(given, expected):
        raise InvalidStateToken(
            "signature",
            "invalid state token: its signature is not from this server's key, so "
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
        detail = str(exc)
        if len(detail) > MAX_DETAIL:
            detail = detail[: MAX_DETAIL - 3] + "..."
        raise InvalidStateToken(
            "state", f"invalid state token: the state fails its checks ({detail})"
        ) from None
    if to_canonical_json(state) != text:
        raise InvalidStateToken(
            "state", "invalid state token: the payload is not the state's canonical JSON"
        )
    return state


_process_key: bytes | None = None
_process_key_lock = threading.Lock()


def _random_process_key() -> bytes:
    global _process_key
    with _process_key_lock:
        if _process_key is None:
            _process_key = secrets.token_bytes(RANDOM_KEY_BYTES)
        return _process_key


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
        return _random_process_key() if fallback is None else fallback()
    if not _HEX.fullmatch(value):
        raise ConfigError(
            f"{KEY_ENV} must be an even number of hex digits (0-9, a-f); its value is not"
        )
    key = bytes.fromhex(value)
    if len(key) < MIN_KEY_BYTES:
        raise ConfigError(
            f"{KEY_ENV} must hold at least {MIN_KEY_BYTES} bytes ({2 * MIN_KEY_BYTES} hex "
            f"digits); it holds {len(key)}"
        )
    return key


__all__ = [
    "KEY_ENV",
    "MAX_TOKEN_LENGTH",
    "MIN_KEY_BYTES",
    "PREFIX",
    "InvalidStateToken",
    "TokenCheck",
    "decode_token",
    "encode_token",
    "server_key",
]
