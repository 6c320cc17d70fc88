"""A tick in plain words for the viewers: its events (H28), a refusal, the harness's end.

The words are made from a record's event objects, which may come from a damaged or
hand-made record: a field missing or of the wrong type makes a plainer phrase, never an
error, and every phrase is cut to :data:`PHRASE_LIMIT` characters. Tiles are said as the
board's rulers number them, ``r2 c3`` (row 2, column 3).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from harness.text import cut_short

#: The longest phrase a viewer is given (a record's strings could be any length).
PHRASE_LIMIT = 200
DIRECTION_WORDS = {"N": "north", "E": "east", "S": "south", "W": "west"}
#: What stopped an echo's recorded move (an EchoHeld's cause).
HOLD_WORDS = {
    "edge_of_chamber": "the edge of the chamber",
    "wall": "a wall",
    "you": "you (a jostle: a grain more for the turn)",
    "gate_shut": "a gate shut for it",
}
#: Why the rules refused an action (H27), after "refused: ".
REFUSAL_WORDS = {
    "unknown_action": "not an action of the grammar",
    "run_ended": "the run is already over",
    "bad_direction": "not one of the four directions",
    "lap_not_running": "no lap is running (the chamber is sealed)",
    "chamber_not_sealed": "DESCEND needs the chamber sealed first",
    "edge_of_chamber": "it would leave the chamber",
    "wall": "a wall is in the way",
    "echo_in_the_way": "an echo is in the way",
    "gate_shut": "the gate is shut for you",
}
#: Why the harness sent END_RUN itself (H33).
AUTO_END_WORDS = {
    "chamber_cap": "the harness ended the run: the last chamber it allows is sealed",
    "action_cap": "the harness ended the run: no actions left under its cap",
}
#: Why a run is over, as the status line says it.
END_WORDS = {
    "sandglass_empty": "the sandglass ran out",
    "end_run": "ended by END_RUN",
}

Phrase = Callable[[Mapping[str, Any], Callable[[Any], str]], str]


def at(tile: Any, width: int) -> str:
    """A tile as the board's rulers number it: ``r2 c3``; anything else as it is."""
    if type(tile) is not int or width <= 0 or tile < 0:
        return str(tile)
    row, col = divmod(tile, width)
    return f"r{row} c{col}"


