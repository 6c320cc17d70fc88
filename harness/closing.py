"""What ``play`` says after the results: seats whose model never answered usably, and a
deadline that ended the episode, each with what to do about it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from harness.records import FALLBACK_SOURCES


def _reason(results: Any) -> str:
    reason = getattr(results, "reason", "")
    return str(getattr(reason, "value", reason))


def closing_lines(lines: Sequence[Any], *, timeout_flag: str = "--episode-timeout") -> list[str]:
    """Lines about the record ``lines`` of one episode: fallbacks per model seat, deadline."""
    header, ticks = lines[0], [line for line in lines if getattr(line, "type", "") == "tick"]
    out = []
    for info in header.seats:
        if info.agent.kind != "llm":
            continue
        sources = Counter(t.seats[info.seat].source for t in ticks if info.seat in t.seats)
        turns = sum(sources.values())
        fell = {s: n for s, n in sorted(sources.items()) if s in FALLBACK_SOURCES}
        if not turns or not fell:
            continue
        kinds = ", ".join(f"{s} {n}" for s, n in fell.items())
        share = sum(fell.values())
        if share == turns:
            out.append(
                f"{info.seat} ({info.agent.name}): all turns fell back ({turns} of {turns}: "
                f"{kinds}); the model never gave a usable reply, see the record's replies "
                "and calls"
            )
        else:
            out.append(
                f"{info.seat} ({info.agent.name}): {share} of {turns} turns fell back ({kinds})"
            )
    end = lines[-1]
    if getattr(end, "type", "") == "end" and _reason(end.results) == "deadline":
        timeout = getattr(header.config, "episode_timeout_seconds", None)
        budget = f" of {0.6 * timeout:g} s (60% of {timeout:g} s)" if timeout else ""
        out.append(
            f"the episode ended by deadline: its play budget{budget} ran out after "
            f"{len(ticks)} ticks; raise it with {timeout_flag} SECONDS"
        )
    return out


__all__ = ["closing_lines"]
