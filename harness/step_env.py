"""A game played step by step: ``reset()``, then ``step(replies)`` until ``done``.

The seats you play are answered by your calls to :meth:`Stepping.step`; every other
seat by whoever you name for it (a baseline, a model, your own agent), as in
:meth:`harness.api.Env.play`. Underneath, the episode is the runner's own: the very
:meth:`~harness.api.Env.aplay` coroutine, on an event loop of its own, paused
whenever every seat you play is waiting for your reply. A seat you play is a Python
agent turned inside out: it is handed the same :class:`~harness.agents.AgentInput` an
agent's callable gets (:attr:`Stepping.observations`), and what you give it is judged
in the one turn loop (:func:`harness.turn.play_turn`): text as is, a decision as its
JSON; a reply that cannot be used is sent back once (the seat asks again, with the
hint set), and a second falls back to the role's baseline, tagged as a Python agent's
turns are (``python``, ``python_retry``, ``fallback_parse``...). So an episode stepped
with some replies is the episode :func:`harness.play` plays with agents returning
them, and writes the same record.

While the env waits for you, the episode's clock stands still: the play budget
(decision D1) counts the harness's time and the other seats', never the time between
your calls.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import weakref
from collections.abc import Awaitable, Callable, Collection, Coroutine, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from harness.agents.call import AgentInput, answer_of
from harness.agents.seat import answer_asked, first_input, retried_input
from harness.errors import ConfigError, HarnessError, RulesError
from harness.llm.prompts import PromptSet, default_prompt_files
from harness.protocol import GameEntry
from harness.records import AGENT_SOURCES, HUMAN_SOURCES, AgentInfo, RecordWriter
from harness.seat_spec import HumanSeatConfig
from harness.seats import Seat, SeatReply, SeatRequest
from harness.turn import Asked, Retry, play_turn

if TYPE_CHECKING:
    from harness.api import Env, GroupArg, PlayResult
    from harness.llm.options import ProviderOptions

T = TypeVar("T")

#: The agent name a seat played through :meth:`Stepping.step` has in the record.
STEP_AGENT = "step"
#: A person's turn without a reply: why it fell back (``fallback_timeout``).
TIMED_OUT = "no reply before the per-tick timer ran out"


class _PausingLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock stands still between the env's calls.

    ``time()`` is the monotonic clock less every stretch the loop spent stopped,
    waiting for the next :meth:`Stepping.step`; asyncio's timeouts, the episode's play
    budget among them, run on it.
    """

    def __init__(self) -> None:
        super().__init__()
        self._stopped_for = 0.0
        self._stopped_at: float | None = None

    def time(self) -> float:
        return super().time() - self._stopped_for

    def stop_clock(self) -> None:
        """The env waits for its caller: from now the clock stands still."""
        self._stopped_at = super().time()

    def start_clock(self) -> None:
        """The caller answered: the clock runs on from where it stood."""
        if self._stopped_at is not None:
            self._stopped_for += super().time() - self._stopped_at
            self._stopped_at = None


class _StepSeat:
    """A seat whose replies come from :meth:`Stepping.step` (see the module's docstring)."""

    def __init__(
        self,
        episode: SteppedEpisode,
        game: GameEntry,
        role: str,
        person: HumanSeatConfig | None = None,
    ) -> None:
        self._episode = episode
        self._game = game
        self._prompts = PromptSet.load(default_prompt_files(game.name, role))
        self._person = person
        # a person's turns are theirs (decision L4): their agent, their tags
        self._sources = AGENT_SOURCES if person is None else HUMAN_SOURCES
        self._agent = (
            AgentInfo(
                kind="python",
                name=STEP_AGENT,
                details=self._prompts.hashes(),
                prompt_texts=self._prompts.texts(),
            )
            if person is None
            else person.agent()
        )

    @property
    def agent(self) -> AgentInfo:
        return self._agent

    def decide(self, request: SeatRequest) -> Coroutine[Any, Any, SeatReply]:
        # Not async: the seat counts as asked the moment the runner asks it, before any
        # seat's turn runs, so the env knows every seat of the tick it waits on.
        self._episode.opened(request.seat.seat)
        return self._turn(request)

    async def _turn(self, request: SeatRequest) -> SeatReply:
        seat = request.seat.seat
        try:
            prompts = self._prompts
            first = first_input(self._game.name, prompts, request)

            async def ask(retry: Retry | None) -> Asked:
                given = retried_input(first, prompts, retry)
                reply = await self._episode.reply_to(seat, given)
                if reply is None and self._person is not None:
                    # no reply from a person: their per-tick timer ran out
                    return Asked(failure="timeout", error=TIMED_OUT)
                # a reply given to step() is taken as an agent's answer is
                return answer_asked(answer_of(reply, self._game.codec.decision_model))

            return await play_turn(request, ask, self._sources)
        finally:
            self._episode.closed(seat)


