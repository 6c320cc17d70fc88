"""The person ``init``'s parameters name, and a value as a refusal shows it."""

from __future__ import annotations

from pydantic import ValidationError

from harness.protocol import RequestRefused
from harness.seat_spec import HumanSeatConfig
from harness.text import cut_short


def init_person(player: str | None, tick_seconds: str | None) -> HumanSeatConfig | None:
    """The person ``init``'s ``player`` and ``tickSeconds`` name, or None (a program)."""
    if player is None:
        if tick_seconds is not None:
            raise RequestRefused(
                "invalid_player",
                "tickSeconds is a person's per-tick timer: give player=NAME with it",
            )
        return None
    try:
        seconds = None if tick_seconds in (None, "") else float(tick_seconds)
        return HumanSeatConfig.model_validate({"human": player, "tickSeconds": seconds})
    except ValidationError as exc:
        error = exc.errors()[0]
        where = "player" if error["loc"][:1] == ("human",) else "tickSeconds"
        problem = error["msg"].removeprefix("Value error, ")
        raise RequestRefused("invalid_player", f"{where}: {problem}") from None
    except ValueError:
        raise RequestRefused(
            "invalid_player", f"tickSeconds: {shown(tick_seconds)} is not a number of seconds"
        ) from None


def shown(value: object) -> str:
    return repr(cut_short(str(value), 40))
