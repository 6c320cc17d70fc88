"""The call cache on its own: keys, storage, damaged files."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

from harness.errors import FolderError
from harness.llm.cache import CallCache, call_key
from harness.llm.types import Completion, CompletionRequest, Message, Usage
from harness.text import MAX_REPLY_BYTES, clip_reply

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
    usage = '{"input_tokens":1,"output_tokens":2,"reasoning_tokens":null}'
    sha = "ab" * 32
    rows = {
        "bad": ("text not bytes", None, None, b"\x00", usage),
        "utf": (b"\xff", None, None, b"m", usage),
        "usage-not-json": (b"t", None, None, b"m", "NaN"),
        "usage-a-list": (b"t", None, None, b"m", "[1, 2]"),
        "usage-deep": (b"t", None, None, b"m", "[" * 5000 + "]" * 5000),
        "length-no-sha": (b"t", MAX_REPLY_BYTES + 1, None, b"m", usage),
        "length-too-small": (b"t", 10, sha, b"m", usage),
        "sha-not-hex": (b"t", MAX_REPLY_BYTES + 1, "z" * 64, b"m", usage),
    }
    with sqlite3.connect(path) as db:
        for name, row in rows.items():
            db.execute("INSERT INTO replies VALUES (?, ?, ?, ?, ?, ?)", (name, *row))
        db.execute("INSERT INTO replies VALUES ('good', x'74', NULL, NULL, x'6d', ?)", (usage,))
    cache = CallCache(path)
    for name in rows:
        assert asyncio.run(cache.get(name)) is None, name
    assert asyncio.run(cache.get("good")) == Completion("t", Usage(1, 2, None), "m")
    cache.close()


def test_counts_that_are_not_counts_come_back_unknown(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "calls.sqlite"
    CallCache(path).open().close()
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO replies VALUES ('k', x'74', NULL, NULL, x'6d', ?)",
            ('{"input_tokens": -5, "output_tokens": "12", "reasoning_tokens": 1e300}',),
        )
    cache = CallCache(path)
    assert asyncio.run(cache.get("k")) == Completion("t", Usage(None, None, None), "m")
    # an unknown count is stored as unknown (null), never as a number
    asyncio.run(cache.put("u", Completion("t", Usage(None, 3, None), "m")))
    assert asyncio.run(cache.get("u")) == Completion("t", Usage(None, 3, None), "m")
    cache.close()


def test_a_file_of_the_older_layout_is_still_read(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "calls.sqlite"
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE answers (key TEXT PRIMARY KEY, text BLOB NOT NULL, model BLOB NOT "
            "NULL, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, "
            "reasoning_tokens INTEGER)"
        )
        db.execute("INSERT INTO answers VALUES ('old', x'6869', x'6d', 5, 7, NULL)")
        db.execute("INSERT INTO answers VALUES ('bad', 'not bytes', x'6d', 5, 7, NULL)")
    cache = CallCache(path)
    assert asyncio.run(cache.get("old")) == Completion("hi", Usage(5, 7, None), "m")
    assert asyncio.run(cache.get("bad")) is None
    asyncio.run(cache.put("new", Completion("x", Usage(1, 1), "m")))
    assert len(cache) == 3
    cache.close()


def test_a_reply_past_the_record_cap_is_stored_as_the_record_keeps_it(tmp_path: Path) -> None:
    path = tmp_path / "calls.sqlite"
    # 3 MiB, a lone surrogate early on (kept as sent, as the retry echoes it)
    whole = "a\ud800" + "é" * (3 * MAX_REPLY_BYTES // 2)
    record = clip_reply(whole)
    assert record.clipped

    async def store_then_read() -> Completion | None:
        cache = CallCache(path)
        await cache.put("k", Completion(whole, Usage(5, 7), "m"))
        cache.close()
        again = CallCache(path)
        try:
            return await again.get("k")
        finally:
            again.close()

    found = asyncio.run(store_then_read())
    assert found is not None
    assert found.clipped == record  # the record's text, length and sha256
    assert found.text == whole[: len(record.text)]
    assert found.text[1] == "\ud800"
    size = sum(p.stat().st_size for p in tmp_path.iterdir())
    assert size < 2 * MAX_REPLY_BYTES  # never the whole 3 MiB