def _plural(n: Any, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _dir(e: Mapping[str, Any]) -> str:
    d = e["dir"]
    return DIRECTION_WORDS.get(d, str(d)) if isinstance(d, str) else str(d)


def _held(e: Mapping[str, Any], place: Callable[[Any], str]) -> str:
    cause = str(e["cause"])
    by = f"echo {e.get('blocker')}" if cause == "echo" else HOLD_WORDS.get(cause, cause)
    where = place(e["tile"])
    return f"echo {e['echo']} could not move {_dir(e)} (blocked by {by}), held on {where}"


def _paid(e: Mapping[str, Any], place: Callable[[Any], str]) -> str:
    parts = ["1 for the turn"]
    if e["jostles"]:
        parts.append(f"{e['jostles']} for jostles")
    if e["flux"]:
        parts.append("3 for ending on lit flux")
    grains = _plural(e["grains"], "grain", "grains")
    return f"turn {e['turn']} cost {grains} ({', '.join(parts)}); {e['sand']} left"


PHRASES: dict[str, Phrase] = {
    "youMoved": lambda e, p: f"you moved {_dir(e)} to {p(e['tile'])}",
    "youWaited": lambda e, p: f"you waited on {p(e['tile'])}",
    "sparkTaken": lambda e, p: f"you took the spark on {p(e['tile'])}: +{e['points']}",
    "keystoneTaken": lambda e, p: f"you took lap {e['lap']}'s keystone: +{e['points']}",
    "gateCrossed": lambda e, p: (
        f"you stepped onto gate {e['gate']} while echoes held its "
        f"{_plural(e['plates'], 'plate', 'plates')}: +{e['points']}"
    ),
    "echoMoved": lambda e, p: f"echo {e['echo']} moved {_dir(e)} to {p(e['tile'])}",
    "echoWaited": lambda e, p: f"echo {e['echo']} waited on {p(e['tile'])}",
    "echoHeld": _held,
    "echoGone": lambda e, p: (
        f"echo {e['echo']} played its last input and vanished from {p(e['tile'])}"
    ),
    "turnPaid": _paid,
    "lapCompleted": lambda e, p: (
        f"lap {e['lap']} complete with {_plural(e['grainsLeft'], 'grain', 'grains')} "
        f"left: +{e['points']}"
    ),
    "lapStarted": lambda e, p: (
        f"lap {e['lap']} began: you on its alcove {p(e['alcove'])}, "
        f"{_plural(e['sand'], 'grain', 'grains')} in the sandglass"
    ),
    "chamberSealed": lambda e, p: (
        f"chamber {e['chamber']} sealed: +{e['points']}; next DESCEND or END_RUN"
    ),
    "sandglassEmpty": lambda e, p: (
        f"the sandglass ran out during lap {e['lap']}: the run is over, score {e['score']} kept"
    ),
    "runEnded": lambda e, p: f"the run ended with score {e['score']}",
    "chamberStarted": lambda e, p: (
        f"descended to chamber {e['chamber']}: {e['size']} x {e['size']}, "
        f"{_plural(e['laps'], 'lap', 'laps')}, multiplier {e['multiplierPct']}%, "
        f"{_plural(e['sand'], 'grain', 'grains')} for lap 1"
    ),
}


def _cut(text: str) -> str:
    return cut_short(text, PHRASE_LIMIT)


def event_words(event: Any, width: int) -> str:
    """One event object of a record in words (``width``: the chamber's, for tiles)."""
    if not isinstance(event, Mapping):
        return _cut(f"an event the viewer cannot read: {_show(event)}")
    kind = event.get("type")
    phrase = PHRASES.get(kind) if isinstance(kind, str) else None
    if phrase is None:
        return _cut(f"an event the viewer does not know: {_show(event)}")
    try:
        return _cut(phrase(event, lambda tile: at(tile, width)))
    except (KeyError, TypeError):  # a field missing: say what is there rather than guess
        return _cut(f"an event missing a field: {_show(event)}")


def action_words(action: Mapping[str, Any]) -> str:
    """An action in the rules' grammar as a person says it: ``MOVE north``, ``WAIT``."""
    kind = action.get("type")
    if kind == "MOVE":
        d = action.get("dir")
        return f"MOVE {DIRECTION_WORDS.get(d, _show(d)) if isinstance(d, str) else _show(d)}"
    return kind if isinstance(kind, str) and kind.isupper() and len(kind) < 20 else _show(kind)


def tick_words(
    events: Sequence[Any],
    width: int,
    *,
    action: Mapping[str, Any] | None = None,
    refused: str | None = None,
    auto_end: str | None = None,
) -> list[str]:
    """What one tick did, in order: a refusal, each event, then the harness's END_RUN."""
    out: list[str] = []
    if refused is not None:
        what = action_words(action) if action is not None else "the action"
        why = REFUSAL_WORDS.get(refused, refused)
        out.append(_cut(f"{what} refused: {why} (a free no-op: no sand, no turn)"))
    out += [event_words(e, width) for e in events]
    if auto_end is not None:
        out.append(AUTO_END_WORDS.get(auto_end, f"the harness ended the run ({auto_end})"))
    return out


def _show(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return cut_short(text, 80)


__all__ = [
    "AUTO_END_WORDS",
    "DIRECTION_WORDS",
    "END_WORDS",
    "HOLD_WORDS",
    "PHRASES",
    "PHRASE_LIMIT",
    "REFUSAL_WORDS",
    "action_words",
    "at",
    "event_words",
    "tick_words",
]
