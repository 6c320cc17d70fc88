"""Untrusted JSON to a :class:`State`: the structural check of decision H31.

A state built by another implementation of the decisions is a valid input, so this
checks the shape H7 fixes and what the rules need to play it (types, tile ranges,
lengths, and that the phase agrees with the lap, the logs and the echoes), never that
the chamber is the one the seed would draw. Every failure is a
:class:`HourloomStateError` whose message names the field, in linear time.
"""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from harness.games.hourloom.grid import INPUTS, Input
from harness.games.hourloom.rng import MAX_SEED, from_hex
from harness.games.hourloom.state import (
    END_REASONS,
    FLUX_PERIOD,
    GAME,
    PHASES,
    VERSION,
    Chamber,
    Flux,
    Gate,
    HourloomStateError,
    State,
)
from harness.json_reply import StrictJsonError, strict_loads
from harness.text import show_value

#: messages quote values in ASCII: a state's strings may hold anything
_show = partial(show_value, ascii_only=True)


STATE_KEYS = frozenset(
    {"game", "version", "seed", "rngState", "chamber", "phase", "lap", "turn", "sand",
     "player", "hasKeystone", "sparksLeft", "logs", "log", "echoes", "score", "endReason"}
)  # fmt: skip
CHAMBER_KEYS = frozenset(
    {"number", "width", "height", "laps", "multiplierPct", "walls", "exit", "alcoves",
     "keystones", "gates", "flux", "sparks", "lapBudgets"}
)  # fmt: skip
#: Bounds the observation and the glyphs need: echoes 1-5 and gates A-E (H30).
MAX_SIDE = 16
MAX_LAPS = 6
MAX_GATES = 5
MAX_PLATES = 2
#: The multiplier starts at 100 percent and stops at 400 (rules, Scoring).
PCT_RANGE = (100, 400)
MAX_BUDGET = 10_000
MAX_CHAMBER = 1_000_000
_HEX16 = re.compile(r"[0-9a-f]{16}")


def state_from_text(text: str) -> State:
    """Parse strict JSON text and check it as a state (:func:`state_from_json`)."""
    try:
        data = strict_loads(text)
    except StrictJsonError as exc:
        raise HourloomStateError(f"state: not strict JSON ({exc})") from None
    return state_from_json(data)


def state_from_json(data: Any) -> State:
    """The :class:`State` a decoded JSON value holds; raise HourloomStateError if none."""
    obj = _object(data, "state", STATE_KEYS)
    if obj["game"] != GAME:
        raise HourloomStateError(f'state.game: must be "{GAME}", got {_show(obj["game"])}')
    if obj["version"] != VERSION or type(obj["version"]) is not int:
        raise HourloomStateError(f"state.version: must be {VERSION}, got {_show(obj['version'])}")
    seed = _int(obj["seed"], "state.seed", 0, MAX_SEED)
    rng = obj["rngState"]
    if not isinstance(rng, str) or not _HEX16.fullmatch(rng):
        raise HourloomStateError(
            f"state.rngState: must be 16 lowercase hex digits, got {_show(rng)}"
        )
    chamber = _chamber(obj["chamber"])
    tiles = chamber.tiles
    phase = obj["phase"]
    if phase not in PHASES:
        raise HourloomStateError(
            f"state.phase: must be one of {', '.join(PHASES)}, got {_show(phase)}"
        )
    end_reason = obj["endReason"]
    if end_reason is not None and end_reason not in END_REASONS:
        raise HourloomStateError(
            f"state.endReason: must be null or one of {', '.join(END_REASONS)}, "
            f"got {_show(end_reason)}"
        )
    has_keystone = obj["hasKeystone"]
    if not isinstance(has_keystone, bool):
        raise HourloomStateError(
            f"state.hasKeystone: must be true or false, got {_show(has_keystone)}"
        )
    lap = _int(obj["lap"], "state.lap", 1, chamber.laps)
    budget = chamber.lap_budgets[lap - 1]
    logs_raw = _list(obj["logs"], "state.logs", chamber.laps)
    logs = tuple(
        _log(entry, f"state.logs[{i}]", chamber.lap_budgets[i]) for i, entry in enumerate(logs_raw)
    )
    echoes_raw = _list(obj["echoes"], "state.echoes", chamber.laps)
    state = State(
        seed=seed,
        rng_state=from_hex(rng),
        chamber=chamber,
        phase=phase,
        lap=lap,
        turn=_int(obj["turn"], "state.turn", 0, budget),
        sand=_int(obj["sand"], "state.sand", 0, budget),
        player=_tile(obj["player"], "state.player", tiles),
        has_keystone=has_keystone,
        sparks_left=_tiles(obj["sparksLeft"], "state.sparksLeft", tiles, tiles),
        logs=logs,
        log=_log(obj["log"], "state.log", budget),
        echoes=tuple(
            None if e is None else _tile(e, f"state.echoes[{i}]", tiles)
            for i, e in enumerate(echoes_raw)
        ),
        score=_int(obj["score"], "state.score", 0, MAX_SEED),
        end_reason=end_reason,
    )
    problem = _bodies_problem(state) or _phase_problem(state)
    if problem is not None:
        raise HourloomStateError(f"state: {problem}")
    return state


