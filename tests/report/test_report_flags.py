"""Report figures about fallbacks, retries, servers and deadlines, against hand-made lines."""

from __future__ import annotations

import csv
import io
from typing import Any

from harness.registry import get_game
from harness.report.build import build_report
from harness.report.model import Report
from harness.report.render import to_csv, to_markdown
from harness.summary import EpisodeSummary

GAME = get_game("lighthouse")


def line(
    entrant: str,
    seed: int,
    *,
    agent: str,
    fallbacks: int = 0,
    calls: int = 10,
    retried: int = 0,
    rescued: int = 0,
    batch: dict[str, Any] | None = None,
    waits: list[float] | None = None,
    requests: list[float] | None = None,
    reason: str = "complete",
    cached: int = 0,
) -> EpisodeSummary:
    """One results line: a keeper played by ``agent`` over 10 turns, baseline runners."""
    keeper: dict[str, Any] = {"role": "keeper", "agent": agent, "turns": 10}
    if agent != "lantern":
        keeper |= {
            "calls": calls + retried,
            "retries": rescued,
            "fallbacks": {"fallback_parse": fallbacks} if fallbacks else {},
            "cached": cached,
            "waitMs": waits or [],
            "requestMs": requests or [],
        }
    runner = {"role": "runner", "agent": "wallhug", "turns": 10}
    return EpisodeSummary.model_validate(
        {
            "episodeId": f"{entrant}--default--s{seed}--r0",
            "entrant": entrant, "seed": seed, "variant": "default", "repetition": 0,
            "score": 1.0, "scores": [1.0] * 4, "reason": reason, "metrics": {},
            "seats": {"keeper": keeper, "runner1": runner, "runner2": runner, "runner3": runner},
            "fallbackFree": fallbacks == 0,
            "batch": batch or {},
        }
    )  # fmt: skip


def report(lines: list[EpisodeSummary]) -> Report:
    return build_report(GAME, lines, reference="lantern", order=["lantern", "dud", "shaky", "fine"])


FLAGGED = [
    *(line("lantern", s, agent="lantern") for s in (0, 1)),
    *(line("dud", s, agent="openai:dud", fallbacks=10) for s in (0, 1)),  # every turn
    line("shaky", 0, agent="openai:shaky", fallbacks=3),  # 3 of 20 turns: 15%
    line("shaky", 1, agent="openai:shaky"),
    line("fine", 0, agent="openai:fine", fallbacks=1),  # 1 of 20 turns: 5%
    line("fine", 1, agent="openai:fine"),
]


def test_entrants_that_fall_back_often_are_flagged_where_they_are_ranked() -> None:
    data = report(FLAGGED)
    assert data.fallback_flags == {"dud": "all turns fell back", "shaky": "fallback 15% of turns"}
    md = to_markdown(data)
    paired = md.split("## Paired against lantern")[1].split("##")[0]
    assert "| dud ⚠ all turns fell back | lantern |" in paired
    assert "| shaky ⚠ fallback 15% of turns | lantern |" in paired
    assert "| fine | lantern |" in paired
    # the ranked table itself carries the mark, and the turns not the entrant's own
    entrants = md.split("## Entrants")[1].split("##")[0]
    assert "| dud ⚠ all turns fell back | openai:dud | wallhug |" in entrants
    assert "| keeper 20 of 20 | complete 2 |" in entrants
    assert "| shaky ⚠ fallback 15% of turns | openai:shaky |" in entrants
    # every keeper turn of dud was its baseline's: ranked apart, below the others
    assert [r.entrant for r in data.entrants][-1] == "dud"
    dud = data.entrants[-1]
    assert (dud.rank, dud.mostly_not_own) == (None, True)
    assert "| apart: not its own play |" in entrants.split("| dud ")[1].split("\n")[0]
    assert all(r.rank is not None and r.rank.rank <= 3 for r in data.entrants[:-1])
    assert "ranked apart" in entrants
    board = md.split("## Keeper leaderboard")[1].split("##")[0]
    assert "| openai:dud |" not in board  # never ranked beside its baseline
    assert "Ranked apart, not on this board: dud ⚠ all turns fell back" in board
    assert "| openai:fine | fine |" in board
    clean = md.split("## Without LLM fallbacks")[1].split("## Keeper")[0]
    # dud has no episode without a fallback: it is named, not dropped
    assert "Not shown, no episode without a fallback: dud (all turns fell back)." in clean
    rows = to_csv(data).splitlines()
    flags = [row["fallback_flag"] for row in csv.DictReader(io.StringIO(to_csv(data)))]
    assert rows[0].split(",").index("fallback_flag") == rows[0].split(",").index("ceiling") + 2
    assert "all turns fell back" in flags
    by_name = {row["entrant"]: row for row in csv.DictReader(io.StringIO(to_csv(data)))}
    assert (by_name["dud"]["rank"], by_name["dud"]["mostly_not_own"]) == ("", "true")
    assert (by_name["dud"]["turns_keeper"], by_name["dud"]["not_own_keeper"]) == ("20", "20")
    assert (by_name["fine"]["not_own_keeper"], by_name["fine"]["mostly_not_own"]) == (
        "1",
        "false",
    )


