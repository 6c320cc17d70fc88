"""The Python seat: an agent's turns, played in the one turn loop every text seat plays.

Each turn the agent gets an :class:`~harness.agents.call.AgentInput`, from where it
runs (its worker pool, or its in-process caller), and its answer is judged as a
model's reply is (:func:`harness.turn.play_turn`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from harness import defaults
from harness.agents.call import (
    Agent,
    AgentAnswer,
    AgentInput,
    agent_name,
    answer_of,
    shown_error,
)
from harness.agents.inprocess import InProcessAgent
from harness.agents.pool import WorkerPool
from harness.llm.prompts import PromptSet
from harness.protocol import GameEntry, ParseFailure
from harness.records import AGENT_SOURCES, AgentInfo
from harness.seats import SeatReply, SeatRequest
from harness.turn import Asked, Retry, play_turn

#: Where an agent runs: in worker processes of its own, or in the harness's process.
Isolation = Literal["process", "none"]


class PythonSeat:
    """A seat played by a Python agent (see the module's docstring).

    ``agent`` is the callable, called in this process (isolation ``none``), or a
    :class:`~harness.agents.pool.WorkerPool` that calls it in worker processes
    (``process``). Close the seat with :meth:`aclose` when the run is done.
    """

    isolation: Isolation
    """Where the agent runs: ``process`` or ``none``."""

    def __init__(
        self,
        agent: Agent | WorkerPool,
        *,
        game: GameEntry,
        prompts: PromptSet,
        name: str | None = None,
        timeout_seconds: float = defaults.AGENT_TIMEOUT_SECONDS,
    ) -> None:
        self._runner: InProcessAgent | WorkerPool
        if isinstance(agent, WorkerPool):
            self._runner, self.isolation = agent, "process"
            name = name or agent.target
        else:
            self._runner, self.isolation = InProcessAgent(agent, game.codec.decision_model), "none"
            name = name or agent_name(agent)
        self._game = game
        self._prompts = prompts
        self._timeout = timeout_seconds
        self._agent = AgentInfo(
            kind="python",
            name=name,
            details={
                "timeoutSeconds": f"{timeout_seconds:g}",
                **prompts.hashes(),
                **_layout(game.seat_io.prompt_layout),
            },
            prompt_texts=prompts.texts(),
        )

    @property
    def agent(self) -> AgentInfo:
        return self._agent

    @property
    def runner(self) -> InProcessAgent | WorkerPool:
        """What calls the agent: its worker pool, or its in-process caller."""
        return self._runner

    async def decide(self, request: SeatRequest) -> SeatReply:
        budget = request.deadline if request.deadline is not None else float("inf")
        first = first_input(self._game.name, self._prompts, request)

        async def ask(retry: Retry | None) -> Asked:
            given = retried_input(first, self._prompts, retry)
            return self._asked(await self._runner.call(given, self._timeout, budget))

        return await play_turn(request, ask, AGENT_SOURCES)

    async def aclose(self) -> None:
        """End what calls the agent: its worker processes, or its event loop."""
        await self._runner.aclose()

    def _asked(self, answer: AgentAnswer | None) -> Asked:
        """An agent's answer as the turn loop takes it; None: no answer in time."""
        if answer is None:
            return Asked(failure="timeout", error=f"no answer within {self._timeout:g} s")
        return answer_asked(answer)


def _layout(layout: int) -> dict[str, str]:
    """The agent detail saying which layout of the observation's text the agent reads
    (none for layout 1, as records before the detail existed)."""
    return {"promptLayout": str(layout)} if layout != 1 else {}


def first_input(game: str, prompts: PromptSet, request: SeatRequest) -> AgentInput:
    """What an agent is handed for ``request``'s turn in ``game``: the observation, and
    the text a model would read of it."""
    io, observation = request.io, request.observation
    return AgentInput(
        game=game,
        seat=request.seat.seat,
        role=request.seat.role,
        tick=request.tick,
        observation=observation,
        text=prompts.observation.fill(observation=io.render_observation(observation)),
        system=prompts.system.text,
        episode_id=request.episode_id,
    )


def retried_input(first: AgentInput, prompts: PromptSet, retry: Retry | None) -> AgentInput:
    """``first`` for the turn's first ask; for its retry, ``first`` with the reply that
    could not be used, the problem and the hint."""
    if retry is None:
        return first
    problem = retry.problem.message
    return replace(
        first,
        retry_of=retry.reply,
        problem=problem,
        hint=prompts.retry_hint.fill(problem=problem),
    )


def answer_asked(answer: AgentAnswer) -> Asked:
    """An agent's answer as the turn loop takes it: its reply text; an object that is no
    reply (shown as it was, failed without being parsed); or what the call raised."""
    if answer.text is not None:
        return Asked(text=answer.text)
    if answer.shown is not None:
        return Asked(text=answer.shown, unusable=ParseFailure("not_a_reply", answer.problem or ""))
    return Asked(failure="error", error=shown_error(answer.error or "the call failed"))


def reply_text(game: GameEntry, result: Any) -> str | ParseFailure:
    """An agent's answer as reply text: text as is, a decision as its JSON.

    A decision (a mapping, a pydantic model or the game's own decision object) is
    written as a JSON object with its null fields left out, then parsed like any
    reply, so it is held to exactly the rules a model's reply is.
    """
    answer = answer_of(result, game.codec.decision_model)
    if answer.text is not None:
        return answer.text
    return ParseFailure("not_a_reply", answer.problem or "")


__all__ = ["Isolation", "PythonSeat", "answer_asked", "first_input", "reply_text", "retried_input"]