#: How a stepped episode starts: handed the seats the caller steps, by seat id, the
#: coroutine that plays the whole episode with them (``Env.aplay``, say).
EpisodeStart = Callable[[Mapping[str, Seat]], Coroutine[Any, Any, Any]]


class SteppedEpisode:
    """One episode being stepped: the runner's coroutine on a loop of its own, and the
    seats waiting for a reply.

    ``stepped`` names the seats the caller answers; ``start`` is handed them and
    plays the episode. :attr:`result` is what that coroutine returned, once it ends.
    ``people`` names the stepped seats a person plays (decision L4): their turns are
    tagged as a person's (``human``, ``human_retry``), and ``None`` as their reply says
    their per-tick timer ran out (``fallback_timeout``).
    """

    def __init__(
        self,
        game: GameEntry,
        stepped: Collection[str],
        start: EpisodeStart,
        people: Mapping[str, HumanSeatConfig] | None = None,
    ) -> None:
        self.game = game
        self.loop = _PausingLoop()
        self._changed = asyncio.Event()
        self._open: set[str] = set()
        self._waiting: dict[str, tuple[AgentInput, asyncio.Future[Any]]] = {}
        self.order = [seat for group in game.seat_groups for seat in group.seats]
        people = people or {}
        seats = {
            seat: _StepSeat(self, game, group.role, people.get(seat))
            for group in game.seat_groups
            for seat in group.seats
            if seat in stepped
        }
        self._result: Any = None
        self._failed: BaseException | None = None
        self.task: asyncio.Task[Any] = self.loop.create_task(start(seats))
        self.task.add_done_callback(lambda _: self._changed.set())
        # an episode left without close() is closed when it is dropped, so that its
        # tasks end on their loop rather than be torn down by the garbage collector
        weakref.finalize(self, _close_loop, self.loop, self.task)

    # --- what the seats tell the episode (on its loop) ---

    def opened(self, seat: str) -> None:
        self._open.add(seat)

    def closed(self, seat: str) -> None:
        self._open.discard(seat)
        self._changed.set()

    async def reply_to(self, seat: str, given: AgentInput) -> Any:
        """Wait for the caller's reply to ``given``, as given."""
        future: asyncio.Future[Any] = self.loop.create_future()
        self._waiting[seat] = (given, future)
        self._changed.set()
        try:
            return await future
        finally:
            self._waiting.pop(seat, None)

    # --- what the env asks (from the caller's side) ---

    @property
    def observations(self) -> dict[str, AgentInput]:
        """What each seat waiting for a reply is given, in the game's seat order."""
        waiting = self._waiting
        return {seat: waiting[seat][0] for seat in self.order if seat in waiting}

    @property
    def done(self) -> bool:
        return self.task.done()

    @property
    def result(self) -> Any:
        """What the episode's coroutine returned; None until it ends."""
        return self._result

    def settle(self) -> None:
        """Run the episode until every seat it asks of the caller waits, or it ends."""
        self._drive(self._settled())

    def answer(self, replies: Mapping[str, Any]) -> None:
        """Hand each waiting seat its reply, then run on to the next wait."""

        async def answered() -> None:
            for seat, reply in replies.items():
                # no longer waiting from now, though its turn wakes only on the next pass
                _, future = self._waiting.pop(seat)
                future.set_result(reply)
            await self._settled()

        self._drive(answered())

    def close(self) -> None:
        """Stop the episode where it stands, and close its loop."""
        if self.loop.is_closed():
            return
        if not self.task.done():
            self.task.cancel()
            self._drive(asyncio.wait([self.task]))
        self._drive(self.loop.shutdown_asyncgens())
        self.loop.close()

    async def _settled(self) -> None:
        while not self.task.done():
            waiting = self._waiting
            if waiting and all(seat in waiting for seat in self._open):
                return
            self._changed.clear()
            await self._changed.wait()

    def _drive(self, work: Awaitable[T]) -> T:
        """Run the loop until ``work`` is done; in a notebook, whose loop runs in this
        thread, in a worker thread. An error the episode ended with is raised here."""
        loop = self.loop
        loop.start_clock()
        try:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                out = loop.run_until_complete(work)
            else:
                with concurrent.futures.ThreadPoolExecutor(1, "harness-step") as pool:
                    out = pool.submit(loop.run_until_complete, work).result()
        finally:
            loop.stop_clock()
        task = self.task
        if task.done() and self._result is None and self._failed is None:
            if task.cancelled():
                self._failed = HarnessError("the episode was closed before its end")
            elif (error := task.exception()) is not None:
                self._failed = error
                raise error
            else:
                self._result = task.result()
        return out


def _close_loop(loop: asyncio.AbstractEventLoop, task: asyncio.Task[Any]) -> None:
    """Cancel ``task`` and close ``loop``, where the loop can be run here."""
    if loop.is_closed() or loop.is_running():
        return
    with contextlib.suppress(Exception):
        if not task.done():
            task.cancel()
            loop.run_until_complete(asyncio.wait([task]))
        loop.close()


