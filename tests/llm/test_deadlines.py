"""Default time bounds: a seat's allowance and an episode's timeout fit the model seats."""

from __future__ import annotations

from harness.games.lighthouse.config import LighthouseConfig
from harness.games.relayroam.config import RelayroamConfig
from harness.llm.deadlines import default_allowance, default_episode_timeout


def test_an_allowance_covers_a_queue_of_the_other_seats_and_a_retry() -> None:
    assert default_allowance(60.0, 1) == 120.0  # the call and its retry
    assert default_allowance(60.0, 4) == 300.0


def test_an_episode_timeout_lets_every_tick_take_the_largest_allowance() -> None:
    config = LighthouseConfig(max_ticks=31)
    # 31 ticks x 300 s in the play budget, 60% of the timeout
    assert default_episode_timeout(config, [300.0, 120.0]) == 31 * 300.0 / 0.6
    # never shorter than the game's own default
    assert default_episode_timeout(LighthouseConfig(max_ticks=2), [10.0]) == 900.0
    assert default_episode_timeout(config, []) is None  # no model seat: the game's default


def test_relayroam_counts_every_decision_it_may_ask_for() -> None:
    # the guard's 5 in each of the 2 chambers, and the `next` that leaves the first
    config = RelayroamConfig(chamber_cap=2, decisions_per_chamber=5)
    assert default_episode_timeout(config, [120.0]) == max(900.0, 11 * 120.0 / 0.6)
