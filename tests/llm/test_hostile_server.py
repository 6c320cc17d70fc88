"""Whole tournaments (``lighthouse run``, in process) against a hostile server on 127.0.0.1.

Each case is one answer the server gives to every request, preflight included: a body
that is no completion, a body that never ends, a retry hint that is nonsense, a usage
object whose counts are not counts. For every case and both SDKs, the tournament
finishes (exit 0, every episode written), and the model keeper's turns are tagged:

- a body that is no completion, or past the size cap, or a 429 with any hint: every
  turn is ``fallback_api`` with a one-line reason (after a 429, ``fallback_timeout``
  when the turn's deadline cut its last attempt), and the episode's scores and game
  figures are exactly those of the same episode played by the fallback baseline
  (LANTERN, an entrant of the same run);
- counts that are not counts: every turn is the model's (``llm``), the call entry's
  counts are null (unknown), the results line says so, the cost is the upper bound,
  and the episode is that of SILENT, which sends the same reply.

The body bounds matter per transport, so those cases run on both (httpx and
aiohttp); the others on the default transport.
"""

from __future__ import annotations

import email.utils
import gzip
import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.llm.calls import Price
from harness.llm.types import CompletionRequest, Message, Usage, estimate_tokens
from harness.registry import get_game
from harness.summary import EpisodeSummary
from harness.testing.llm_server import (
    Action,
    Endless,
    Fail,
    Raw,
    Reply,
    ScriptedLLMServer,
    completion_body,
)
from harness.text import MAX_REPLY_BYTES
from harness.tournament.budget import episode_bounds
from harness.tournament.config import load_tournament
from harness.tournament.store import ResultsFolder
from tests.llm.test_secrets import assert_no_trace

KEY_ENV = "HOSTILE_SERVER_KEY"
KEY = "sk-hostile-Q7w9E2r4T6y8U1i3O5p7A9s2D4f6G8h1"
SDKS = ["openai", "anthropic"]
PATHS = {"openai": "/v1/chat/completions", "anthropic": "/v1/messages"}
PRICE = Price(input_per_mtok=3.0, output_per_mtok=15.0)
MAX_TOKENS = 64

CONFIG = """
name = "hostile"
seeds = [1]
rules = {{ maxTicks = 2 }}

[providers.p]
kind = "{sdk}"
base_url = "{url}"
api_key_env = "{key_env}"
transport = "{transport}"
prices = {{ hostile = {{ input_per_mtok = {price_in}, output_per_mtok = {price_out} }} }}

[[entrants]]
name = "model"
# no schema: the figures below price the request's messages alone
keeper = {{ provider = "p", model = "hostile", max_tokens = {max_tokens}, call_timeout_seconds = {timeout}, allowance_seconds = {allowance}, structured_output = false }}
runners = {{ baseline = "wallhug" }}

[[entrants]]
name = "lantern"
keeper = {{ baseline = "lantern" }}
runners = {{ baseline = "wallhug" }}

[[entrants]]
name = "silent"
keeper = {{ baseline = "silent" }}
runners = {{ baseline = "wallhug" }}
"""


@dataclass
class Run:
    """A finished tournament: its results lines by entrant, and the model's record."""

    out: Path
    summaries: dict[str, EpisodeSummary]
    lines: list[dict[str, Any]]

    def turns(self) -> list[dict[str, Any]]:
        """The model keeper's turns, one per tick."""
        return [line["seats"]["keeper"] for line in self.lines if line["type"] == "tick"]

    def played_like(self, entrant: str) -> bool:
        """Whether the model's episode has the scores and figures of ``entrant``'s."""
        mine, theirs = self.summaries["model"], self.summaries[entrant]
        return (mine.scores, mine.metrics, mine.reason) == (
            theirs.scores,
            theirs.metrics,
            theirs.reason,
        )


