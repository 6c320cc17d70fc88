"""Relayroam's HTTP API part (decisions RR15, RR17, RR18): stateless, by signed tokens.

``init`` returns a signed state token (RR17); every ``action`` sends the token back
with one action and gets the next token and the rules' result (RR15). Anything inside
the action goes to :func:`~.rules.step`, which refuses a bad action with a teaching
reason (an answer, HTTP 200); only a token this server did not sign is refused as a
request. The server (:mod:`harness.server.app`) owns the HTTP side.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from harness.games.relayroam.observe import observation_json, observe
from harness.games.relayroam.rng import MAX_SEED
from harness.games.relayroam.rules import new_game, result_json, step
from harness.games.relayroam.token import (
    InvalidStateToken,
    decode_token,
    encode_token,
    server_key,
)
from harness.models import JsonObject
from harness.protocol import RequestRefused
from harness.protocol.page_kit import read_page

PAGE_FILE = Path(__file__).with_name("page.html")


class RelayroamApi:
    """Relayroam's answers to ``init`` and ``action``; its playable page."""

    max_seed = MAX_SEED
    state_key = "stateToken"

    def signing_key(self, kept: Callable[[], bytes] | None = None) -> bytes:
        return server_key(fallback=kept)

    def init(self, seed: int, key: bytes) -> JsonObject:
        state = new_game(seed)
        obs = observation_json(observe(state))
        return {
            "stateToken": encode_token(state, key),
            "observation": obs,
            "ok": True,
            "legalActions": obs["legalActions"],
            "score": state.score,
            "phase": state.phase,
        }

    def action(self, token: object, action: object, key: bytes) -> JsonObject:
        if not isinstance(token, str):
            raise RequestRefused(
                "invalid_state_token",
                "invalid state token: stateToken must be the string the last response returned",
            )
        try:
            state = decode_token(token, key)
        except InvalidStateToken as exc:
            raise RequestRefused("invalid_state_token", str(exc)) from None
        result = step(state, action)
        # A refusal leaves the state as it was (RR14): hand back the very token sent.
        new_token = token if not result.ok else encode_token(result.state, key)
        return {
            "stateToken": new_token,
            "observation": observation_json(observe(result.state)),
            **result_json(result),
        }

    def page(self) -> str | None:
        return read_page(PAGE_FILE, solo=True)


__all__ = ["PAGE_FILE", "RelayroamApi"]
