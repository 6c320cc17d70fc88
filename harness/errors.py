"""The harness's one exception tree.

Every error the harness raises on purpose derives from :class:`HarnessError`, so a
caller can catch the whole family in one place and let genuine bugs through::

    HarnessError
    ├── ConfigError            a config value is invalid (the message names the field)
    ├── BoardError             a board cannot be generated or an ASCII board is malformed
    ├── RulesError             a game was driven outside its rules (e.g. a move for a
    │                          resolved runner, a tick after the end)
    ├── RecordError            an episode record is malformed or unreadable, or a
    │                          results line does not match its record
    ├── FolderError            a results folder cannot be used: not a folder, no
    │                          permission, a name too long, or another run writes it
    ├── WorkerError            a worker process playing scripted episodes died (killed,
    │                          out of memory); what finished is kept, resuming plays the rest
    ├── PlayBudgetExhausted    the episode's play budget ran out during a tick (D2);
    │                          the runner ends the episode with reason deadline
    └── ProviderError          an LLM call failed (messages never contain an API key:
        │                      they pass harness.llm.secrets.redact)
        ├── TransientProviderError   worth retrying: 429, 5xx, timeout, dropped connection
        ├── BadResponseError         an answer that cannot be used (invalid UTF-8, not a
        │                            completion, a body past the size cap): the seat
        │                            falls back for the tick, no retry
        ├── RefusedRequestError      the server refused the request itself as invalid (a
        │                            4xx other than 401/403/404/408/409/429, or a 5xx
        │                            whose body says so): never retried; the preflight
        │                            tries the next structured-output shape or stops
        │                            the run, an episode's turn falls back
        └── FatalProviderError       auth, not found: stops the run (a preflight call
                                     catches these early); a missing or malformed key
                                     (kinds missing_key, bad_key) stops it before any
                                     call is made

A model reply that fails to parse is *not* an exception: it is an expected outcome,
returned as a :class:`harness.json_reply.ParseFailure` value.
"""

from __future__ import annotations

from typing import Literal


class HarnessError(Exception):
    """Base class of every error the harness raises deliberately."""


class ConfigError(HarnessError, ValueError):
    """A configuration value is invalid; the message names the offending field."""


class BoardError(HarnessError, ValueError):
    """A board could not be generated, or an ASCII board is malformed."""


class RulesError(HarnessError):
    """A game state was asked to do something the rules do not allow.

    ``tick`` is the tick it happened at, when known (the runner sets it on an error
    raised during a tick).
    """

    def __init__(self, message: str, *, tick: int | None = None) -> None:
        super().__init__(message)
        self.tick = tick


class RecordError(HarnessError, ValueError):
    """An episode record is malformed, truncated or of an unknown version.

    Where, when known, as data: ``line`` is the record's line number (1-based) and
    ``tick`` the tick the problem is at.
    """

    def __init__(self, message: str, *, line: int | None = None, tick: int | None = None) -> None:
        super().__init__(message)
        self.line = line
        self.tick = tick


class FolderError(HarnessError):
    """A results folder cannot be used (a file system problem, or another writer holds it)."""


class WorkerError(HarnessError):
    """A worker process died while playing scripted episodes (see harness.tournament.pool)."""


class PlayBudgetExhausted(HarnessError):
    """The episode's wall-clock play budget ran out before a seat could answer (D2)."""


ErrorKind = Literal[
    "rate_limit",
    "server",
    "timeout",
    "connection",
    "decode",
    "too_large",
    "auth",
    "not_found",
    "bad_request",
    "missing_key",
    "bad_key",
]


class ProviderError(HarnessError):
    """An LLM provider call failed. ``kind`` is one of :data:`ErrorKind`.

    ``decode``: an answer that is not a usable completion (not UTF-8, not JSON, not the
    API's shape); ``too_large``: an answer whose body passed the size cap
    (:mod:`harness.llm.bodies`).

    ``missing_key``: the key's environment variable is not set (or empty);
    ``bad_key``: the key is not printable ASCII without whitespace, so no HTTP header
    can carry it. Both are raised when the key is read, before any call.
    """

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind


class TransientProviderError(ProviderError):
    """A failure worth retrying; ``retry_after`` is the server's hint in seconds, if any."""

    def __init__(self, kind: ErrorKind, message: str, retry_after: float | None = None) -> None:
        super().__init__(kind, message)
        self.retry_after = retry_after


class BadResponseError(ProviderError):
    """The provider answered, but not with anything usable (decision R7: fallback_api)."""


class RefusedRequestError(ProviderError):
    """The server refused this request as invalid (kind ``bad_request``): never retried.

    It says nothing about the server's health, only about the request: a
    structured-output shape the server does not take, a prompt too long for the
    model. The preflight tries the next shape (or stops the run when none is left);
    in an episode the turn falls back, with the server's message in the record.
    """


class FatalProviderError(ProviderError):
    """A failure no retry can fix: it stops the run with this message."""


__all__ = [
    "BadResponseError",
    "BoardError",
    "ConfigError",
    "ErrorKind",
    "FatalProviderError",
    "FolderError",
    "HarnessError",
    "PlayBudgetExhausted",
    "ProviderError",
    "RecordError",
    "RefusedRequestError",
    "RulesError",
    "TransientProviderError",
    "WorkerError",
]
