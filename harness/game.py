"""The protocol through which the runner, seats, records and tools know a game.

The episode runner never imports a game's modules: it asks the game which seats act
this tick, what each one sees, how a reply parses, how decisions resolve, and what
the result is. A game is a sibling package under ``harness/games/`` that implements
:class:`Game`; nothing in the shared machinery special-cases one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, TypeAdapter

from harness.report.columns import Column

StateT = TypeVar("StateT")


@dataclass(frozen=True)
class SeatSpec:
    """A seat of a game: its id, its role (picks prompts and baseline) and its name."""

    seat: str
    role: str
    name: str | None = None


@dataclass(frozen=True)
class SeatGroup:
    """Seats a tournament config names together, e.g. Lighthouse's ``runners``.

    ``key`` is the config key (and ``play``'s option), ``role`` the seats' role, and
    ``seats`` their ids; an entrant gives one spec for all of them or one per seat.
    """

    key: str
    role: str
    seats: tuple[str, ...]


@dataclass(frozen=True)
class ParseFailure:
    """A reply that does not parse: an expected outcome, returned rather than raised.

    ``kind`` is one of the game's closed set of failure kinds; ``message`` names the
    exact problem and the expected shape, precise enough to quote in a retry hint.
    """

    kind: str
    message: str


class Game(Protocol[StateT]):
    """What the shared machinery needs of a game. Every method is pure."""

    #: The game's name in records and configs, e.g. ``"lighthouse"``.
    name: str
    #: Validates and parses any line of this game's records.
    record_adapter: TypeAdapter[Any]

    def seat_groups(self) -> tuple[SeatGroup, ...]:
        """The game's seats as configs name them; the first group leads the leaderboard."""
        ...

    def variants(self) -> tuple[str, ...]:
        """The rules variants a tournament may choose from; the first is the default."""
        ...

    def make_config(
        self,
        variant: str,
        overrides: Mapping[str, Any],
        episode_timeout_seconds: float | None = None,
    ) -> BaseModel:
        """The rules parameters of ``variant`` with ``overrides`` (raises ConfigError)."""
        ...

    def new_state(self, config: Any, seed: int) -> StateT:
        """The starting state of the episode ``seed`` under ``config``."""
        ...

    def seats(self, state: StateT) -> tuple[SeatSpec, ...]:
        """Every seat of the episode, in the order of ``results.scores``."""
        ...

    def active_seats(self, state: StateT) -> tuple[str, ...]:
        """The ids of the seats asked for a decision this tick (none once over)."""
        ...

    def observe(self, state: StateT, seat: str) -> Any:
        """The typed observation of ``seat``: the only thing the seat may know."""
        ...

    def render_observation(self, observation: Any) -> str:
        """The observation as the text a model reads."""
        ...

    def baselines(self, role: str) -> tuple[str, ...]:
        """The names of the role's scripted baselines; the first is the fallback."""
        ...

    def baseline_reply(self, observation: Any, name: str | None = None) -> str:
        """Baseline ``name``'s reply to ``observation`` (default: the role's fallback)."""
        ...

    def reply_schema(self, role: str) -> dict[str, Any]:
        """The JSON Schema of the role's reply, for schema-constrained output."""
        ...

    def parse_reply(self, observation: Any, text: str) -> Any | ParseFailure:
        """A reply to ``observation`` as a decision, or a :class:`ParseFailure`."""
        ...

    def refuse(self, observation: Any, decision: Any) -> ParseFailure | None:
        """Why the rules would refuse a parsed decision (kind ``refused:<reason>``), or None.

        A refusal is sent back to the model as its one retry hint, like a parse
        failure; a game whose every parsed decision is legal returns None.
        """
        ...

    def decision_model(self, decision: Any) -> BaseModel:
        """A decision as its record model."""
        ...

    def decision_from_json(self, data: Any) -> Any:
        """The decision a record's (or a hand-written) decision object stands for."""
        ...

    def start_state(self, header: Any) -> StateT:
        """The starting state a record's header describes (its config and explicit board)."""
        ...

    def resolve(self, state: StateT, decisions: Mapping[str, Any]) -> tuple[StateT, BaseModel]:
        """Resolve one tick: the next state and the record model of the state after it."""
        ...

    def is_over(self, state: StateT) -> bool:
        """Whether the episode has ended."""
        ...

    def tick(self, state: StateT) -> int:
        """The number of the tick about to be resolved."""
        ...

    def end_by_deadline(self, state: StateT) -> StateT:
        """End the episode because the play budget ran out before the tick resolved."""
        ...

    def results(self, state: StateT) -> BaseModel:
        """The results of a finished episode (with ``scores`` and ``reason``)."""
        ...

    def config_model(self, state: StateT) -> BaseModel:
        """The episode's config, as recorded in the header."""
        ...

    def board_model(self, state: StateT) -> BaseModel:
        """The episode's board, written out explicitly for the header."""
        ...

    def play_budget_seconds(self, state: StateT) -> float:
        """The wall-clock play budget of the episode."""
        ...

    def render_tick(self, line: Any) -> str:
        """A tick line of the record as text for the terminal."""
        ...

    def render_start(self, state: StateT) -> str:
        """The starting position as text for the terminal."""
        ...

    def render_board(self, state: StateT, seed: int, variant: str) -> str:
        """The starting board as ``lighthouse board`` prints it: a title, the board, a legend."""
        ...

    def board_json(self, state: StateT) -> dict[str, Any]:
        """The starting board as ``lighthouse board --json`` prints it (after seed, variant)."""
        ...

    def record_schema(self) -> dict[str, Any]:
        """The JSON Schema of one line of this game's records."""
        ...

    def render_results(self, results: Any) -> str:
        """A results model as text for the terminal."""
        ...

    def view_frames(self, lines: Sequence[Any]) -> list[dict[str, Any]]:
        """One JSON-able frame per position of a viewer: the start, then after each tick.

        A frame holds at least ``label``, ``tick`` (None at the start) and whatever
        the game's board drawing (:meth:`viewer_script`) and :meth:`render_view` need.
        """
        ...

    def render_view(self, frame: dict[str, Any]) -> str:
        """A frame as text for the terminal stepper (board, windows, messages, ...)."""
        ...

    def viewer_script(self) -> str:
        """JavaScript defining ``renderBoard(element, frame)`` for the HTML viewer."""
        ...

    def episode_metrics(self, lines: Sequence[Any]) -> dict[str, float]:
        """A finished episode's figures, from its parsed record lines (for results lines)."""
        ...

    def report_columns(self) -> tuple[Column, ...]:
        """The game's own report columns over :meth:`episode_metrics`."""
        ...

    def ceiling_baseline(self) -> str | None:
        """The baseline whose team a report measures entrants against, or None.

        Its team plays it in every seat group whose role has it and the role's default
        baseline elsewhere; reports show each entrant's score as a share of that team's
        on the same seeds (``--ceiling`` picks another, or plays it when no entrant does).
        """
        ...


__all__ = ["Game", "ParseFailure", "SeatGroup", "SeatSpec"]
