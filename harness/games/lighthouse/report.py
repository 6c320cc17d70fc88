"""Lighthouse's report part: per-episode figures for results lines and reports, from a record.

Besides K, E, B and the clock, the radio figures: transmissions, message length in
runes, clock spent talking, and order compliance: of the runner moves made while an
order (inbox, else standing order) named that runner, how many moved as ordered,
``hold`` counting as WAIT.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from harness.games.lighthouse.config import LighthouseConfig
from harness.games.lighthouse.orders import find_order
from harness.games.lighthouse.record import (
    BoardModel,
    KeeperDecisionModel,
    LighthouseResults,
    LighthouseTickState,
    RunnerStateModel,
)
from harness.games.lighthouse.state import STANDING_ORDER_MAX_AGE
from harness.models import JsonObject
from harness.protocol import Column, Report
from harness.protocol.report import DEADLINE_MEANING
from harness.protocol.report import END as _END
from harness.records import (
    HeaderLine,
    SeatInfo,
    TickLine,
    json_int,
    json_number,
    json_object,
    json_objects,
    keys,
)

COLUMNS: tuple[Column, ...] = (
    # The keys say in words what the rules call K, E and B; results lines keep K, E, B.
    Column("keys", "keys", "K", means="keys the team collected"),
    Column(
        "escape_rate", "escape rate", "E", "runners", percent=True,
        means="runners who escaped, of all runners",
    ),
    Column(
        "time_bonus", "time bonus", "B",
        means="1 - clock / flood clock when all three escaped, else 0; "
        "score = 6 x keys / key count + 10 x escaped + 6 x time bonus",
    ),
    Column(
        "clock", "clock", "clock", digits=1,
        means="the clock at the end (1 a tick, 1 more a transmission)",
    ),
    Column(
        "transmissions", "transmissions / ep", "transmissions", digits=1,
        means="keeper transmissions per episode",
    ),
    Column(
        "message_runes", "characters / message", "messageRunes", "transmissions", digits=1,
        means="characters per transmission",
    ),
    Column(
        "talk_clock", "clock spent talking", "talkClock", digits=1,
        means="clock the transmissions cost (1 each)",
    ),
    Column(
        "compliance", "order compliance", "ordersFollowed", "ordersGiven", percent=True,
        means="moves as ordered, of the moves made under an order naming the runner",
    ),
)  # fmt: skip


_HEADER = keys(HeaderLine[LighthouseConfig, BoardModel])
_SEAT = keys(SeatInfo)
_TICK = keys(TickLine[KeeperDecisionModel, LighthouseTickState])
_STATE = keys(LighthouseTickState)
_RUNNER = keys(RunnerStateModel)
_RESULTS = keys(LighthouseResults)


#: The names of the episode figures the end's words are read from (an episode's
#: metrics, named as its results are; one spelling for the figures and their reader).
ESCAPED, RUNNERS, CLOCK, FLOOD_CLOCK = "E", "runners", "clock", "floodClock"


def episode_metrics(docs: Sequence[JsonObject]) -> dict[str, float]:
    """The figures of one finished episode, from its record's lines as JSON objects
    (the models of :mod:`harness.games.lighthouse.record`, dumped)."""
    header, end = docs[0], docs[-1]
    aliases: dict[int, str] = {}
    for seat in json_objects(header[_HEADER.seats]):
        name, seat_id = seat[_SEAT.name], seat[_SEAT.seat]
        if isinstance(name, str) and name and isinstance(seat_id, str):
            aliases[int(seat_id.removeprefix("runner"))] = name
    sent: dict[int, str] = {}
    given = followed = 0
    runes = 0
    kind, tick_key, state_key = _TICK.type, _TICK.tick, _TICK.state
    runners_key, move_key, seat_key = _STATE.runners, _RUNNER.move, _RUNNER.seat
    for line in docs:
        if line[kind] != "tick":
            continue
        t = json_int(line[tick_key])
        inbox = sent.get(t - 1)
        standing = next(
            (sent[s] for s in range(t - 2, t - 2 - STANDING_ORDER_MAX_AGE, -1) if s in sent),
            None,
        )
        state = json_object(line[state_key])
        for runner in json_objects(state[runners_key]):
            move = runner[move_key]
            if move is None:
                continue
            alias = aliases[json_int(runner[seat_key])]
            order = find_order(inbox, alias) or find_order(standing, alias)
            if order is not None:
                given += 1
                followed += int(move == order)
        transmission = state[_STATE.transmission]
        if isinstance(transmission, str):
            sent[t] = transmission
            runes += len(transmission)
    r = json_object(end[_END.results])
    return {
        "teamScore": json_number(r[_RESULTS.team_score]),
        "K": json_number(r[_RESULTS.k]),
        ESCAPED: json_number(r[_RESULTS.e]),
        "B": json_number(r[_RESULTS.b]),
        RUNNERS: 3.0,
        CLOCK: json_number(r[_RESULTS.clock]),
        FLOOD_CLOCK: json_number(r[_RESULTS.flood_clock]),
        "ticks": json_number(r[_RESULTS.ticks]),
        "transmissions": float(len(sent)),
        "messageRunes": float(runes),
        "talkClock": float(len(sent)),  # each transmission costs one clock
        "ordersGiven": float(given),
        "ordersFollowed": float(followed),
    }


#: What happened at an episode's end, in words (the record keeps the rules' complete,
#: timeup and deadline; a complete episode is named by how it was completed).
END_MEANINGS: dict[str, str] = {
    "all escaped": "every runner escaped",
    "all drowned": "every runner drowned",
    "escaped and drowned": "every runner escaped or drowned, some each way",
    "flooded": "the water reached the exit row (the flood clock)",
    "tick cap": "the tick cap (maxTicks) was reached with a runner still on the board",
    "deadline": DEADLINE_MEANING,
}


def end_name(reason: str, metrics: Mapping[str, float]) -> str:
    """A Lighthouse episode's end in words (:data:`END_MEANINGS`), from its reason and
    figures: a ``complete`` one by its escapes and its clock (END CHECK's order)."""
    if reason == "timeup":
        return "tick cap"
    if reason != "complete":
        return reason
    escaped, runners = metrics.get(ESCAPED), metrics.get(RUNNERS, 3.0)
    clock, flood = metrics.get(CLOCK), metrics.get(FLOOD_CLOCK)
    if escaped is not None and escaped >= runners:
        return "all escaped"
    if clock is not None and flood is not None and clock >= flood:
        return "flooded"
    if escaped == 0:
        return "all drowned"
    return "escaped and drowned" if escaped is not None else reason


class LighthouseReport(Report):
    """Lighthouse's figures and columns. Stateless."""

    def episode_metrics(self, docs: Sequence[JsonObject]) -> dict[str, float]:
        return episode_metrics(docs)

    def report_columns(self) -> tuple[Column, ...]:
        return COLUMNS

    def end_name(self, reason: str, metrics: Mapping[str, float]) -> str:
        return end_name(reason, metrics)

    def end_meanings(self) -> Mapping[str, str]:
        return END_MEANINGS


__all__ = ["COLUMNS", "END_MEANINGS", "LighthouseReport", "end_name", "episode_metrics"]
