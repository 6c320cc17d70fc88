"""The view a one-seat game gets without writing one: each position as the player read it.

Its frames replay the record through the game's rules (as replay does), so every
frame shows the observation text the player was sent after that tick; a record that
departs from the rules (edited by hand, or written under other rules) is drawn from
then on from its own tick states, as JSON, and says so. The HTML viewer shows the text
as it is (``screen.js``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Generic

from harness.errors import HarnessError
from harness.models import JsonObject
from harness.protocol.codec import AnyTick, RecordCodec, RecordLine, header_of, ticks_of
from harness.protocol.rules import ConfigT, DecisionT, ObsT
from harness.protocol.seat_io import SeatIO
from harness.protocol.solo import PLAYER, EpisodeT, SoloRules
from harness.protocol.view import Frame, View, decision_text, frame_seat

SCREEN_JS = Path(__file__).with_name("screen.js")


class TextFrame(Frame):
    """A position as text: what the player read after the tick (at the start, first)."""

    screen: str

    def text(self) -> str:
        out = [f"== {self.label}", *("  " + row for row in self.screen.splitlines())]
        out += [f"  [{seat.source}] {seat.name}: {seat.raw}" for seat in self.seats]
        return "\n".join(out)


class TextView(View[EpisodeT], Generic[ConfigT, EpisodeT, ObsT, DecisionT]):
    """A one-seat game's view drawn from its own parts: the rules, the seat I/O and the
    codec. ``title`` names the game in ``lighthouse board``."""

    def __init__(
        self,
        title: str,
        rules: SoloRules[ConfigT, EpisodeT, ObsT, DecisionT],
        seat_io: SeatIO[ObsT, DecisionT],
        codec: RecordCodec[EpisodeT, DecisionT],
    ) -> None:
        self._title = title
        self._rules = rules
        self._seat_io = seat_io
        self._codec = codec

    def _screen(self, state: EpisodeT) -> str:
        return self._seat_io.render_observation(self._rules.observation(state))

    def render_start(self, state: EpisodeT) -> str:
        return self._screen(state)

    def render_board(self, state: EpisodeT, seed: int, variant: str) -> str:
        return "\n".join([f"{self._title}, seed {seed}, variant {variant}", self._screen(state)])

    def board_json(self, state: EpisodeT) -> JsonObject:
        config = self._rules.config(state).model_dump(mode="json", by_alias=True)
        return {"config": config, "screen": self._screen(state)}

    def render_tick(self, line: AnyTick) -> str:
        state = json.dumps(line.state.model_dump(mode="json", by_alias=True))
        return f"tick {line.tick}  {decision_text(line.seats[PLAYER])}\n    {state}"

    def view_frames(self, lines: Sequence[RecordLine]) -> list[TextFrame]:
        start = self._codec.start_state(header_of(lines))
        frames = [TextFrame(label="start", tick=None, screen=self._screen(start))]
        state: EpisodeT | None = start
        for line in ticks_of(lines):
            seats = [frame_seat(seat, turn) for seat, turn in line.seats.items()]
            recorded = line.state.model_dump(mode="json", by_alias=True)
            state = self._follow(state, line, recorded)
            screen = (
                self._screen(state)
                if state is not None
                else "the record departs from the rules' replay here; its state after "
                f"the tick:\n{json.dumps(recorded, indent=1)}"
            )
            frames.append(
                TextFrame(label=f"tick {line.tick}", tick=line.tick, seats=seats, screen=screen)
            )
        return frames

    def _follow(
        self, state: EpisodeT | None, line: AnyTick, recorded: JsonObject
    ) -> EpisodeT | None:
        """The state after ``line``'s decisions, or None once the rules' replay of the
        record no longer gives its recorded state."""
        if state is None:
            return None
        try:
            decisions = {
                seat: self._codec.decision_from_json(
                    turn.decision.model_dump(mode="json", by_alias=True)
                )
                for seat, turn in line.seats.items()
            }
            after, replayed = self._rules.resolve_dumped(state, decisions)
        except (HarnessError, TypeError, ValueError):
            return None
        return after if replayed == recorded else None

    def viewer_script(self) -> str:
        return SCREEN_JS.read_text(encoding="utf-8")


__all__ = ["TextFrame", "TextView"]