def tournament(
    tmp_path: Path,
    server: ScriptedLLMServer,
    sdk: str,
    *,
    transport: str = "aiohttp",
    timeout: float = 5.0,
    allowance: float = 10.0,
    extra: tuple[str, ...] = (),
) -> Run:
    """``lighthouse run`` of the hostile config against ``server``; it must finish."""
    url = server.openai_url if sdk == "openai" else server.anthropic_url
    config = tmp_path / "hostile.toml"
    config.write_text(
        CONFIG.format(
            sdk=sdk, url=url, key_env=KEY_ENV, transport=transport, timeout=timeout,
            allowance=allowance, max_tokens=MAX_TOKENS, price_in=PRICE.input_per_mtok,
            price_out=PRICE.output_per_mtok,
        )
    )  # fmt: skip
    out = tmp_path / "out"
    # --workers 0: the baseline episodes on the event loop too (no process pool to start)
    argv = ["run", str(config), "--out", str(out), "--no-report", "--workers", "0", *extra]
    assert main(argv) == 0
    folder = ResultsFolder(out)
    summaries = {s.entrant: s for s in folder.summaries()}
    assert sorted(summaries) == ["lantern", "model", "silent"]  # every episode written
    assert folder.manifest().stopped is None
    record = folder.record_path(summaries["model"].episode_id)
    lines = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    assert lines[-1]["type"] == "end"
    run = Run(out, summaries, lines)
    assert len(run.turns()) == 2
    assert summaries["model"].reason != "deadline"
    return run


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


def assert_fallbacks(run: Run, sdk: str, failure: str) -> None:
    """Every model turn fell back, tagged, with its reason in one line; LANTERN's episode.

    ``failure`` is the kind of the call's last failure; for ``rate_limit``, the last
    attempt of a turn may instead have been cut by the turn's deadline (on a loaded
    machine the last attempt can start with little more than the floor left), which
    is honestly a timeout, tagged ``fallback_timeout``.
    """
    for turn in run.turns():
        assert turn["replies"] == []
        (call,) = turn["calls"]
        if failure == "rate_limit" and call["failure"] == "timeout":
            assert turn["source"] == "fallback_timeout"
            assert call["errors"][:-1] == ["rate_limit"] * (call["attempts"] - 1)
        else:
            assert turn["source"] == "fallback_api"
            assert call["failure"] == failure
        assert call["message"].startswith(f"{sdk}: ")
        assert "\n" not in call["message"]
        assert len(call["message"]) <= 1000
        assert (call["inputTokens"], call["outputTokens"], call["costUsd"]) == (0, 0, None)
    stats = run.summaries["model"].seats["keeper"]
    assert sum(stats.fallbacks.values()) == 2
    assert stats.fallbacks.keys() <= {"fallback_api", "fallback_timeout"}
    if failure != "rate_limit":
        assert stats.fallbacks == {"fallback_api": 2}
    assert not run.summaries["model"].fallback_free
    assert run.played_like("lantern")
    assert not run.played_like("silent")  # the comparison can tell episodes apart


def good(sdk: str, text: str = '{"transmit": false}') -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(completion_body(PATHS[sdk], {"model": "hostile"}, Reply(text)))
    return doc


def body(doc: Any) -> Raw:
    return Raw(json.dumps(doc).encode())


def changed(sdk: str, path: tuple[str | int, ...], value: Any) -> Raw:
    """A good completion with the value at ``path`` replaced."""
    doc = good(sdk)
    inner: Any = doc
    for step in path[:-1]:
        inner = inner[step]
    inner[path[-1]] = value
    return body(doc)


