"""What a Relayroam player sees (decision RR16).

The whole chamber is public, so the observation is the state made explicit: the
layout resolved, every object with its cell and used flag, every vent with its
offset and countdown, a 5-line grid and the legal actions. The text a model reads
and the scripted baselines are both built from this one object.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from pydantic import JsonValue

from harness.games.relayroam.layouts import FLOOR, HEIGHT, WALL, WIDTH, Feature
from harness.games.relayroam.rules import Action, actions_until_spark, legal_actions
from harness.games.relayroam.state import CHARGE_CAP, EndReason, Phase, State
from harness.models import JsonObject

PLAYER_GLYPH = "@"
OPEN_EXIT_GLYPH = "E"
CLOSED_EXIT_GLYPH = "X"
#: Glyphs of an object still to use / already used, by kind (RR16).
OBJECT_GLYPHS = {"relay": ("R", "r"), "helper": ("H", "h"), "battery": ("B", "b")}


@dataclass(frozen=True)
class ExitView:
    """The exit's cell and whether it is open (every relay repaired)."""

    x: int
    y: int
    open: bool


@dataclass(frozen=True)
class ObjectView:
    """A relay, helper or battery: its ID, its cell and whether it was used."""

    id: str
    x: int
    y: int
    used: bool


@dataclass(frozen=True)
class VentView:
    """A vent: ID, cell, offset, and how many actions until it sparks (1 = the next)."""

    id: str
    x: int
    y: int
    offset: int
    actions_until_spark: int


@dataclass(frozen=True)
class Observation:
    """Everything a player sees at one decision (RR16); every list is in ID order."""

    phase: Phase
    end_reason: EndReason | None
    chamber: int
    layout: str
    layout_name: str
    reflected: bool
    charge: int
    charge_cap: int
    turn: int
    chamber_shock_count: int
    score: int
    total_rescued: int
    cleared_chamber_count: int
    player: tuple[int, int]
    exit: ExitView
    relays: tuple[ObjectView, ...]
    helpers: tuple[ObjectView, ...]
    batteries: tuple[ObjectView, ...]
    vents: tuple[VentView, ...]
    grid: tuple[str, ...]
    legal_actions: tuple[Action, ...]


def observe(state: State) -> Observation:
    """The observation of ``state``."""
    layout = state.layout

    def views(features: tuple[Feature, ...]) -> tuple[ObjectView, ...]:
        return tuple(ObjectView(f.id, f.pos[0], f.pos[1], state.is_used(f.id)) for f in features)

    ex, ey = layout.exit
    return Observation(
        phase=state.phase,
        end_reason=state.end_reason,
        chamber=state.chamber,
        layout=layout.letter,
        layout_name=layout.name,
        reflected=state.reflected,
        charge=state.charge,
        charge_cap=CHARGE_CAP,
        turn=state.turn,
        chamber_shock_count=state.chamber_shock_count,
        score=state.score,
        total_rescued=state.total_rescued,
        cleared_chamber_count=state.cleared_chamber_count,
        player=state.player,
        exit=ExitView(ex, ey, state.exit_open),
        relays=views(layout.relays),
        helpers=views(layout.helpers),
        batteries=views(layout.batteries),
        vents=tuple(
            VentView(
                v.id,
                v.pos[0],
                v.pos[1],
                state.vent_offsets[v.index],
                actions_until_spark(state.turn, state.vent_offsets[v.index]),
            )
            for v in layout.vents
        ),
        grid=_grid(state),
        legal_actions=tuple(legal_actions(state)),
    )


def _grid(state: State) -> tuple[str, ...]:
    """The RR16 grid: the start is drawn as floor and the player on top of all."""
    layout = state.layout
    rows = [list(row) for row in layout.terrain()]
    for f in layout.objects:
        todo, done = OBJECT_GLYPHS[f.kind]
        rows[f.pos[1]][f.pos[0]] = done if state.is_used(f.id) else todo
    for v in layout.vents:
        rows[v.pos[1]][v.pos[0]] = v.id[1:]
    ex, ey = layout.exit
    rows[ey][ex] = OPEN_EXIT_GLYPH if state.exit_open else CLOSED_EXIT_GLYPH
    px, py = state.player
    rows[py][px] = PLAYER_GLYPH
    return tuple("".join(row) for row in rows)


def observation_json(obs: Observation) -> JsonObject:
    """``obs`` as a JSON object with the rules' camelCase names (RR1, RR16)."""

    def objects(views: tuple[ObjectView, ...]) -> list[JsonValue]:
        return [{"id": v.id, "x": v.x, "y": v.y, "used": v.used} for v in views]

    return {
        "phase": obs.phase,
        "endReason": obs.end_reason,
        "chamber": obs.chamber,
        "layout": obs.layout,
        "layoutName": obs.layout_name,
        "reflected": obs.reflected,
        "charge": obs.charge,
        "chargeCap": obs.charge_cap,
        "turn": obs.turn,
        "chamberShockCount": obs.chamber_shock_count,
        "score": obs.score,
        "totalRescued": obs.total_rescued,
        "clearedChamberCount": obs.cleared_chamber_count,
        "player": {"x": obs.player[0], "y": obs.player[1]},
        "exit": {"x": obs.exit.x, "y": obs.exit.y, "open": obs.exit.open},
        "relays": objects(obs.relays),
        "helpers": objects(obs.helpers),
        "batteries": objects(obs.batteries),
        "vents": [
            {
                "id": v.id,
                "x": v.x,
                "y": v.y,
                "offset": v.offset,
                "actionsUntilSpark": v.actions_until_spark,
            }
            for v in obs.vents
        ],
        "grid": list(obs.grid),
        "legalActions": [dict(a) for a in obs.legal_actions],
    }


