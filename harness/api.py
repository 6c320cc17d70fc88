"""The Python API: play an episode from a script or a notebook in a few lines.

    import harness

    env = harness.make("lighthouse")
    result = env.play(seed=7, keeper=my_keeper)   # the runners: the game's baseline
    print(result.summary)

or at once: ``harness.play("lighthouse", seed=7, seats={"keeper": my_keeper})``. A
seat is given per seat group (Lighthouse: ``keeper``, ``runners``; Relayroam:
``player``) as a callable (your own agent, see :class:`harness.agents.AgentInput`),
a spec string as on the command line (``"lantern"``, ``"openai:gpt-4o-mini"``,
``"python:my_agents:keeper"``), a spec table as in a config
(``{"provider": "openai", "model": "gpt-4o-mini"}``) or a spec model; groups not
given are played by their role's baseline. ``lighthouse play`` runs through here too.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Callable, Coroutine, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from harness.closing import closing_lines
from harness.episode import EpisodeOutcome, TickCallback, run_episode
from harness.errors import ConfigError
from harness.llm.cache import CallCache
from harness.llm.options import ProviderOptions
from harness.llm.types import Provider
from harness.protocol import GameEntry
from harness.records import RecordWriter
from harness.registry import get_game
from harness.seat_spec import SEAT_TAGS, SeatConfig, cli_providers, parse_seat_arg
from harness.seating import Seating, SeatLike, check_seat_keys, fitted_config, seats_of_groups
from harness.seats import Seat, baseline_seats
from harness.step_env import Stepping
from harness.validation import check_seed, checked_variant, format_validation_error, validated

T = TypeVar("T")
#: A seat as the API takes it: a spec model, a callable, a spec string or a spec table.
SeatArg = SeatLike | str | Mapping[str, Any]
#: A seat group as the API takes it: one seat for all its seats, or a list of one per seat.
GroupArg = SeatArg | Sequence[SeatArg]
_SEAT_CONFIG: TypeAdapter[SeatConfig] = TypeAdapter(SeatConfig)


@dataclass(frozen=True)
class PlayResult:
    """One episode played: its results and its whole record.

    ``results`` is the game's results model (``scores``, ``reason`` and the game's
    own figures); ``lines`` are the record's lines as JSON objects, exactly as a
    record file holds them (header, one per tick, end); ``summary`` is the results
    as ``lighthouse play`` prints them.
    """

    game: str
    seed: int
    variant: str
    results: BaseModel
    lines: tuple[dict[str, Any], ...]
    summary: str
    notes: tuple[str, ...] = ()
    """What to know about how the episode went: seats whose every turn fell back, a
    deadline ending (as ``lighthouse play`` prints them after the results)."""

    @property
    def scores(self) -> list[float]:
        """One score per seat, in the order of the header's seats."""
        return list(getattr(self.results, "scores", []))

    @property
    def ticks(self) -> list[dict[str, Any]]:
        """The record's tick lines: each seat's reply, decision and source, and the state."""
        return [line for line in self.lines if line.get("type") == "tick"]

    def _repr_html_(self) -> str:
        """In a notebook: the episode's viewer page (:mod:`harness.notebook`)."""
        from harness.notebook import episode_html

        return episode_html(self.game, self.lines)


