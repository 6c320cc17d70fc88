"""Relayroam's one tick cap: the most decisions an episode can take (RR19).

The guard allows ``decisionsPerChamber`` decisions in a chamber; a cleared chamber
takes one more, the ``next`` that leaves it, except the last, on whose clear the
harness banks. So an episode takes at most ``chamberCap x (decisionsPerChamber + 1)
- 1`` decisions, and one that clears each chamber on the guard's last decision takes
exactly that many: more than ``chamberCap x decisionsPerChamber``, the cap the config
once declared (deadlines and budgets sized by it fell short by a tick a chamber).
"""

from __future__ import annotations

import asyncio

from harness.episode import run_episode
from harness.games.relayroam.config import RelayroamConfig
from harness.games.relayroam.observe import Observation
from harness.games.relayroam.record import RelayroamResults
from harness.games.relayroam.solver import solve_seeded_chamber
from harness.records import AgentInfo
from harness.registry import get_game
from harness.seats import SeatReply, SeatRequest
from harness.tournament.budget import max_ticks

GAME = get_game("relayroam")
SEED = 7
CLEAR = [a for a in solve_seeded_chamber(SEED, 1).actions if a["type"] != "bank"]


class ClearThenWait:
    """Clears chamber 1 by the solver's moves, leaves it, then waits in chamber 2."""

    agent = AgentInfo(kind="scripted", name="clear-then-wait")

    def __init__(self) -> None:
        self.moves = iter(CLEAR)

    async def decide(self, request: SeatRequest) -> SeatReply:
        obs = request.observation
        assert isinstance(obs, Observation)
        if obs.phase == "chamber-clear":
            action = {"type": "next"}
        elif obs.chamber == 1:
            action = next(self.moves)
        else:
            action = {"type": "wait"}  # on the start tile, no vent: only the guard ends it
        return SeatReply(str(action), action, "scripted")


def test_an_episode_can_take_every_decision_the_cap_counts() -> None:
    guard = len(CLEAR)  # chamber 1 clears on the guard's last decision
    assert guard < 28  # chamber 2's waits end by the guard, before its charge runs out
    config = RelayroamConfig(chamber_cap=2, decisions_per_chamber=guard)
    state = GAME.rules.new_state(config, SEED)
    outcome = asyncio.run(run_episode(GAME, state, {"player": ClearThenWait()}, episode_id="cap"))
    results = outcome.results
    assert isinstance(results, RelayroamResults)
    assert results.reason == "decision_guard"
    assert results.ticks == guard + 1 + guard == config.tick_cap
    assert config.tick_cap > config.chamber_cap * config.decisions_per_chamber


def test_the_cap_is_the_one_budgets_and_deadlines_use() -> None:
    config = RelayroamConfig()
    assert config.tick_cap == 6 * 61 - 1
    assert max_ticks(GAME, config) == config.tick_cap
