"""Relayroam's rules part: one seat, ``player``; bounded episodes (RR19).

The harness's state of an episode (:class:`Episode`) is the rules' state plus the
bounds the harness adds: the chamber cap and the decision guard, after which it banks.
The other parts live beside it: :mod:`.seat_io`, :mod:`.codec`, :mod:`.view`,
:mod:`.report` and :mod:`.api`; :mod:`harness.registry` bundles them with the bots of
``baselines/relayroam/``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Final

from harness.errors import ConfigError, RulesError
from harness.games.relayroam.config import VARIANTS, RelayroamConfig
from harness.games.relayroam.observe import Observation, observe
from harness.games.relayroam.record import EndCause, RelayroamResults, RelayroamTickState
from harness.games.relayroam.rules import event_json, new_game, step
from harness.games.relayroam.solver import episode_optimum
from harness.games.relayroam.state import State, chamber_start
from harness.protocol import SeatGroup, SeatSpec
from harness.protocol.rules import validated_config

PLAYER: Final = "player"
BANK: Final = {"type": "bank"}
SEAT_GROUPS: Final = (SeatGroup(PLAYER, PLAYER, (PLAYER,)),)


@dataclass(frozen=True)
class Episode:
    """The harness's state of a Relayroam episode: the rules' state plus the bounds."""

    config: RelayroamConfig
    rules: State
    ticks: int = 0
    decisions_in_chamber: int = 0
    cause: EndCause | None = None

    @property
    def over(self) -> bool:
        """Whether the episode has ended."""
        return self.cause is not None


@lru_cache(maxsize=4096)
def optimum(seed: int, chambers: int, first: int = 1) -> int:
    """The bounded episode's optimum: the sum of its chambers' optima (RR20), chambers
    ``first`` to ``first + chambers - 1``."""
    return episode_optimum(seed, chambers, first=first)


class RelayroamRules:
    """Relayroam's rules as the runner asks for them. Stateless."""

    def make_config(
        self,
        variant: str,
        overrides: Mapping[str, Any],
        episode_timeout_seconds: float | None = None,
    ) -> RelayroamConfig:
        return validated_config(
            RelayroamConfig, VARIANTS, variant, overrides, episode_timeout_seconds
        )

    def max_ticks(self, config: RelayroamConfig) -> int:
        """The most decisions an episode can take (for plans and budgets): the config's
        tick cap."""
        return config.tick_cap

    def new_state(self, config: RelayroamConfig, seed: int) -> Episode:
        try:
            rules = new_game(seed)
        except ValueError as exc:
            raise ConfigError(f"seed: {exc}") from None
        if config.first_chamber != 1:
            # set up as play would reach it: the same layout, orientation and offsets
            rules = chamber_start(seed, config.first_chamber)
        return Episode(config, rules)

    def seats(self, state: Episode) -> tuple[SeatSpec, ...]:
        return (SeatSpec(PLAYER, PLAYER),)

    def active_seats(self, state: Episode) -> tuple[str, ...]:
        return () if state.over else (PLAYER,)

    def observe(self, state: Episode, seat: str) -> Observation:
        return observe(state.rules)

    def tick(self, state: Episode) -> int:
        return state.ticks

    def resolve(
        self, state: Episode, decisions: Mapping[str, Any]
    ) -> tuple[Episode, RelayroamTickState]:
        if state.over:
            raise RulesError(
                f"tick {state.ticks}: the episode is over ({state.cause})", tick=state.ticks
            )
        if set(decisions) != {PLAYER}:
            raise RulesError(
                f"tick {state.ticks}: decisions for {sorted(decisions)}, need player",
                tick=state.ticks,
            )
        result = step(state.rules, decisions[PLAYER])
        if not result.ok:
            raise RulesError(
                f"tick {state.ticks}: the rules refused {decisions[PLAYER]!r}: "
                f"{result.reason}: {result.message}",
                tick=state.ticks,
            )
        rules = result.state
        events = [event_json(e) for e in result.events]
        in_chamber = 0 if rules.chamber != state.rules.chamber else state.decisions_in_chamber + 1
        auto: EndCause | None = None
        if (
            rules.phase == "chamber-clear"
            and rules.cleared_chamber_count >= state.config.chamber_cap
        ):
            auto = "chamber_cap"
        elif rules.phase == "playing" and in_chamber >= state.config.decisions_per_chamber:
            auto = "decision_guard"
        if auto is not None:  # the harness banks (RR19)
            banked = step(rules, BANK)
            rules = banked.state
            events += [event_json(e) for e in banked.events]
        cause: EndCause | None = None
        if rules.phase == "ended":
            cause = auto or rules.end_reason
        after = replace(
            state, rules=rules, ticks=state.ticks + 1, decisions_in_chamber=in_chamber, cause=cause
        )
        obs = observe(rules)
        snapshot = RelayroamTickState(
            ok=True,
            events=events,
            auto_bank=auto,
            phase=rules.phase,
            end_reason=rules.end_reason,
            chamber=rules.chamber,
            layout=obs.layout,
            reflected=rules.reflected,
            vent_offsets=list(rules.vent_offsets),
            charge=rules.charge,
            turn=rules.turn,
            chamber_shock_count=rules.chamber_shock_count,
            score=rules.score,
            total_rescued=rules.total_rescued,
            cleared_chamber_count=rules.cleared_chamber_count,
            player=rules.player,
            rng_cursor=rules.rng_cursor,
            decisions_in_chamber=in_chamber,
            grid=list(obs.grid),
        )
        return after, snapshot

    def is_over(self, state: Episode) -> bool:
        return state.over

    def end_by_deadline(self, state: Episode) -> Episode:
        if state.over:
            raise RulesError(
                f"tick {state.ticks}: the episode is already over ({state.cause})", tick=state.ticks
            )
        return replace(state, cause="deadline")

    def results(self, state: Episode) -> RelayroamResults:
        if state.cause is None:
            raise RulesError(f"tick {state.ticks}: the episode is not over yet", tick=state.ticks)
        rules = state.rules
        return RelayroamResults(
            scores=[float(rules.score)],
            score=rules.score,
            optimum=optimum(rules.seed, state.config.chamber_cap, state.config.first_chamber),
            cleared_chamber_count=rules.cleared_chamber_count,
            total_rescued=rules.total_rescued,
            chamber=rules.chamber,
            ticks=state.ticks,
            reason=state.cause,
        )

    def play_budget_seconds(self, state: Episode) -> float:
        return state.config.play_budget_seconds


__all__ = [
    "BANK",
    "PLAYER",
    "SEAT_GROUPS",
    "VARIANTS",
    "Episode",
    "RelayroamRules",
    "optimum",
]