#: The grid's size and axes, as both layouts say them.
_AXES = f"{WIDTH} x {HEIGHT}; x grows to the right, y grows downwards"
#: What each glyph of the grid means.
_LEGEND = (
    f"@ you, {WALL} wall, {FLOOR} floor, R relay to repair, r repaired, H helper to "
    "rescue, h rescued, B battery, b used battery, E open exit, X closed exit, "
    "1-3 vents"
)


def _phrases(obs: Observation) -> tuple[str, str, str]:
    """The title line, the phase and the exit of ``obs`` in words, as both layouts say
    them."""
    facing = "reflected left to right" if obs.reflected else "original orientation"
    title = f'Relayroam, chamber {obs.chamber}: layout {obs.layout} "{obs.layout_name}", {facing}.'
    status = {
        "playing": "playing",
        "chamber-clear": "chamber-clear (this chamber is clear: next continues, bank finishes)",
        "ended": f"ended ({obs.end_reason})",
    }[obs.phase]
    exit_state = (
        "OPEN: entering it clears the chamber"
        if obs.exit.open
        else "closed until every relay is repaired"
    )
    return title, status, exit_state


def render_text(obs: Observation) -> str:
    """``obs`` as the text a model reads: the grid, every RR16 field, the legal actions."""
    title, status, exit_state = _phrases(obs)
    px, py = obs.player
    lines = [
        title,
        f"Phase: {status}.",
        f"Charge {obs.charge} of {obs.charge_cap} max. Turn {obs.turn} of this chamber. "
        f"Shocks this chamber: {obs.chamber_shock_count}.",
        _totals_text(obs),
        f"You (@) are at x={px}, y={py}. Exit at x={obs.exit.x}, y={obs.exit.y}: {exit_state}.",
        "",
        f"Grid ({_AXES}; {_LEGEND}):",
        *_grid_lines(obs),
        "",
        *_object_lines(obs),
        _vents_text(obs),
        "",
        *_legal_lines(obs),
    ]
    return "\n".join(lines)


#: The layout of :func:`render_prompt`'s text: 2, what changes least first;
#: :func:`render_text` is layout 1 (the chamber's state first), as records before it
#: were prompted.
PROMPT_LAYOUT = 2


def render_prompt(obs: Observation) -> str:
    """``obs`` as a seat is sent it (layout 2): :func:`render_text`'s lines, those that
    stay the same through a chamber first (its layout, the legend, the exit, the
    objects and whether each is used), then score and phase, then the turn's own
    (charge, position, grid, vents, legal actions), so that consecutive turns' texts
    share as long a start as they can."""
    title, status, exit_state = _phrases(obs)
    px, py = obs.player
    lines = [
        title,
        f"Grid legend ({_AXES}): {_LEGEND}.",
        f"Exit at x={obs.exit.x}, y={obs.exit.y}: {exit_state}.",
        *_object_lines(obs),
        _totals_text(obs),
        f"Phase: {status}.",
        "",
        f"Turn {obs.turn} of this chamber. Charge {obs.charge} of {obs.charge_cap} max. "
        f"Shocks this chamber: {obs.chamber_shock_count}.",
        f"You (@) are at x={px}, y={py}.",
        "Grid:",
        *_grid_lines(obs),
        _vents_text(obs),
        *_legal_lines(obs),
    ]
    return "\n".join(lines)


def _totals_text(obs: Observation) -> str:
    return (
        f"Score {obs.score}. Helpers rescued in total: {obs.total_rescued}. "
        f"Chambers cleared: {obs.cleared_chamber_count}."
    )


def _grid_lines(obs: Observation) -> list[str]:
    """The grid under a ruler of x, each row after its y."""
    return [
        "     x=" + "".join(str(x) for x in range(WIDTH)),
        *(f"  y={y}  {row}" for y, row in enumerate(obs.grid)),
    ]


def _object_lines(obs: Observation) -> list[str]:
    return [
        "Relays (+60 points, -2 charge): " + _objects_text(obs.relays, "repaired"),
        "Helpers (+80 points): " + _objects_text(obs.helpers, "rescued"),
        f"Batteries (+6 charge, up to {obs.charge_cap}): " + _objects_text(obs.batteries, "used"),
    ]


def _legal_lines(obs: Observation) -> list[str]:
    if not obs.legal_actions:
        return ["Legal actions: none (the run has ended)."]
    return [
        "Legal actions (reply with exactly one, as JSON):",
        *(f"  {json.dumps(a, separators=(',', ':'))}" for a in obs.legal_actions),
    ]


def _vents_text(obs: Observation) -> str:
    if not obs.vents:
        return "Vents: none"
    return "Vents: " + "; ".join(
        f"{v.id} at x={v.x}, y={v.y}, offset {v.offset}, "
        + (
            "sparks on your next action"
            if v.actions_until_spark == 1
            else f"sparks in {v.actions_until_spark} actions"
        )
        + f" (actionsUntilSpark {v.actions_until_spark})"
        for v in obs.vents
    )


def _objects_text(views: tuple[ObjectView, ...], used_word: str) -> str:
    if not views:
        return "none"
    return "; ".join(
        f"{v.id} at x={v.x}, y={v.y} ({used_word if v.used else 'not yet'})" for v in views
    )


__all__ = [
    "CLOSED_EXIT_GLYPH",
    "OBJECT_GLYPHS",
    "OPEN_EXIT_GLYPH",
    "PLAYER_GLYPH",
    "PROMPT_LAYOUT",
    "ExitView",
    "ObjectView",
    "Observation",
    "VentView",
    "observation_json",
    "observe",
    "render_prompt",
    "render_text",
]
