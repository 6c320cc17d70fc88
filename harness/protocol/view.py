"""The view part: how an episode looks in the terminal and in the HTML viewer."""

from __future__ import annotations

import inspect
import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Generic

from pydantic import BaseModel, Field

from harness.models import JsonObject, StrictModel, absent_if_none
from harness.protocol.codec import AnyTick, RecordLine
from harness.protocol.conventions import GameResults
from harness.protocol.rules import StateT
from harness.records import PLAIN_SOURCES, SeatTurn
from harness.text import cut_short

#: Raw replies longer than this are cut in viewer frames (the record keeps them whole).
VIEW_RAW_RUNES = 2000
#: A turn's reasoning longer than this is cut in viewer frames (the record keeps more).
VIEW_REASONING_RUNES = 8000


class FrameSeat(StrictModel):
    """A seat asked at a frame's tick: who, where the decision came from, what it said."""

    seat: str
    name: str
    source: str
    raw: str = Field(description=f"The reply text, cut at {VIEW_RAW_RUNES} characters.")
    decision: JsonObject
    notes: str
    reasoning: str | None = absent_if_none(
        f"The model's reasoning beside its replies this tick (each reply's, in "
        f"order), cut at {VIEW_REASONING_RUNES} characters; None when it gave none."
    )


def turn_reasoning(turn: SeatTurn[object]) -> str | None:
    """What a frame shows of a turn's reasoning: each reply's, in order, the retry's
    marked, cut at :data:`VIEW_REASONING_RUNES`; None when no reply had any."""
    parts = []
    for index, reply in enumerate(turn.replies):
        if reply.reasoning:
            parts.append(reply.reasoning if index == 0 else f"[retry] {reply.reasoning}")
    if not parts:
        return None
    return cut_short("\n\n".join(parts), VIEW_REASONING_RUNES)


def frame_seat(
    seat: str, turn: SeatTurn[BaseModel], *, name: str | None = None, notes: str = ""
) -> FrameSeat:
    """The seat ``seat`` of a frame, from its turn in the tick line: the reply cut at
    :data:`VIEW_RAW_RUNES`, the reasoning as :func:`turn_reasoning` shows it, the
    decision as the record spells it; named ``name`` (by default, the seat)."""
    return FrameSeat(
        seat=seat,
        name=name or seat,
        source=turn.source,
        raw=turn.raw[:VIEW_RAW_RUNES],
        reasoning=turn_reasoning(turn),
        decision=turn.decision.model_dump(mode="json", by_alias=True),
        notes=notes,
    )


def source_tag(turn: SeatTurn[BaseModel]) -> str:
    """What the terminal writes after a turn: ``  [fallback_error]``, its source, or
    nothing when the source is a plain one (the seat's own reply)."""
    return "" if turn.source in PLAIN_SOURCES else f"  [{turn.source}]"


def decision_text(turn: SeatTurn[BaseModel]) -> str:
    """A turn's decision as the terminal shows it: JSON as the record spells it, then
    :func:`source_tag` (``{"type": "wait"}  [fallback_error]``)."""
    return json.dumps(turn.decision.model_dump(mode="json", by_alias=True)) + source_tag(turn)


class Frame(StrictModel):
    """One position of a viewer: the start, or the state after a tick.

    Every frame has a ``label``, its ``tick`` (None at the start) and the ``seats``
    asked that tick; a game's frames add what its board drawing
    (:meth:`View.viewer_script`) and :meth:`text` show. A game with a radio adds
    ``transmission`` (None: silence), which the page shows. Dumped by alias (camelCase)
    into the HTML viewer's page.
    """

    label: str
    tick: int | None
    seats: list[FrameSeat] = Field(default_factory=list)

    @abstractmethod
    def text(self) -> str:
        """The frame as the terminal stepper shows it (board, messages, seats, ...)."""


def frame_docs(frames: Sequence[Frame]) -> list[JsonObject]:
    """Frames as the HTML viewer's page holds them: JSON objects, keys camelCase."""
    return [frame.model_dump(mode="json", by_alias=True) for frame in frames]


def score_share(score: int, bound: int, bound_name: str) -> str:
    """A score beside the bound it is measured against, and its share of it:
    ``score 455 of an optimum 544 (83.6%)`` (0.0% when the bound is 0)."""
    ratio = score / bound if bound else 0.0
    return f"score {score} of {bound_name} {bound} ({100 * ratio:.1f}%)"


class View(ABC, Generic[StateT]):
    """A game's drawings of states, record lines and results.

    Pure functions of what they are given, except :meth:`viewer_script`, which reads
    the game's script file. A view sees states and record lines, never a seat.
    """

    @abstractmethod
    def render_start(self, state: StateT) -> str:
        """The starting position as text for the terminal."""

    @abstractmethod
    def render_tick(self, line: AnyTick) -> str:
        """A tick line of the record as text for the terminal, starting ``tick N``."""

    @abstractmethod
    def render_board(self, state: StateT, seed: int, variant: str) -> str:
        """The starting board as ``lighthouse board`` prints it: a title, the board, a legend."""

    @abstractmethod
    def board_json(self, state: StateT) -> JsonObject:
        """The starting board as ``lighthouse board --json`` prints it (after seed, variant)."""

    def render_results(self, results: GameResults) -> str:
        """A results model as text for the terminal: by default each figure after its
        name, as the record spells it (``score 455  optimum 544  ...  reason banked``)."""
        shown = results.model_dump(mode="json", by_alias=True, exclude={"scores"})
        return "  ".join(f"{key} {value}" for key, value in shown.items())

    @abstractmethod
    def view_frames(self, lines: Sequence[RecordLine]) -> Sequence[Frame]:
        """One frame per position of a viewer: the start, then after each tick."""

    def viewer_script(self) -> str:
        """JavaScript defining ``renderBoard(element, frame)`` for the HTML viewer.

        It may also define ``seatColour(seat)`` (a CSS colour for a seat's card, or
        null) and ``boardStyle`` (CSS). Read from a file of the game's package, the one
        part that does I/O: by default ``board.js`` beside the module that defines the
        view's class, read each time.
        """
        return Path(inspect.getfile(type(self))).with_name("board.js").read_text(encoding="utf-8")


__all__ = [
    "VIEW_RAW_RUNES",
    "VIEW_REASONING_RUNES",
    "Frame",
    "FrameSeat",
    "View",
    "decision_text",
    "frame_docs",
    "frame_seat",
    "score_share",
    "source_tag",
    "turn_reasoning",
]
