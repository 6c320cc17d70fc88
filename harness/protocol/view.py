"""The view part: how an episode looks in the terminal and in the HTML viewer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol


class View(Protocol):
    """A game's drawings of states, record lines and results.

    Pure functions of what they are given, except :meth:`viewer_script`, which reads
    the game's script file. A view sees states and record lines, never a seat.
    """

    def render_start(self, state: Any) -> str:
        """The starting position as text for the terminal."""
        ...

    def render_tick(self, line: Any) -> str:
        """A tick line of the record as text for the terminal."""
        ...

    def render_board(self, state: Any, seed: int, variant: str) -> str:
        """The starting board as ``lighthouse board`` prints it: a title, the board, a legend."""
        ...

    def board_json(self, state: Any) -> dict[str, Any]:
        """The starting board as ``lighthouse board --json`` prints it (after seed, variant)."""
        ...

    def render_results(self, results: Any) -> str:
        """A results model as text for the terminal."""
        ...

    def view_frames(self, lines: Sequence[Any]) -> list[dict[str, Any]]:
        """One JSON-able frame per position of a viewer: the start, then after each tick.

        A frame holds at least ``label``, ``tick`` (None at the start) and ``seats``
        (each seat asked that tick: ``seat``, ``name``, ``source``, ``raw``, ``notes``),
        ``transmission`` when the game has a radio (null: silence), and whatever the
        game's board drawing (:meth:`viewer_script`) and :meth:`render_view` need. The
        HTML viewer adds each seat's prompt itself, from the record.
        """
        ...

    def render_view(self, frame: dict[str, Any]) -> str:
        """A frame as text for the terminal stepper (board, windows, messages, ...)."""
        ...

    def viewer_script(self) -> str:
        """JavaScript defining ``renderBoard(element, frame)`` for the HTML viewer.

        It may also define ``seatColour(seat)`` (a CSS colour for a seat's card, or
        null) and ``boardStyle`` (CSS). Read from a file of the game's package: the one
        part that does I/O.
        """
        ...


__all__ = ["View"]