def _chamber(data: Any) -> Chamber:
    obj = _object(data, "state.chamber", CHAMBER_KEYS)
    where = "state.chamber"
    width = _int(obj["width"], f"{where}.width", 2, MAX_SIDE)
    height = _int(obj["height"], f"{where}.height", 2, MAX_SIDE)
    laps = _int(obj["laps"], f"{where}.laps", 1, MAX_LAPS)
    tiles = width * height
    gates_raw = _list(obj["gates"], f"{where}.gates", MAX_GATES)
    gates = []
    for i, g in enumerate(gates_raw):
        gate = _object(g, f"{where}.gates[{i}]", frozenset({"tile", "plates"}))
        tile = _tile(gate["tile"], f"{where}.gates[{i}].tile", tiles)
        plates = _tiles(gate["plates"], f"{where}.gates[{i}].plates", tiles, MAX_PLATES)
        if not plates:
            raise HourloomStateError(f"{where}.gates[{i}].plates: a gate needs 1 or 2 plates")
        gates.append(Gate(tile, plates))
    flux_raw = _list(obj["flux"], f"{where}.flux", tiles)
    flux = []
    for i, f in enumerate(flux_raw):
        item = _object(f, f"{where}.flux[{i}]", frozenset({"tile", "phase"}))
        flux.append(
            Flux(
                _tile(item["tile"], f"{where}.flux[{i}].tile", tiles),
                _int(item["phase"], f"{where}.flux[{i}].phase", 0, FLUX_PERIOD - 1),
            )
        )
    chamber = Chamber(
        number=_int(obj["number"], f"{where}.number", 1, MAX_CHAMBER),
        width=width,
        height=height,
        laps=laps,
        multiplier_pct=_int(obj["multiplierPct"], f"{where}.multiplierPct", *PCT_RANGE),
        walls=_tiles(obj["walls"], f"{where}.walls", tiles, tiles),
        exit=_tile(obj["exit"], f"{where}.exit", tiles),
        alcoves=_tiles(obj["alcoves"], f"{where}.alcoves", tiles, laps, exactly=True),
        keystones=_tiles(
            obj["keystones"], f"{where}.keystones", tiles, laps, exactly=True, unique=False
        ),
        gates=tuple(gates),
        flux=tuple(flux),
        sparks=_tiles(obj["sparks"], f"{where}.sparks", tiles, tiles),
        lap_budgets=_budgets(obj["lapBudgets"], f"{where}.lapBudgets", laps),
    )
    problem = _chamber_problem(chamber)
    if problem is not None:
        raise HourloomStateError(f"state.chamber: {problem}")
    return chamber


def _chamber_problem(c: Chamber) -> str | None:
    walls = c.wall_set
    plates = [p for g in c.gates for p in g.plates]
    gate_tiles = [g.tile for g in c.gates]
    if len(set(gate_tiles)) != len(gate_tiles):
        return "two gates share a tile"
    if len(set(plates)) != len(plates):
        return "a plate is linked to two gates, or listed twice"
    if set(plates) & set(gate_tiles):
        return "a plate lies on a gate tile"
    if len({f.tile for f in c.flux}) != len(c.flux):
        return "two flux entries share a tile"
    named = {
        "exit": [c.exit],
        "alcoves": list(c.alcoves),
        "keystones": list(c.keystones),
        "gates": gate_tiles,
        "plates": plates,
        "flux": [f.tile for f in c.flux],
        "sparks": list(c.sparks),
    }
    for name, tiles in named.items():
        on_wall = sorted(set(tiles) & walls)
        if on_wall:
            return f"{name} on wall tile(s) {on_wall}"
    if c.exit in gate_tiles or set(c.alcoves) & set(gate_tiles):
        return "the exit and the alcoves must not be gate tiles"
    return None


def _bodies_problem(s: State) -> str | None:
    bodies = [s.player, *(e for e in s.echoes if e is not None)]
    if len(set(bodies)) != len(bodies):
        return "two bodies share a tile (one body to a tile)"
    on_wall = sorted(set(bodies) & s.chamber.wall_set)
    if on_wall:
        return f"a body stands on wall tile(s) {on_wall}"
    if not set(s.sparks_left) <= set(s.chamber.sparks):
        return "sparksLeft names a tile that is not one of chamber.sparks"
    return None


