"""The call cache: model answers stored by what determines them, so nothing is paid twice.

A call's key is the sha256 of a canonical JSON of everything that decides its
answer: the provider kind and base URL, the model, the sampling parameters
(temperature, max tokens, seed), the structured-output shape and schema, every
message, and the call's *scope* (which episode, seat and tick it belongs to). The
scope keeps independent samples independent: two repetitions of one seed, or two
ticks that happen to show a seat the same text, are separate draws from the model
and must not share an answer; a rerun of the same episode is the same draw.

Answers live in one SQLite file (the standard library's ``sqlite3``) in write-ahead
mode: a tournament keeps it in its results folder (``DIR/calls.sqlite``), whose lock
makes its process the one writer. Every answer is committed before the seat sees
it, so a run killed at any moment has stored every answer it acted on, and a resumed
episode replays its played ticks from the cache without a request. Only answers are
stored; failures are not, so a resumed run asks again where it failed.

An answer is stored as a record keeps it, never more (decision R8): a reply of more
than 1 MiB of UTF-8 is stored cut there, with its whole length and sha256, and is
judged on the way back as the record judged it (too long). Token counts are stored as
one JSON object by :class:`~harness.llm.types.Usage` field name (null: unknown), so
a further count needs no new column; the answer's stop reason rides in the same
object (``stop_reason``; absent in answers stored before it, which come back without
one), and so do the reasoning text, as a record keeps it, and the service tier that
answered. Files written before this (table ``answers``,
whole texts, counts in columns) are still read.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from harness.errors import FolderError
from harness.json_reply import StrictJsonError, strict_loads
from harness.llm.types import Completion, CompletionRequest, Usage
from harness.llm.wire import stop_reason
from harness.models import JsonObject
from harness.text import MAX_REPLY_BYTES, ClippedReply, clip_reply, scrub_surrogates

#: The cache's file name in a results folder.
CACHE_FILE = "calls.sqlite"
#: Bumped when the key's recipe changes (old answers are then simply not found).
KEY_VERSION = 1

# text: the reply as a record keeps it (whole, or its first 1 MiB); length and sha256:
# the whole reply's, when text was cut (else NULL); usage: the counts as a JSON object.
_SCHEMA = """
CREATE TABLE IF NOT EXISTS replies (
    key TEXT PRIMARY KEY,
    text BLOB NOT NULL,
    length INTEGER,
    sha256 TEXT,
    model BLOB NOT NULL,
    usage TEXT NOT NULL
)
"""
#: The table of files written before ``replies`` (read, never written).
_OLD_TABLE = "answers"
#: The key of the stop reason in a row's ``usage`` object (beside the counts).
_STOP_REASON = "stop_reason"
#: The same for the reasoning text (as the record keeps it), whether it was cut, and
#: the service tier that answered; each absent when there was none.
_REASONING = "reasoning"
_REASONING_CLIPPED = "reasoning_clipped"
_SERVICE_TIER = "service_tier"
_SHA256 = frozenset("0123456789abcdef")

#: The episode a call belongs to; set by whoever plays episodes (see :func:`call_scope`).
_EPISODE: ContextVar[str | None] = ContextVar("lighthouse_call_episode", default=None)


@contextmanager
def call_scope(episode_id: str) -> Iterator[None]:
    """Within this block (and the tasks it starts), calls belong to ``episode_id``."""
    token = _EPISODE.set(episode_id)
    try:
        yield
    finally:
        _EPISODE.reset(token)


def current_episode() -> str | None:
    """The episode the running task's calls belong to, if one was set."""
    return _EPISODE.get()


def call_key(request: CompletionRequest, *, kind: str, base_url: str | None, scope: str) -> str:
    """The cache key of ``request`` sent to ``kind`` at ``base_url`` within ``scope``."""
    document: JsonObject = {
        "v": KEY_VERSION,
        "kind": kind,
        "baseUrl": base_url,
        "model": request.model,
        "temperature": request.temperature,
        "maxTokens": request.max_tokens,
        "seed": request.seed,
        "shape": request.sent_shape,
        "schema": request.json_schema,
        "messages": [[m.role, m.content] for m in request.messages],
        "scope": scope,
    }
    # the reasoning and tier settings decide the answer too; each is keyed only when
    # set, so a call without them keeps the key it had before they existed
    for name, value in (
        ("reasoningEffort", request.reasoning_effort),
        ("thinkingBudget", request.thinking_budget),
        ("serviceTier", request.service_tier),
        ("maxTokensField", request.max_tokens_field),
    ):
        if value is not None:
            document[name] = value
    text = json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _encode(text: str) -> bytes:
    # a reply may hold lone surrogates (JSON escapes decoded by the SDK): kept as they are
    return text.encode("utf-8", "surrogatepass")


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "surrogatepass")


