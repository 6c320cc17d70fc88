"""Relayroam's view part: terminal text, and frames for the viewers (grid, charge, score)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.games.relayroam.game import PLAYER, Episode, RelayroamRules
from harness.games.relayroam.observe import observe, render_text
from harness.games.relayroam.record import RelayroamResults, RelayroamTick
from harness.records import PLAIN_SOURCES

BOARD_JS = Path(__file__).with_name("board.js")
VIEW_RAW_RUNES = 2000


def view_frames(lines: Sequence[Any]) -> list[dict[str, Any]]:
    """The start, then one frame per decision."""
    header = lines[0]
    start = observe(RelayroamRules().new_state(header.config, header.board.seed).rules)
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
    """The board drawing for the HTML viewer, read from ``board.js``."""
    return BOARD_JS.read_text(encoding="utf-8")


class RelayroamView:
    """Relayroam's drawings. Stateless; only :meth:`viewer_script` reads a file."""

    def render_start(self, state: Episode) -> str:
        return render_text(observe(state.rules))

    def render_board(self, state: Episode, seed: int, variant: str) -> str:
        obs = observe(state.rules)
        return "\n".join(
            [
                f"Relayroam chamber {obs.chamber}, seed {seed}, variant {variant} "
                f'(layout {obs.layout} "{obs.layout_name}", {len(obs.grid[0])} x {len(obs.grid)})',
                *obs.grid,
                "@ start  # wall  . floor  R relay  H helper  B battery  X exit  1-3 vents",
            ]
        )

    def board_json(self, state: Episode) -> dict[str, Any]:
        obs = observe(state.rules)
        return {
            "config": state.config.model_dump(mode="json", by_alias=True),
            "chamber": obs.chamber,
            "layout": obs.layout,
            "reflected": obs.reflected,
            "rows": list(obs.grid),
        }

    def render_tick(self, line: RelayroamTick) -> str:
        s = line.state
        turn = line.seats[PLAYER]
        action = json.dumps(turn.decision.model_dump())
        tag = "" if turn.source in PLAIN_SOURCES else f"  [{turn.source}]"
        happened = ", ".join(e["type"] for e in s.events) or "-"
        head = (
            f"tick {line.tick}  {action}{tag}  -> {happened}  | chamber {s.chamber} "
            f"charge {s.charge} turn {s.turn} score {s.score}"
        )
        return "\n".join([head, *("    " + row for row in s.grid)])

    def render_results(self, results: Any) -> str:
        r: RelayroamResults = results
        ratio = r.score / r.optimum if r.optimum else 0.0
        return (
            f"score {r.score} of an optimum {r.optimum} ({100 * ratio:.1f}%)  "
            f"chambers cleared {r.cleared_chamber_count}  helpers {r.total_rescued}  "
            f"ticks {r.ticks}  reason {r.reason}"
        )

    def view_frames(self, lines: Sequence[Any]) -> list[dict[str, Any]]:
        return view_frames(lines)

    def render_view(self, frame: dict[str, Any]) -> str:
        return render_view(frame)

    def viewer_script(self) -> str:
        return viewer_script()


__all__ = ["RelayroamView", "render_view", "view_frames", "viewer_script"]
