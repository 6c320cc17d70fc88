"""A fleet: one provider whose calls go to several servers (replicas of one model).

A provider whose ``base_url`` is a list sends each call to one of its endpoints:

- **Routing.** The endpoint with the fewest calls in flight (ties: the first in the
  list) among those that are in. A call holds its endpoint from the request's start to
  its end, so a slow endpoint collects fewer calls.
- **Cool-down.** An endpoint that fails the preflight's health check, or answers an
  attempt with a server error (5xx) or a connection error (refused, reset, dropped),
  is out for :data:`COOL_DOWN_SECONDS`, doubled at each failure in a row up to
  :data:`MAX_COOL_DOWN_SECONDS`; once that has passed it is tried again by the next
  call, and its first answer puts it back in for good (the count starts again). A
  timeout, a rate limit or a refused request takes no endpoint out: a slow or busy
  server is still a server, and a request refused for what it says would be refused
  by every replica.
- **Every endpoint out.** The attempt fails as a connection error does, with a retry
  hint of the time until the first endpoint is back: the call wrapper
  (:mod:`harness.llm.calls`) retries it within the seat's allowance, as it retries a
  transport failure of a single server.

The rate limit and the in-flight cap stay the provider's (one limiter per provider and
model, shared by every endpoint): an endpoint is chosen after the limiter admitted the
attempt. Each endpoint is named by :func:`endpoint_label`, its URL without the
credentials a URL may carry (``user:password@``, a query string), which are
registered with the redaction (:func:`register_url_secrets`) when the fleet is built,
so that no record or log line shows them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from harness.errors import ErrorKind, ProviderError, TransientProviderError
from harness.llm.queueing import InFlight
from harness.llm.secrets import register_secret
from harness.llm.types import Completion, CompletionRequest, Provider

#: How long an endpoint is out after its first failure in a row, in seconds.
COOL_DOWN_SECONDS = 2.0
#: The longest an endpoint is out, however many failures in a row.
MAX_COOL_DOWN_SECONDS = 60.0
#: The failures that take an endpoint out: a 5xx, a connection refused or dropped.
COOL_DOWN_KINDS: frozenset[ErrorKind] = frozenset({"server", "connection"})


def endpoint_label(url: str) -> str:
    """``url`` as records, logs and reports name it: without ``user:password@``, a query
    string or a fragment (where credentials may be), otherwise unchanged."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
        port = parts.port
    except ValueError:  # not a URL one can split: shown as nothing of it
        return "(an unreadable URL)"
    if "@" not in parts.netloc and not parts.query and not parts.fragment:
        return url
    netloc = host or ""
    if ":" in netloc:  # an IPv6 address
        netloc = f"[{netloc}]"
    if port is not None:
        netloc += f":{port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def has_credentials(url: str) -> bool:
    """Whether ``url`` carries a user or a password before its host."""
    try:
        netloc = urlsplit(url).netloc
    except ValueError:  # not a URL: the SDKs refuse it at the call
        return False
    return "@" in netloc


#: A URL's part shorter than this is not taken for a secret: the redaction hides a
#: short secret wherever its characters appear, which would spoil every message for a
#: query value such as ``1``. (Records never hold such a part: see :func:`endpoint_label`.)
MIN_URL_SECRET_CHARS = 8


def register_url_secrets(url: str) -> None:
    """Register the credentials ``url`` may carry (its password, and its user and query
    values of :data:`MIN_URL_SECRET_CHARS` characters or more) with the redaction, so
    that a message quoting the URL hides them."""
    try:
        parts = urlsplit(url)
        password = parts.password
        found = [parts.username, *(v for _, v in parse_qsl(parts.query))]
    except ValueError:
        return  # nothing in it can be told apart; records name it as unreadable
    if password:
        register_secret(password)
    for secret in found:
        if secret and len(secret) >= MIN_URL_SECRET_CHARS:
            register_secret(secret)


@dataclass(eq=False)
class Endpoint:
    """One server of a fleet, and what the fleet knows of it."""

    label: str
    provider: Provider
    in_flight: int = 0
    """Calls holding it now."""
    failures: int = 0
    """Failures in a row (reset by an answer)."""
    out_until: float = 0.0
    """Loop time until which it is out (0: in)."""
    answered: int = 0
    """Attempts it answered."""
    last_error: str = ""
    """Its last failure's message (already redacted where it came from)."""
    requests: InFlight = field(default_factory=InFlight)
    """Its requests in flight, for the queueing figures (:mod:`harness.llm.queueing`)."""

    def is_in(self, now: float) -> bool:
        """Whether a call may be sent to it at ``now``."""
        return self.out_until <= now


