"""The episodes a stepped game's server keeps between requests, and what they spare."""

from __future__ import annotations

import threading

import pytest

from harness.protocol import RequestRefused
from harness.registry import get_game
from harness.server.live_episodes import LiveEpisodes, history_key
from harness.server.stepped import SteppedApi

KEY = b"live-episodes-test-key-32-bytes!"


class Episode:
    def __init__(self, name: str) -> None:
        self.name = name
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


def test_a_taken_episode_is_its_takers_alone_and_the_oldest_is_pushed_out_closed() -> None:
    live: LiveEpisodes[Episode] = LiveEpisodes(2)
    a, b, c = Episode("a"), Episode("b"), Episode("c")
    live.keep(b"a", a)
    live.keep(b"b", b)
    assert live.take(b"a") is a
    assert live.take(b"a") is None  # taken: no one else gets it
    live.keep(b"a", a)
    live.keep(b"c", c)  # three: b, kept longest ago, goes
    assert (a.closed, b.closed, c.closed) == (0, 1, 0)
    assert live.take(b"b") is None
    assert len(live) == 2
    again = Episode("c again")
    live.keep(b"c", again)  # the same key: the one it replaces is closed
    assert c.closed == 1
    live.clear()
    assert (a.closed, again.closed, len(live)) == (1, 1, 0)


def test_a_server_that_keeps_none_closes_each_episode_at_once() -> None:
    live: LiveEpisodes[Episode] = LiveEpisodes(0)
    one = Episode("one")
    live.keep(b"k", one)
    assert (one.closed, len(live), live.take(b"k")) == (1, 0, None)


def test_many_threads_taking_one_key_get_it_once() -> None:
    live: LiveEpisodes[Episode] = LiveEpisodes(4)
    live.keep(b"k", Episode("k"))
    got: list[Episode | None] = []
    threads = [threading.Thread(target=lambda: got.append(live.take(b"k"))) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(1 for g in got if g is not None) == 1


def test_the_api_keeps_an_episode_under_the_history_it_stands_at() -> None:
    api = SteppedApi(get_game("lighthouse"), live_episodes=4)
    start = api.init(0, None, "runner1", KEY)
    assert len(api.live) == 1
    with pytest.raises(RequestRefused):  # a seat the baseline plays: the episode is kept
        api.action(start["stateToken"], {"keeper": "{}"}, KEY)
    assert len(api.live) == 1
    one = api.action(start["stateToken"], {"runner1": '{"move": "N"}'}, KEY)
    assert len(api.live) == 1  # taken, answered, kept under the longer history
    # the first token again: a miss, played again, kept under that same longer history
    two = api.action(start["stateToken"], {"runner1": '{"move": "N"}'}, KEY)
    assert one["stateToken"] == two["stateToken"]
    assert one["observations"] == two["observations"]
    assert len(api.live) == 1
    # branches are kept side by side
    api.action(start["stateToken"], {"runner1": '{"move": "WAIT"}'}, KEY)
    assert len(api.live) == 2
    kept = api.live.take(history_key(b"no such history"))
    assert kept is None


def test_an_episode_that_ends_is_not_kept() -> None:
    api = SteppedApi(get_game("lighthouse"), live_episodes=4)
    response = api.init(1, None, "runner3", KEY)
    while not response["over"]:
        response = api.action(response["stateToken"], {"runner3": '{"move": "N"}'}, KEY)
    assert len(api.live) == 0
