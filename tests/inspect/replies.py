"""One scripted model for both sides: Inspect's mock model and the harness's own providers.

:func:`reply_for` answers a conversation with a valid reply, garbage or a refusal,
chosen by a hash of every message's text, so the same conversation gets the same
answer whichever way it is asked: through Inspect (``mockllm/model`` with
:func:`mock_output`, or Inspect's OpenAI-compatible provider against a
:class:`~harness.testing.llm_server.ScriptedLLMServer` answering with
:func:`server_reply`) or through the harness's own OpenAI provider against that server.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage, StopReason
from inspect_ai.tool import ToolChoice, ToolInfo

from harness.testing.llm_server import Action, Reply

Kind = Literal["valid", "garbage", "refusal"]
#: What a refusing model says.
REFUSAL = "I'm sorry, but I can't help with that."
GARBAGE = "Let me think about the board first."


@dataclass(frozen=True)
class Answer:
    """A scripted answer and what kind it is."""

    text: str
    kind: Kind


def reply_for(messages: Sequence[tuple[str, str]], mix: bool = True) -> Answer:
    """The answer to ``messages`` ((role, text) pairs): valid for the seat the system
    prompt is for; with ``mix``, one in four garbage and one in six a refusal."""
    digest = hashlib.sha256(json.dumps(list(messages)).encode()).digest()
    h = int.from_bytes(digest[:8], "big")
    if mix and h % 4 == 0:
        return Answer(GARBAGE, "garbage")
    if mix and h % 6 == 1:
        return Answer(REFUSAL, "refusal")
    system = next((text for role, text in messages if role == "system"), "")
    return Answer(_valid(system, h), "valid")


def _valid(system: str, h: int) -> str:
    compass = "NESW"[h % 4]
    if '"transmit"' in system:  # the Lighthouse keeper
        order = f"Sprocket {compass}; Gizmo {'NESW'[h // 4 % 4]}; Ratchet {compass}"
        return json.dumps({"transmit": h % 3 != 0, "message": order, "notes": ""})
    if '"move"' in system and '"direction"' not in system:  # a Lighthouse runner
        return json.dumps({"move": compass, "notes": ""})
    if '"direction"' in system:  # Relayroam
        if h % 7 == 0:
            return json.dumps({"type": "wait"})
        return json.dumps({"type": "move", "direction": ("up", "right", "down", "left")[h % 4]})
    if '"dir"' in system:  # Hourloom
        return json.dumps({"type": "MOVE", "dir": compass})
    return "{}"  # no seat's: the harness's preflight check


def mock_output(
    messages: list[ChatMessage],
    tools: list[ToolInfo],
    tool_choice: ToolChoice,
    config: GenerateConfig,
    *,
    mix: bool = True,
) -> ModelOutput:
    """``mockllm/model``'s ``custom_outputs``: the scripted answer, a refusal as a
    content-filter stop. Usage is given (else Inspect would count tokens with tiktoken,
    which downloads its tables)."""
    answer = reply_for([(m.role, m.text) for m in messages], mix)
    stop: StopReason = "content_filter" if answer.kind == "refusal" else "stop"
    output = ModelOutput.from_content("mockllm/model", answer.text, stop_reason=stop)
    output.usage = ModelUsage(input_tokens=100, output_tokens=10, total_tokens=110)
    return output


def server_reply(mix: bool = True) -> Any:
    """A :class:`ScriptedLLMServer` handler answering as :func:`reply_for` does."""

    def handle(path: str, body: dict[str, Any]) -> Action:
        messages = [(m["role"], _text(m["content"])) for m in body["messages"]]
        return Reply(reply_for(messages, mix).text)

    return handle


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))
