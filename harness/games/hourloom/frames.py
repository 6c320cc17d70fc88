"""Hourloom's viewer frames, made here so that the page only draws them (``board.js``).

A frame is the state after a tick as the record holds it (H30's glyphs, where you and
each echo stand, each echo's next input, each gate open or shut for you, the
sandglass, the score), the tick's events in words (:mod:`.words`), and what a tick
state leaves out, which the rules' own replay of the record's actions adds: the ground
under every body (a spark an echo stands on), who holds each plate, the inputs each
echo has left, and the chamber's laps. Should the replay disagree with the record (a
record edited by hand, or written under other rules), the frames from that tick on
are drawn from the record alone, and say so in ``note``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.errors import HarnessError
from harness.games.hourloom.game import PLAYER, Episode, HourloomRules, tick_state
from harness.games.hourloom.observe import (
    FLOOR,
    GATE_LETTERS,
    YOU_GLYPH,
    glyph_rows,
    lap_status,
    plate_holder,
)
from harness.games.hourloom.record import HourloomTickState
from harness.games.hourloom.state import Chamber, State
from harness.games.hourloom.turn import bodies_of
from harness.games.hourloom.words import END_WORDS, at, tick_words

#: Raw replies longer than this are cut in viewer frames (the record keeps them whole).
VIEW_RAW_RUNES = 2000


def _status(s: HourloomTickState) -> str:
    """Where the run stands, in words."""
    if s.phase == "sealed":
        return f"chamber {s.chamber} sealed: next DESCEND or END_RUN"
    if s.phase == "over":
        why = END_WORDS.get(s.end_reason or "", "over")
        if s.auto_end is not None:
            why = "ended by the harness's cap"
        return f"run over: {why}"
    key = "keystone held: now the exit" if s.has_keystone else "keystone not taken yet"
    return f"lap {s.lap} running, {key}"


def _terrain(s: HourloomTickState, rules: State | None) -> list[str]:
    """The ground of every tile, bodies left out; from the record's glyphs alone (a
    body's tile drawn as floor) when there is no replayed state."""
    if rules is not None:
        return list(glyph_rows(rules, bodies=False))
    bodies = {YOU_GLYPH, *"123456789"}
    return ["".join(FLOOR if g in bodies else g for g in row) for row in s.grid]


def _echoes(s: HourloomTickState, rules: State | None, width: int) -> list[dict[str, Any]]:
    out = []
    for k, (tile, nxt) in enumerate(zip(s.echoes, s.echo_next, strict=False), 1):
        echo: dict[str, Any] = {"echo": k, "tile": tile, "at": None, "next": nxt, "left": None}
        if tile is not None:
            echo["at"] = at(tile, width)
            if rules is not None and k <= len(rules.logs):
                echo["left"] = len(rules.logs[k - 1]) - rules.turn
        out.append(echo)
    return out


def _gates(s: HourloomTickState, rules: State | None) -> list[dict[str, Any]]:
    """Each gate open or shut for you, and who stands on each of its plates (in the
    chamber's order, :func:`chamber_view`); no plates when there is no replayed state."""
    bodies = bodies_of(s.player, tuple(s.echoes))
    chamber = rules.chamber.gates if rules is not None else ()
    return [
        {
            "gate": GATE_LETTERS[i],
            "open": is_open,
            "by": [plate_holder(bodies, p) for p in chamber[i].plates] if i < len(chamber) else [],
        }
        for i, is_open in enumerate(s.gates_open[: len(GATE_LETTERS)])
    ]


def chamber_view(chamber: Chamber) -> dict[str, Any]:
    """What never changes in a chamber: where its gates and plates lie, and its laps."""
    w = chamber.width
    return {
        "gates": [
            {"gate": GATE_LETTERS[i], "at": at(g.tile, w), "plates": [at(p, w) for p in g.plates]}
            for i, g in enumerate(chamber.gates)
        ],
        "laps": [
            {"lap": lap, "alcove": at(a, w), "keystone": at(k, w), "budget": budget}
            for lap, (a, k, budget) in enumerate(
                zip(chamber.alcoves, chamber.keystones, chamber.lap_budgets, strict=True), 1
            )
        ],
    }