class CallCache:
    """Stored answers in one SQLite file; :meth:`get` and :meth:`put` run off the loop.

    Nothing is touched on disk until :meth:`open` or the first get or put.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.hits = 0
        """Answers served from the cache."""
        self.stored = 0
        """Answers stored."""
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def open(self) -> CallCache:
        """Open (creating it if need be) the file now; the first get or put would.

        Raises :class:`FolderError` when the file cannot be used.
        """
        with self._lock:
            self._connect()
        return self

    def _connect(self) -> sqlite3.Connection:
        if self._db is not None:
            return self._db
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # one connection, used from worker threads one at a time (the lock)
            db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            # a commit survives the process being killed; only a power cut may lose one
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(_SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            raise FolderError(f"{self.path}: cannot use it as the call cache: {exc}") from None
        self._db = db
        return db

    def _get(self, key: str) -> Completion | None:
        with self._lock:
            db = self._connect()
            try:
                row = db.execute(
                    "SELECT text, length, sha256, model, usage FROM replies WHERE key = ?", (key,)
                ).fetchone()
                old = None
                if row is None and self._has_old_table(db):
                    old = db.execute(
                        "SELECT text, model, input_tokens, output_tokens, reasoning_tokens "
                        f"FROM {_OLD_TABLE} WHERE key = ?",
                        (key,),
                    ).fetchone()
            except sqlite3.Error:
                return None  # a damaged file costs a request, never the run
        answer = _answer(row) if row is not None else _old_answer(old) if old else None
        if answer is not None:
            self.hits += 1
        return answer

    def _has_old_table(self, db: sqlite3.Connection) -> bool:
        found = db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (_OLD_TABLE,)
        ).fetchone()
        return found is not None

    def _put(self, key: str, completion: Completion) -> None:
        text, clipped = _stored_text(completion)
        facts: dict[str, object] = dict(completion.usage.checked().as_json())
        if completion.stop_reason is not None:
            facts[_STOP_REASON] = stop_reason(completion.stop_reason)
        if completion.reasoning:
            # already cut at 1 MiB, as the record keeps it (check_completion)
            facts[_REASONING] = completion.reasoning
            if completion.reasoning_clipped:
                facts[_REASONING_CLIPPED] = True
        if completion.service_tier is not None:
            facts[_SERVICE_TIER] = stop_reason(completion.service_tier)
        usage = json.dumps(facts, separators=(",", ":"))
        with self._lock:
            db = self._connect()
            try:
                db.execute(
                    "INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        key,
                        _encode(text),
                        clipped.length if clipped else None,
                        clipped.sha256 if clipped else None,
                        _encode(completion.model),
                        usage,
                    ),
                )
            except sqlite3.Error as exc:
                raise FolderError(f"{self.path}: cannot store an answer: {exc}") from None
        self.stored += 1

    async def get(self, key: str) -> Completion | None:
        """The answer stored under ``key``, or None."""
        return await asyncio.to_thread(self._get, key)

    async def put(self, key: str, completion: Completion) -> None:
        """Store ``completion`` under ``key`` (committed when this returns)."""
        await asyncio.to_thread(self._put, key, completion)

    def __len__(self) -> int:
        with self._lock:
            db = self._connect()
            (count,) = db.execute("SELECT COUNT(*) FROM replies").fetchone()
            if self._has_old_table(db):
                (old,) = db.execute(f"SELECT COUNT(*) FROM {_OLD_TABLE}").fetchone()
                count += old
        return int(count)

    def close(self) -> None:
        """Close the file (a later get or put opens it again)."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


def _stored_text(completion: Completion) -> tuple[str, ClippedReply | None]:
    """What is stored of the reply: the text whole, or (past 1 MiB) its start as a record
    keeps it, with the record form of the whole. The start keeps the reply's own
    characters (a lone surrogate too), as the retry that echoes it sends them."""
    if completion.clipped is not None:
        return completion.text, completion.clipped
    text = completion.text
    if len(text) * 4 <= MAX_REPLY_BYTES:  # short enough without measuring
        return text, None
    record = clip_reply(text)
    if not record.clipped:
        return text, None
    # scrubbing maps one code point to one, so the record's runes are the reply's
    return text[: len(record.text)], record


def _answer(row: tuple[Any, ...]) -> Completion | None:
    """A ``replies`` row as an answer; None for a row this module did not write."""
    text, length, sha256, model, usage_text = row
    if not (isinstance(text, bytes) and isinstance(model, bytes) and isinstance(usage_text, str)):
        return None
    try:
        reply, name = _decode(text), _decode(model)
        counts = strict_loads(usage_text)
    except (UnicodeDecodeError, StrictJsonError):
        return None
    if not isinstance(counts, dict):
        return None
    clipped = None
    if length is not None or sha256 is not None:
        whole = type(length) is int and length > MAX_REPLY_BYTES
        digest = isinstance(sha256, str) and len(sha256) == 64 and set(sha256) <= _SHA256
        if not (whole and digest):
            return None
        clipped = ClippedReply(scrub_surrogates(reply), length, sha256, clipped=True)
    return Completion(
        text=reply,
        usage=Usage.reported(**counts),
        model=name,
        clipped=clipped,
        stop_reason=stop_reason(counts.get(_STOP_REASON)),
        reasoning=reasoning if isinstance(reasoning := counts.get(_REASONING), str) else None,
        reasoning_clipped=counts.get(_REASONING_CLIPPED) is True,
        service_tier=stop_reason(counts.get(_SERVICE_TIER)),
    )


def _old_answer(row: tuple[Any, ...]) -> Completion | None:
    """A row of the old ``answers`` table as an answer (None if it is not one)."""
    text, model, tokens_in, tokens_out, reasoning = row
    plain = isinstance(text, bytes) and isinstance(model, bytes)
    counts = all(type(n) is int for n in (tokens_in, tokens_out))
    if not plain or not counts or not (reasoning is None or type(reasoning) is int):
        return None
    try:
        reply, name = _decode(text), _decode(model)
    except UnicodeDecodeError:
        return None
    usage = Usage.reported(
        input_tokens=tokens_in, output_tokens=tokens_out, reasoning_tokens=reasoning
    )
    return Completion(text=reply, usage=usage, model=name)


__all__ = ["CACHE_FILE", "KEY_VERSION", "CallCache", "call_key", "call_scope", "current_episode"]