def bodies(sdk: str) -> dict[str, Action]:
    """Every shape of body the issue lists, as this SDK's server would answer it."""
    openai = sdk == "openai"
    usage_key = "prompt_tokens" if openai else "input_tokens"
    content = ("choices", 0, "message", "content") if openai else ("content",)
    error = (
        {"error": {"message": "upstream timed out", "type": "server_error"}}
        if openai
        else {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    )
    return {
        "empty": Raw(b""),
        "html": Raw(b"<html><body><h1>502 Bad Gateway</h1></body></html>", "text/html"),
        "null": Raw(b"null"),
        "list": Raw(b'[{"choices": []}]'),
        "nested 200,000 deep": Raw(b"[" * 200_000 + b"]" * 200_000),
        "5,000-digit usage": Reply(
            '{"transmit": false}', usage_json=f'{{"{usage_key}": {"9" * 5000}}}'
        ),
        "content an object": changed(sdk, content, {"transmit": False}),
        "model an object": changed(sdk, ("model",), {"name": "hostile"}),
        "choices a string": (
            changed(sdk, ("choices",), "{}") if openai else changed(sdk, ("content",), "{}")
        ),
        "an error sent with a 200": body(error),
        "not UTF-8": Raw(json.dumps(good(sdk, "\x00")).encode().replace(b"\\u0000", b"\xff\xfe")),
    }


BODY_CASES = sorted(bodies("openai"))


@pytest.mark.parametrize("sdk", SDKS)
@pytest.mark.parametrize("case", BODY_CASES)
def test_a_body_that_is_no_completion_is_a_fallback_api_turn(
    tmp_path: Path, sdk: str, case: str
) -> None:
    with ScriptedLLMServer(default=bodies(sdk)[case]) as server:
        run = tournament(tmp_path, server, sdk)
    assert_fallbacks(run, sdk, "decode")
    assert "not a completion" in run.turns()[0]["calls"][0]["message"]
    # not retried: one request a turn, and the preflight's
    assert len(server.requests) == 3


ENDLESS: dict[str, Action] = {
    "chunked forever": Endless(),
    "Content-Length 10 GiB": Endless(declared=10 << 30),
    "gzip of 64 MiB": Raw(gzip.compress(b" " * (64 << 20)), headers={"content-encoding": "gzip"}),
}


@pytest.mark.parametrize("sdk", SDKS)
@pytest.mark.parametrize("transport", ["httpx", "aiohttp"])
@pytest.mark.parametrize("case", sorted(ENDLESS))
def test_a_body_past_the_cap_is_a_fallback_api_turn(
    tmp_path: Path, sdk: str, transport: str, case: str
) -> None:
    with ScriptedLLMServer(default=ENDLESS[case]) as server:
        run = tournament(tmp_path, server, sdk, transport=transport)
        if isinstance(ENDLESS[case], Endless):
            # the client closed each endless stream it was sent (the server's next
            # write failed): preflight and two turns
            for _ in range(200):
                if server.hung_up >= 3:
                    break
                time.sleep(0.05)
            assert server.hung_up == 3
    assert_fallbacks(run, sdk, "too_large")
    assert "passed the 4 MiB cap" in run.turns()[0]["calls"][0]["message"]
    assert len(server.requests) == 3


def past_date() -> str:
    return email.utils.formatdate(time.time() - 3600, usegmt=True)


HINTS: dict[str, dict[str, str]] = {
    "Retry-After: nan": {"retry-after": "nan"},
    "retry-after-ms: nan": {"retry-after-ms": "nan"},
    "Retry-After: garbage": {"retry-after": "garbage"},
    "Retry-After: year 99999": {"retry-after": "Fri, 31 Dec 99999 23:59:59 GMT"},
    "Retry-After: an invalid date": {"retry-after": "Mon, 45 Foo 2024 99:99:99 GMT"},
    "Retry-After: 0": {"retry-after": "0"},
    "Retry-After: -5": {"retry-after": "-5"},
    "Retry-After: -inf": {"retry-after": "-inf"},
    "Retry-After: a past date": {"retry-after": ""},  # filled in when the test runs
    "Retry-After: 10^12 s": {"retry-after": "1000000000000"},
}


@pytest.mark.parametrize("sdk", SDKS)
@pytest.mark.parametrize("case", sorted(HINTS))
def test_a_rate_limit_with_any_hint_keeps_the_deadline_and_the_floor(
    tmp_path: Path, sdk: str, case: str
) -> None:
    headers = {k: v or past_date() for k, v in HINTS[case].items()}
    with ScriptedLLMServer(default=Fail(429, headers=headers)) as server:
        run = tournament(tmp_path, server, sdk, timeout=0.5, allowance=1.5)
    assert_fallbacks(run, sdk, "rate_limit")
    for turn in run.turns():
        (call,) = turn["calls"]
        assert call["attempts"] >= 2  # retried: the hint was no reason to give up
        assert call["errors"][0] == "rate_limit"
        # the floor (0.25 s) bounds how often a seat asks within its allowance (1.5 s)
        assert call["attempts"] <= 1.5 / 0.25 + 1


USAGES = {
    "null": ("null", "null"),
    "a string": ('"12"', '"12"'),
    "NaN": ('{"prompt_tokens": NaN, "completion_tokens": NaN}',
            '{"input_tokens": NaN, "output_tokens": NaN}'),
    "1e999": ('{"prompt_tokens": 1e999, "completion_tokens": 1e999}',
              '{"input_tokens": 1e999, "output_tokens": 1e999}'),
    "10^400": ('{"prompt_tokens": 1' + "0" * 400 + ', "completion_tokens": 1' + "0" * 400 + "}",
               '{"input_tokens": 1' + "0" * 400 + ', "output_tokens": 1' + "0" * 400 + "}"),
    "negative": ('{"prompt_tokens": -9990, "completion_tokens": -9990}',
                 '{"input_tokens": -9990, "output_tokens": -9990}'),
    "strings": ('{"prompt_tokens": "5", "completion_tokens": "7"}',
                '{"input_tokens": "5", "output_tokens": "7"}'),
    "no counts": ("{}", "{}"),
}  # fmt: skip


@pytest.mark.parametrize("sdk", SDKS)
@pytest.mark.parametrize("case", sorted(USAGES))
def test_counts_that_are_not_counts_are_unknown_and_priced_at_the_bound(
    tmp_path: Path, sdk: str, case: str
) -> None:
    usage = USAGES[case][0 if sdk == "openai" else 1]
    with ScriptedLLMServer(default=Reply('{"transmit": false}', usage_json=usage)) as server:
        run = tournament(tmp_path, server, sdk)
    costs = []
    for turn, seen in zip(run.turns(), server.requests[1:], strict=True):
        assert turn["source"] == "llm"
        (call,) = turn["calls"]
        assert (call["inputTokens"], call["outputTokens"]) == (None, None)
        # priced as the budget bounds the call: the estimate of what was sent, and
        # max_tokens written
        request = sent(sdk, seen.body)
        priced = PRICE.cost(Usage(None, None), request)
        assert call["costUsd"] == pytest.approx(priced)
        assert priced > PRICE.cost(Usage(estimate_tokens("".join(
            m.content for m in request.messages)) - 1, MAX_TOKENS - 1))  # fmt: skip
        costs.append(call["costUsd"])
    stats = run.summaries["model"].seats["keeper"]
    assert (stats.usage_unknown, stats.input_tokens, stats.output_tokens) == (2, 0, 0)
    assert stats.cost_usd == pytest.approx(sum(costs))
    lines = [json.loads(x) for x in (run.out / "episodes.jsonl").read_text().splitlines()]
    (line,) = [x for x in lines if x["entrant"] == "model"]
    assert line["seats"]["keeper"]["usageUnknown"] == 2
    assert "usageUnknown" not in line["seats"]["runner1"]  # absent where all was known
    assert run.played_like("silent")


def sent(sdk: str, body: dict[str, Any]) -> CompletionRequest:
    """The request the server saw, as the harness built it."""
    messages = [Message(m["role"], m["content"]) for m in body["messages"]]
    if sdk == "anthropic" and "system" in body:
        messages.insert(0, Message("system", body["system"]))
    return CompletionRequest(model=body["model"], messages=tuple(messages), max_tokens=MAX_TOKENS)


def test_negative_counts_cannot_defeat_max_cost(tmp_path: Path) -> None:
    # -9990 tokens once made the recorded cost negative, and --max-cost never stopped
    usage = '{"prompt_tokens": -9990000000, "completion_tokens": -9990000000}'
    with ScriptedLLMServer(default=Reply('{"transmit": false}', usage_json=usage)) as server:
        config = tmp_path / "c.toml"
        text = CONFIG.format(
            sdk="openai", url=server.openai_url, key_env=KEY_ENV, transport="aiohttp",
            timeout=5.0, allowance=10.0, max_tokens=MAX_TOKENS, price_in=PRICE.input_per_mtok,
            price_out=PRICE.output_per_mtok,
        ).replace("seeds = [1]", "seeds = [1, 2, 3, 4, 5, 6, 7, 8]")  # fmt: skip
        config.write_text(text)
        loaded = load_tournament(config)
        bound = episode_bounds(loaded, get_game("lighthouse"), loaded.entrants)["model"]
        assert bound.cost_usd is not None
        cap = 3 * bound.cost_usd
        out = tmp_path / "out"
        argv = ["run", str(config), "--out", str(out), "--no-report", "--workers", "0"]
        argv += ["--max-cost", str(cap)]
        assert main(argv) == 0
    folder = ResultsFolder(out)
    stopped = folder.manifest().stopped
    assert stopped is not None
    assert stopped.reason == "cost_cap"
    played = [s for s in folder.summaries() if s.entrant == "model"]
    spent = sum(s.seats["keeper"].cost_usd for s in played)
    assert 0 < len(played) < 8
    assert 0 < spent <= cap  # every unknown call priced, within the bound it was admitted on
    assert all(0 < s.seats["keeper"].cost_usd <= bound.cost_usd for s in played)


def test_a_reply_past_the_record_cap_is_cached_as_recorded_and_replayed_the_same(
    tmp_path: Path,
) -> None:
    # 3 MiB of reply, inside the body cap: the record keeps 1 MiB, and so does the cache
    big = '{"transmit": false, "notes": "' + "n" * (3 << 20) + '"}'
    with ScriptedLLMServer(default=Reply(big)) as server:
        run = tournament(tmp_path, server, "openai")
        asked = len(server.requests)
        first = run.turns()
        for turn in first:
            assert turn["source"] == "fallback_parse"
            assert [r["parseError"]["kind"] for r in turn["replies"]] == ["too_long"] * 2
            assert all(r["rawClipped"] and r["rawLength"] > 3 << 20 for r in turn["replies"])
        cache = run.out / "calls.sqlite"
        with sqlite3.connect(cache) as db:
            sizes = [n for (n,) in db.execute("SELECT length(text) FROM replies")]
        assert len(sizes) == 4  # two turns, each a reply and its retry
        assert all(n <= MAX_REPLY_BYTES for n in sizes)
        # played again from the cache alone: the same turns, no request
        record = ResultsFolder(run.out).record_path(run.summaries["model"].episode_id)
        record.unlink()
        again = tournament(tmp_path, server, "openai")
        assert len(server.requests) == asked + 1  # the preflight only
    for before, after in zip(first, again.turns(), strict=True):
        assert after["calls"][0]["cached"] is True
        assert after["replies"] == before["replies"]
        assert (after["source"], after["decision"]) == (before["source"], before["decision"])


def test_a_key_in_a_reply_is_redacted_before_the_record_and_the_cache(tmp_path: Path) -> None:
    echoes = [
        KEY,
        " ".join(KEY),
        KEY[::-1],
        "-".join(KEY[i : i + 4] for i in range(0, len(KEY), 4)),
        KEY.encode().hex(),
        KEY.swapcase(),
        "".join(chr(ord(c) + 1) for c in KEY),
        KEY[1:],
    ]
    text = json.dumps({"transmit": True, "message": "; ".join(echoes)})
    with ScriptedLLMServer(default=Reply(text)) as server:
        run = tournament(tmp_path, server, "openai")
    raw = run.turns()[0]["replies"][0]["raw"]
    assert "«secret»" in raw
    for path in run.out.rglob("*"):
        if path.is_file():
            assert_no_trace(path.read_text(encoding="utf-8", errors="replace"), str(path), KEY)
            assert_no_trace(
                path.read_text(encoding="utf-8", errors="replace").lower(), str(path), KEY.lower()
            )
    with sqlite3.connect(run.out / "calls.sqlite") as db:
        stored = [row[0].decode() for row in db.execute("SELECT text FROM replies")]
    assert stored
    for reply in stored:
        assert "«secret»" in reply
        compact = "".join(c for c in reply if c.isalnum())
        for i in range(len(KEY) - 7):
            piece = "".join(c for c in KEY[i : i + 8] if c.isalnum())
            assert piece not in compact, f"a piece of the key survived: {piece!r}"