def test_retries_count_every_turn_that_sent_the_retry() -> None:
    # 4 turns sent the retry hint (4 calls beyond one per turn); it rescued 1 of them
    data = report([line("lantern", 0, agent="lantern"),
                   line("fine", 0, agent="openai:fine", retried=4, rescued=1)])  # fmt: skip
    row = next(r for r in data.entrants if r.entrant == "fine")
    assert (row.retries, row.rescued) == (4, 1)
    assert "| 14 | 4 (1 rescued) |" in to_markdown(data)


def serial_batch(
    per_tick: int, ticks: int, concurrency: float, *, first_calls: bool = True
) -> dict[str, Any]:
    return {"ticks": ticks, "calls": per_tick * ticks, "callMs": concurrency * 1000.0 * ticks,
            "tickMs": 1000.0 * ticks, "firstCalls": first_calls}  # fmt: skip


def test_a_server_that_answers_one_at_a_time_is_named() -> None:
    lines = [
        # four requests a tick: one at a time gives (4 + 1) / 2 = 2.5
        line("dud", 0, agent="openai:dud", batch=serial_batch(4, 10, 2.5),
             waits=[1.0] * 10, requests=[900.0] * 10),
        # all at once gives 4
        line("fine", 0, agent="openai:fine", batch=serial_batch(4, 10, 3.9),
             waits=[1.0] * 10, requests=[300.0] * 10),
        # the harness's own in-flight cap: the requests never overlap, the wait is long
        line("shaky", 0, agent="openai:shaky", batch=serial_batch(4, 10, 1.0),
             waits=[600.0] * 10, requests=[300.0] * 10, cached=3),
    ]  # fmt: skip
    rows = {r.entrant: r for r in report(lines).servers}
    assert "the server answered one request at a time" in (rows["dud"].warning or "")
    assert (
        "the first calls of different seats in a tick, sent together (4.0 a tick), ran with "
        "observed concurrency 2.50" in (rows["dud"].warning or "")
    )
    assert rows["fine"].warning is None
    assert "max_in_flight held the calls back" in (rows["shaky"].warning or "")
    assert (rows["shaky"].cached, rows["shaky"].wait_ms_p50) == (3, 600.0)
    md = to_markdown(report(lines))
    assert "## Model servers" in md
    assert "⚠ dud: the server answered one request at a time" in md
    assert "⚠ fine" not in md


def test_batch_figures_of_any_two_requests_of_a_tick_warn_of_nothing() -> None:
    """A line of a record from before ticks counted their first calls: its batch counts a
    seat's retry as a second request, so it cannot tell a serial server."""
    old = serial_batch(2, 10, 1.0, first_calls=False)
    lines = [line("alone", s, agent="openai:alone", batch=old, requests=[300.0] * 10)
             for s in (0, 1)]  # fmt: skip
    (row,) = report(lines).servers
    assert (row.warning, row.batch_ticks, row.concurrency) == (None, 0, None)
    assert (row.calls, row.request_ms_p50) == (20, 300.0)  # the rest of its figures stand
    # the same figures of first calls warn
    new = [line("alone", s, agent="openai:alone", batch=serial_batch(2, 10, 1.0),
                requests=[300.0] * 10) for s in (0, 1)]  # fmt: skip
    assert "one request at a time" in (report(new).servers[0].warning or "")


def test_episodes_ended_by_deadline_say_what_to_raise() -> None:
    lines = [line("fine", s, agent="openai:fine", reason=r)
             for s, r in ((0, "deadline"), (1, "complete"), (2, "deadline"))]  # fmt: skip
    data = report(lines)
    assert data.deadlines == 2
    md = to_markdown(data)
    assert "deadline 2" in md  # the reasons column
    assert "⚠ 2 episode(s) ended by deadline" in md
    assert "Raise episode_timeout_seconds" in md
    assert "ended by deadline" not in to_markdown(report(lines[1:2]))
