"""The signed token of an episode played step by step over HTTP (Lighthouse's API).

The server keeps no episode: the token holds what makes it, the game, seed, variant,
the seats the client plays and every reply the client has sent, step by step, and
the server plays the episode again from them on every request (the rules, the
baselines and the parser are pure, so the same replies make the same episode).

A token is ``ep1.<payload>.<signature>``: ``payload`` is the base64url (no padding)
of the zlib-compressed canonical JSON of a :class:`StepHistory`, ``signature`` the
base64url (no padding) of ``HMAC-SHA256(key, "ep1." + payload)``. :func:`decode_token`
checks, in order and naming the first that fails: shape (a string of at most
:data:`MAX_TOKEN_CHARS` characters, three parts, the prefix), alphabet (canonical
unpadded base64url, a 32-byte signature), signature (constant-time compare), then
the history itself (it inflates to at most :data:`MAX_HISTORY_BYTES` of strict JSON
that :class:`StepHistory` accepts, written by this version of the harness). No
message ever holds the key or a signature the server computed.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from typing import Annotated, Literal

from pydantic import Field, StringConstraints, ValidationError

from harness import __version__
from harness.errors import HarnessError
from harness.json_reply import StrictJsonError, a_json_type, strict_loads
from harness.models import StrictModel
from harness.seat_spec import HumanSeatConfig
from harness.signed import check_key, process_key, seal, unseal
from harness.validation import MAX_SEED

#: The version prefix of every token (the first dot-separated part).
PREFIX = "ep1"
#: Longer tokens are refused before any decoding. A whole episode of baseline-sized
#: replies makes a token of about 3,000 characters.
MAX_TOKEN_CHARS = 96 * 1024
#: A payload inflates to at most this many bytes (a larger one is refused unread).
MAX_HISTORY_BYTES = 1024 * 1024
#: The longest reply the API takes, in characters (the rules cap a keeper's message
#: at 160 runes and its notes at 400: a usable reply is far shorter).
MAX_REPLY_CHARS = 4096
#: The most steps a history holds (a step is one request's replies; an episode of
#: Lighthouse has at most 60 ticks, each of at most two steps: the first ask and a retry).
MAX_STEPS = 512
#: A history check's message is quoted up to this many characters.
MAX_DETAIL = 240

TokenCheck = Literal["shape", "alphabet", "signature", "history"]

#: A seat id as a history holds it.
SeatId = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,31}$")]
#: A reply as a history holds it.
ReplyText = Annotated[str, Field(max_length=MAX_REPLY_CHARS)]


class InvalidStepToken(HarnessError, ValueError):
    """A step token was refused; ``check`` names the check that failed."""

    def __init__(self, check: TokenCheck, message: str) -> None:
        super().__init__(message)
        self.check: TokenCheck = check


class StepHistory(StrictModel):
    """What a step token carries: an episode's start and every reply the client sent.

    ``steps[i]`` is the i-th request's replies, seat id -> reply text, exactly the
    seats that were waiting then (a retry is a step of its own); a person's reply is
    None when their per-tick timer ran out.
    """

    version: str = Field(max_length=64)
    game: str = Field(max_length=64)
    seed: int = Field(ge=0, le=MAX_SEED)
    variant: str = Field(max_length=64)
    plays: tuple[SeatId, ...] = Field(min_length=1, max_length=64)
    steps: tuple[dict[SeatId, ReplyText | None], ...] = Field(max_length=MAX_STEPS)
    player: HumanSeatConfig | None = Field(
        None,
        description="The person who plays the seats ``plays`` names (decision L4), or "
        "None for a program; a step's None reply is then their timer running out.",
    )

    def canonical(self) -> bytes:
        """The history's canonical JSON (sorted keys, compact, UTF-8)."""
        data = self.model_dump(mode="json")
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def encode_token(history: StepHistory, key: bytes) -> str:
    """The token of ``history`` signed with ``key`` (its length may pass
    :data:`MAX_TOKEN_CHARS`: the caller checks)."""
    return seal(PREFIX, zlib.compress(history.canonical(), 9), key)


def decode_token(token: object, key: bytes) -> StepHistory:
    """The history inside ``token`` once every check passes; else :class:`InvalidStepToken`."""
    check_key(key)
    if not isinstance(token, str):
        raise InvalidStepToken(
            "shape",
            f"invalid state token: stateToken must be the string the last response "
            f"returned, not {a_json_type(token)}",
        )
    raw = unseal(
        token,
        key,
        prefix=PREFIX,
        max_chars=MAX_TOKEN_CHARS,
        refuse=InvalidStepToken,
        version="the only version of this game's token this server issues",
        forged="invalid state token: its signature is not from this server's key, so this "
        "episode cannot go on; start a new one. The server's key has changed since the "
        "episode began (a restart without a kept key does that: see `lighthouse serve "
        "--help`), or the token was edited",
    )
    return _history(raw)


def _history(raw: bytes) -> StepHistory:
    """A signed payload's history (signed by this server, so only a version change or
    a bug makes one fail; still checked, and bounded, as any input is)."""
    inflate = zlib.decompressobj()
    try:
        data = inflate.decompress(raw, MAX_HISTORY_BYTES + 1)
    except zlib.error:
        raise InvalidStepToken(
            "history", "invalid state token: the payload does not inflate"
        ) from None
    if len(data) > MAX_HISTORY_BYTES or inflate.unconsumed_tail or not inflate.eof:
        raise InvalidStepToken(
            "history", "invalid state token: the payload is not one whole, bounded history"
        )
    try:
        # bounded by MAX_HISTORY_BYTES, and written by this server: no token limit
        found = strict_loads(data.decode("utf-8"), max_tokens=None)
    except (UnicodeDecodeError, StrictJsonError):
        raise InvalidStepToken(
            "history", "invalid state token: the payload is not strict JSON"
        ) from None
    try:
        history = StepHistory.model_validate(found)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "the history"
        detail = f"{where}: {error['msg']}"[:MAX_DETAIL]
        raise InvalidStepToken(
            "history", f"invalid state token: the history fails its checks ({detail})"
        ) from None
    if history.version != __version__:
        shown = history.version[:40]
        raise InvalidStepToken(
            "history",
            f"invalid state token: it was issued by version {shown} of the harness, and "
            f"this server runs {__version__}; start a new episode",
        )
    return history


def step_key(fallback: Callable[[], bytes] | None = None) -> bytes:
    """The key step tokens are signed with: ``fallback()``, the key ``lighthouse serve``
    keeps in its key file (:mod:`harness.server.key_file`), when given; else a random
    key made once for the process (tokens then last as long as it does)."""
    return process_key() if fallback is None else fallback()


__all__ = [
    "MAX_REPLY_CHARS",
    "MAX_STEPS",
    "MAX_TOKEN_CHARS",
    "PREFIX",
    "InvalidStepToken",
    "StepHistory",
    "decode_token",
    "encode_token",
    "step_key",
]
