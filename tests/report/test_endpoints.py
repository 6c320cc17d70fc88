"""The per-server figures (calls, errors, queueing), from records and hand-made lines."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from harness.models import JsonObject
from harness.protocol import Report
from harness.registry import get_game
from harness.report.build import build_report
from harness.report.endpoints import MIN_QUEUE_MS, endpoint_rows, shown
from harness.report.render import to_markdown
from harness.summary import EpisodeSummary, summarize

GAME = get_game("lighthouse")


def line(entrant: str, seed: int, endpoints: dict[str, dict[str, Any]]) -> EpisodeSummary:
    keeper = {
        "role": "keeper",
        "agent": "openai:m",
        "turns": 10,
        "calls": 10,
        "endpoints": endpoints,
    }
    runner = {"role": "runner", "agent": "wallhug", "turns": 10}
    return EpisodeSummary.model_validate(
        {
            "episodeId": f"{entrant}--default--s{seed}--r0",
            "entrant": entrant, "seed": seed, "variant": "default", "repetition": 0,
            "score": 1.0, "scores": [1.0] * 4, "reason": "complete", "metrics": {},
            "seats": {"keeper": keeper, "runner1": runner, "runner2": runner, "runner3": runner},
            "fallbackFree": True,
        }
    )  # fmt: skip


def test_without_server_times_a_seat_is_measured_against_its_own_calls_alone() -> None:
    # per episode a few calls alone, the rest sharing the server: the shared ones take 3x
    lines = [
        line("a", s, {"http://h:1/v1": {"calls": 6, "aloneMs": [100.0, 110.0, 90.0],
                                        "overlappedMs": [300.0, 310.0, 290.0]}})
        for s in (0, 1)
    ]  # fmt: skip
    (row,) = endpoint_rows(lines)
    assert row.inflation_basis == "calls alone"
    assert row.inflation == 3.0
    assert row.queue_ms_mean == 200.0
    assert row.warning is not None
    text = to_markdown(build_report(GAME, lines))
    assert "| http://h:1/v1 | 12 | 0 | - | 200 ms | 3.00x (calls alone) |" in text
    assert "⚠ http://h:1/v1: calls took 3.0x the server's own time" in text


def test_a_fast_server_s_noise_is_not_a_queue() -> None:
    # 3x, but of a millisecond: below the least queue warned about
    fast = {"aloneMs": [1.0, 1.0, 1.0], "overlappedMs": [3.0, 3.0, 3.0]}
    (row,) = endpoint_rows([line("a", 0, {"scripted": fast})])
    assert row.inflation == 3.0
    assert row.queue_ms_mean is not None
    assert row.queue_ms_mean < MIN_QUEUE_MS
    assert row.warning is None


def test_server_times_come_first_and_too_few_calls_make_no_figure() -> None:
    timed = {"calls": 4, "timed": 4, "timedRequestMs": 400.0, "serverMs": 100.0,
             "requestMs": [100.0] * 4}  # fmt: skip
    few = {"calls": 2, "aloneMs": [1.0, 1.0], "overlappedMs": [9.0, 9.0]}
    rows = {r.endpoint: r for r in endpoint_rows([line("a", 0, {"t": timed, "f": few})])}
    assert (rows["t"].inflation, rows["t"].inflation_basis) == (4.0, "server time")
    assert rows["t"].queue_ms_mean == 75.0
    assert rows["t"].request_ms_p50 == 100.0
    assert (rows["f"].inflation, rows["f"].warning) == (None, None)


def test_a_hostile_endpoint_name_stays_one_table_cell() -> None:
    name = "http://x/v1 | 9 | 9 |\n## <script>alert(1)</script>"
    cell = shown(name)
    assert "\n" not in cell
    assert "|" not in cell.replace("\\|", "")
    assert "<" not in cell.replace("\\<", "")
    text = to_markdown(build_report(GAME, [line("a", 0, {name: {"calls": 1, "errors": 2}})]))
    rows = [r for r in text.splitlines() if r.startswith("| http://x/v1")]
    assert len(rows) == 1
    assert rows[0].endswith("| 1 | 2 | - | - | - |")


def _record(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    agent = {
        "kind": "llm",
        "name": "openai:m",
        "details": {"provider": "openai", "baseUrl": "http://a/v1 http://b/v1"},
    }
    header = {
        "type": "header",
        "episodeId": "e",
        "seed": 1,
        "variant": "default",
        "seats": [{"seat": "keeper", "role": "keeper", "agent": agent}],
    }
    tick = {
        "type": "tick",
        "seats": {"keeper": {"source": "llm", "calls": calls, "raw": "{}", "rawSha256": "0" * 64}},
    }
    end = {"type": "end", "results": {"scores": [1.0], "reason": "complete"}}
    return [header, tick, end]  # fmt: skip


def _call(**fields: Any) -> dict[str, Any]:
    base = {
        "provider": "openai",
        "model": "m",
        "attempts": 1,
        "errors": [],
        "failure": None,
        "inputTokens": 1,
        "outputTokens": 1,
        "reasoningTokens": None,
        "costUsd": None,
    }
    return base | fields  # fmt: skip


class NoMetrics:
    """A game report part that gives no figures (the calls are what is counted here)."""

    def episode_metrics(self, docs: Sequence[JsonObject]) -> dict[str, float]:
        return {}


def test_a_record_s_calls_are_counted_per_endpoint() -> None:
    clock = {"latencyMs": 12.0, "waitMs": 0.0, "requestMs": 10.0, "overlapped": False}
    docs = _record(
        [
            _call(endpoint="http://b/v1", wallClock=clock, attempts=2, errors=["connection"],
                  endpointErrors={"http://a/v1": 1}),
            _call(endpoint="http://b/v1", wallClock=clock | {"serverMs": 8.0}),
            _call(wallClock={"latencyMs": 5.0}),  # an older record's call: no server named
        ]
    )  # fmt: skip
    summary = summarize(cast(Report, NoMetrics()), docs, entrant="a", repetition=0)
    endpoints = summary.seats["keeper"].endpoints
    assert set(endpoints) == {"http://a/v1", "http://b/v1"}
    a, b = endpoints["http://a/v1"], endpoints["http://b/v1"]
    assert (a.calls, a.errors, a.request_ms) == (0, 1, [])
    assert (b.calls, b.errors, b.request_ms) == (2, 0, [10.0, 10.0])
    # the retried call's time holds its failed attempt: only the other says how it queued
    assert (b.timed, b.server_ms, b.alone_ms) == (1, 8.0, [10.0])
