"""A game's answers to ``init``, ``action`` and ``record``, played step by step."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from pydantic import JsonValue

from harness import __version__
from harness.agents.call import reply_text
from harness.json_reply import json_type
from harness.llm.prompts import PromptSet, default_prompt_files
from harness.models import JsonObject
from harness.protocol import GameEntry, RequestRefused
from harness.protocol.fields import value_json
from harness.server.live_episodes import DEFAULT_LIVE_EPISODES, LiveEpisodes
from harness.server.step_token import (
    MAX_REPLY_CHARS,
    MAX_STEPS,
    MAX_TOKEN_CHARS,
    InvalidStepToken,
    StepHistory,
    decode_token,
    encode_token,
    step_key,
)
from harness.server.stepped.parameters import init_person, shown
from harness.server.stepped.replayed import ReplayedEpisode, replayed_episode

#: The body key of the token, as Relayroam's.
STATE_KEY = "stateToken"
#: The query parameters ``init`` takes.
INIT_PARAMETERS = ("seed", "variant", "seats", "player", "tickSeconds")


@cache
def _prompts(game: str, role: str) -> PromptSet:
    return PromptSet.load(default_prompt_files(game, role))


def observation_json(value: object) -> JsonValue:
    """A typed observation as JSON, as every game's rules values are written
    (:func:`~harness.protocol.fields.value_json`: camelCase keys, an enum as its value,
    a tuple as an array)."""
    return value_json(value)


class SteppedApi:
    """A game's answers to ``init``, ``action`` and ``record`` played step by step (see
    the module's docstring); mounted by :func:`harness.server.app.create_app`."""

    state_key = STATE_KEY

    def __init__(
        self,
        game: GameEntry,
        page: Callable[[], str | None] | None = None,
        live_episodes: int = DEFAULT_LIVE_EPISODES,
    ) -> None:
        self.game = game
        self._page = page
        #: The episodes left waiting, so that a request need not play them again.
        self.live: LiveEpisodes[ReplayedEpisode] = LiveEpisodes(live_episodes)
        self.seat_roles = {seat: group.role for group in game.seat_groups for seat in group.seats}
        #: The seats ``init`` gives the client when it names none: the first group's.
        self.default_seats = game.seat_groups[0].seats

    def signing_key(self, kept: Callable[[], bytes] | None = None) -> bytes:
        """The key tokens are signed with when the server is given none
        (:func:`~harness.server.step_token.step_key`)."""
        return step_key(fallback=kept)

    def page(self) -> str | None:
        """The game's page to play it in a browser, if it has one."""
        return None if self._page is None else self._page()

    # --- the routes ---

    def init(
        self,
        seed: int,
        variant: str | None,
        seats: str | None,
        key: bytes,
        player: str | None = None,
        tick_seconds: str | None = None,
    ) -> JsonObject:
        """The first response of episode ``seed`` under ``variant`` (default: the game's
        first) with the client playing ``seats`` (comma-separated seat ids); with
        ``player``, a person by that name plays them (decision L4), under a per-tick
        timer of ``tick_seconds`` when given."""
        game = self.game
        person = init_person(player, tick_seconds)
        chosen = game.variants[0] if variant is None else variant
        if chosen not in game.variants:
            raise RequestRefused(
                "invalid_variant",
                f"variant is {shown(chosen)}; {game.name} has {', '.join(game.variants)}",
            )
        plays = self._plays(seats)
        history = StepHistory(
            version=__version__,
            game=game.name,
            seed=seed,
            variant=chosen,
            plays=plays,
            steps=(),
            player=person,
        )
        with replayed_episode(game, history, self.live) as played:
            return self._response(played, key)

    def action(self, token: object, action: object, key: bytes) -> JsonObject:
        """The response to ``action`` (seat id -> reply text or decision fields, for
        every seat waiting) on the episode ``token`` holds."""
        history = self._history(token, key)
        if not isinstance(action, dict):
            raise RequestRefused(
                "invalid_action",
                f"action is a JSON {json_type(action)}; it must be an object of seat id -> reply "
                'for every seat waiting, e.g. {"keeper": "{\\"transmit\\": false}"}',
            )
        replies: dict[str, str | None] = {
            seat: self._reply_text(seat, value, history) for seat, value in action.items()
        }
        with replayed_episode(self.game, history, self.live) as played:
            if played.episode.done:
                raise RequestRefused(
                    "episode_over",
                    "the episode is over: nothing waits for a reply; POST the token to "
                    "record for its record, or GET init for a new episode",
                )
            waiting = list(played.waiting)
            early = [seat for seat in replies if seat not in waiting]
            if early:
                raise RequestRefused(
                    "seat_not_waiting",
                    f"{', '.join(early)} {'is' if len(early) == 1 else 'are'} not waiting "
                    f"for a reply this step; reply for exactly {', '.join(waiting)}",
                )
            missing = [seat for seat in waiting if seat not in replies]
            if missing:
                raise RequestRefused(
                    "missing_seat",
                    f"no reply for {', '.join(missing)}; every seat waiting ("
                    f"{', '.join(waiting)}) needs one",
                )
            if len(history.steps) >= MAX_STEPS:
                raise RequestRefused(
                    "episode_too_large", f"an episode has {MAX_STEPS} steps at most"
                )
            step = {seat: replies[seat] for seat in waiting}
            before = len(played.ticks)
            played.answer(step)
            grown = history.model_copy(update={"steps": (*history.steps, step)})
            return self._response(played, key, grown, since=before)

    def record(self, token: object, key: bytes) -> JsonObject:
        """The record of the finished episode ``token`` holds (its lines, as a record
        file holds them)."""
        history = self._history(token, key)
        with replayed_episode(self.game, history, self.live) as played:
            outcome = played.outcome
            if outcome is None:
                raise RequestRefused(
                    "episode_not_over",
                    f"the episode is at tick {self.game.rules.tick(played.state)} and not over; "
                    "its record is ready once a response says over: true",
                )
            return {"record": list(outcome.docs)}

    # --- the parts ---

    def _history(self, token: object, key: bytes) -> StepHistory:
        try:
            history = decode_token(token, key)
        except InvalidStepToken as exc:
            raise RequestRefused("invalid_state_token", str(exc)) from None
        game = self.game
        if history.game != game.name:
            raise RequestRefused(
                "invalid_state_token",
                f"invalid state token: it is a token of {shown(history.game)}, not {game.name}",
            )
        # signed by this server, so only another version makes these fail; checked, as
        # the episode is started from them
        if history.variant not in game.variants or any(
            seat not in self.seat_roles for seat in history.plays
        ):
            raise RequestRefused(
                "invalid_state_token",
                "invalid state token: its variant or seats are not this game's; start a new "
                "episode",
            )
        return history

    def _plays(self, seats: str | None) -> tuple[str, ...]:
        if seats is None:
            return tuple(self.default_seats)
        named = seats.split(",") if seats else []
        known = list(self.seat_roles)
        unknown = [seat for seat in named if seat not in self.seat_roles]
        if not named or unknown:
            what = f"{shown(unknown[0])} is no seat" if unknown else "it names no seat"
            raise RequestRefused(
                "invalid_seats",
                f"seats: {what}; give the seats you play, comma-separated, from "
                f"{', '.join(known)} (e.g. seats=keeper or seats=runner1,runner3)",
            )
        if len(set(named)) != len(named):
            raise RequestRefused("invalid_seats", "seats: a seat is named twice")
        return tuple(seat for seat in known if seat in named)

    def _reply_text(self, seat: object, value: object, history: StepHistory) -> str | None:
        """The reply ``value`` for ``seat`` as the text the step env is given; None (JSON
        null) for a person whose per-tick timer ran out."""
        if seat not in self.seat_roles:
            raise RequestRefused(
                "unknown_seat",
                f"action: {shown(seat)} is no seat of {self.game.name}; its seats are "
                f"{', '.join(self.seat_roles)}",
            )
        if seat not in history.plays:
            raise RequestRefused(
                "seat_not_played",
                f"action: you do not play {seat} (the baseline does); you play "
                f"{', '.join(history.plays)}",
            )
        if value is None and history.player is not None and history.player.tick_seconds:
            return None  # the person's timer ran out: the baseline answers (L4)
        if isinstance(value, str):
            text: str | None = value
        elif isinstance(value, dict):
            text = reply_text(value, self.game.codec.decision_model)
        else:
            text = None
        if text is None:
            raise RequestRefused(
                "invalid_reply",
                f"action.{seat} is a JSON {json_type(value)}; a reply is the reply text (a string) "
                "or its decision fields (an object)",
            )
        if len(text) > MAX_REPLY_CHARS:
            raise RequestRefused(
                "reply_too_long",
                f"action.{seat} is {len(text)} characters long; the API takes replies of up "
                f"to {MAX_REPLY_CHARS} (a usable reply is far shorter)",
            )
        return text

    def _response(
        self,
        played: ReplayedEpisode,
        key: bytes,
        history: StepHistory | None = None,
        since: int | None = None,
    ) -> JsonObject:
        """The response at the point ``played`` stands, its token that of ``history``
        (default: the one played); ``ticks`` holds the tick lines from ``since`` on
        (default: none)."""
        history = played.history if history is None else history
        token = encode_token(history, key)
        if len(token) > MAX_TOKEN_CHARS:
            raise RequestRefused(
                "episode_too_large",
                f"this episode's replies no longer fit in a token of {MAX_TOKEN_CHARS} "
                "characters; send shorter replies (notes, above all)",
            )
        game, rules = self.game, self.game.rules
        state = played.state
        over = played.episode.done
        results = rules.results(state if over else rules.end_by_deadline(state))
        seats = [spec.seat for spec in rules.seats(state)]
        scores: JsonObject = dict(zip(seats, results.scores, strict=True))
        waiting = played.waiting
        # A person sees only what their seats see (decision L4) until the episode is
        # over: no other seat's observation, no tick lines (they hold the whole
        # state), no score (a runner does not see it); a program sees everything.
        hidden = history.player is not None and not over
        observations: JsonObject = {}
        for seat in () if over else rules.active_seats(state):
            if hidden and seat not in history.plays:
                continue
            observations[seat] = self._observation(seat, rules.observe(state, seat), history)
        for seat, given in waiting.items():
            observations[seat] = {
                **self._observation(seat, given.observation, history),
                "prompt": given.text,
                "system": given.system,
                "retryOf": given.retry_of,
                "problem": given.problem,
                "hint": given.hint,
            }
        dumped: list[JsonValue] = [
            line.model_dump(mode="json", by_alias=True) for line in played.ticks
        ]
        return {
            STATE_KEY: token,
            "game": game.name,
            "seed": history.seed,
            "variant": history.variant,
            "plays": list(history.plays),
            "tick": rules.tick(state),
            "over": over,
            "reason": results.reason if over else None,
            "score": None if hidden else results.scores[0],
            "scores": None if hidden else scores,
            "waiting": list(waiting),
            "observations": observations,
            "legalReplies": {
                seat: game.seat_io.reply_schema(self.seat_roles[seat]) for seat in waiting
            },
            "ticks": [] if since is None or hidden else dumped[since:],
            "lastTick": dumped[-1] if dumped and not hidden else None,
            "results": results.model_dump(mode="json", by_alias=True) if over else None,
        }

    def _observation(self, seat: str, observation: Any, history: StepHistory) -> JsonObject:
        role = self.seat_roles[seat]
        text = self.game.seat_io.render_observation(observation)
        return {
            "role": role,
            "played": seat in history.plays,
            "prompt": _prompts(self.game.name, role).observation.fill(observation=text),
            "observation": observation_json(observation),
        }


def stepped_apis(games: Sequence[GameEntry]) -> dict[str, SteppedApi]:
    """The stepped API of each game in ``games``, by name, with the game's page."""
    return {game.name: SteppedApi(game, page=game.page) for game in games}
