"""Relayroam's view part: terminal text, and frames for the viewers (grid, charge, score)."""

from __future__ import annotations

from collections.abc import Sequence

from harness.games.relayroam.config import RelayroamConfig
from harness.games.relayroam.game import PLAYER, Episode, RelayroamRules
from harness.games.relayroam.observe import Observation, observe, render_text
from harness.games.relayroam.record import RelayroamResults, RelayroamTickState, SeedModel
from harness.models import JsonObject
from harness.protocol import (
    AnyTick,
    Frame,
    FrameSeat,
    GameResults,
    RecordLine,
    View,
    expect,
    header_of,
    ticks_of,
)
from harness.protocol.view import decision_text, frame_seat, score_share


class RelayroamFrame(Frame):
    """A position of the viewer: the grid and the figures the legend names."""

    grid: list[str]
    chamber: int
    charge: int
    turn: int
    score: int
    phase: str
    events: list[str]

    def text(self) -> str:
        out = [
            f"== {self.label}   chamber {self.chamber}   charge {self.charge}   "
            f"turn {self.turn}   score {self.score}   {self.phase}"
        ]
        out += ["  " + row for row in self.grid]
        if self.events:
            out.append("  events: " + ", ".join(self.events))
        for seat in self.seats:
            out.append(f"  [{seat.source}] player: {seat.raw}")
        return "\n".join(out)


def _event_types(state: RelayroamTickState) -> list[str]:
    return [str(e["type"]) for e in state.events]


def _frame(
    label: str,
    tick: int | None,
    at: Observation | RelayroamTickState,
    events: list[str],
    seats: list[FrameSeat],
) -> RelayroamFrame:
    """A frame of ``at``: the observation at the start, or the state after a tick."""
    return RelayroamFrame(
        label=label,
        tick=tick,
        grid=list(at.grid),
        chamber=at.chamber,
        charge=at.charge,
        turn=at.turn,
        score=at.score,
        phase=at.phase,
        events=events,
        seats=seats,
    )


def view_frames(lines: Sequence[RecordLine]) -> list[RelayroamFrame]:
    """The start, then one frame per decision."""
    header = header_of(lines)
    config = expect(RelayroamConfig, header.config)
    seed = expect(SeedModel, header.board).seed
    start = observe(RelayroamRules().new_state(config, seed).rules)
    frames = [_frame("start", None, start, [], [])]
    for line in ticks_of(lines):
        s = expect(RelayroamTickState, line.state)
        seats = [frame_seat(PLAYER, line.seats[PLAYER])]
        frames.append(_frame(f"tick {line.tick}", line.tick, s, _event_types(s), seats))
    return frames


class RelayroamView(View[Episode]):
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

    def board_json(self, state: Episode) -> JsonObject:
        obs = observe(state.rules)
        return {
            "config": state.config.model_dump(mode="json", by_alias=True),
            "chamber": obs.chamber,
            "layout": obs.layout,
            "reflected": obs.reflected,
            "rows": list(obs.grid),
        }

    def render_tick(self, line: AnyTick) -> str:
        s = expect(RelayroamTickState, line.state)
        happened = ", ".join(_event_types(s)) or "-"
        head = (
            f"tick {line.tick}  {decision_text(line.seats[PLAYER])}  -> {happened}  | "
            f"chamber {s.chamber} "
            f"charge {s.charge} turn {s.turn} score {s.score}"
        )
        return "\n".join([head, *("    " + row for row in s.grid)])

    def render_results(self, results: GameResults) -> str:
        r = expect(RelayroamResults, results)
        return (
            f"{score_share(r.score, r.optimum, 'an optimum')}  "
            f"chambers cleared {r.cleared_chamber_count}  helpers {r.total_rescued}  "
            f"ticks {r.ticks}  reason {r.reason}"
        )

    def view_frames(self, lines: Sequence[RecordLine]) -> list[RelayroamFrame]:
        return view_frames(lines)


__all__ = ["RelayroamFrame", "RelayroamView", "view_frames"]