class Env(Stepping):
    """One game with its rules settled, ready to play episodes (see :func:`make`): whole,
    with :meth:`play`, or step by step, with :meth:`reset` and :meth:`step`."""

    def __init__(
        self,
        game: GameEntry,
        *,
        variant: str | None = None,
        rules: Mapping[str, Any] | None = None,
        episode_timeout_seconds: float | None = None,
        seed: int | None = None,
    ) -> None:
        self.game = game
        self.seed = seed
        """The seed :meth:`reset` starts with when given none."""
        self.variant = checked_variant(game, variant or None)  # "": the game's first
        self._rules = dict(rules or {})
        self._timeout_given = episode_timeout_seconds is not None
        self.config = game.rules.make_config(self.variant, self._rules, episode_timeout_seconds)

    @property
    def name(self) -> str:
        """The game's name."""
        return self.game.name

    def seat_groups(self) -> dict[str, str]:
        """The seat groups a seat is given for (``keeper``, ``runners``, ...), with their roles."""
        return {group.key: group.role for group in self.game.seat_groups}

    def new_state(self, seed: int) -> Any:
        """The starting state of episode ``seed``."""
        return self.game.rules.new_state(self.config, check_seed(seed, "seed"))

    def play(
        self,
        seed: int,
        *,
        seats: Mapping[str, GroupArg] | None = None,
        record: Path | str | None = None,
        providers: Mapping[str, ProviderOptions | Mapping[str, Any]] | None = None,
        **groups: GroupArg,
    ) -> PlayResult:
        """Play episode ``seed`` to its end and return its results and record lines.

        Seats are given in ``seats`` or as keywords (``keeper=my_fn``); ``record``
        also writes the record to a file; ``providers`` names the providers a model
        seat's ``provider`` refers to (``openai`` and ``anthropic`` are known, with
        their default settings). Works in a notebook too, whose event loop is
        running: the episode then plays on a loop of its own. In async code, await
        :meth:`aplay`.
        """
        given = {**(seats or {}), **groups}
        return run_sync(self.aplay(seed, seats=given, record=record, providers=providers))

    async def aplay(
        self,
        seed: int,
        *,
        seats: Mapping[str, GroupArg] | None = None,
        record: Path | str | None = None,
        providers: Mapping[str, ProviderOptions | Mapping[str, Any]] | None = None,
        episode_id: str | None = None,
        on_tick: TickCallback | None = None,
        on_warning: Callable[[str], None] | None = None,
        on_info: Callable[[str], None] | None = None,
        search: tuple[Path, ...] = (),
        cache: Path | str | None = None,
        clients: Mapping[str, Provider] | None = None,
        preflight: bool = True,
        seated: Mapping[str, Seat] | None = None,
        **groups: GroupArg,
    ) -> PlayResult:
        """:meth:`play`, awaited; ``on_tick`` gets each tick line, ``on_warning`` each
        preflight warning (default: :func:`warnings.warn`), and Python agents named by
        import path are looked for in ``search`` too. ``on_info`` gets the structured
        output shape each model seat settled on; ``cache`` names a call cache file
        (SQLite) whose answers are replayed instead of asked again.

        ``clients`` maps a provider name to a provider already made (a model seat
        naming it calls that client; its entry in ``providers`` still sets the seat's
        limits), e.g. the model an Inspect task resolved; ``preflight=False`` skips the
        small call to each model before the episode (then a structured output shape is
        found on the episode's first call). ``seated`` gives seats already made, by seat
        id (the seats :meth:`step` answers for)."""
        known = {**cli_providers(), **_providers(providers or {})}
        specs: dict[str, tuple[str, SeatLike]] = seats_of_groups(
            self.game, self._specs({**(seats or {}), **groups})
        )
        state = self._state_for(seed, [spec for _, spec in specs.values()])
        check_seat_keys((spec for _, spec in specs.values()), known)
        warn = on_warning or _warn
        episode = episode_id or f"{self.game.name}-{self.variant}-seed{seed}"
        async with Seating(
            self.game,
            providers=known,
            cache=CallCache(Path(cache)) if cache is not None else None,
            notify=warn,
            search=search,
            clients=clients,
        ) as seating:
            built = seating.seat(specs)
            for warning in await seating.preflight() if preflight else ():
                warn(warning)
            for line in seating.structured_output():
                (on_info or warn)(line)
            with seating.episode(episode):
                outcome = await self._play_built(
                    state,
                    {**built, **(seated or {})},
                    episode,
                    seed,
                    record=record,
                    on_tick=on_tick,
                )
        return PlayResult(
            game=self.game.name,
            seed=seed,
            variant=self.variant,
            results=outcome.results,
            lines=tuple(line.model_dump(mode="json", by_alias=True) for line in outcome.lines),
            summary=self.game.view.render_results(outcome.results),
            notes=tuple(closing_lines(outcome.lines, groups=self.game.seat_groups)),
        )

    async def _play_built(
        self,
        state: Any,
        built: Mapping[str, Seat],
        episode: str,
        seed: int,
        *,
        record: Path | str | None,
        on_tick: TickCallback | None,
    ) -> EpisodeOutcome:
        """The episode played with ``built`` (the rest of its seats baselines), recorded."""
        writer = RecordWriter(Path(record)) if record is not None else None
        try:
            return await run_episode(
                self.game,
                state,
                {**baseline_seats(self.game, state), **built},
                episode_id=episode,
                seed=seed,
                variant=self.variant,
                writer=writer,
                on_tick=on_tick,
            )
        finally:
            if writer is not None:
                writer.close()

    def _state_for(self, seed: int, specs: Sequence[SeatLike]) -> Any:
        """The starting state, its episode timeout fitted to the model seats unless given."""
        config = self.config
        if not self._timeout_given:
            config = fitted_config(self.game, self.variant, self._rules, specs, base=config)
        return self.game.rules.new_state(config, check_seed(seed, "seed"))

    def _specs(self, given: Mapping[str, GroupArg]) -> dict[str, SeatLike | list[SeatLike]]:
        """Each group's spec (or list of specs, one per seat) as the builder takes it."""
        roles = self.seat_groups()
        specs: dict[str, SeatLike | list[SeatLike]] = {}
        for key, value in given.items():
            if key not in roles:
                raise ConfigError(
                    f"{key}: {self.game.name} has no such seat; its seats are {list(roles)}"
                )
            if isinstance(value, Sequence) and not isinstance(value, str):  # one per seat
                specs[key] = [
                    self._spec(one, roles[key], f"{key}.{i}") for i, one in enumerate(value)
                ]
            else:
                specs[key] = self._spec(value, roles[key], key)
        return specs

    def _spec(self, value: SeatArg, role: str, where: str) -> SeatLike:
        if isinstance(value, str):
            return parse_seat_arg(
                value, role=role, baselines=self.game.baseline_names(role), where=where
            )
        if isinstance(value, Mapping):
            try:
                return _SEAT_CONFIG.validate_python(dict(value))
            except ValidationError as exc:
                raise ConfigError(format_validation_error(exc, where, hidden=SEAT_TAGS)) from None
        return value


