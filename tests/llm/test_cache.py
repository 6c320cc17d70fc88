"""The call cache on its own: keys, storage, damaged files."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

from harness.errors import FolderError
from harness.llm.cache import CallCache, call_key
from harness.llm.types import Completion, CompletionRequest, Message, Usage

REQUEST = CompletionRequest(
    model="m",
    messages=(Message("system", "rules"), Message("user", "Tick 0")),
    temperature=0.2,
    max_tokens=64,
    seed=3,
    json_schema={"type": "object"},
    shape="json_object_schema",
)


def key(request: CompletionRequest = REQUEST, **where: str | None) -> str:
    place = {"kind": "openai", "base_url": "http://h/v1", "scope": "ep/keeper/0"} | where
    return call_key(
        request, kind=str(place["kind"]), base_url=place["base_url"], scope=str(place["scope"])
    )


def test_the_key_changes_with_everything_that_decides_the_answer() -> None:
    variants = [
        key(),
        key(kind="anthropic"),
        key(base_url="http://other/v1"),
        key(scope="ep/keeper/1"),  # another tick
        key(scope="ep2/keeper/0"),  # another episode: a repetition is a new draw
        key(replace(REQUEST, model="n")),
        key(replace(REQUEST, temperature=0.3)),
        key(replace(REQUEST, max_tokens=65)),
        key(replace(REQUEST, seed=4)),
        key(replace(REQUEST, shape="json_schema")),
        key(replace(REQUEST, json_schema={"type": "array"})),
        key(replace(REQUEST, messages=(Message("user", "Tick 0"),))),
    ]
    assert len(set(variants)) == len(variants)
    # ...and not with the time bound, which does not change the answer
    assert key(replace(REQUEST, timeout_s=1.0)) == key()


def test_answers_survive_closing_and_keep_every_character(tmp_path: Path) -> None:
    path = tmp_path / "calls.sqlite"
    answer = Completion("lone \ud800 surrogate, and ü", Usage(5, 7, 2), "served-model")

    async def store_then_read() -> tuple[Completion | None, Completion | None]:
        cache = CallCache(path)
        await cache.put("k", answer)
        cache.close()
        again = CallCache(path)
        try:
            return await again.get("k"), await again.get("missing")
        finally:
            again.close()

    found, missing = asyncio.run(store_then_read())
    assert found == answer
    assert missing is None


def test_nothing_is_written_until_used(tmp_path: Path) -> None:
    CallCache(tmp_path / "calls.sqlite")
    assert not list(tmp_path.iterdir())


def test_a_file_that_is_not_a_cache_is_a_folder_error(tmp_path: Path) -> None:
    path = tmp_path / "calls.sqlite"
    path.write_bytes(b"not a database, just bytes " * 100)
    with pytest.raises(FolderError, match="cannot use it as the call cache"):
        CallCache(path).open()


def test_a_row_it_did_not_write_is_a_miss(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "calls.sqlite"
    CallCache(path).open().close()
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO answers VALUES ('bad', 'text not bytes', x'00', 1, 2, NULL)")
        db.execute("INSERT INTO answers VALUES ('utf', x'ff', x'6d', 1, 2, NULL)")
    cache = CallCache(path)
    assert asyncio.run(cache.get("bad")) is None
    assert asyncio.run(cache.get("utf")) is None
    cache.close()
