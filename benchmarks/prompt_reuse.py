"""How much of each prompt a provider could reuse, per game and seat role, with and
without seat memory.

    python -m benchmarks.prompt_reuse [--episodes 3] [--histories 0,4,16]

(Run it as a module, like every benchmark here.)

Every seat of every hosted game is an LLM seat (the OpenAI SDK, shipped prompts)
calling the scripted server on 127.0.0.1; each request is answered with what the
role's first baseline answers to the same observation, so the episodes play as the
baselines play them. The server reports usage as a provider's prompt cache would
(:class:`~harness.testing.llm_server.PrefixCache`: input tokens estimated at 4 bytes
a token, cached tokens the longest common start with any of the last 16 requests,
billed from 1024 tokens in steps of 128, as OpenAI bills).

Per game, seat role and ``history``, over ``--episodes`` episodes (seeds 0, 1, ...,
the default variant):

- **stable share**: each call's prompt text (every message, the system prompt first)
  compared with the same seat's previous call: the characters their common start
  covers over the call's length, averaged over the calls after each seat's first;
- **input / episode**: input tokens per episode, as the records' ledgers sum the
  server's usage;
- **cache read (billed)**: of those, the share the server reported cached (the
  records' ``cachedInputTokens``), as a provider with OpenAI's 1024-token minimum
  would bill it;
- **cache read (any length)**: the same with no minimum and no steps (the share
  reused by a server that caches every common start, llama.cpp's or vLLM's).

Only dummy keys are set. Figures only: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.episode import run_episode
from harness.llm.options import LLMSeatOptions
from harness.llm.prompts import PromptSet, default_prompt_files
from harness.llm.seat import LLMSeat, SeatFactory
from harness.protocol import GameEntry
from harness.records import AgentInfo, RecordWriter
from harness.registry import game_names, get_game
from harness.seats import Seat, SeatReply, SeatRequest
from harness.testing.llm_server import (
    Action,
    PrefixCache,
    Reply,
    ScriptedLLMServer,
    common_start,
    prompt_text,
)

KEY_ENV = "PROMPT_REUSE_BENCH_KEY"
#: Requests a cache remembers (per model).
REMEMBERED = 16


@dataclass
class Answers:
    """The reply to each tick's prompt (its text), and who was asked it."""

    by_prompt: dict[str, tuple[str, str]] = field(default_factory=dict)
    sent: list[tuple[str, str]] = field(default_factory=list)
    """(seat key, prompt text) of every request, in order."""
    any_length: PrefixCache = field(
        default_factory=lambda: PrefixCache(min_tokens=0, step=1, remembered=REMEMBERED)
    )
    roles: dict[str, str] = field(default_factory=dict)
    any_cached: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def __call__(self, path: str, body: dict[str, Any]) -> Action:
        messages = body["messages"]
        users = [m["content"] for m in messages if m["role"] == "user"]
        found = next((self.by_prompt[u] for u in reversed(users) if u in self.by_prompt), None)
        if found is None:  # the preflight's call
            return Reply("{}")
        seat, raw = found
        self.sent.append((seat, prompt_text(path, body)))
        _, cached = self.any_length.usage(path, body)
        self.any_cached[self.roles[seat]] += cached
        return Reply(raw)


class Guided:
    """An LLM seat whose server is told, first, what the baseline answers this tick."""

    def __init__(self, seat: LLMSeat, answers: Answers, key: str, prompts: PromptSet) -> None:
        self._seat = seat
        self._answers = answers
        self._key = key
        self._prompts = prompts

    @property
    def agent(self) -> AgentInfo:
        return self._seat.agent

    async def decide(self, request: SeatRequest) -> SeatReply:
        raw, _ = request.baseline(next(iter(request.baselines)))
        shown = request.io.render_observation(request.observation)
        prompt = self._prompts.observation.fill(observation=shown)
        self._answers.by_prompt[prompt] = (self._key, raw)
        return await self._seat.decide(request)


