"""Lighthouse as a :class:`harness.game.Game`: the adapter the runner talks to."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from baselines.lighthouse.lantern import lantern
from baselines.lighthouse.silent import silent
from baselines.lighthouse.wallhug import wallhug
from harness.errors import ConfigError, RulesError
from harness.game import ParseFailure, SeatGroup, SeatSpec
from harness.games.lighthouse.board import generate_board
from harness.games.lighthouse.config import VARIANTS, LighthouseConfig
from harness.games.lighthouse.metrics import COLUMNS, episode_metrics
from harness.games.lighthouse.observe import (
    KeeperObservation,
    RunnerObservation,
    keeper_grid,
    observe_keeper,
    observe_runner,
    render_keeper,
    render_runner,
)
from harness.games.lighthouse.record import (
    LIGHTHOUSE_RECORD,
    BoardModel,
    KeeperDecisionModel,
    LighthouseResults,
    LighthouseTick,
    LighthouseTickState,
    RunnerDecisionModel,
    RunnerStateModel,
    record_schema,
)
from harness.games.lighthouse.replies import parse_keeper_reply, parse_runner_reply
from harness.games.lighthouse.rules import end_by_deadline, resolve_tick, results
from harness.games.lighthouse.state import (
    GameState,
    KeeperDecision,
    Move,
    RunnerDecision,
    new_game,
)
from harness.games.lighthouse.view import render_view, view_frames, viewer_script
from harness.report.columns import Column

KEEPER: Final = "keeper"
RUNNER: Final = "runner"
ROLES: Final = (KEEPER, RUNNER)
# The first of each role is the fallback for an LLM seat of that role.
_KEEPER_BASELINES: Final = {"lantern": lantern, "silent": silent}
_RUNNER_BASELINES: Final = {"wallhug": wallhug}


def runner_seat_id(seat: int) -> str:
    """The seat id of runner ``seat`` (1, 2 or 3): ``runner1`` ..."""
    return f"runner{seat}"


def _runner_number(seat_id: str) -> int:
    if seat_id not in ("runner1", "runner2", "runner3"):
        raise RulesError(f"no such Lighthouse seat: {seat_id!r}")
    return int(seat_id[-1])


class LighthouseGame:
    """Lighthouse's answers to the runner's questions. Stateless: one instance serves all."""

    name = "lighthouse"
    record_adapter = LIGHTHOUSE_RECORD
    #: teamScore's ceiling (rules, "Scoring"), for plots.
    max_score = 42.0

    def seat_groups(self) -> tuple[SeatGroup, ...]:
        return (
            SeatGroup("keeper", KEEPER, (KEEPER,)),
            SeatGroup("runners", RUNNER, tuple(runner_seat_id(s) for s in (1, 2, 3))),
        )

    def variants(self) -> tuple[str, ...]:
        return VARIANTS

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
        return LighthouseConfig.for_variant(variant, **values)

    def render_start(self, state: GameState) -> str:
        return "\n".join("    " + row for row in state.board.to_ascii())

    def record_schema(self) -> dict[str, Any]:
        return record_schema()

    def new_state(self, config: LighthouseConfig, seed: int) -> GameState:
        return new_game(config, generate_board(config, seed))

    def refuse(self, observation: Any, decision: Any) -> ParseFailure | None:
        return None  # every parsed Lighthouse decision is legal: a blocked move is a bump

    def initial_state(self, config: LighthouseConfig, board: BoardModel) -> GameState:
        """The tick-0 state of a recorded header's config and board."""
        return new_game(config, board.to_board())

    def start_state(self, header: Any) -> GameState:
        return self.initial_state(header.config, header.board)

    def decision_from_json(self, data: Any) -> KeeperDecision | RunnerDecision:
        if not isinstance(data, dict):
            raise TypeError(f"a decision is a JSON object, not {data!r}")
        model: KeeperDecisionModel | RunnerDecisionModel
        if "move" in data:
            model = RunnerDecisionModel.model_validate({"notes": None, **data})
        else:
            model = KeeperDecisionModel.model_validate(
                {"transmit": None, "message": "", "notes": None, **data}
            )
        return self.decision_from_model(model)

    def seats(self, state: GameState) -> tuple[SeatSpec, ...]:
        return (
            SeatSpec(KEEPER, KEEPER),
            *(SeatSpec(runner_seat_id(r.seat), RUNNER, r.alias) for r in state.runners),
        )

    def active_seats(self, state: GameState) -> tuple[str, ...]:
        if state.over:
            return ()
        return (KEEPER, *(runner_seat_id(r.seat) for r in state.runners if r.active))

    def observe(self, state: GameState, seat: str) -> KeeperObservation | RunnerObservation:
        if seat == KEEPER:
            return observe_keeper(state)
        return observe_runner(state, _runner_number(seat))

    def render_observation(self, observation: Any) -> str:
        if isinstance(observation, KeeperObservation):
            return render_keeper(observation)
        return render_runner(observation)

    def baselines(self, role: str) -> tuple[str, ...]:
        return tuple(_KEEPER_BASELINES if role == KEEPER else _RUNNER_BASELINES)

    def baseline_reply(self, observation: Any, name: str | None = None) -> str:
        table: Mapping[str, Any] = (
            _KEEPER_BASELINES if isinstance(observation, KeeperObservation) else _RUNNER_BASELINES
        )
        try:
            baseline = table[name] if name is not None else next(iter(table.values()))
        except KeyError:
            raise RulesError(f"no baseline {name!r}; choose one of {sorted(table)}") from None
        reply: str = baseline(observation)
        return reply

    def reply_schema(self, role: str) -> dict[str, Any]:
        # Strict structured-output modes want every property required and no others.
        if role == KEEPER:
            properties: dict[str, Any] = {
                "transmit": {"type": "boolean"},
                "message": {"type": "string"},
                "notes": {"type": "string"},
            }
        else:
            properties = {
                "move": {"type": "string", "enum": [m.value for m in Move]},
                "notes": {"type": "string"},
            }
        return {
            "type": "object",
            "properties": properties,
            "required": list(properties),
            "additionalProperties": False,
        }

    def parse_reply(
        self, observation: Any, text: str
    ) -> KeeperDecision | RunnerDecision | ParseFailure:
        # The caps travel in the observation, so parsing needs no other state.
        if isinstance(observation, KeeperObservation):
            return parse_keeper_reply(
                text, message_cap=observation.message_cap, notes_cap=observation.notes_cap
            )
        return parse_runner_reply(text, notes_cap=observation.notes_cap)

    def decision_model(self, decision: Any) -> KeeperDecisionModel | RunnerDecisionModel:
        if isinstance(decision, KeeperDecision):
            return KeeperDecisionModel(
                transmit=decision.transmit, message=decision.message, notes=decision.notes
            )
        return RunnerDecisionModel(move=decision.move, notes=decision.notes)

    def decision_from_model(self, model: Any) -> KeeperDecision | RunnerDecision:
        """The engine decision a record's decision model stands for."""
        if isinstance(model, KeeperDecisionModel):
            return KeeperDecision(model.transmit, model.message, model.notes)
        return RunnerDecision(Move(model.move), model.notes)

    def resolve(
        self, state: GameState, decisions: Mapping[str, Any]
    ) -> tuple[GameState, LighthouseTickState]:
        keeper = decisions[KEEPER]
        runners = {_runner_number(s): d for s, d in decisions.items() if s != KEEPER}
        after, events = resolve_tick(state, keeper, runners)
        by_seat = {e.seat: e for e in events.runners}
        snapshot = LighthouseTickState(
            transmission=events.transmission,
            clock=after.clock,
            water_line=after.water_line,
            tide_rows=after.tide.rows(after.clock),
            gate_open=after.gate_open,
            gate_opened_tick=after.gate_opened_tick,
            collected=list(after.collected),
            keeper_notes=after.keeper_notes,
            runners=[
                RunnerStateModel(
                    seat=r.seat,
                    alias=r.alias,
                    pos=r.pos,
                    status=r.status,
                    keys=list(r.keys),
                    notes=r.notes,
                    move=by_seat[r.seat].move if r.seat in by_seat else None,
                    bumped=by_seat[r.seat].bumped if r.seat in by_seat else None,
                    picked_key=by_seat[r.seat].picked_key if r.seat in by_seat else None,
                )
                for r in after.runners
            ],
            grid=list(keeper_grid(after)),
            reason=after.reason,
        )
        return after, snapshot

    def is_over(self, state: GameState) -> bool:
        return state.over

    def tick(self, state: GameState) -> int:
        return state.tick

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

    def config_model(self, state: GameState) -> LighthouseConfig:
        return state.config

    def board_model(self, state: GameState) -> BoardModel:
        return BoardModel.of(state.board)

    def play_budget_seconds(self, state: GameState) -> float:
        return state.config.play_budget_seconds

    def render_tick(self, line: LighthouseTick) -> str:
        s = line.state
        lines = [f"tick {line.tick}  clock {s.clock}  water line y={s.water_line}"]
        keeper = line.seats.get(KEEPER)
        if s.transmission is not None:
            lines.append(f"  keeper: {s.transmission!r}")
        else:
            lines.append("  keeper: (silent)")
        if keeper is not None and keeper.source not in ("baseline", "llm"):
            lines[-1] += f"  [{keeper.source}]"
        for r in s.runners:
            if r.move is None:
                continue
            what = f"{r.move.value:<4}{' bump' if r.bumped else '     '}"
            extra = []
            if r.picked_key is not None:
                extra.append(f"took the key at {tuple(r.picked_key)}")
            if r.status.value != "active":
                extra.append(r.status.value.upper())
            turn = line.seats.get(runner_seat_id(r.seat))
            if turn is not None and turn.source not in ("baseline", "llm"):
                extra.append(f"[{turn.source}]")
            lines.append(f"  {r.alias:<10} {what} -> {tuple(r.pos)} {' '.join(extra)}".rstrip())
        if s.gate_open and s.gate_opened_tick == line.tick:
            lines.append("  the gate opens")
        lines.extend("    " + row for row in s.grid)
        return "\n".join(lines)

    def episode_metrics(self, lines: Sequence[Any]) -> dict[str, float]:
        return episode_metrics(lines)

    def view_frames(self, lines: Sequence[Any]) -> list[dict[str, Any]]:
        return view_frames(lines)

    def render_view(self, frame: dict[str, Any]) -> str:
        return render_view(frame)

    def viewer_script(self) -> str:
        return viewer_script()

    def report_columns(self) -> tuple[Column, ...]:
        return COLUMNS

    def render_results(self, results: Any) -> str:
        r: LighthouseResults = results
        return (
            f"teamScore {r.team_score:.3f}  (K {r.k}/{r.key_count}, E {r.e}, B {r.b:.3f})  "
            f"clock {r.clock}/{r.flood_clock}  ticks {r.ticks}  reason {r.reason.value}"
        )


__all__ = ["KEEPER", "ROLES", "RUNNER", "LighthouseGame", "runner_seat_id"]
