"""Hourloom's rules part: one seat, ``player``; runs capped as decision H33 says.

The harness's state of an episode (:class:`Episode`) is the rules' state plus what
the harness adds: its counts (actions, refusals, seals, laps) and the caps, after
which it sends END_RUN itself (``chamber_cap``, ``action_cap``), as
:func:`~harness.games.hourloom.capped.play_capped` does. A seat observes the rules'
whole state: nothing in Hourloom is hidden (H29, H32). The other parts live beside
it: :mod:`.seat_io`, :mod:`.codec`, :mod:`.view` and :mod:`.report`;
:mod:`harness.registry` bundles them with the bots of ``baselines/hourloom/``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from harness.errors import ConfigError
from harness.games.hourloom.capped import cap_reached, progress
from harness.games.hourloom.config import CHAMBER_CAP_LIMIT, VARIANTS, HourloomConfig
from harness.games.hourloom.events import event_json
from harness.games.hourloom.generator import generate
from harness.games.hourloom.observe import glyph_rows
from harness.games.hourloom.planned import planned_score
from harness.games.hourloom.record import AutoEnd, EndCause, HourloomResults, HourloomTickState
from harness.games.hourloom.rng import to_hex
from harness.games.hourloom.rules import END_RUN, RefusalReason, new_game, step
from harness.games.hourloom.state import State
from harness.games.hourloom.turn import YOU, bodies_of, chamber_start, gate_open
from harness.models import JsonObject
from harness.protocol.solo import PLAYER, SEAT_GROUPS, SoloEpisode, SoloRules, end_cause


@dataclass(frozen=True)
class Episode(SoloEpisode[HourloomConfig, State, EndCause]):
    """The harness's state of an Hourloom run: the rules' state, the counts, the end.
    Its ``ticks`` are the run's actions, refusals included (H33)."""

    refusals: int = 0
    chambers_sealed: int = 0
    laps_completed: int = 0

    @property
    def actions(self) -> int:
        """The actions so far, refusals included: the decisions the episode counts."""
        return self.ticks


def auto_end(rules: State, actions: int, config: HourloomConfig) -> AutoEnd | None:
    """The cap that ends a run still going after ``actions`` actions, if one does (H33),
    with ``config``'s caps: :func:`~harness.games.hourloom.capped.cap_reached`, the one
    check that :func:`~harness.games.hourloom.capped.play_capped` makes too."""
    return cap_reached(
        rules, actions, max_chambers=config.max_chambers, max_actions=config.max_actions
    )


def tick_state(
    episode: Episode,
    ok: bool,
    reason: RefusalReason | None,
    events: list[JsonObject],
    auto: AutoEnd | None,
) -> HourloomTickState:
    """The record of ``episode``'s state after an action (what the player now sees)."""
    rules = episode.rules
    c = rules.chamber
    bodies = bodies_of(rules.player, rules.echoes)
    nexts = [
        log[rules.turn] if tile is not None and rules.turn < len(log) else None
        for tile, log in zip(rules.echoes, rules.logs, strict=True)
    ]
    return HourloomTickState(
        ok=ok,
        reason=reason,
        events=events,
        auto_end=auto,
        phase=rules.phase,
        end_reason=rules.end_reason,
        chamber=c.number,
        multiplier_pct=c.multiplier_pct,
        lap=rules.lap,
        laps=c.laps,
        turn=rules.turn,
        sand=rules.sand,
        lap_budget=rules.lap_budget,
        has_keystone=rules.has_keystone,
        player=rules.player,
        echoes=list(rules.echoes),
        echo_next=nexts,
        gates_open=[gate_open(g, YOU, bodies) for g in c.gates],
        score=rules.score,
        rng_state=to_hex(rules.rng_state),
        actions=episode.actions,
        refusals=episode.refusals,
        chambers_sealed=episode.chambers_sealed,
        laps_completed=episode.laps_completed,
        grid=list(glyph_rows(rules)),
    )


class HourloomRules(SoloRules[HourloomConfig, Episode, State, JsonObject]):
    """Hourloom's rules as the runner asks for them. Stateless. A seat observes the
    rules' whole state: nothing in Hourloom is hidden (H29, H32)."""

    config_type = HourloomConfig

    def new_state(self, config: HourloomConfig, seed: int) -> Episode:
        return Episode(config, new_game(seed))

    def chamber_state(self, config: HourloomConfig, seed: int, chamber: int) -> Episode:
        """The run of ``seed`` at the start of chamber ``chamber`` (1 is the start), as
        DESCEND would build it from an empty score: the seed fixes every chamber (H5)."""
        if type(chamber) is not int or not 1 <= chamber <= CHAMBER_CAP_LIMIT:
            raise ConfigError(f"chamber: must be 1..{CHAMBER_CAP_LIMIT}, got {chamber!r}")
        start = self.new_state(config, seed)
        word = start.rules.rng_state
        built = None
        for number in range(2, chamber + 1):
            built = generate(number, word)
            word = built.rng_state
        if built is None:
            return start
        return replace(start, rules=chamber_start(seed, word, built.chamber, 0))

    def observation(self, episode: Episode) -> State:
        return episode.rules

    def step(self, episode: Episode, decision: JsonObject) -> tuple[Episode, HourloomTickState]:
        result = step(episode.rules, decision)
        # A refusal is a free no-op that still counts against the action cap (H33).
        sealed, laps = progress(result.events)
        rules = result.state
        events = [event_json(e) for e in result.events]
        actions = episode.ticks + 1
        auto = auto_end(rules, actions, episode.config)
        if auto is not None:  # the harness ends the run (H33)
            ended = step(rules, END_RUN)
            rules = ended.state
            events += [event_json(e) for e in ended.events]
        cause: EndCause | None = None
        if auto is not None:
            cause = auto
        elif rules.phase == "over":
            cause = rules.end_reason or "end_run"
        after = replace(
            episode,
            rules=rules,
            ticks=actions,
            refusals=episode.refusals + (0 if result.ok else 1),
            chambers_sealed=episode.chambers_sealed + sealed,
            laps_completed=episode.laps_completed + laps,
            cause=cause,
        )
        return after, tick_state(after, result.ok, result.reason, events, auto)

    def results(self, state: Episode) -> HourloomResults:
        rules, config = state.rules, state.config
        return HourloomResults(
            scores=[float(rules.score)],
            score=rules.score,
            planned=planned_score(rules.seed, config.max_chambers, config.max_actions),
            chambers_sealed=state.chambers_sealed,
            laps_completed=state.laps_completed,
            chamber=rules.chamber.number,
            actions=state.actions,
            refusals=state.refusals,
            reason=end_cause(state),
        )


__all__ = [
    "PLAYER",
    "SEAT_GROUPS",
    "VARIANTS",
    "Episode",
    "HourloomRules",
    "auto_end",
    "tick_state",
]
