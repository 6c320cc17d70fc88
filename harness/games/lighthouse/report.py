"""Lighthouse's report part: per-episode figures for results lines and reports, from a record.

Besides K, E, B and the clock, the radio figures: transmissions, message length in
runes, clock spent talking, and order compliance: of the runner moves made while an
order (inbox, else standing order) named that runner, how many moved as ordered,
``hold`` counting as WAIT.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.games.lighthouse.orders import find_order
from harness.games.lighthouse.state import STANDING_ORDER_MAX_AGE
from harness.protocol import Column

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
        "message_runes", "runes / message", "messageRunes", "transmissions", digits=1,
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


def episode_metrics(docs: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """The figures of one finished episode, from its record's lines as JSON objects
    (the models of :mod:`harness.games.lighthouse.record`, dumped)."""
    header, end = docs[0], docs[-1]
    ticks = [line for line in docs if line["type"] == "tick"]
    aliases = {
        int(s["seat"].removeprefix("runner")): s["name"] for s in header["seats"] if s["name"]
    }
    sent: dict[int, str] = {}
    given = followed = 0
    runes = 0
    for line in ticks:
        t = line["tick"]
        inbox = sent.get(t - 1)
        standing = next(
            (sent[s] for s in range(t - 2, t - 2 - STANDING_ORDER_MAX_AGE, -1) if s in sent),
            None,
        )
        state = line["state"]
        for runner in state["runners"]:
            move = runner["move"]
            if move is None:
                continue
            alias = aliases[runner["seat"]]
            order = find_order(inbox, alias) or find_order(standing, alias)
            if order is not None:
                given += 1
                followed += int(move == order)
        transmission = state["transmission"]
        if transmission is not None:
            sent[t] = transmission
            runes += len(transmission)
    r = end["results"]
    return {
        "teamScore": r["teamScore"],
        "K": float(r["K"]),
        "E": float(r["E"]),
        "B": r["B"],
        "runners": 3.0,
        "clock": float(r["clock"]),
        "floodClock": float(r["floodClock"]),
        "ticks": float(r["ticks"]),
        "transmissions": float(len(sent)),
        "messageRunes": float(runes),
        "talkClock": float(len(sent)),  # each transmission costs one clock
        "ordersGiven": float(given),
        "ordersFollowed": float(followed),
    }


class LighthouseReport:
    """Lighthouse's figures and columns. Stateless."""

    def episode_metrics(self, docs: Sequence[Mapping[str, Any]]) -> dict[str, float]:
        return episode_metrics(docs)

    def report_columns(self) -> tuple[Column, ...]:
        return COLUMNS


__all__ = ["COLUMNS", "LighthouseReport", "episode_metrics"]
