"""What ``play`` says after the results: seat groups whose turns were not their own (a
model that never answered usably, a Python agent that raised or returned junk), and a
deadline that ended the episode, each with what to do about it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.protocol import SeatGroup
from harness.summary import TurnCount

#: What to look at when a seat of this kind never played a turn of its own.
_WHY = {
    "llm": "the model never gave a usable reply, see the record's replies and calls",
    "python": "the agent never gave a usable answer, see the record's errors and replies",
}


def _reason(results: Any) -> str:
    reason = getattr(results, "reason", "")
    return str(getattr(reason, "value", reason))


def not_own_lines(lines: Sequence[Any], groups: Sequence[SeatGroup] | None = None) -> list[str]:
    """A line for each seat group of the record ``lines`` with turns that were not its
    own (:func:`harness.summary.not_own`, for every kind of seat); ``groups`` None:
    each seat a group of its own."""
    header, ticks = lines[0], [line for line in lines if getattr(line, "type", "") == "tick"]
    infos = {info.seat: info for info in header.seats}
    grouped = (
        [(g.key, [infos[s] for s in g.seats if s in infos]) for g in groups]
        if groups is not None
        else [(info.seat, [info]) for info in header.seats]
    )
    out = []
    for key, members in grouped:
        seats = {info.seat for info in members}
        count = TurnCount.of_sources(
            turn.source for t in ticks for seat, turn in t.seats.items() if seat in seats
        )
        if not count.not_own:
            continue
        agents = ", ".join(dict.fromkeys(info.agent.name for info in members))
        kinds = ", ".join(f"{s} {n}" for s, n in count.not_own_by_source.items())
        if count.not_own == count.turns:
            why = next((_WHY[i.agent.kind] for i in members if i.agent.kind in _WHY), None)
            out.append(
                f"{key} ({agents}): all turns fell back ({count.turns} of {count.turns}: "
                f"{kinds}): none was its own, its role's baseline played every one"
                + (f"; {why}" if why else "")
            )
        else:
            out.append(
                f"{key} ({agents}): {count.not_own} of {count.turns} turns fell back "
                f"({kinds}): not its own, its role's baseline played them"
            )
    return out


def closing_lines(
    lines: Sequence[Any],
    *,
    timeout_flag: str = "--episode-timeout",
    groups: Sequence[SeatGroup] | None = None,
) -> list[str]:
    """Lines about the record ``lines`` of one episode: the turns each seat group
    (``groups``, else each seat) did not play itself, and a deadline."""
    header, ticks = lines[0], [line for line in lines if getattr(line, "type", "") == "tick"]
    out = not_own_lines(lines, groups)
    end = lines[-1]
    if getattr(end, "type", "") == "end" and _reason(end.results) == "deadline":
        timeout = getattr(header.config, "episode_timeout_seconds", None)
        budget = f" of {0.6 * timeout:g} s (60% of {timeout:g} s)" if timeout else ""
        out.append(
            f"the episode ended by deadline: its play budget{budget} ran out after "
            f"{len(ticks)} ticks; raise it with {timeout_flag} SECONDS"
        )
    return out


__all__ = ["closing_lines", "not_own_lines"]