def make(
    game: str,
    *,
    variant: str | None = None,
    rules: Mapping[str, Any] | None = None,
    episode_timeout_seconds: float | None = None,
    seed: int | None = None,
) -> Env:
    """The game named ``game`` (``lighthouse``, ``relayroam``, ``hourloom``), ready to play.

    ``variant`` picks a rules variant (default: the game's first), ``rules``
    overrides rules parameters (``{"maxTicks": 20}``); ``seed`` is the episode
    :meth:`Env.reset` starts when given none (docs/env.md).
    """
    return Env(
        get_game(game),
        variant=variant,
        rules=rules,
        episode_timeout_seconds=episode_timeout_seconds,
        seed=seed,
    )


def play(
    game: str,
    seed: int,
    *,
    seats: Mapping[str, GroupArg] | None = None,
    variant: str | None = None,
    rules: Mapping[str, Any] | None = None,
    record: Path | str | None = None,
    providers: Mapping[str, ProviderOptions | Mapping[str, Any]] | None = None,
    **groups: GroupArg,
) -> PlayResult:
    """Play one episode of ``game``: ``make(game, ...).play(seed, ...)`` in one call."""
    env = make(game, variant=variant, rules=rules)
    return env.play(seed, seats=seats, record=record, providers=providers, **groups)


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to its end from sync code, even where an event loop is running.

    In a notebook (whose loop runs in this thread) it runs on a loop of its own in a
    worker thread, and this call waits for it.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with ThreadPoolExecutor(1, thread_name_prefix="harness-play") as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _providers(
    given: Mapping[str, ProviderOptions | Mapping[str, Any]],
) -> dict[str, ProviderOptions]:
    return {
        name: validated(ProviderOptions, options, f"providers.{name}")
        for name, options in given.items()
    }


def _warn(message: str) -> None:
    warnings.warn(message, RuntimeWarning, stacklevel=2)


__all__ = ["Env", "GroupArg", "PlayResult", "SeatArg", "make", "play", "run_sync"]
