"""Relayroam's seat I/O part: the text a player reads, the schema and parser of its reply."""

from __future__ import annotations

import json

from harness.games.relayroam.actions import ACTION_SHAPE
from harness.games.relayroam.observe import (
    PROMPT_LAYOUT,
    Observation,
    render_prompt,
    render_text,
)
from harness.games.relayroam.rules import step
from harness.games.relayroam.state import State
from harness.json_reply import ParseFailure
from harness.models import JsonObject
from harness.protocol.seat_io import JsonActionSeatIO, refusal


def state_from_observation(obs: Observation) -> State:
    """A rules state equal to the observed one in everything the rules check on a step.

    The seed and RNG cursor are not observed and play no part in a refusal.
    """
    return State(
        seed=0,
        rng_cursor=0,
        chamber=obs.chamber,
        reflected=obs.reflected,
        vent_offsets=tuple(v.offset for v in obs.vents),
        phase=obs.phase,
        end_reason=obs.end_reason,
        charge=obs.charge,
        turn=obs.turn,
        chamber_shock_count=obs.chamber_shock_count,
        score=obs.score,
        total_rescued=obs.total_rescued,
        cleared_chamber_count=obs.cleared_chamber_count,
        player=obs.player,
        used_relays=frozenset(o.id for o in obs.relays if o.used),
        used_helpers=frozenset(o.id for o in obs.helpers if o.used),
        used_batteries=frozenset(o.id for o in obs.batteries if o.used),
    )


class RelayroamSeatIO(JsonActionSeatIO[Observation]):
    """How Relayroam's player reads and answers. Stateless."""

    prompt_layout = PROMPT_LAYOUT
    action_shape = ACTION_SHAPE

    def render_observation(self, observation: Observation) -> str:
        return render_prompt(observation)

    def render_observation_as(self, observation: Observation, layout: int) -> str:
        return render_prompt(observation) if layout >= PROMPT_LAYOUT else render_text(observation)

    def reply_schema(self, role: str) -> JsonObject:
        return {
            "type": "object",
            "properties": {
                "type": {"type": "string", "enum": ["move", "wait", "next", "bank"]},
                "direction": {"type": "string", "enum": ["up", "right", "down", "left"]},
            },
            "required": ["type"],
            "additionalProperties": False,
        }

    def refuse(self, observation: Observation, decision: JsonObject) -> ParseFailure | None:
        result = step(state_from_observation(observation), decision)
        if result.ok:
            return None
        legal = json.dumps(list(result.legal_actions))
        return refusal(str(result.reason), f"{result.message} Legal actions now: {legal}")


__all__ = ["RelayroamSeatIO", "state_from_observation"]