def _phase_problem(s: State) -> str | None:
    c = s.chamber
    if (s.phase == "over") != (s.end_reason is not None):
        return f"endReason {_show(s.end_reason)} does not fit phase {s.phase}"
    if len(s.echoes) != len(s.logs):
        return (
            f"echoes has {len(s.echoes)} entries but logs has {len(s.logs)} (one per finished lap)"
        )
    if any(not log for log in s.logs):
        return "a finished lap's log is empty (a lap ends with a move onto the exit)"
    sealed_shape = len(s.logs) == c.laps and not s.log and s.turn == 0
    if s.phase == "sealed" or (s.end_reason == "end_run" and sealed_shape):
        return _sealed_problem(s)
    if len(s.logs) != s.lap - 1:
        return f"lap {s.lap} needs {s.lap - 1} finished logs, got {len(s.logs)}"
    if len(s.log) != s.turn:
        return f"log has {len(s.log)} inputs but turn is {s.turn} (one input per turn)"
    if s.sand > s.lap_budget - s.turn:
        return f"sand {s.sand} is more than lap budget {s.lap_budget} less {s.turn} turns"
    if (s.sand == 0) != (s.end_reason == "sandglass_empty"):
        return "sand is 0 exactly when the sandglass emptied (endReason sandglass_empty)"
    for k, (tile, log) in enumerate(zip(s.echoes, s.logs, strict=True), 1):
        if (tile is None) != (s.turn >= len(log)):
            state = "gone" if tile is None else "present"
            return f"echo {k} is {state} at turn {s.turn} with a log of {len(log)} inputs"
    if s.turn == 0 and (
        s.player != c.alcoves[s.lap - 1]
        or s.echoes != c.alcoves[: s.lap - 1]
        or s.sand != s.lap_budget
        or s.has_keystone
    ):
        return "at turn 0 you and every echo stand on your alcoves, with the full lap budget"
    return None


def _sealed_problem(s: State) -> str | None:
    c = s.chamber
    if s.lap != c.laps or len(s.logs) != c.laps or s.log or s.turn != 0:
        return "a sealed chamber has lap = laps, every lap's log, an empty log and turn 0"
    if any(e is not None for e in s.echoes):
        return "a sealed chamber has no echoes (every entry null)"
    if s.player != c.exit or s.has_keystone:
        return "a sealed chamber has you on the exit and no keystone held"
    return None


def _object(data: object, where: str, keys: frozenset[str]) -> dict[str, object]:
    if not isinstance(data, dict):
        raise HourloomStateError(f"{where}: must be a JSON object, got {_show(data)}")
    missing = sorted(keys - data.keys())
    if missing:
        raise HourloomStateError(f"{where}: missing field(s) {', '.join(missing)}")
    extra = sorted(str(k) for k in data.keys() - keys)
    if extra:
        raise HourloomStateError(f"{where}: unknown field(s) {', '.join(extra)}")
    return data


def _int(value: Any, where: str, low: int, high: int) -> int:
    # bool is an int in Python, but true is not a JSON integer.
    if type(value) is not int:
        raise HourloomStateError(f"{where}: must be an integer, got {_show(value)}")
    if not low <= value <= high:
        raise HourloomStateError(f"{where}: must be {low}..{high}, got {value}")
    return value


def _list(value: Any, where: str, most: int) -> list[Any]:
    if not isinstance(value, list):
        raise HourloomStateError(f"{where}: must be an array, got {_show(value)}")
    if len(value) > most:
        raise HourloomStateError(f"{where}: at most {most} entries, got {len(value)}")
    return value


def _tile(value: Any, where: str, tiles: int) -> int:
    return _int(value, where, 0, tiles - 1)


def _tiles(
    value: Any, where: str, tiles: int, most: int, *, exactly: bool = False, unique: bool = True
) -> tuple[int, ...]:
    items = _list(value, where, most)
    if exactly and len(items) != most:
        raise HourloomStateError(f"{where}: needs exactly {most} entries, got {len(items)}")
    out = tuple(_tile(v, f"{where}[{i}]", tiles) for i, v in enumerate(items))
    if unique and len(set(out)) != len(out):
        raise HourloomStateError(f"{where}: lists a tile twice")
    return out


def _budgets(value: Any, where: str, laps: int) -> tuple[int, ...]:
    items = _list(value, where, laps)
    if len(items) != laps:
        raise HourloomStateError(f"{where}: needs exactly {laps} entries, got {len(items)}")
    return tuple(_int(v, f"{where}[{i}]", 1, MAX_BUDGET) for i, v in enumerate(items))


def _log(value: Any, where: str, most: int) -> tuple[Input, ...]:
    items = _list(value, where, most)
    for i, entry in enumerate(items):
        if entry not in INPUTS or not isinstance(entry, str):
            raise HourloomStateError(
                f"{where}[{i}]: must be one of {', '.join(INPUTS)}, got {_show(entry)}"
            )
    return tuple(items)


__all__ = ["CHAMBER_KEYS", "MAX_SIDE", "STATE_KEYS", "state_from_json", "state_from_text"]
