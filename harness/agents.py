"""Your own agent in a seat: a Python callable, sync or async, named by import path.

The callable gets an :class:`AgentInput` (the seat's observation, structured and as
the text a model would read) and returns the reply text, or a decision (a dict, a
pydantic model, or the game's own decision object). It is judged like a model's
reply, in the one turn loop every seat that answers in text plays
(:func:`harness.turn.play_turn`): a reply that does not parse gets one retry with a
hint, then the role's baseline answers (``fallback_parse``); a call that raises
(``SystemExit`` and ``KeyboardInterrupt`` too) falls back as ``fallback_error``, one
that outlasts its timeout as ``fallback_timeout``. Its decisions are tagged
``python`` (``python_retry`` after the hint), and its seat's agent is of kind
``python`` in the record.

Where it runs is the seat's isolation (docs/agents.md states every bound):
``process``, the default for an agent named by import path, calls it in worker
processes of its own (:mod:`harness.agent_process`), killed when a call outlasts its
timeout; ``none``, for a callable given directly (which cannot be sent to another
process as the same object), calls it in this process (:mod:`harness.agent_inprocess`),
never on the event loop.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Literal

from harness import defaults
from harness.agent_call import (
    ERROR_RUNES,
    Agent,
    AgentAnswer,
    AgentInput,
    agent_name,
    answer_of,
    load_agent,
    shown_error,
)
from harness.agent_inprocess import InProcessAgent
from harness.agent_process import WorkerPool
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
    :class:`~harness.agent_process.WorkerPool` that calls it in worker processes
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
            details={"timeoutSeconds": f"{timeout_seconds:g}", **prompts.hashes()},
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
        game, io, observation = self._game, request.io, request.observation
        first = AgentInput(
            game=game.name,
            seat=request.seat.seat,
            role=request.seat.role,
            tick=request.tick,
            observation=observation,
            text=self._prompts.observation.fill(observation=io.render_observation(observation)),
            system=self._prompts.system.text,
            episode_id=request.episode_id,
        )

        async def ask(retry: Retry | None) -> Asked:
            given = first
            if retry is not None:
                problem = retry.problem.message
                given = replace(
                    first,
                    retry_of=retry.reply,
                    problem=problem,
                    hint=self._prompts.retry_hint.fill(problem=problem),
                )
            return self._asked(await self._runner.call(given, self._timeout, budget))

        return await play_turn(request, ask, AGENT_SOURCES)

    async def aclose(self) -> None:
        """End what calls the agent: its worker processes, or its event loop."""
        await self._runner.aclose()

    def _asked(self, answer: AgentAnswer | None) -> Asked:
        """An agent's answer as the turn loop takes it; None: no answer in time."""
        if answer is None:
            return Asked(failure="timeout", error=f"no answer within {self._timeout:g} s")
        if answer.text is not None:
            return Asked(text=answer.text)
        if answer.shown is not None:
            return Asked(
                text=answer.shown, unusable=ParseFailure("not_a_reply", answer.problem or "")
            )
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


__all__ = [
    "ERROR_RUNES",
    "Agent",
    "AgentInput",
    "Isolation",
    "PythonSeat",
    "agent_name",
    "load_agent",
    "reply_text",
]
