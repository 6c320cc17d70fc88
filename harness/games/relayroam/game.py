"""Relayroam's rules part: one seat, ``player``; bounded episodes (RR19).

The harness's state of an episode (:class:`Episode`, a
:class:`~harness.protocol.solo.SoloEpisode`) is the rules' state plus the bounds the
harness adds: the chamber cap and the decision guard, after which it banks.
The other parts live beside it: :mod:`.seat_io`, :mod:`.codec`, :mod:`.view`,
:mod:`.report` and :mod:`.api`; :mod:`harness.registry` bundles them with the bots of
``baselines/relayroam/``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Final

from harness.errors import ConfigError, RulesError
from harness.games.relayroam.config import VARIANTS, RelayroamConfig
from harness.games.relayroam.observe import Observation, observe
from harness.games.relayroam.record import EndCause, RelayroamResults, RelayroamTickState
from harness.games.relayroam.rules import event_json, new_game, step
from harness.games.relayroam.solver import episode_optimum
from harness.games.relayroam.state import State, chamber_start
from harness.models import JsonObject
from harness.protocol.solo import PLAYER, SEAT_GROUPS, SoloEpisode, SoloRules, end_cause

BANK: Final = {"type": "bank"}


@dataclass(frozen=True)
class Episode(SoloEpisode[RelayroamConfig, State, EndCause]):
    """The harness's state of a Relayroam episode: the rules' state plus the guard's count."""

    decisions_in_chamber: int = 0


@lru_cache(maxsize=4096)
def optimum(seed: int, chambers: int, first: int = 1) -> int:
    """The bounded episode's optimum: the sum of its chambers' optima (RR20), chambers
    ``first`` to ``first + chambers - 1``."""
    return episode_optimum(seed, chambers, first=first)


class RelayroamRules(SoloRules[RelayroamConfig, Episode, Observation, JsonObject]):
    """Relayroam's rules as the runner asks for them. Stateless."""

    config_type = RelayroamConfig

    def new_state(self, config: RelayroamConfig, seed: int) -> Episode:
        try:
            rules = new_game(seed)
        except ValueError as exc:
            raise ConfigError(f"seed: {exc}") from None
        if config.first_chamber != 1:
            # set up as play would reach it: the same layout, orientation and offsets
            rules = chamber_start(seed, config.first_chamber)
        return Episode(config, rules)

    def observation(self, episode: Episode) -> Observation:
        return observe(episode.rules)

    def step(self, episode: Episode, decision: JsonObject) -> tuple[Episode, RelayroamTickState]:
        result = step(episode.rules, decision)
        if not result.ok:
            raise RulesError(
                f"tick {episode.ticks}: the rules refused {decision!r}: "
                f"{result.reason}: {result.message}",
                tick=episode.ticks,
            )
        rules = result.state
        events = [event_json(e) for e in result.events]
        same_chamber = rules.chamber == episode.rules.chamber
        in_chamber = episode.decisions_in_chamber + 1 if same_chamber else 0
        config = episode.config
        auto: EndCause | None = None
        if rules.phase == "chamber-clear" and rules.cleared_chamber_count >= config.chamber_cap:
            auto = "chamber_cap"
        elif rules.phase == "playing" and in_chamber >= config.decisions_per_chamber:
            auto = "decision_guard"
        if auto is not None:  # the harness banks (RR19)
            banked = step(rules, BANK)
            rules = banked.state
            events += [event_json(e) for e in banked.events]
        cause: EndCause | None = None
        if rules.phase == "ended":
            cause = auto or rules.end_reason
        after = replace(
            episode,
            rules=rules,
            ticks=episode.ticks + 1,
            decisions_in_chamber=in_chamber,
            cause=cause,
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

    def results(self, state: Episode) -> RelayroamResults:
        rules, config = state.rules, state.config
        return RelayroamResults(
            scores=[float(rules.score)],
            score=rules.score,
            optimum=optimum(rules.seed, config.chamber_cap, config.first_chamber),
            cleared_chamber_count=rules.cleared_chamber_count,
            total_rescued=rules.total_rescued,
            chamber=rules.chamber,
            ticks=state.ticks,
            reason=end_cause(state),
        )


__all__ = [
    "BANK",
    "PLAYER",
    "SEAT_GROUPS",
    "VARIANTS",
    "Episode",
    "RelayroamRules",
    "optimum",
]
