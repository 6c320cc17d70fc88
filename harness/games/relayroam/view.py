"""Relayroam's frames for the viewers: the grid, charge, score and the player's action."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.games.relayroam.observe import observe
from harness.games.relayroam.rules import new_game

BOARD_JS = Path(__file__).with_name("board.js")
VIEW_RAW_RUNES = 2000


def view_frames(lines: Sequence[Any]) -> list[dict[str, Any]]:
    """The start, then one frame per decision."""
    header = lines[0]
    start = observe(new_game(header.board.seed))
    frames: list[dict[str, Any]] = [
        {
            "label": "start",
            "tick": None,
            "grid": list(start.grid),
            "chamber": start.chamber,
            "charge": start.charge,
            "turn": start.turn,
            "score": start.score,
            "phase": start.phase,
            "events": [],
            "seats": [],
            "transmission": None,
        }
    ]
    for line in lines:
        if line.type != "tick":
            continue
        s = line.state
        turn = line.seats["player"]
        frames.append(
            {
                "label": f"tick {line.tick}",
                "tick": line.tick,
                "grid": list(s.grid),
                "chamber": s.chamber,
                "charge": s.charge,
                "turn": s.turn,
                "score": s.score,
                "phase": s.phase,
                "events": [e["type"] for e in s.events],
                "transmission": None,
                "seats": [
                    {
                        "seat": "player",
                        "name": "player",
                        "source": turn.source,
                        "raw": turn.raw[:VIEW_RAW_RUNES],
                        "decision": turn.decision.model_dump(),
                        "notes": "",
                    }
                ],
            }
        )
    return frames


def render_view(frame: dict[str, Any]) -> str:
    """A frame as terminal text."""
    out = [
        f"== {frame['label']}   chamber {frame['chamber']}   charge {frame['charge']}   "
        f"turn {frame['turn']}   score {frame['score']}   {frame['phase']}"
    ]
    out += ["  " + row for row in frame["grid"]]
    if frame["events"]:
        out.append("  events: " + ", ".join(frame["events"]))
    for seat in frame["seats"]:
        out.append(f"  [{seat['source']}] player: {seat['raw']}")
    return "\n".join(out)


def viewer_script() -> str:
    """The board drawing for the HTML viewer."""
    return BOARD_JS.read_text(encoding="utf-8")


__all__ = ["render_view", "view_frames", "viewer_script"]