class Stepping:
    """The step-by-step half of :class:`harness.api.Env` (see the module's docstring).

    ``env.reset()`` starts an episode and returns :attr:`observations`: for each seat
    you play that waits for a reply, the :class:`~harness.agents.AgentInput` a Python
    agent would be given. ``env.step(replies)`` answers them (a mapping of seat id to
    reply text or decision; a lone reply when one seat waits) and returns the next
    :attr:`observations`. :attr:`done` says the episode is over; :attr:`result` is then
    its :class:`~harness.api.PlayResult` and :meth:`record` its record.
    """

    seed: int | None
    _episode: SteppedEpisode | None = None

    def reset(
        self,
        seed: int | None = None,
        *,
        seats: Mapping[str, GroupArg] | None = None,
        providers: Mapping[str, ProviderOptions | Mapping[str, Any]] | None = None,
        record: Path | str | None = None,
        **groups: GroupArg,
    ) -> dict[str, AgentInput]:
        """Start episode ``seed`` (default: the seed given to :func:`harness.make`).

        Seat groups given in ``seats`` or as keywords (``runners="wallhug"``) are played
        by those specs, as in :meth:`~harness.api.Env.play`; you play every other seat.
        ``record`` writes the record to that file as the episode goes. An episode still
        under way is closed first. Returns the first :attr:`observations`.
        """
        chosen = self.seed if seed is None else seed
        if chosen is None:
            raise ConfigError("seed: give one to reset(seed=N) or to make(game, seed=N)")
        env = cast("Env", self)
        given = {**(seats or {}), **groups}
        keys = [group.key for group in env.game.seat_groups]
        if all(key in given for key in keys):
            raise ConfigError(
                f"every seat of {env.game.name} is given a player: leave out at least one "
                f"of {keys} to step it"
            )
        self.close()
        stepped = [
            seat for group in env.game.seat_groups if group.key not in given for seat in group.seats
        ]

        def start(seated: Mapping[str, Seat]) -> Coroutine[Any, Any, PlayResult]:
            return env.aplay(chosen, seats=given, providers=providers, record=record, seated=seated)

        self._episode = episode = SteppedEpisode(env.game, stepped, start)
        episode.settle()
        return episode.observations

    def step(self, replies: Mapping[str, Any] | str) -> dict[str, AgentInput]:
        """Answer every seat waiting for a reply; the next :attr:`observations`.

        ``replies`` maps each waiting seat to its reply: text, or a decision (a dict, a
        pydantic model or the game's decision object), judged as a model's reply is. A
        reply that cannot be used is sent back once: the seat waits again, its
        observation now holding ``retry_of``, ``problem`` and ``hint``; a second falls
        back to the role's baseline. Text alone answers the one seat waiting.
        """
        episode = self._stepping()
        waiting = list(episode.observations)
        if episode.done:
            raise RulesError("the episode is over: reset() starts another")
        if isinstance(replies, str):
            if len(waiting) != 1:
                raise ConfigError(
                    f"replies: {len(waiting)} seats wait ({', '.join(waiting)}); "
                    "give a mapping of seat id to reply"
                )
            replies = {waiting[0]: replies}
        unknown = [seat for seat in replies if seat not in waiting]
        missing = [seat for seat in waiting if seat not in replies]
        if unknown or missing:
            problems = [f"{', '.join(map(str, unknown))} not waiting"] if unknown else []
            problems += [f"no reply for {', '.join(missing)}"] if missing else []
            raise ConfigError(
                f"replies: {'; '.join(problems)}; the seats waiting are {', '.join(waiting)}"
            )
        episode.answer(replies)
        return episode.observations

    @property
    def observations(self) -> dict[str, AgentInput]:
        """Each seat you play that waits for a reply, and what it is given (empty when
        the episode is over)."""
        return self._stepping().observations

    @property
    def done(self) -> bool:
        """Whether the episode is over (then :attr:`result` holds how it went)."""
        return self._stepping().done

    @property
    def result(self) -> PlayResult | None:
        """The episode's results and record, once it is over (as :meth:`Env.play` returns)."""
        result: PlayResult | None = self._stepping().result
        return result

    def record(self, path: Path | str | None = None) -> tuple[dict[str, Any], ...]:
        """The episode's record lines (header, one per tick, end), once it is over; with
        ``path``, also written there as a record file (``lighthouse replay`` reads it)."""
        result = self.result
        if result is None:
            raise RulesError("the episode is not over yet: record() is ready once env.done")
        if path is not None:
            with RecordWriter(Path(path)) as writer:
                for line in result.lines:
                    writer.write_doc(line)
        return result.lines

    def close(self) -> None:
        """Stop the episode under way, if any (``reset`` does so before starting one)."""
        if self._episode is not None:
            self._episode.close()

    def _stepping(self) -> SteppedEpisode:
        if self._episode is None:
            raise RulesError("no episode yet: reset() starts one")
        return self._episode


__all__ = ["STEP_AGENT", "EpisodeStart", "SteppedEpisode", "Stepping"]
