"""The HTTP API part (optional): a game's stateless JSON API, mounted by ``lighthouse serve``.

The server owns HTTP: it routes ``GET /api/games/<game>/init?seed=N`` and ``POST
/api/games/<game>/action`` with the body ``{<state_key>: ..., "action": ...}``, bounds
and reads the request and parses the seed and the body's envelope (strict JSON, one
object, exactly those two keys). The part owns the game: it answers with the state the
next request sends back (a signed token, or the state itself) and what the player
sees, so the server keeps no game state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from harness.errors import HarnessError
from harness.models import JsonObject


class RequestRefused(HarnessError):
    """A request the game cannot answer: HTTP 400 ``{"error": error, "message": ...}``."""

    def __init__(self, error: str, message: str) -> None:
        super().__init__(message)
        self.error = error
        self.message = message


class HttpApi(Protocol):
    """A game's answers to the two API routes, and its playable page."""

    @property
    def max_seed(self) -> int:
        """The largest seed ``init`` accepts (the smallest is 0)."""
        ...

    @property
    def state_key(self) -> str:
        """The action body's key for the state the last response returned.

        The body is exactly ``{state_key: ..., "action": ...}``: Relayroam's
        ``"stateToken"`` is a signed string, Hourloom's ``"state"`` the state object.
        """
        ...

    def signing_key(self, kept: Callable[[], bytes] | None = None) -> bytes:
        """The key states are signed with when the server is given none.

        Read from the game's environment variable when it is set; else ``kept()``, the
        key the server keeps across restarts (``lighthouse serve``), when given; else
        made once for the process. Not pure. A game whose states are not signed
        returns ``b""``, never calls ``kept``, and ignores the key it is handed.
        """
        ...

    def init(self, seed: int, key: bytes) -> JsonObject:
        """The first response of episode ``seed``: its state and what the player sees."""
        ...

    def action(self, state: object, action: object, key: bytes) -> JsonObject:
        """The response to ``action`` on ``state`` (the JSON value sent under
        :attr:`state_key`, unchecked).

        A state the game cannot take (a token ``key`` did not sign, a state that fails
        its structural check), or an action malformed where the game's API draws its
        boundary, raises :class:`RequestRefused`; an action the rules refuse is an
        answer (HTTP 200), not an error.
        """
        ...

    def page(self) -> str | None:
        """An HTML page to play the game in a browser (read from the game's package)."""
        ...


__all__ = ["HttpApi", "RequestRefused"]
