"""Relayroam as a :class:`harness.game.Game`: one seat, ``player``, bounded episodes (RR19)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from pydantic import ValidationError

from baselines.relayroam.greedy import greedy, vent_aware_greedy
from harness.errors import ConfigError, RulesError
from harness.game import ParseFailure, SeatGroup, SeatSpec
from harness.games.relayroam.actions import parse_action
from harness.games.relayroam.config import VARIANTS, RelayroamConfig
from harness.games.relayroam.observe import Observation, observe, render_text
from harness.games.relayroam.record import (
    RELAYROAM_RECORD,
    ActionModel,
    EndCause,
    RelayroamResults,
    RelayroamTick,
    RelayroamTickState,
    SeedModel,
    record_schema,
)
from harness.games.relayroam.rules import event_json, new_game, step
from harness.games.relayroam.solver import episode_optimum
from harness.games.relayroam.state import State
from harness.games.relayroam.view import render_view, view_frames, viewer_script
from harness.report.columns import Column
from harness.validation import format_validation_error

PLAYER = "player"
BANK = {"type": "bank"}
_BASELINES = {"greedy": greedy, "vent-aware-greedy": vent_aware_greedy}
COLUMNS: tuple[Column, ...] = (
    Column("ratio", "score / optimum", "score", "optimum", percent=True),
    Column("cleared", "chambers cleared", "cleared"),
    Column("rescued", "helpers rescued", "rescued"),
    Column("depleted", "depleted", "depleted", "episodes", percent=True),
)


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
def optimum(seed: int, chambers: int) -> int:
    """The bounded episode's optimum: the sum of its chambers' optima (RR20)."""
    return episode_optimum(seed, chambers)


def state_from_observation(obs: Observation) -> State:
    """A rules state equal to the observed one in everything the rules check on a step.

    The seed and RNG cursor are not observed and play no part in a refusal.
    """
    return State(
        seed=0,
        rng_cursor=0,
        chamber=obs.chamber,
        reflected=obs.reflected,
        vent_offsets=tuple(v.offset for v in obs.vents),
        phase=obs.phase,
        end_reason=obs.end_reason,
        charge=obs.charge,
        turn=obs.turn,
        chamber_shock_count=obs.chamber_shock_count,
        score=obs.score,
        total_rescued=obs.total_rescued,
        cleared_chamber_count=obs.cleared_chamber_count,
        player=obs.player,
        used_relays=frozenset(o.id for o in obs.relays if o.used),
        used_helpers=frozenset(o.id for o in obs.helpers if o.used),
        used_batteries=frozenset(o.id for o in obs.batteries if o.used),
    )


class RelayroamGame:
    """Relayroam's answers to the runner's questions."""

    name = "relayroam"
    record_adapter = RELAYROAM_RECORD
    max_score = None

    # --- set-up -------------------------------------------------------------------

    def seat_groups(self) -> tuple[SeatGroup, ...]:
        return (SeatGroup(PLAYER, PLAYER, (PLAYER,)),)

    def variants(self) -> tuple[str, ...]:
        return VARIANTS

    def make_config(
        self,
        variant: str,
        overrides: Mapping[str, Any],
        episode_timeout_seconds: float | None = None,
    ) -> RelayroamConfig:
        if variant not in VARIANTS:
            raise ConfigError(f"variants: {variant!r} is not one of {list(VARIANTS)}")
        values = dict(overrides)
        if episode_timeout_seconds is not None:
            values["episode_timeout_seconds"] = episode_timeout_seconds
        try:
            return RelayroamConfig.model_validate(values)
        except ValidationError as exc:
            raise ConfigError(format_validation_error(exc, "rules")) from None

    def new_state(self, config: RelayroamConfig, seed: int) -> Episode:
        try:
            return Episode(config, new_game(seed))
        except ValueError as exc:
            raise ConfigError(f"seed: {exc}") from None

    def start_state(self, header: Any) -> Episode:
        return self.new_state(header.config, header.board.seed)

    def config_model(self, state: Episode) -> RelayroamConfig:
        return state.config

    def board_model(self, state: Episode) -> SeedModel:
        return SeedModel(seed=state.rules.seed)

    def play_budget_seconds(self, state: Episode) -> float:
        return state.config.play_budget_seconds

    # --- seats, observations, replies -----------------------------------------------

    def seats(self, state: Episode) -> tuple[SeatSpec, ...]:
        return (SeatSpec(PLAYER, PLAYER),)

    def active_seats(self, state: Episode) -> tuple[str, ...]:
        return () if state.over else (PLAYER,)

    def observe(self, state: Episode, seat: str) -> Observation:
        return observe(state.rules)

    def render_observation(self, observation: Any) -> str:
        return render_text(observation)

    def baselines(self, role: str) -> tuple[str, ...]:
        return tuple(_BASELINES)

    def baseline_reply(self, observation: Any, name: str | None = None) -> str:
        try:
            baseline = _BASELINES[name or "greedy"]
        except KeyError:
            raise RulesError(f"no baseline {name!r}; choose one of {sorted(_BASELINES)}") from None
        return json.dumps(baseline(observation))

    def reply_schema(self, role: str) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {
                "type": {"type": "string", "enum": ["move", "wait", "next", "bank"]},
                "direction": {"type": "string", "enum": ["up", "right", "down", "left"]},
            },
            "required": ["type"],
            "additionalProperties": False,
        }

    def parse_reply(self, observation: Any, text: str) -> dict[str, Any] | ParseFailure:
        return parse_action(text)

    def refuse(self, observation: Any, decision: Any) -> ParseFailure | None:
        result = step(state_from_observation(observation), decision)
        if result.ok:
            return None
        legal = json.dumps(list(result.legal_actions))
        return ParseFailure(
            f"refused:{result.reason}",
            f"the rules refused that action ({result.reason}): {result.message} "
            f"Legal actions now: {legal}",
        )

    def decision_model(self, decision: Any) -> ActionModel:
        return ActionModel.model_validate(decision)

    def decision_from_json(self, data: Any) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise TypeError(f"an action is a JSON object, not {data!r}")
        return dict(data)

    def decision_from_model(self, model: Any) -> dict[str, Any]:
        data: dict[str, Any] = model.model_dump()
        return data

    # --- the tick ---------------------------------------------------------------------

    def tick(self, state: Episode) -> int:
        return state.ticks

    def is_over(self, state: Episode) -> bool:
        return state.over

    def resolve(
        self, state: Episode, decisions: Mapping[str, Any]
    ) -> tuple[Episode, RelayroamTickState]:
        if state.over:
            raise RulesError(f"tick {state.ticks}: the episode is over ({state.cause})")
        if set(decisions) != {PLAYER}:
            raise RulesError(f"tick {state.ticks}: decisions for {sorted(decisions)}, need player")
        result = step(state.rules, decisions[PLAYER])
        if not result.ok:
            raise RulesError(
                f"tick {state.ticks}: the rules refused {decisions[PLAYER]!r}: "
                f"{result.reason}: {result.message}"
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

    def end_by_deadline(self, state: Episode) -> Episode:
        if state.over:
            raise RulesError(f"tick {state.ticks}: the episode is already over ({state.cause})")
        return replace(state, cause="deadline")

    def results(self, state: Episode) -> RelayroamResults:
        if state.cause is None:
            raise RulesError(f"tick {state.ticks}: the episode is not over yet")
        rules = state.rules
        return RelayroamResults(
            scores=[float(rules.score)],
            score=rules.score,
            optimum=optimum(rules.seed, state.config.chamber_cap),
            cleared_chamber_count=rules.cleared_chamber_count,
            total_rescued=rules.total_rescued,
            chamber=rules.chamber,
            ticks=state.ticks,
            reason=state.cause,
        )

    # --- reports and viewers ----------------------------------------------------------

    def episode_metrics(self, lines: Sequence[Any]) -> dict[str, float]:
        r: RelayroamResults = lines[-1].results
        return {
            "score": float(r.score),
            "optimum": float(r.optimum),
            "cleared": float(r.cleared_chamber_count),
            "rescued": float(r.total_rescued),
            "depleted": float(r.reason == "depleted"),
            "episodes": 1.0,
            "ticks": float(r.ticks),
        }

    def report_columns(self) -> tuple[Column, ...]:
        return COLUMNS

    def record_schema(self) -> dict[str, Any]:
        return record_schema()

    def render_start(self, state: Episode) -> str:
        return render_text(observe(state.rules))

    def render_tick(self, line: RelayroamTick) -> str:
        s = line.state
        turn = line.seats[PLAYER]
        action = json.dumps(turn.decision.model_dump())
        tag = "" if turn.source in ("baseline", "llm") else f"  [{turn.source}]"
        happened = ", ".join(e["type"] for e in s.events) or "-"
        head = (
            f"tick {line.tick}  {action}{tag}  -> {happened}  | chamber {s.chamber} "
            f"charge {s.charge} turn {s.turn} score {s.score}"
        )
        return "\n".join([head, *("    " + row for row in s.grid)])

    def render_results(self, results: Any) -> str:
        r: RelayroamResults = results
        ratio = r.score / r.optimum if r.optimum else 0.0
        return (
            f"score {r.score} of an optimum {r.optimum} ({100 * ratio:.1f}%)  "
            f"chambers cleared {r.cleared_chamber_count}  helpers {r.total_rescued}  "
            f"ticks {r.ticks}  reason {r.reason}"
        )

    def view_frames(self, lines: Sequence[Any]) -> list[dict[str, Any]]:
        return view_frames(lines)

    def render_view(self, frame: dict[str, Any]) -> str:
        return render_view(frame)

    def viewer_script(self) -> str:
        return viewer_script()


__all__ = ["PLAYER", "Episode", "RelayroamGame", "optimum", "state_from_observation"]
