"""The HTTP API part (optional): a game's stateless JSON API, mounted by ``lighthouse serve``.

The server owns HTTP: it routes ``GET /api/games/<game>/init?seed=N`` and ``POST
/api/games/<game>/action`` with the body ``{"stateToken": ..., "action": ...}``, bounds
and reads the request and parses the seed and the body's envelope. The part owns the
game: it answers with a signed state token and what the player sees, so the server
keeps no game state.
"""

from __future__ import annotations

from typing import Any, Protocol

from harness.errors import HarnessError


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

    def signing_key(self) -> bytes:
        """The key state tokens are signed with when the server is given none.

        Read from the environment, or made once for the process: not pure.
        """
        ...

    def init(self, seed: int, key: bytes) -> dict[str, Any]:
        """The first response of episode ``seed``: its state token and what the player sees."""
        ...

    def action(self, token: str, action: object, key: bytes) -> dict[str, Any]:
        """The response to ``action`` on the state ``token`` holds.

        A token that ``key`` did not sign raises :class:`RequestRefused`; an action the
        rules refuse is an answer (HTTP 200), not an error.
        """
        ...

    def page(self) -> str | None:
        """An HTML page to play the game in a browser (read from the game's package)."""
        ...


__all__ = ["HttpApi", "RequestRefused"]