def frame_of(
    s: HourloomTickState,
    rules: State | None,
    label: str,
    tick: int | None,
    action: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A viewer frame of the tick state ``s``, completed by ``rules`` (the rules' state
    after the same tick) when there is one; no seats (the caller adds them)."""
    width = len(s.grid[0]) if s.grid else 0
    return {
        "label": label,
        "tick": tick,
        "chamber": s.chamber,
        "multiplierPct": s.multiplier_pct,
        "phase": s.phase,
        "status": _status(s),
        "lap": s.lap,
        "laps": s.laps,
        "turn": s.turn,
        "sand": s.sand,
        "lapBudget": s.lap_budget,
        "hasKeystone": s.has_keystone,
        "score": s.score,
        "grid": list(s.grid),
        "terrain": _terrain(s, rules),
        "you": s.player,
        "youAt": at(s.player, width),
        "echoes": _echoes(s, rules, width),
        "gates": _gates(s, rules),
        "lapStatus": [] if rules is None else [lap_status(rules, n) for n in range(1, s.laps + 1)],
        "events": tick_words(
            s.events,
            width,
            action=action,
            refused=None if s.ok else (s.reason or "unknown_action"),
            auto_end=s.auto_end,
        ),
        "autoEnd": s.auto_end,
        "seats": [],
    }


def _follow(
    rules: HourloomRules, episode: Episode | None, action: Any, recorded: HourloomTickState
) -> Episode | None:
    """``episode`` after ``action``, or None when the rules' tick state is not the
    recorded one (or the rules cannot play the action at all)."""
    if episode is None or action is None:
        return None
    try:
        after, state = rules.resolve(episode, {PLAYER: action})
    except HarnessError:
        return None
    return after if state == recorded else None


def view_frames(lines: Sequence[Any]) -> list[dict[str, Any]]:
    """The start, then one frame per action (see the module)."""
    header = lines[0]
    rules = HourloomRules()
    episode: Episode | None = rules.new_state(header.config, header.board.seed)
    assert episode is not None
    start = tick_state(episode, True, None, [], None)
    frames = [frame_of(start, episode.rules, "start", None)]
    c = episode.rules.chamber
    frames[0]["events"] = [
        f"the run starts in chamber {c.number}: {c.width} x {c.height}, {c.laps} laps, "
        f"multiplier {c.multiplier_pct}%, {start.sand} grains for lap 1"
    ]
    # The chambers' fixed parts travel once, in the first frame, which the page draws
    # first; every frame names its chamber.
    chambers: dict[str, Any] = {"1": chamber_view(episode.rules.chamber)}
    frames[0]["chambers"] = chambers
    departed: int | None = None
    for line in lines:
        if line.type != "tick":
            continue
        turn = line.seats.get(PLAYER)
        action = turn.decision.model_dump() if turn is not None else None
        episode = _follow(rules, episode, action, line.state)
        if episode is None and departed is None:
            departed = line.tick
        if episode is not None:
            number = episode.rules.chamber.number
            chambers.setdefault(str(number), chamber_view(episode.rules.chamber))
        frame = frame_of(
            line.state,
            episode.rules if episode is not None else None,
            f"tick {line.tick}",
            line.tick,
            action,
        )
        if departed is not None:
            frame["note"] = (
                f"from tick {departed} on, the record departs from the rules' replay of its "
                "actions: drawn from the record alone (no plates, laps or ground under bodies)"
            )
        frame["seats"] = [
            {
                "seat": seat,
                "name": seat,
                "source": t.source,
                "raw": t.raw[:VIEW_RAW_RUNES],
                "decision": t.decision.model_dump(),
                "notes": "",
            }
            for seat, t in line.seats.items()
        ]
        frames.append(frame)
    return frames


__all__ = ["VIEW_RAW_RUNES", "frame_of", "view_frames"]
