"""Two hand-written agents for the harness: a Lighthouse keeper and a Relayroam player.

Each is a plain function of an ``AgentInput`` (``harness.AgentInput``): it reads the
structured observation and returns a decision (a dict) or the reply text, just as a
model would write it. Nothing here imports the harness; put your own agent in a
module like this one and name it by import path:

    lighthouse play --seed 7 --keeper python:my_agents:keeper      # from this folder
    lighthouse run my-agents.toml                                   # a tournament
    lighthouse run my-agents-relayroam.toml

or from Python: ``harness.play("lighthouse", seed=7, keeper=keeper)``.
"""

from __future__ import annotations

from collections import deque
from typing import Any

#: Lighthouse: a runner's moves on the keeper's grid (y grows downwards).
STEPS = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}
#: Relayroam: the directions of a move action.
DIRECTIONS = {"up": (0, -1), "right": (1, 0), "down": (0, 1), "left": (-1, 0)}


def distances(passable: set[tuple[int, int]], goals: list[tuple[int, int]]) -> dict[Any, int]:
    """Breadth-first distance from every passable cell to the nearest goal."""
    dist = dict.fromkeys(goals, 0)
    queue = deque(goals)
    while queue:
        x, y = queue.popleft()
        for dx, dy in STEPS.values():
            there = (x + dx, y + dy)
            if there in passable and there not in dist:
                dist[there] = dist[(x, y)] + 1
                queue.append(there)
    return dist


def keeper(inp: Any) -> dict[str, Any]:
    """Lighthouse keeper: radio each runner the first step of its shortest dry way to
    the nearest key still on the board, or to the exit once every key is in."""
    obs = inp.observation
    passable = {
        (x, y)
        for y, row in enumerate(obs.grid)
        for x, glyph in enumerate(row)
        if glyph not in "#~"  # walls and flooded tiles
    }
    goals = list(obs.uncollected_keys) or [obs.exit]
    dist = distances(passable | set(goals), goals)
    orders = []
    for runner in obs.runners:
        if runner.status != "active" or runner.pos not in dist:
            continue
        x, y = runner.pos
        step = min(STEPS, key=lambda s: dist.get((x + STEPS[s][0], y + STEPS[s][1]), 10**6))
        orders.append(f"{runner.alias} {step}")
    message = "; ".join(orders)[: obs.message_cap]
    return {"transmit": bool(message), "message": message}


async def player(inp: Any) -> str:
    """Relayroam player (async, to show that works too): repair the nearest relay,
    skipping helpers, then head for the exit; after a clear, go on while charge lasts."""
    obs = inp.observation
    legal = list(obs.legal_actions)
    if obs.phase == "chamber-clear":
        choice = {"type": "next"} if obs.cleared_chamber_count < 3 else {"type": "bank"}
        return _json(choice if choice in legal else legal[0])
    passable = {
        (x, y) for y, row in enumerate(obs.grid) for x, glyph in enumerate(row) if glyph != "#"
    }
    goals = [(r.x, r.y) for r in obs.relays if not r.used] or [(obs.exit.x, obs.exit.y)]
    dist = distances(passable, goals)
    best, best_distance = {"type": "wait"}, dist.get(obs.player, 10**6)
    for action in legal:
        if action.get("type") != "move":
            continue
        dx, dy = DIRECTIONS[action["direction"]]
        there = (obs.player[0] + dx, obs.player[1] + dy)
        if dist.get(there, 10**6) < best_distance:
            best, best_distance = action, dist[there]
    return _json(best if best in legal else legal[0])


def _json(action: dict[str, str]) -> str:
    """An action as the JSON text a model would reply with."""
    fields = ", ".join(f'"{key}": "{value}"' for key, value in action.items())
    return "{" + fields + "}"
