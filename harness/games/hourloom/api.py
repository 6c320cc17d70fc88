"""Hourloom's HTTP API part (decisions H6, H28, H31, H32): stateless, the state in every body.

``init`` answers with the run's first state and what the player sees (H28); every
``action`` sends that state back as it came, with one action, and gets the next. The
state is not signed (H32): nothing in it is hidden, and a forged state only cheats its
own score; a run is verified by replaying its seed and actions.

The route boundary (H31) is drawn here, as HTTP 400: ``invalid_state`` for a state
that fails the structural check (:func:`~.validate.state_from_json`, linear in its
size) and ``invalid_action`` for an action that is not an object whose ``type`` is one
of the four, or a MOVE without a string ``dir``. A string ``dir`` outside N, E, S, W
passes and is the rules' ``bad_direction`` (HTTP 200, ok false): the grammar's enum is
narrower than the reasons list, and the reason wins. The server
(:mod:`harness.server.app`) owns the HTTP side.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from harness.games.hourloom.response import init_json, result_json
from harness.games.hourloom.rng import MAX_SEED
from harness.games.hourloom.rules import ACTION_TYPES, new_game, step
from harness.games.hourloom.state import HourloomStateError
from harness.games.hourloom.validate import state_from_json
from harness.models import JsonObject
from harness.protocol import RequestRefused
from harness.protocol.page_kit import read_page
from harness.text import cut_short

PAGE_FILE = Path(__file__).with_name("page.html")
_TYPES = ", ".join(ACTION_TYPES)


class HourloomApi:
    """Hourloom's answers to ``init`` and ``action``; its playable page."""

    max_seed = MAX_SEED
    state_key = "state"

    def signing_key(self, kept: Callable[[], bytes] | None = None) -> bytes:
        return b""  # H32: the state is not signed, so there is no key to keep

    def init(self, seed: int, key: bytes) -> JsonObject:
        return init_json(new_game(seed))

    def action(self, state: object, action: object, key: bytes) -> JsonObject:
        try:
            current = state_from_json(state)
        except HourloomStateError as exc:
            raise RequestRefused(
                "invalid_state",
                f"{exc}; send the state the last response returned, unchanged",
            ) from None
        problem = action_problem(action)
        if problem is not None:
            raise RequestRefused("invalid_action", problem)
        result = step(current, action)
        out = result_json(result)
        if not result.ok and isinstance(state, dict):  # an object: it passed the check
            out["state"] = state  # H6: a refusal answers with the very state sent
        return out

    def page(self) -> str | None:
        return read_page(PAGE_FILE, solo=True)


def action_problem(action: object) -> str | None:
    """Why ``action`` is malformed at the route boundary (H31), or None.

    Extra keys are ignored (H27), and a string ``dir`` outside the four is the rules'
    to refuse (``bad_direction``).
    """
    if not isinstance(action, dict):
        kind = "an array" if isinstance(action, list) else "not an object"
        return f'the action is {kind}; send an object such as {{"type": "MOVE", "dir": "N"}}'
    if "type" not in action:
        return f'the action has no "type"; it must be exactly one of {_TYPES}'
    kind = action["type"]
    if not isinstance(kind, str) or kind not in ACTION_TYPES:
        return f'the action\'s "type" is {_show(kind)}; it must be exactly one of {_TYPES}'
    if kind == "MOVE" and not isinstance(action.get("dir"), str):
        got = _show(action["dir"]) if "dir" in action else "missing"
        return f'a MOVE needs "dir" as a string, N, E, S or W (N is toward row 0); got {got}'
    return None


def _show(value: object) -> str:
    """A JSON value in a message: short scalars as JSON, anything else by its kind."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return cut_short(json.dumps(value, ensure_ascii=True), 40)


__all__ = ["PAGE_FILE", "HourloomApi", "action_problem"]
