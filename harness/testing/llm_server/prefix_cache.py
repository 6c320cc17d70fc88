"""Usage as a provider's prompt cache would bill it: a request's prompt as one text, and
the start it shares with earlier ones."""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field

from harness.models import JsonObject


@dataclass
class PrefixCache:
    """Usage as a provider's prompt cache would bill it, for measuring what caching saves.

    A request's input is its prompt's tokens, estimated as 4 bytes of UTF-8 a token
    (the harness's estimate) over its prompt text (each message's role and content,
    the system prompt first; for Messages, ``system`` and every text block). Of them,
    the cached are the longest common start, in whole tokens, with any of the last
    ``remembered`` requests to the same model, rounded down to a multiple of ``step``
    and 0 below ``min_tokens``; OpenAI bills this way (1024 tokens at least, then
    steps of 128), and ``min_tokens=0, step=1`` gives the bare shared start. Every
    reply's counts are replaced by these; ``input_tokens`` and ``cached_tokens`` sum
    what was reported.
    """

    min_tokens: int = 1024
    step: int = 128
    remembered: int = 64
    input_tokens: int = 0
    cached_tokens: int = 0
    _seen: dict[str, deque[str]] = field(default_factory=dict, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def usage(self, path: str, body: JsonObject) -> tuple[int, int]:
        """The input tokens of ``body`` and how many of them were cached, remembering it."""
        text = prompt_text(path, body)
        model = str(body.get("model"))
        with self._lock:  # the server answers each request in a thread of its own
            seen = self._seen.setdefault(model, deque(maxlen=self.remembered))
            shared = max((common_start(text, old) for old in seen), default=0)
            seen.append(text)
            tokens = -(-len(text.encode("utf-8")) // 4)
            cached = len(text[:shared].encode("utf-8")) // 4 // self.step * self.step
            cached = cached if cached >= self.min_tokens else 0
            self.input_tokens += tokens
            self.cached_tokens += cached
        return tokens, cached


def common_start(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` share at their start (a binary search over
    slices, each compared in C)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def prompt_text(path: str, body: JsonObject) -> str:
    """A request's prompt as one text (see :class:`PrefixCache`)."""
    parts: list[str] = []

    def add(role: str, content: object) -> None:
        if isinstance(content, list):
            texts = [b.get("text") for b in content if isinstance(b, dict)]
            content = "".join(t for t in texts if isinstance(t, str))
        if isinstance(content, str):
            parts.append(f"{role}\n{content}\n")

    if path.endswith("/messages"):
        add("system", body.get("system"))
    messages = body.get("messages")
    for message in messages if isinstance(messages, list) else []:
        if isinstance(message, dict):
            add(str(message.get("role")), message.get("content"))
    return "".join(parts)
