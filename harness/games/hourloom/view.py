"""Hourloom's view part: terminal text, and the frames of the viewers (:mod:`.frames`).

The board is the chamber as H30's glyphs; beside it every echo with its next input,
every gate open or shut for you and who holds its plates, the sandglass, the score and
the tick's events in words. The HTML viewer draws the same frames (``board.js``).
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.games.hourloom.frames import HourloomFrame, frame_of, status, view_frames
from harness.games.hourloom.game import PLAYER, Episode, tick_state
from harness.games.hourloom.grid import describe
from harness.games.hourloom.observe import GATE_LETTERS, LEGEND, observe
from harness.games.hourloom.record import HourloomResults, HourloomTickState
from harness.games.hourloom.state import state_json
from harness.models import JsonObject
from harness.protocol import AnyTick, GameResults, RecordLine, View, expect
from harness.protocol.view import decision_text, score_share


class HourloomView(View[Episode]):
    """Hourloom's drawings. Stateless; only :meth:`viewer_script` reads a file."""

    def render_start(self, state: Episode) -> str:
        return observe(state.rules).text

    def render_board(self, state: Episode, seed: int, variant: str) -> str:
        rules = state.rules
        title = f"Hourloom, seed {seed}, variant {variant}, chamber {rules.chamber.number}"
        return "\n".join([title, observe(rules).text])

    def board_json(self, state: Episode) -> JsonObject:
        rules = state.rules
        s = tick_state(state, True, None, [], None)
        width = rules.chamber.width
        return {
            "config": state.config.model_dump(mode="json", by_alias=True),
            "chamber": rules.chamber.number,
            "rows": list(s.grid),
            "legend": LEGEND,
            "echoes": [
                {"echo": k, "tile": None if tile is None else describe(tile, width), "next": nxt}
                for k, (tile, nxt) in enumerate(zip(s.echoes, s.echo_next, strict=True), 1)
            ],
            "gates": [
                {"gate": GATE_LETTERS[i], "open": is_open} for i, is_open in enumerate(s.gates_open)
            ],
            "sand": rules.sand,
            "lapBudget": rules.lap_budget,
            "score": rules.score,
            "state": state_json(rules),
        }

    def render_tick(self, line: AnyTick) -> str:
        s = expect(HourloomTickState, line.state)
        did = (
            "refused: " + str(s.reason) if not s.ok else ", ".join(str(e["type"]) for e in s.events)
        )
        ended = f"  (the harness ends the run: {s.auto_end})" if s.auto_end else ""
        head = f"tick {line.tick}  {decision_text(line.seats[PLAYER])}  -> {did or '-'}{ended}"
        frame = frame_of(s, None, "", line.tick)
        return "\n".join([head, "    " + status(frame), *("    " + row for row in s.grid)])

    def render_results(self, results: GameResults) -> str:
        r = expect(HourloomResults, results)
        return (
            f"{score_share(r.score, r.planned, 'a planned')}  "
            f"chambers sealed {r.chambers_sealed}  laps {r.laps_completed}  "
            f"actions {r.actions}  refusals {r.refusals}  reason {r.reason}"
        )

    def view_frames(self, lines: Sequence[RecordLine]) -> list[HourloomFrame]:
        return view_frames(lines)


__all__ = ["HourloomView", "status", "view_frames"]