class Fleet:
    """A :class:`Provider` over several endpoints (see the module's docstring)."""

    def __init__(
        self,
        name: str,
        endpoints: Sequence[tuple[str, Provider]],
        *,
        cool_down_s: float = COOL_DOWN_SECONDS,
        max_cool_down_s: float = MAX_COOL_DOWN_SECONDS,
    ) -> None:
        if not endpoints:
            raise ValueError("a fleet needs at least one endpoint")
        self.name = name
        self.endpoints = [Endpoint(label, provider) for label, provider in endpoints]
        self.cool_down_s = cool_down_s
        self.max_cool_down_s = max_cool_down_s

    def pick(self, now: float) -> Endpoint | None:
        """The endpoint the next call goes to: fewest in flight among those in, ties in
        list order; None when every endpoint is out."""
        live = [e for e in self.endpoints if e.is_in(now)]
        return min(live, key=lambda e: e.in_flight) if live else None

    @asynccontextmanager
    async def lease(self) -> AsyncIterator[Endpoint]:
        """Hold the endpoint one attempt goes to, counted in flight while held.

        Raises :class:`TransientProviderError` (``connection``) when every endpoint is
        out, hinting the time until the first is back.
        """
        now = asyncio.get_running_loop().time()
        endpoint = self.pick(now)
        if endpoint is None:
            back = min(e.out_until for e in self.endpoints) - now
            raise TransientProviderError(
                "connection",
                f"{self.name}: every endpoint is cooling down after failing "
                f"(the first is back in {back:.1f} s)",
                retry_after=max(back, 0.0),
            )
        endpoint.in_flight += 1
        try:
            yield endpoint
        finally:
            endpoint.in_flight -= 1

    def failed(self, endpoint: Endpoint, kind: ErrorKind) -> None:
        """Note an attempt's failure at ``endpoint``: a cooling kind takes it out."""
        if kind not in COOL_DOWN_KINDS:
            return
        endpoint.last_error = f"{kind} error"
        endpoint.failures += 1
        wait = min(self.cool_down_s * 2 ** min(endpoint.failures - 1, 30), self.max_cool_down_s)
        endpoint.out_until = asyncio.get_running_loop().time() + wait

    def succeeded(self, endpoint: Endpoint) -> None:
        """Note an answer from ``endpoint``: it is in, its failures forgotten."""
        endpoint.answered += 1
        endpoint.failures = 0
        endpoint.out_until = 0.0

    async def send(self, endpoint: Endpoint, request: CompletionRequest) -> Completion:
        """``request`` sent to ``endpoint``, its outcome noted."""
        try:
            completion = await endpoint.provider.complete(request)
        except ProviderError as exc:
            self.failed(endpoint, exc.kind)
            if exc.kind in COOL_DOWN_KINDS:
                endpoint.last_error = str(exc)[:300]
            raise
        self.succeeded(endpoint)
        return completion

    async def complete(self, request: CompletionRequest) -> Completion:
        async with self.lease() as endpoint:
            return await self.send(endpoint, request)

    async def check(self, request: CompletionRequest) -> list[str]:
        """The health check: ``request`` sent to each endpoint that is in and has answered
        nothing yet; each that fails in transit is taken out. One line per endpoint out
        afterwards, with its last failure."""
        now = asyncio.get_running_loop().time()
        for endpoint in self.endpoints:
            if endpoint.answered or not endpoint.is_in(now):
                continue
            endpoint.in_flight += 1
            try:
                async with asyncio.timeout(request.timeout_s):
                    await self.send(endpoint, request)
            except TimeoutError:
                pass  # slow is not out (see the module's docstring)
            except ProviderError:
                pass  # counted by send(); a refusal is the preflight's own call's to report
            finally:
                endpoint.in_flight -= 1
        now = asyncio.get_running_loop().time()
        return [
            f"endpoint {e.label} is out for {e.out_until - now:.1f} s, then tried again: "
            f"{e.last_error}"
            for e in self.endpoints
            if not e.is_in(now)
        ]

    async def aclose(self) -> None:
        for endpoint in self.endpoints:
            await endpoint.provider.aclose()


__all__ = [
    "COOL_DOWN_KINDS",
    "COOL_DOWN_SECONDS",
    "MAX_COOL_DOWN_SECONDS",
    "MIN_URL_SECRET_CHARS",
    "Endpoint",
    "Fleet",
    "endpoint_label",
    "has_credentials",
    "register_url_secrets",
]
