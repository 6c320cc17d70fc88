"""One episode played again from the history a token holds, or taken from the episodes
left waiting."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from harness.agents.call import AgentInput
from harness.episode import EpisodeOutcome, run_episode
from harness.protocol import GameEntry, RecordLine, RequestRefused
from harness.seat_spec import HUMAN_EPISODE_TIMEOUT
from harness.seats import Seat, baseline_seats
from harness.server.live_episodes import LiveEpisodes, history_key
from harness.server.step_token import InvalidStepToken, StepHistory
from harness.server.stepped.watched import WatchedGame
from harness.step_env import SteppedEpisode


class ReplayedEpisode:
    """One episode played from a history: the stepped episode, the state it stands at
    and the tick lines so far."""

    def __init__(self, game: GameEntry, history: StepHistory) -> None:
        self.game = game
        self.history = history
        self._watched = WatchedGame(game)
        self.ticks: list[RecordLine] = []
        person = history.player
        # a person's episode states the budget it ran under (decision L4)
        timeout = None if person is None else HUMAN_EPISODE_TIMEOUT
        config = game.rules.make_config(history.variant, {}, timeout)
        state = game.rules.new_state(config, history.seed)
        episode_id = f"{game.name}-{history.variant}-seed{history.seed}"

        async def start(seated: Mapping[str, Seat]) -> EpisodeOutcome:
            return await run_episode(
                self._watched,
                state,
                {**baseline_seats(game, state), **seated},
                episode_id=episode_id,
                seed=history.seed,
                variant=history.variant,
                on_tick=self.ticks.append,
            )

        people = {} if person is None else dict.fromkeys(history.plays, person)
        self.episode = SteppedEpisode(game, history.plays, start, people)

    @property
    def state(self) -> Any:
        outcome = self.outcome
        return outcome.state if outcome is not None else self._watched.watched.state

    @property
    def outcome(self) -> EpisodeOutcome | None:
        result: EpisodeOutcome | None = self.episode.result
        return result

    @property
    def waiting(self) -> dict[str, AgentInput]:
        return self.episode.observations

    def play_to_now(self) -> None:
        """Start the episode and answer it with every step of the history."""
        self.episode.settle()
        for step in self.history.steps:
            if self.episode.done or sorted(step) != sorted(self.waiting):
                raise InvalidStepToken(
                    "history",
                    "invalid state token: its replies do not fit the episode (was it issued "
                    "by another version of the game?); start a new episode",
                )
            self.episode.answer(step)

    def answer(self, step: Mapping[str, str | None]) -> None:
        """Answer the seats waiting; the history grows by the step."""
        self.episode.answer(step)
        self.history = self.history.model_copy(update={"steps": (*self.history.steps, dict(step))})

    def close(self) -> None:
        self.episode.close()


@contextmanager
def replayed_episode(
    game: GameEntry, history: StepHistory, live: LiveEpisodes[ReplayedEpisode] | None = None
) -> Iterator[ReplayedEpisode]:
    """The episode ``history`` leads to: taken from ``live`` when it is kept there, else
    played again. Afterwards it is kept in ``live`` under the history it then stands
    at (a request refused leaves it where it was), unless it is over or the request
    failed otherwise; an episode not kept is closed."""
    played = None if live is None else live.take(history_key(history.canonical()))
    if played is None:
        played = ReplayedEpisode(game, history)
        try:
            played.play_to_now()
        except InvalidStepToken as exc:
            played.close()
            raise RequestRefused("invalid_state_token", str(exc)) from None
        except BaseException:
            played.close()
            raise
    keep = False
    try:
        yield played
        keep = True
    except RequestRefused:
        keep = True
        raise
    finally:
        if keep and live is not None and not played.episode.done:
            live.keep(history_key(played.history.canonical()), played)
        else:
            played.close()
