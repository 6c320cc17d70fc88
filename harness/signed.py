"""Signed tokens, as the HTTP APIs hand their state to clients and take it back.

A token is ``PREFIX.<payload>.<signature>``: the payload and an HMAC-SHA256 of
``PREFIX.<payload>`` under the server's key, both unpadded base64url. :func:`unseal`
checks, in order, the token's length and shape, its prefix, the alphabet (each part's
one canonical spelling: a decoder that ignored the last character's unused bits would
take several spellings of one token) and the signature (compared in constant time),
and only then hands back the payload's bytes; what they hold is the caller's to check.
Each API raises its own error (``refuse``), with the check that failed.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import secrets
import threading
from typing import Literal, Protocol

from harness.errors import ConfigError

#: HMAC-SHA256 digests are 32 bytes: 43 base64url characters without padding.
SIGNATURE_BYTES = hashlib.sha256().digest_size
#: The length of a random per-process key.
RANDOM_KEY_BYTES = 32
#: The fewest bytes a key given as hex digits may have (RELAYROAM_TOKEN_KEY, the key
#: file ``lighthouse serve`` keeps): 32 digits.
MIN_KEY_BYTES = 16

EnvelopeCheck = Literal["shape", "alphabet", "signature"]

_B64URL = re.compile(r"[A-Za-z0-9_-]+")
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})+")


class Refuse(Protocol):
    """Makes the caller's error for a token that failed ``check``."""

    def __call__(self, check: EnvelopeCheck, message: str, /) -> Exception: ...


def check_key(key: bytes) -> None:
    """A :class:`ConfigError` unless ``key`` is non-empty bytes."""
    if not isinstance(key, bytes) or not key:
        raise ConfigError("a state token key must be non-empty bytes")


def hex_key(text: str, where: str, remedy: str = "") -> bytes:
    """The key ``text`` spells in hex digits, at least :data:`MIN_KEY_BYTES` of it.

    Anything else is a :class:`ConfigError` that starts with ``where`` (what held the
    text) and never repeats the text; ``remedy`` ends the message of text that is no
    key at all.
    """
    if not _HEX.fullmatch(text):
        raise ConfigError(
            f"{where} does not hold a key (an even number of hex digits, 0-9 and a-f){remedy}"
        )
    key = bytes.fromhex(text)
    if len(key) < MIN_KEY_BYTES:
        raise ConfigError(
            f"{where} holds {len(key)} bytes; a key has at least {MIN_KEY_BYTES} bytes "
            f"({2 * MIN_KEY_BYTES} hex digits)"
        )
    return key


def b64encode(data: bytes) -> str:
    """``data`` as unpadded base64url."""
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64decode(text: str, part: str, refuse: Refuse) -> bytes:
    """Unpadded base64url ``text``, accepting only its one canonical spelling."""
    if not _B64URL.fullmatch(text):
        raise refuse(
            "alphabet",
            f"invalid state token: the {part} holds characters outside base64url "
            "(A-Z, a-z, 0-9, '-', '_'; no padding)",
        )
    try:
        data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        data = None
    if data is None or b64encode(data) != text:
        raise refuse(
            "alphabet", f"invalid state token: the {part} is not canonical unpadded base64url"
        )
    return data


def _signature(key: bytes, signed: str) -> bytes:
    return hmac.new(key, signed.encode("ascii"), hashlib.sha256).digest()


def seal(prefix: str, payload: bytes, key: bytes) -> str:
    """The token of ``payload`` under ``prefix``, signed with ``key``."""
    check_key(key)
    signed = f"{prefix}.{b64encode(payload)}"
    return f"{signed}.{b64encode(_signature(key, signed))}"


def unseal(
    token: str,
    key: bytes,
    *,
    prefix: str,
    max_chars: int,
    refuse: Refuse,
    version: str,
    forged: str,
) -> bytes:
    """The payload of ``token`` once its shape, prefix, alphabet and signature pass
    (see the module's docstring); else ``refuse(check, message)`` is raised.
    ``version`` ends the message for another prefix, ``forged`` is the message for a
    signature not from ``key``."""
    check_key(key)
    if len(token) > max_chars:
        raise refuse(
            "shape",
            f"invalid state token: it is {len(token)} characters long, more than the "
            f"{max_chars} a token can have",
        )
    parts = token.split(".")
    if len(parts) != 3 or not all(parts):
        raise refuse(
            "shape",
            f"invalid state token: it must be {prefix}.<payload>.<signature> (3 non-empty "
            f"dot-separated parts), but it has {len(parts)} part(s)"
            + ("" if len(parts) != 3 else ", some of them empty"),
        )
    given_prefix, payload, signature = parts
    if given_prefix != prefix:
        raise refuse("shape", f"invalid state token: it must start with {prefix!r}, {version}")
    raw = _b64decode(payload, "payload", refuse)
    given = _b64decode(signature, "signature", refuse)
    if len(given) != SIGNATURE_BYTES:
        raise refuse(
            "alphabet",
            f"invalid state token: the signature decodes to {len(given)} bytes, not the "
            f"{SIGNATURE_BYTES} of an HMAC-SHA256",
        )
    if not hmac.compare_digest(given, _signature(key, f"{prefix}.{payload}")):
        raise refuse("signature", forged)
    return raw


_process_key: bytes | None = None
_process_key_lock = threading.Lock()


def process_key() -> bytes:
    """A random key, made once for this process (tokens signed with it last as long
    as the process does)."""
    global _process_key
    with _process_key_lock:
        if _process_key is None:
            _process_key = secrets.token_bytes(RANDOM_KEY_BYTES)
        return _process_key


__all__ = [
    "MIN_KEY_BYTES",
    "RANDOM_KEY_BYTES",
    "SIGNATURE_BYTES",
    "EnvelopeCheck",
    "Refuse",
    "b64encode",
    "check_key",
    "hex_key",
    "process_key",
    "seal",
    "unseal",
]
