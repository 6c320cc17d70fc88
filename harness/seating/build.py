"""The one seat builder: a game's seat groups and their specs in, ready seats out.

``lighthouse play``, ``replay --until-tick``, tournaments and the Python API all
build their seats here, through the seating lifecycle
(:class:`~harness.seating.lifecycle.Seating`), from the same specs
(:mod:`harness.seat_spec`); a spec may also be a callable, which becomes a Python
agent's seat as is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TypeVar

from harness.agents.call import Agent, load_agent
from harness.agents.pool import WorkerPool
from harness.agents.seat import PythonSeat
from harness.errors import ConfigError
from harness.llm.deadlines import default_allowance
from harness.llm.options import PromptFiles, ProviderOptions
from harness.llm.prompts import PromptSet, default_prompt_files
from harness.llm.seat import SeatFactory
from harness.llm.types import Provider
from harness.protocol import GameEntry
from harness.seat_spec import (
    BaselineSeatConfig,
    HumanSeatConfig,
    LLMSeatConfig,
    PythonSeatConfig,
)
from harness.seats import BaselineSeat, Seat

#: A seat's spec as the builder takes it: a spec model, or a callable to play the seat.
SeatLike = BaselineSeatConfig | LLMSeatConfig | PythonSeatConfig | HumanSeatConfig | Agent
_Spec = TypeVar("_Spec")


def seats_of_groups(
    game: GameEntry, groups: Mapping[str, _Spec | list[_Spec] | tuple[_Spec, ...]]
) -> dict[str, tuple[str, _Spec]]:
    """Every seat id of the seat groups in ``groups``, with its role and its spec.

    ``groups`` maps a seat group's key (Lighthouse: ``keeper``, ``runners``) to one
    spec for all its seats, or a list with one per seat. Groups not given are left
    out; a key that is not a group of ``game`` is a :class:`ConfigError`.
    """
    known = {group.key: group for group in game.seat_groups}
    unknown = sorted(set(groups) - set(known))
    if unknown:
        raise ConfigError(
            f"{unknown[0]}: {game.name} has no such seat; its seats are {list(known)}"
        )
    out: dict[str, tuple[str, _Spec]] = {}
    for key, group in known.items():
        if key not in groups:
            continue
        given = groups[key]
        specs: list[_Spec] = (
            list(given) if isinstance(given, list | tuple) else [given] * len(group.seats)
        )
        if len(specs) != len(group.seats):
            raise ConfigError(
                f"{key}: give one spec for all, or exactly {len(group.seats)}; got {len(specs)}"
            )
        for seat, spec in zip(group.seats, specs, strict=True):
            out[seat] = (group.role, spec)
    return out


def check_baseline(game: GameEntry, role: str, baseline: str, where: str = "") -> None:
    """Refuse ``baseline`` unless it is one of ``game``'s baselines for ``role``: a
    ConfigError at ``where.baseline`` (at ``baseline`` when ``where`` is empty) that
    names the role's baselines."""
    names = game.baseline_names(role)
    if baseline not in names:
        at = f"{where}.baseline" if where else "baseline"
        raise ConfigError(
            f"{at}: {baseline!r} is not a {role} baseline; choose one of {list(names)}"
        )


def prompt_files(game: GameEntry, role: str, spec: SeatLike) -> PromptFiles | None:
    """The prompt files a seat reads (models and Python agents), or None (baselines,
    people)."""
    if isinstance(spec, BaselineSeatConfig | HumanSeatConfig):
        return None
    given = spec.prompts if isinstance(spec, LLMSeatConfig | PythonSeatConfig) else None
    return given or default_prompt_files(game.name, role)


def llm_providers(
    specs: Iterable[SeatLike], providers: Mapping[str, ProviderOptions]
) -> list[ProviderOptions]:
    """The provider of every model seat in ``specs`` (whose keys a run checks first)."""
    return [spec.resolve(providers).provider for spec in specs if isinstance(spec, LLMSeatConfig)]


