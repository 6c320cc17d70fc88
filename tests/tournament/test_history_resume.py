"""A tournament whose model seats are sent their last 4 ticks (``history = 4``), killed
with SIGKILL in the middle, resumes without sending any call it had answered again (each answered call's key,
which covers the whole conversation, is found again as the resumed episode replays),
and every prompt of its records verifies."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from harness.llm.cache import CACHE_FILE, CallCache
from harness.reader import open_record
from harness.registry import get_game
from harness.testing.llm_server import Action, Hang, Reply, ScriptedLLMServer
from harness.tournament.store import ResultsFolder
from harness.viewer.prompts import sent_prompts
from tests.tournament.test_crash import KEY_ENV, finish, outcome, start, wait_until

GAME = get_game("lighthouse")
#: The seat calls answered before the run stalls (and is killed).
ANSWERED = 20

CONFIG = """
name = "history"
seeds = {{ start = 0, stop = 2 }}
concurrency = 2
rules = {{ maxTicks = 10 }}

[providers.local]
kind = "openai"
base_url = "{url}"
api_key_env = "{key_env}"

[[entrants]]
name = "memory"
keeper = {{ provider = "local", model = "scripted", history = 4 }}
runners = [{{ provider = "local", model = "scripted", history = 4 }}, {{ baseline = "wallhug" }}, {{ baseline = "wallhug" }}]
"""

MOVES = ("N", "E", "S", "W", "WAIT")


def seat_call(body: dict[str, Any]) -> bool:
    """A seat's call (the preflight's has no game in it)."""
    return "in Lighthouse, a cooperative game" in json.dumps(body)


def reply_for(path: str, body: dict[str, Any]) -> Action:
    """A reply that depends only on the request, so a rerun gets the same answers."""
    last = body["messages"][-1]["content"]
    move = MOVES[len(last) % len(MOVES)]
    if "You are the KEEPER" in json.dumps(body):
        return Reply(json.dumps({"transmit": True, "message": f"Sprocket {move}"}))
    return Reply(json.dumps({"move": move, "notes": f"went {move}"}))


class Stalling:
    """Answers the first :data:`ANSWERED` seat calls, then holds every later one."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.answered: list[dict[str, Any]] = []

    def __call__(self, path: str, body: dict[str, Any]) -> Action:
        if not seat_call(body):
            return reply_for(path, body)
        with self.lock:
            if len(self.answered) >= ANSWERED:
                return Hang(600)
            self.answered.append(body)
        return reply_for(path, body)


def held(server: ScriptedLLMServer) -> int:
    """Seat calls the server holds unanswered."""
    return sum(seat_call(r.body) for r in list(server.requests)) - ANSWERED


def keeper(body: dict[str, Any]) -> str | None:
    """The keeper's request as text (None for a runner's)."""
    text = json.dumps(body, sort_keys=True)
    return text if "You are the KEEPER" in text else None


def stored(out: Path) -> int:
    path = out / CACHE_FILE
    if not path.exists():
        return 0
    cache = CallCache(path)
    try:
        return len(cache)
    except Exception:  # the run is creating it right now
        return 0
    finally:
        cache.close()


def calls_of(out: Path) -> list[dict[str, Any]]:
    calls = []
    for record in ResultsFolder(out).iter_records():
        for line in record.read_text().splitlines():
            tick = json.loads(line)
            if tick["type"] == "tick":
                calls += [c for t in tick["seats"].values() for c in t.get("calls", [])]
    return calls


def test_history_4_resumes_after_sigkill_without_sending_an_answered_call(
    tmp_path: Path,
) -> None:
    stalling = Stalling()
    with ScriptedLLMServer(default=stalling) as server:
        config = tmp_path / "history.toml"
        config.write_text(CONFIG.format(url=server.openai_url, key_env=KEY_ENV))
        out = tmp_path / "out"
        proc = start(config, out)
        try:
            # every answered call committed to the cache, the rest held: then kill -9
            wait_until(lambda: stored(out) >= ANSWERED and held(server) > 0, proc)
        finally:
            proc.kill()
            proc.wait(timeout=10)
        first = [r.body for r in server.requests if seat_call(r.body)]
        assert len(stalling.answered) == ANSWERED < len(first)  # some were held, unanswered
        assert stored(out) == ANSWERED
        assert ResultsFolder(out).summaries() == []  # killed in the middle of every episode

        server.default = reply_for
        before = len(server.requests)
        resumed = finish(config, out)
        assert resumed.returncode == 0, resumed.stderr
        resent = [r.body for r in server.requests[before:] if seat_call(r.body)]

    calls = calls_of(out)
    from_cache = [c for c in calls if c.get("cached")]
    # every answered call came from the cache, every other one was sent once
    assert len(from_cache) == ANSWERED
    assert len(resent) == len(calls) - ANSWERED
    # and none of them again (the keeper's: a runner's first ticks may read the same in
    # two episodes, which are separate draws)
    answered = {keeper(b) for b in stalling.answered} - {None}
    assert answered
    assert not answered & {keeper(b) for b in resent}
    # the conversations really were long: a call late in an episode sends 4 earlier ticks
    assert max(len(b["messages"]) for b in resent) == 1 + 2 * 4 + 1
    assert len(outcome(out)) == 2
    # every prompt of every record is made again from the record, history and all
    for path in ResultsFolder(out).iter_records():
        prompts = sent_prompts(GAME, open_record(path).lines())
        assert prompts.notes == []
        checks = {p.check for seats in prompts.turns.values() for p in seats.values()}
        assert checks == {"exact"}
