"""A seat's memory of its own conversation (seat option ``history = K``).

With ``history`` above 0 an LLM seat sends, before each tick's prompt, its last K
ticks as user and assistant turns (:class:`~harness.llm.prompts.Exchange`): what it
was first sent that tick and what the model last replied. A tick whose every call
failed (no reply at all) leaves nothing to remember and is skipped, so the K are the
last K ticks the model answered.

One seat object plays a seat in many episodes at once, so the memory is kept per
(episode, seat) and let go when the episode ends. Nothing is kept across a restart:
a resumed episode plays again from its first tick, its answered calls read back from
the call cache, which rebuilds the same conversation tick by tick (the cache key
covers every message sent, so each tick's key is the one it had).
"""

from __future__ import annotations

from collections import deque

from harness.llm.prompts import Exchange
from harness.seats import episode_scope


class SeatMemory:
    """The last ``size`` exchanges of every (episode, seat) this seat plays."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._kept: dict[tuple[str, str], deque[Exchange]] = {}

    def recall(self, episode: str, seat: str) -> tuple[Exchange, ...]:
        """The exchanges to send before this tick's prompt, oldest first."""
        return tuple(self._kept.get((episode, seat), ()))

    def remember(self, episode: str, seat: str, prompt: str, reply: str) -> None:
        """Keep a tick's first prompt and its last reply (see :meth:`Exchange.of`)."""
        if self.size <= 0:
            return
        key = (episode, seat)
        kept = self._kept.get(key)
        if kept is None:
            kept = self._kept[key] = deque(maxlen=self.size)
            scope = episode_scope()
            if scope is not None:  # let go of the episode's memory when it ends
                scope.on_end(lambda: self._forget(key))
        kept.append(Exchange.of(prompt, reply))

    def _forget(self, key: tuple[str, str]) -> None:
        self._kept.pop(key, None)

    def __len__(self) -> int:
        """How many (episode, seat) conversations are kept now."""
        return len(self._kept)


__all__ = ["SeatMemory"]