@dataclass
class RoleFigures:
    calls: int = 0
    shares: list[float] = field(default_factory=list)
    chars: int = 0
    input_tokens: int = 0
    cached_tokens: int = 0
    any_cached: int = 0


async def play(
    game: GameEntry, history: int, episodes: int, server: ScriptedLLMServer, folder: Path
) -> dict[str, RoleFigures]:
    answers = Answers()
    server.default = answers
    options = LLMSeatOptions.model_validate(
        {
            "provider": {"kind": "openai", "base_url": server.openai_url, "api_key_env": KEY_ENV},
            "model": f"bench-{game.name}-{history}",
            "history": history,
            "call_timeout_seconds": 30.0,
        }
    )
    figures: dict[str, RoleFigures] = defaultdict(RoleFigures)
    config = game.rules.make_config(game.variants[0], {}, None)
    async with SeatFactory(environ={KEY_ENV: "sk-bench-prompt-reuse"}) as factory:
        for seed in range(episodes):
            state = game.rules.new_state(config, seed)
            seats: dict[str, Seat] = {}
            for spec in game.rules.seats(state):
                key = f"{seed}/{spec.seat}"
                answers.roles[key] = spec.role
                prompts = PromptSet.load(default_prompt_files(game.name, spec.role))
                llm = factory.seat(game, spec.role, options)
                seats[spec.seat] = Guided(llm, answers, key, prompts)
            path = folder / f"{game.name}-{history}-{seed}.jsonl"
            with RecordWriter(path) as writer:
                await run_episode(
                    game, state, seats, episode_id=f"bench-{seed}", seed=seed, writer=writer
                )
            roles = {s.seat: s.role for s in game.rules.seats(state)}
            for line in path.read_text(encoding="utf-8").splitlines():
                tick = json.loads(line)
                if tick["type"] != "tick":
                    continue
                for seat, turn in tick["seats"].items():
                    role = figures[roles[seat]]
                    for call in turn.get("calls", []):
                        role.input_tokens += call.get("inputTokens") or 0
                        role.cached_tokens += call.get("cachedInputTokens") or 0
    previous: dict[str, str] = {}
    for seat, text in answers.sent:
        role = figures[answers.roles[seat]]
        role.calls += 1
        role.chars += len(text)
        if seat in previous:
            role.shares.append(common_start(text, previous[seat]) / len(text))
        previous[seat] = text
    for role_name, cached in answers.any_cached.items():
        figures[role_name].any_cached = cached
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--histories", default="0,4,16")
    parser.add_argument("--games", default=",".join(game_names()))
    args = parser.parse_args()
    histories = [int(h) for h in args.histories.split(",")]
    print(f"episodes per row: {args.episodes} (seeds 0..{args.episodes - 1}, default variant)")
    print(
        "| game | role | history | calls | chars / call | stable share | input / episode "
        "| cache read (billed) | cache read (any length) |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    with (
        tempfile.TemporaryDirectory() as tmp,
        ScriptedLLMServer(
            keep_requests=False, prefix_cache=PrefixCache(remembered=REMEMBERED)
        ) as server,
    ):
        for name in args.games.split(","):
            game = get_game(name)
            for history in histories:
                figures = asyncio.run(play(game, history, args.episodes, server, Path(tmp)))
                for role, f in sorted(figures.items()):
                    share = sum(f.shares) / len(f.shares) if f.shares else 0.0
                    billed = f.cached_tokens / f.input_tokens if f.input_tokens else 0.0
                    bare = f.any_cached / f.input_tokens if f.input_tokens else 0.0
                    print(
                        f"| {name} | {role} | {history} | {f.calls} | "
                        f"{f.chars / max(f.calls, 1):,.0f} | {share:.1%} | "
                        f"{f.input_tokens / args.episodes:,.0f} | {billed:.1%} | {bare:.1%} |"
                    )


if __name__ == "__main__":
    main()
