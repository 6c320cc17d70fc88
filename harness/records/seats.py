"""Who plays each seat of an episode, as its header records it, and the label a seat's
agent is shown by."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from harness.records.base import RecordModel

AgentKind = Literal["baseline", "llm", "scripted", "python", "human"]
"""Who plays a seat; ``human``: a person, by the name they chose (decision L4)."""


class AgentInfo(RecordModel):
    """Who plays a seat: a baseline by name, an LLM with its provider and model, a
    Python agent by import path, or a person by the name they chose (``human``)."""

    kind: AgentKind
    name: str = Field(
        description="e.g. 'lantern', 'wallhug', 'openai:gpt-4o-mini', 'my_agents:keeper' "
        "or, for a person, the name they chose"
    )
    details: dict[str, str] = Field(
        default_factory=dict, description="Agent settings worth keeping, e.g. prompt sha256."
    )
    prompt_texts: dict[str, str] = Field(
        default_factory=dict,
        exclude=True,
        description="The text of each prompt file the agent reads, by its sha256. Not written "
        "with the agent: the header keeps each text once, in ``prompts``.",
    )


#: What a seat's label adds to a person's name, so that a human entrant never reads as
#: a bot or a model in a report (decision L4).
HUMAN_MARK = " (human)"


def agent_label(kind: str, name: str) -> str:
    """A seat's agent as reports and tables show it: its name, and for a person
    ``Ada (human)``."""
    return f"{name}{HUMAN_MARK}" if kind == "human" else name


class SeatInfo(RecordModel):
    """One seat of the episode."""

    seat: str = Field(description="The seat's id, e.g. 'keeper' or 'runner1'.")
    role: str = Field(description="The seat's role, which picks its prompts and baseline.")
    name: str | None = Field(None, description="The seat's in-game name (a runner's alias).")
    agent: AgentInfo
