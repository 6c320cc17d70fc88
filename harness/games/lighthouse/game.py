"""Lighthouse's rules part: what the runner and replay need to advance an episode.

The other parts live beside it: :mod:`.seat_io` (replies), :mod:`.codec` (records),
:mod:`.view` (viewers) and :mod:`.report` (reports); :mod:`harness.registry` bundles
them with the bots of ``baselines/lighthouse/``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from pydantic import JsonValue

from harness.errors import RulesError
from harness.games.lighthouse.board import generate_board
from harness.games.lighthouse.config import VARIANTS, LighthouseConfig
from harness.games.lighthouse.observe import (
    KeeperObservation,
    RunnerObservation,
    keeper_grid,
    observe_keeper,
    observe_runner,
)
from harness.games.lighthouse.record import (
    LighthouseResults,
    LighthouseTickState,
    RunnerStateModel,
)
from harness.games.lighthouse.rules import end_by_deadline, resolve_tick, results
from harness.games.lighthouse.state import GameState, KeeperDecision, RunnerDecision, new_game
from harness.models import JsonObject
from harness.protocol import Rules, SeatGroup, SeatSpec
from harness.records import keys

KEEPER: Final = "keeper"
RUNNER: Final = "runner"
ROLES: Final = (KEEPER, RUNNER)
#: teamScore's ceiling (rules, "Scoring"), for plots.
MAX_SCORE: Final = 42.0

#: What a seat sees: the keeper the whole board, a runner its 3 x 3 window.
Observation = KeeperObservation | RunnerObservation
#: What a seat decides: the keeper's radio and notes, or a runner's move.
Decision = KeeperDecision | RunnerDecision

# The keys of the tick state's dump (resolve_dumped), as its models name them; bound
# once here, as plain names, since every tick writes each of them.
_T = keys(LighthouseTickState)
_TRANSMISSION, _CLOCK, _WATER_LINE, _TIDE_ROWS = (
    _T.transmission,
    _T.clock,
    _T.water_line,
    _T.tide_rows,
)
_GATE_OPEN, _GATE_OPENED_TICK, _COLLECTED = _T.gate_open, _T.gate_opened_tick, _T.collected
_KEEPER_NOTES, _RUNNERS, _GRID, _REASON = _T.keeper_notes, _T.runners, _T.grid, _T.reason
_R = keys(RunnerStateModel)
_SEAT, _ALIAS, _POS, _STATUS, _KEYS = _R.seat, _R.alias, _R.pos, _R.status, _R.keys
_NOTES, _MOVE, _BUMPED, _PICKED_KEY = _R.notes, _R.move, _R.bumped, _R.picked_key


def runner_seat_id(seat: int) -> str:
    """The seat id of runner ``seat`` (1, 2 or 3): ``runner1`` ..."""
    return f"runner{seat}"


SEAT_GROUPS: Final = (
    SeatGroup("keeper", KEEPER, (KEEPER,)),
    SeatGroup("runners", RUNNER, tuple(runner_seat_id(s) for s in (1, 2, 3))),
)


#: Each runner's seat id by its number, and back: asked for every runner every tick.
_RUNNER_IDS: Final = {seat: runner_seat_id(seat) for seat in (1, 2, 3)}
_RUNNER_NUMBERS: Final = {seat_id: seat for seat, seat_id in _RUNNER_IDS.items()}


def _runner_number(seat_id: str) -> int:
    number = _RUNNER_NUMBERS.get(seat_id)
    if number is None:
        raise RulesError(f"no such Lighthouse seat: {seat_id!r}")
    return number


class LighthouseRules(Rules[LighthouseConfig, GameState, Observation, Decision]):
    """Lighthouse's rules as the runner asks for them. Stateless: one instance serves all."""

    config_type = LighthouseConfig

    def new_state(self, config: LighthouseConfig, seed: int) -> GameState:
        return new_game(config, generate_board(config, seed))

    def config(self, state: GameState) -> LighthouseConfig:
        return state.config

    def seats(self, state: GameState) -> tuple[SeatSpec, ...]:
        return (
            SeatSpec(KEEPER, KEEPER),
            *(SeatSpec(runner_seat_id(r.seat), RUNNER, r.alias) for r in state.runners),
        )

    def active_seats(self, state: GameState) -> tuple[str, ...]:
        if state.over:
            return ()
        return (KEEPER, *[_RUNNER_IDS[r.seat] for r in state.runners if r.active])

    def observe(self, state: GameState, seat: str) -> Observation:
        if seat == KEEPER:
            return observe_keeper(state)
        return observe_runner(state, _runner_number(seat))

    def tick(self, state: GameState) -> int:
        return state.tick

    def resolve(
        self, state: GameState, decisions: Mapping[str, Decision]
    ) -> tuple[GameState, LighthouseTickState]:
        after, snapshot = self.resolve_dumped(state, decisions)
        return after, LighthouseTickState.model_validate(snapshot)

    def resolve_dumped(
        self, state: GameState, decisions: Mapping[str, Decision]
    ) -> tuple[GameState, JsonObject]:
        """:meth:`resolve` with the tick state as the dump of its record model."""
        # A record read back may hold any decision under any seat: a wrong kind is the
        # record's error, named, never an AttributeError deep in the rules.
        keeper = decisions.get(KEEPER)
        if not isinstance(keeper, KeeperDecision):
            raise RulesError(f"tick {state.tick}: the keeper's decision is not a keeper's")
        runners: dict[int, RunnerDecision] = {}
        for seat_id, decision in decisions.items():
            if seat_id == KEEPER:
                continue
            seat = _runner_number(seat_id)
            if not isinstance(decision, RunnerDecision):
                raise RulesError(f"tick {state.tick}: runner{seat}'s decision has no move")
            runners[seat] = decision
        after, events = resolve_tick(state, keeper, runners)
        by_seat = {e.seat: e for e in events.runners}
        runner_docs: list[JsonValue] = []
        for r in after.runners:
            event = by_seat.get(r.seat)
            move: str | None = None
            bumped: bool | None = None
            picked: list[JsonValue] | None = None
            if event is not None:  # else resolved before this tick: it did nothing
                move, bumped = event.move.value, event.bumped
                if event.picked_key is not None:
                    picked = list(event.picked_key)
            runner_docs.append(
                {
                    _SEAT: r.seat,
                    _ALIAS: r.alias,
                    _POS: list(r.pos),
                    _STATUS: r.status.value,
                    _KEYS: [list(k) for k in r.keys] if r.keys else [],
                    _NOTES: r.notes,
                    _MOVE: move,
                    _BUMPED: bumped,
                    _PICKED_KEY: picked,
                }
            )
        # keys in LighthouseTickState's order, as model_dump(by_alias=True) writes them
        snapshot: JsonObject = {
            _TRANSMISSION: events.transmission,
            _CLOCK: after.clock,
            _WATER_LINE: after.water_line,
            _TIDE_ROWS: after.tide.rows(after.clock),
            _GATE_OPEN: after.gate_open,
            _GATE_OPENED_TICK: after.gate_opened_tick,
            _COLLECTED: [list(k) for k in after.collected],
            _KEEPER_NOTES: after.keeper_notes,
            _RUNNERS: runner_docs,
            _GRID: list(keeper_grid(after)),
            _REASON: after.reason.value if after.reason is not None else None,
        }
        return after, snapshot

    def is_over(self, state: GameState) -> bool:
        return state.over

    def end_by_deadline(self, state: GameState) -> GameState:
        return end_by_deadline(state)

    def results(self, state: GameState) -> LighthouseResults:
        res = results(state)
        return LighthouseResults(
            scores=list(res.scores),
            team_score=res.team_score,
            k=res.keys_collected,
            e=res.escaped,
            b=res.time_bonus,
            clock=res.clock,
            flood_clock=res.flood_clock,
            key_count=res.key_count,
            ticks=res.ticks,
            reason=res.reason,
        )

    def play_budget_seconds(self, state: GameState) -> float:
        return state.config.play_budget_seconds


__all__ = [
    "KEEPER",
    "MAX_SCORE",
    "ROLES",
    "RUNNER",
    "SEAT_GROUPS",
    "VARIANTS",
    "Decision",
    "LighthouseRules",
    "Observation",
    "runner_seat_id",
]
