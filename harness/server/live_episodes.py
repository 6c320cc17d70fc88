"""Episodes in play kept between requests, so that a stepped game's request is one tick.

The token of a stepped game (:mod:`harness.server.step_token`) holds every reply sent,
and the server can always play the episode again from them; but doing so on every
request makes a request cost the ticks played so far, and an episode the square of
its length. So the server keeps the last few episodes it left waiting, each under
the digest of the history that leads to it, and a request whose token leads to one
takes it (no other request can then have it) instead of playing it again. What it
answers is the same either way: a miss (another server, a restart, an old token, an
episode pushed out by newer ones) only costs the replay. An episode pushed out is
closed.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Generic, Protocol, TypeVar

#: How many waiting episodes a server keeps (each holds an event loop: 3 file
#: descriptors).
DEFAULT_LIVE_EPISODES = 32


class Closable(Protocol):
    """An episode in play, which must be closed when it is dropped."""

    def close(self) -> None:
        """Stop it and free what it holds."""


E = TypeVar("E", bound=Closable)


def history_key(canonical: bytes) -> bytes:
    """The key an episode is kept under: the digest of its history's canonical form."""
    return hashlib.sha256(canonical).digest()


class LiveEpisodes(Generic[E]):
    """At most ``size`` episodes, by key, the least recently kept pushed out first.
    Safe to use from several threads; an episode taken belongs to its taker alone."""

    def __init__(self, size: int = DEFAULT_LIVE_EPISODES) -> None:
        if size < 0:
            raise ValueError("size must be 0 or more")
        self.size = size
        self._kept: OrderedDict[bytes, E] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._kept)

    def take(self, key: bytes) -> E | None:
        """The episode kept under ``key``, no longer kept; None when there is none."""
        with self._lock:
            return self._kept.pop(key, None)

    def keep(self, key: bytes, episode: E) -> None:
        """Keep ``episode`` under ``key``; close whatever this pushes out."""
        dropped: list[E] = []
        with self._lock:
            old = self._kept.pop(key, None)
            if old is not None and old is not episode:
                dropped.append(old)
            self._kept[key] = episode
            while len(self._kept) > self.size:
                dropped.append(self._kept.popitem(last=False)[1])
        for gone in dropped:  # outside the lock: closing runs the episode's loop
            gone.close()

    def clear(self) -> None:
        """Close and drop every episode kept."""
        with self._lock:
            dropped = list(self._kept.values())
            self._kept.clear()
        for gone in dropped:
            gone.close()


__all__ = ["DEFAULT_LIVE_EPISODES", "Closable", "LiveEpisodes", "history_key"]
