"""Parsing a model's reply text into a Relayroam action (decision RR19).

A model replies with one action in the rules' action grammar, as strict JSON,
optionally inside one ```` ``` ```` or ```` ```json ```` fence. Text that is not one
JSON object is a :class:`ParseFailure` (an expected outcome, not an exception). A
well-formed object is returned as it stands, even one the rules will refuse: judging
an action (unknown type, extra field, wall, wrong phase) is the rules' job, and their
refusal carries the reason and the legal actions back to the model (RR12).
"""

from __future__ import annotations

from harness.json_reply import FailureKind, ParseFailure
from harness.models import JsonObject
from harness.protocol.seat_io import parse_json_action

#: What a reply looks like, quoted in every failure message.
ACTION_SHAPE = (
    '{"type":"move","direction":"up"} (or "right", "down", "left"), {"type":"wait"}, '
    '{"type":"next"} or {"type":"bank"}'
)


def parse_action(text: str) -> JsonObject | ParseFailure:
    """The JSON object ``text`` holds, or a :class:`ParseFailure` saying why there is none."""
    return parse_json_action(text, ACTION_SHAPE)


__all__ = ["ACTION_SHAPE", "FailureKind", "ParseFailure", "parse_action"]
