"""Lighthouse's seat I/O part: the text a seat reads, the schema and parser of its reply."""

from __future__ import annotations

from harness.games.lighthouse.game import KEEPER, Decision, Observation
from harness.games.lighthouse.observe import (
    PROMPT_LAYOUT,
    KeeperObservation,
    render_keeper,
    render_keeper_v1,
    render_runner,
    render_runner_v1,
)
from harness.games.lighthouse.replies import parse_keeper_reply, parse_runner_reply
from harness.games.lighthouse.state import Move
from harness.json_reply import ParseFailure
from harness.models import JsonObject
from harness.protocol import SeatIO


class LighthouseSeatIO(SeatIO[Observation, Decision]):
    """How Lighthouse's keeper and runners read and answer. Stateless; every parsed
    decision is legal (a blocked move is a bump), so nothing is refused."""

    prompt_layout = PROMPT_LAYOUT

    def render_observation(self, observation: Observation) -> str:
        if isinstance(observation, KeeperObservation):
            return render_keeper(observation)
        return render_runner(observation)

    def render_observation_as(self, observation: Observation, layout: int) -> str:
        if layout >= PROMPT_LAYOUT:
            return self.render_observation(observation)
        if isinstance(observation, KeeperObservation):
            return render_keeper_v1(observation)
        return render_runner_v1(observation)

    def reply_schema(self, role: str) -> JsonObject:
        # ``notes`` is optional, as the prompts say: a reply leaves it out to keep the
        # seat's notes (decision R4), and null would be a wrong type (R2), so it is a
        # property not required rather than a nullable one. OpenAI's strict mode wants
        # every property required: such a schema goes with ``strict: false``
        # (harness.llm.shapes.is_strict).
        properties: JsonObject
        if role == KEEPER:
            properties = {
                "transmit": {"type": "boolean"},
                "message": {"type": "string"},
                "notes": {"type": "string"},
            }
        else:
            properties = {
                "move": {"type": "string", "enum": [m.value for m in Move]},
                "notes": {"type": "string"},
            }
        return {
            "type": "object",
            "properties": properties,
            "required": [name for name in properties if name != "notes"],
            "additionalProperties": False,
        }

    def parse_reply(self, observation: Observation, text: str) -> Decision | ParseFailure:
        # The caps travel in the observation, so parsing needs no other state.
        if isinstance(observation, KeeperObservation):
            return parse_keeper_reply(
                text, message_cap=observation.message_cap, notes_cap=observation.notes_cap
            )
        return parse_runner_reply(text, notes_cap=observation.notes_cap)


__all__ = ["LighthouseSeatIO"]
