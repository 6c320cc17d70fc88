"""Climb: a one-seat game written as docs/games.md says a fourth game is, and no more.

Its rules, seat I/O, codec and entry use only what the protocol offers a one-seat game
(:class:`~harness.protocol.SoloRules`, :class:`~harness.protocol.JsonActionSeatIO`,
:class:`~harness.protocol.SeedBoardCodec`, :class:`~harness.protocol.TextView`, the
default :class:`~harness.protocol.Report`), and it writes exactly the six methods
that page lists: ``ClimbConfig.tick_cap``, ``ClimbRules.new_state``, ``step``,
``results`` and ``observation``, and ``ClimbSeatIO.render_observation``.

The seed fixes the summit, 3 to 7 steps up. Each action is ``{"type": "up"}`` (a step
up, a point) or ``{"type": "rest"}``; the climb ends at the summit or after
``maxMoves`` actions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field

from harness.errors import RulesError
from harness.models import JsonObject
from harness.protocol import (
    DEFAULT_EPISODE_TIMEOUT,
    EpisodeTimeout,
    GameConfig,
    GameEntry,
    GameResults,
    JsonAction,
    JsonActionSeatIO,
    Report,
    SeedBoard,
    SeedBoardCodec,
    SoloEpisode,
    SoloRules,
    TextView,
    end_cause,
)
from harness.protocol.codec import line_adapter, line_schema
from harness.protocol.solo import PLAYER, SEAT_GROUPS
from harness.records import EndLine, HeaderLine, RecordModel, TickLine

NAME = "climb"
Cause = Literal["summit", "tired"]


class ClimbConfig(GameConfig):
    """A climb of at most ``maxMoves`` actions."""

    max_moves: int = Field(12, ge=1, description="Actions before the climber tires.")
    episode_timeout_seconds: EpisodeTimeout = DEFAULT_EPISODE_TIMEOUT

    @property
    def tick_cap(self) -> int:
        return self.max_moves


@dataclass(frozen=True)
class Slope:
    """The rules' state: the seed, how high the climber is, where the summit is."""

    seed: int
    height: int
    summit: int


class ClimbAction(RecordModel):
    """The action grammar: one step up, or a rest."""

    type: Literal["up", "rest"]


class ClimbState(RecordModel):
    """The state after an action."""

    height: int
    summit: int


class ClimbResults(GameResults):
    """How high the climber got, and why the climb ended."""

    height: int
    summit: int
    reason: Cause | Literal["deadline"]


Episode = SoloEpisode[ClimbConfig, Slope, Cause]
ClimbLine = Annotated[
    HeaderLine[ClimbConfig, SeedBoard] | TickLine[JsonAction, ClimbState] | EndLine[ClimbResults],
    Field(discriminator="type"),
]
RECORD = line_adapter(ClimbLine)


class ClimbRules(SoloRules[ClimbConfig, Episode, Slope, JsonObject]):
    """Climb's rules."""

    config_type = ClimbConfig

    def new_state(self, config: ClimbConfig, seed: int) -> Episode:
        return Episode(config, Slope(seed, 0, 3 + seed % 5))

    def step(self, episode: Episode, decision: JsonObject) -> tuple[Episode, ClimbState]:
        kind = decision.get("type")
        if kind not in ("up", "rest"):
            raise RulesError(f"no such action: {decision!r}")
        slope = episode.rules
        slope = replace(slope, height=slope.height + (kind == "up"))
        ticks = episode.ticks + 1
        cause: Cause | None = None
        if slope.height >= slope.summit:
            cause = "summit"
        elif ticks >= episode.config.max_moves:
            cause = "tired"
        after = replace(episode, rules=slope, ticks=ticks, cause=cause)
        return after, ClimbState(height=slope.height, summit=slope.summit)

    def results(self, state: Episode) -> ClimbResults:
        slope = state.rules
        return ClimbResults(
            scores=[float(slope.height)],
            height=slope.height,
            summit=slope.summit,
            reason=end_cause(state),
        )

    def observation(self, episode: Episode) -> Slope:
        return episode.rules


class ClimbSeatIO(JsonActionSeatIO[Slope]):
    """What the climber reads, and the grammar of its reply."""

    action_shape = '{"type": "up"} or {"type": "rest"}'
    action_model = ClimbAction

    def render_observation(self, observation: Slope) -> str:
        return f"You stand at height {observation.height}; the summit is at {observation.summit}."


def write_prompts(folder: Path) -> None:
    """Climb's prompt files (a hosted game ships them under prompts/<game>/)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "player.system.md").write_text("You climb a slope to its summit.\n")
    (folder / "player.observation.md").write_text(
        '$observation\n\nReply with one JSON action: {"type": "up"} or {"type": "rest"}.\n'
    )
    (folder / "retry-hint.md").write_text("Your reply could not be used: $problem\n")


def _up(observation: Slope) -> str:
    return json.dumps({"type": "up"})


def _seed(episode: Episode) -> int:
    return episode.rules.seed


def climb_entry() -> GameEntry:
    """Climb's registry entry, as harness/registry.py would build it."""
    rules, seat_io = ClimbRules(), ClimbSeatIO()
    codec = SeedBoardCodec(
        record_adapter=RECORD,
        schema=partial(line_schema, RECORD, "Climb episode record line", "One line of a climb."),
        config_type=ClimbConfig,
        start=rules.new_state,
        seed_of=_seed,
    )
    return GameEntry(
        name=NAME,
        seat_groups=SEAT_GROUPS,
        baselines={PLAYER: {"up": _up}},
        rules=rules,
        seat_io=seat_io,
        codec=codec,
        view=TextView("Climb", rules, seat_io, codec),
        report=Report(),
    ).erase()
