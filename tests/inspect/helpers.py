"""What the Inspect tests share: short rules, the harness's own run of an episode, and
the parts of a record two runs of the same replies must agree on."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import harness
from harness.api import PlayResult
from harness.testing.llm_server import ScriptedLLMServer

#: Rules that keep an episode to a dozen ticks.
SHORT: dict[str, dict[str, Any]] = {
    "lighthouse": {"maxTicks": 12},
    "relayroam": {"chamberCap": 1, "decisionsPerChamber": 12},
    "hourloom": {"maxChambers": 1, "maxActions": 12},
}
#: Each task: its game and who plays each seat group (``model`` or a baseline).
TASKS: dict[str, tuple[str, dict[str, str]]] = {
    "lighthouse_keeper": ("lighthouse", {"keeper": "model", "runners": "wallhug"}),
    "lighthouse_team": ("lighthouse", {"keeper": "model", "runners": "model"}),
    "relayroam_player": ("relayroam", {"player": "model"}),
    "hourloom_player": ("hourloom", {"player": "model"}),
}
KEY_ENV = "INSPECT_TEST_LOCAL_KEY"


def harness_play(
    server: ScriptedLLMServer,
    game: str,
    seats: Mapping[str, str],
    seed: int,
    *,
    rules: Mapping[str, Any] | None = None,
    variant: str | None = None,
) -> PlayResult:
    """Episode ``seed`` played by the harness alone, its model seats calling ``server``
    through the harness's own OpenAI provider (``KEY_ENV`` must be set)."""
    env = harness.make(game, variant=variant, rules=dict(rules or {}))
    specs: dict[str, Any] = {
        key: {"provider": "local", "model": "scripted"} if player == "model" else player
        for key, player in seats.items()
    }
    providers = {"local": {"kind": "openai", "base_url": server.openai_url, "api_key_env": KEY_ENV}}
    return asyncio.run(env.aplay(seed, seats=specs, providers=providers))


def story(lines: Any) -> list[tuple[int, str, str, str, Any]]:
    """Each tick's turns as two runs of the same replies must tell them: the reply,
    where the decision came from and the decision (no clocks, no call records)."""
    out = []
    for line in lines:
        if line["type"] != "tick":
            continue
        for seat, turn in sorted(line["seats"].items()):
            out.append((line["tick"], seat, turn["raw"], turn["source"], turn["decision"]))
    return out


def record_lines(text: str) -> list[dict[str, Any]]:
    """A record's lines as JSON objects."""
    return [json.loads(line) for line in text.splitlines()]


def read_lines(path: Path) -> list[dict[str, Any]]:
    """A record file's lines as JSON objects."""
    return record_lines(path.read_text(encoding="utf-8"))
