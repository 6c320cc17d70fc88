"""Lighthouse's rules part: what the runner and replay need to advance an episode.

The other parts live beside it: :mod:`.seat_io` (replies), :mod:`.codec` (records),
:mod:`.view` (viewers) and :mod:`.metrics` (reports); :mod:`harness.registry` bundles
them with the bots of ``baselines/lighthouse/``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from harness.errors import ConfigError, RulesError
from harness.games.lighthouse.board import generate_board
from harness.games.lighthouse.config import VARIANTS, LighthouseConfig
from harness.games.lighthouse.observe import (
    KeeperObservation,
    RunnerObservation,
    keeper_grid,
    observe_keeper,
    observe_runner,
)
from harness.games.lighthouse.record import LighthouseResults, LighthouseTickState
from harness.games.lighthouse.rules import end_by_deadline, resolve_tick, results
from harness.games.lighthouse.state import GameState, KeeperDecision, RunnerDecision, new_game
from harness.protocol import SeatGroup, SeatSpec
from harness.protocol.rules import bounded_timeout

KEEPER: Final = "keeper"
RUNNER: Final = "runner"
ROLES: Final = (KEEPER, RUNNER)
#: teamScore's ceiling (rules, "Scoring"), for plots.
MAX_SCORE: Final = 42.0


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


class LighthouseRules:
    """Lighthouse's rules as the runner asks for them. Stateless: one instance serves all."""

    def make_config(
        self,
        variant: str,
        overrides: Mapping[str, Any],
        episode_timeout_seconds: float | None = None,
    ) -> LighthouseConfig:
        if variant not in VARIANTS:
            raise ConfigError(f"variants: {variant!r} is not one of {list(VARIANTS)}")
        values = dict(overrides)
        if episode_timeout_seconds is not None:
            values["episode_timeout_seconds"] = episode_timeout_seconds
        return bounded_timeout(LighthouseConfig.for_variant(variant, **values))

    def max_ticks(self, config: LighthouseConfig) -> int:
        """The most ticks an episode can last: the tick cap (for plans and budgets)."""
        return config.max_ticks

    def new_state(self, config: LighthouseConfig, seed: int) -> GameState:
        return new_game(config, generate_board(config, seed))

    def seats(self, state: GameState) -> tuple[SeatSpec, ...]:
        return (
            SeatSpec(KEEPER, KEEPER),
            *(SeatSpec(runner_seat_id(r.seat), RUNNER, r.alias) for r in state.runners),
        )

    def active_seats(self, state: GameState) -> tuple[str, ...]:
        if state.over:
            return ()
        return (KEEPER, *[_RUNNER_IDS[r.seat] for r in state.runners if r.active])

    def observe(self, state: GameState, seat: str) -> KeeperObservation | RunnerObservation:
        if seat == KEEPER:
            return observe_keeper(state)
        return observe_runner(state, _runner_number(seat))

    def tick(self, state: GameState) -> int:
        return state.tick

    def resolve(
        self, state: GameState, decisions: Mapping[str, Any]
    ) -> tuple[GameState, LighthouseTickState]:
        after, snapshot = self.resolve_dumped(state, decisions)
        return after, LighthouseTickState.model_validate(snapshot)

    def resolve_dumped(
        self, state: GameState, decisions: Mapping[str, Any]
    ) -> tuple[GameState, dict[str, Any]]:
        """:meth:`resolve` with the tick state as the dump of its record model."""
        # A record read back may hold any decision under any seat: a wrong kind is the
        # record's error, named, never an AttributeError deep in the rules.
        keeper = decisions.get(KEEPER)
        if not isinstance(keeper, KeeperDecision):
            raise RulesError(f"tick {state.tick}: the keeper's decision is not a keeper's")
        runners = {_runner_number(s): d for s, d in decisions.items() if s != KEEPER}
        for seat, decision in runners.items():
            if not isinstance(decision, RunnerDecision):
                raise RulesError(f"tick {state.tick}: runner{seat}'s decision has no move")
        after, events = resolve_tick(state, keeper, runners)
        by_seat = {e.seat: e for e in events.runners}
        runner_docs = []
        for r in after.runners:
            event = by_seat.get(r.seat)
            move: str | None = None
            bumped: bool | None = None
            picked: list[int] | None = None
            if event is not None:  # else resolved before this tick: it did nothing
                move, bumped = event.move.value, event.bumped
                if event.picked_key is not None:
                    picked = list(event.picked_key)
            runner_docs.append(
                {
                    "seat": r.seat,
                    "alias": r.alias,
                    "pos": list(r.pos),
                    "status": r.status.value,
                    "keys": [list(k) for k in r.keys] if r.keys else [],
                    "notes": r.notes,
                    "move": move,
                    "bumped": bumped,
                    "pickedKey": picked,
                }
            )
        # keys in LighthouseTickState's order, as model_dump(by_alias=True) writes them
        snapshot = {
            "transmission": events.transmission,
            "clock": after.clock,
            "waterLine": after.water_line,
            "tideRows": after.tide.rows(after.clock),
            "gateOpen": after.gate_open,
            "gateOpenedTick": after.gate_opened_tick,
            "collected": [list(k) for k in after.collected],
            "keeperNotes": after.keeper_notes,
            "runners": runner_docs,
            "grid": list(keeper_grid(after)),
            "reason": after.reason.value if after.reason is not None else None,
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
    "LighthouseRules",
    "runner_seat_id",
]