def build_seat(
    game: GameEntry,
    role: str,
    spec: SeatLike,
    *,
    factory: SeatFactory,
    providers: Mapping[str, ProviderOptions],
    search: tuple[Path, ...] = (),
    model_seats: int = 1,
    clients: Mapping[str, Provider] | None = None,
) -> Seat:
    """The seat ``spec`` describes, for ``role`` in ``game``.

    A model seat without an allowance gets the default for ``model_seats`` model seats
    in its episode (:func:`harness.llm.deadlines.default_allowance`).

    Model seats share ``factory``'s clients and limiters, except that a seat whose
    provider ``clients`` names calls that client (its options still set the seat's
    limits); a Python agent named by import path is imported now, with ``search``
    added to the import path, and runs where its spec says (by default in worker
    processes of its own, started at its first call); a callable runs in this
    process. A seat may hold processes: close the seats when the run is done
    (:func:`harness.seats.close_seats`).
    """
    if isinstance(spec, BaselineSeatConfig):
        check_baseline(game, role, spec.baseline)
        return BaselineSeat(spec.baseline)
    if isinstance(spec, LLMSeatConfig):
        options = spec.resolve(providers)
        if options.allowance_seconds is None:  # the default that fits the episode's seats
            allowance = default_allowance(options.call_timeout_seconds, model_seats)
            options = options.model_copy(update={"allowance_seconds": allowance})
        client = (clients or {}).get(spec.provider)
        return factory.seat(game, role, options, provider=client)
    if isinstance(spec, PythonSeatConfig):
        # imported here too, so that a missing agent stops the run before it plays
        agent = load_agent(spec.python, search)
        return PythonSeat(
            agent if spec.runs_in() == "none" else WorkerPool(spec.python, search, game=game.name),
            game=game,
            prompts=PromptSet.load(spec.prompts or default_prompt_files(game.name, role)),
            name=spec.python,
            timeout_seconds=spec.timeout_seconds,
        )
    if isinstance(spec, HumanSeatConfig):
        raise ConfigError(
            f"{role}: {spec.human!r} is a person: a human seat is played on the page of "
            "lighthouse serve, never by a run (lighthouse add joins its record to a "
            "results folder)"
        )
    if callable(spec):  # a callable object cannot cross to another process as itself
        return PythonSeat(
            spec, game=game, prompts=PromptSet.load(default_prompt_files(game.name, role))
        )
    raise ConfigError(f"a {role} seat cannot be played by a {type(spec).__name__}")


def build_seats(
    game: GameEntry,
    specs: Mapping[str, tuple[str, SeatLike]],
    *,
    factory: SeatFactory,
    providers: Mapping[str, ProviderOptions],
    search: tuple[Path, ...] = (),
    clients: Mapping[str, Provider] | None = None,
) -> dict[str, Seat]:
    """A seat for every seat id of ``specs`` (seat id -> (role, spec), as from
    :func:`seats_of_groups`); seats with equal specs are built once and shared.
    ``clients`` as for :func:`build_seat`."""
    model_seats = sum(1 for _, spec in specs.values() if isinstance(spec, LLMSeatConfig))
    built: dict[tuple[str, int], Seat] = {}
    seats: dict[str, Seat] = {}
    for seat_id, (role, spec) in specs.items():
        # A group's one spec serves all its seats: one seat object (they keep no state).
        key = (role, id(spec))
        if key not in built:
            built[key] = build_seat(
                game,
                role,
                spec,
                factory=factory,
                providers=providers,
                search=search,
                model_seats=model_seats,
                clients=clients,
            )
        seats[seat_id] = built[key]
    return seats


__all__ = [
    "SeatLike",
    "build_seat",
    "build_seats",
    "check_baseline",
    "llm_providers",
    "prompt_files",
    "seats_of_groups",
]
