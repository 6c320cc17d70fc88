"""Hourloom's view part: terminal text, and plain frames for the viewers.

Kept small: the board is the chamber as H30's glyphs, with the echoes and their next
inputs, the gates open or shut, the sandglass and the score beside it. Every frame is
drawn from a record's tick state alone (the start from the header's seed).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.games.hourloom.game import PLAYER, Episode, HourloomRules, tick_state
from harness.games.hourloom.grid import describe
from harness.games.hourloom.observe import GATE_LETTERS, LEGEND, observe
from harness.games.hourloom.record import HourloomResults, HourloomTick, HourloomTickState
from harness.games.hourloom.state import state_json

BOARD_JS = Path(__file__).with_name("board.js")
VIEW_RAW_RUNES = 2000


def frame_of(s: HourloomTickState, label: str, tick: int | None) -> dict[str, Any]:
    """A viewer frame of the state ``s`` (no seats: the caller adds them)."""
    width = len(s.grid[0]) if s.grid else 1
    return {
        "label": label,
        "tick": tick,
        "grid": list(s.grid),
        "chamber": s.chamber,
        "multiplierPct": s.multiplier_pct,
        "phase": s.phase,
        "lap": s.lap,
        "laps": s.laps,
        "turn": s.turn,
        "sand": s.sand,
        "lapBudget": s.lap_budget,
        "hasKeystone": s.has_keystone,
        "score": s.score,
        "echoes": [
            {"echo": k, "tile": None if tile is None else describe(tile, width), "next": nxt}
            for k, (tile, nxt) in enumerate(zip(s.echoes, s.echo_next, strict=True), 1)
        ],
        "gates": [
            {"gate": GATE_LETTERS[i], "open": is_open} for i, is_open in enumerate(s.gates_open)
        ],
        "events": [e["type"] for e in s.events],
        "autoEnd": s.auto_end,
        "transmission": None,
        "seats": [],
    }


def view_frames(lines: Sequence[Any]) -> list[dict[str, Any]]:
    """The start, then one frame per action."""
    header = lines[0]
    start = HourloomRules().new_state(header.config, header.board.seed)
    frames = [frame_of(tick_state(start, True, None, [], None), "start", None)]
    for line in lines:
        if line.type != "tick":
            continue
        turn = line.seats[PLAYER]
        frame = frame_of(line.state, f"tick {line.tick}", line.tick)
        frame["seats"] = [
            {
                "seat": PLAYER,
                "name": PLAYER,
                "source": turn.source,
                "raw": turn.raw[:VIEW_RAW_RUNES],
                "decision": turn.decision.model_dump(),
                "notes": "",
            }
        ]
        frames.append(frame)
    return frames


def status(frame: dict[str, Any]) -> str:
    """One line: where the run stands in ``frame``."""
    key = ", keystone held" if frame["hasKeystone"] else ""
    return (
        f"chamber {frame['chamber']} ({frame['multiplierPct']}%)  lap {frame['lap']}/"
        f"{frame['laps']}  turn {frame['turn']}  sand {frame['sand']}/{frame['lapBudget']}"
        f"{key}  score {frame['score']}  {frame['phase']}"
    )


def render_view(frame: dict[str, Any]) -> str:
    """A frame as terminal text."""
    out = [f"== {frame['label']}   {status(frame)}"]
    out += ["  " + row for row in frame["grid"]]
    echoes = [
        f"{e['echo']}: {e['tile']} next {e['next']}" if e["tile"] else f"{e['echo']}: gone"
        for e in frame["echoes"]
    ]
    if echoes:
        out.append("  echoes: " + "; ".join(echoes))
    if frame["gates"]:
        gates = (f"{g['gate']} {'open' if g['open'] else 'shut'}" for g in frame["gates"])
        out.append("  gates: " + ", ".join(gates))
    if frame["events"]:
        out.append("  events: " + ", ".join(frame["events"]))
    for seat in frame["seats"]:
        out.append(f"  [{seat['source']}] player: {seat['raw']}")
    return "\n".join(out)


def viewer_script() -> str:
    """The board drawing for the HTML viewer, read from ``board.js``."""
    return BOARD_JS.read_text(encoding="utf-8")


class HourloomView:
    """Hourloom's drawings. Stateless; only :meth:`viewer_script` reads a file."""

    def render_start(self, state: Episode) -> str:
        return observe(state.rules).text

    def render_board(self, state: Episode, seed: int, variant: str) -> str:
        rules = state.rules
        title = f"Hourloom, seed {seed}, variant {variant}, chamber {rules.chamber.number}"
        return "\n".join([title, observe(rules).text])

    def board_json(self, state: Episode) -> dict[str, Any]:
        rules = state.rules
        frame = frame_of(tick_state(state, True, None, [], None), "start", None)
        return {
            "config": state.config.model_dump(mode="json", by_alias=True),
            "chamber": rules.chamber.number,
            "rows": frame["grid"],
            "legend": LEGEND,
            "echoes": frame["echoes"],
            "gates": frame["gates"],
            "sand": rules.sand,
            "lapBudget": rules.lap_budget,
            "score": rules.score,
            "state": state_json(rules),
        }

    def render_tick(self, line: HourloomTick) -> str:
        s = line.state
        turn = line.seats[PLAYER]
        action = json.dumps(turn.decision.model_dump())
        tag = "" if turn.source in ("baseline", "llm", "python") else f"  [{turn.source}]"
        did = "refused: " + str(s.reason) if not s.ok else ", ".join(e["type"] for e in s.events)
        ended = f"  (the harness ends the run: {s.auto_end})" if s.auto_end else ""
        head = f"tick {line.tick}  {action}{tag}  -> {did or '-'}{ended}"
        frame = frame_of(s, "", line.tick)
        return "\n".join([head, "    " + status(frame), *("    " + row for row in s.grid)])

    def render_results(self, results: Any) -> str:
        r: HourloomResults = results
        ratio = r.score / r.planned if r.planned else 0.0
        return (
            f"score {r.score} of a planned {r.planned} ({100 * ratio:.1f}%)  "
            f"chambers sealed {r.chambers_sealed}  laps {r.laps_completed}  "
            f"actions {r.actions}  refusals {r.refusals}  reason {r.reason}"
        )

    def view_frames(self, lines: Sequence[Any]) -> list[dict[str, Any]]:
        return view_frames(lines)

    def render_view(self, frame: dict[str, Any]) -> str:
        return render_view(frame)

    def viewer_script(self) -> str:
        return viewer_script()


__all__ = ["HourloomView", "frame_of", "render_view", "view_frames", "viewer_script"]
