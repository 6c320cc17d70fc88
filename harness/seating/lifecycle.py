"""The seating lifecycle: one run's seats from their specs to their close.

Every caller that seats models or agents goes through :class:`Seating`: the Python
API (and so ``lighthouse play`` and the Inspect solver), tournaments, and
``replay --until-tick``. In order, it

1. checks the key of every provider the specs use, all problems named at once
   (:func:`check_seat_keys`; a tournament also calls it before it takes its folder);
2. holds the call cache the seats share, if any;
3. builds the seats with one :class:`~harness.llm.seat.SeatFactory` (one client and
   one limiter per model, seats with equal specs built once);
4. makes the preflight call of each model, when the caller asks for it;
5. scopes each episode's calls (:meth:`Seating.episode`), so the cache keys them apart;
6. closes, however the block ends, every seat (a Python agent's worker processes),
   then every provider client, then the cache.

A worker process of a tournament plays scripted seats only, which hold nothing to
close: it builds them with :func:`scripted_seats`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import Self

from harness.errors import ConfigError
from harness.llm.cache import CallCache, call_scope
from harness.llm.keys import check_keys
from harness.llm.options import ProviderOptions
from harness.llm.seat import Notify, SeatFactory
from harness.llm.types import Provider
from harness.protocol import GameEntry
from harness.seat_spec import BaselineSeatConfig
from harness.seating.build import SeatLike, build_seats, llm_providers
from harness.seats import Seat, close_seats

#: Seats by seat id, each with its role and spec (as :func:`seats_of_groups` gives them).
SeatSpecs = Mapping[str, tuple[str, SeatLike]]


def check_seat_keys(
    specs: Iterable[SeatLike],
    providers: Mapping[str, ProviderOptions],
    environ: Mapping[str, str] | None = None,
) -> None:
    """Read and check the key of every provider a model seat of ``specs`` uses, before
    anything is written or sent: one error names every problem."""
    check_keys(llm_providers(specs, providers), environ)


@dataclass(eq=False)
class Seating:
    """The seats of one run, from specs to closed (see the module's docstring).

    ``providers`` are the provider options model seats name; ``environ`` is where keys
    are read (default: the process's environment); ``cache`` is the call cache every
    model seat asks first, closed with the seating; ``notify`` receives each seat's
    first failure; Python agents named by import path are looked for in ``search``
    too; ``clients`` maps a provider name to a provider already made (a model seat
    naming it calls that client). Use it as ``async with Seating(...) as seating:``.
    """

    game: GameEntry
    _: KW_ONLY
    providers: Mapping[str, ProviderOptions]
    environ: Mapping[str, str] | None = None
    cache: CallCache | None = None
    notify: Notify | None = None
    search: tuple[Path, ...] = ()
    clients: Mapping[str, Provider] | None = None
    _factory: SeatFactory = field(init=False, repr=False)
    _seated: list[Seat] = field(init=False, repr=False, default_factory=list)

    def __post_init__(self) -> None:
        self._factory = SeatFactory(self.environ, cache=self.cache, notify=self.notify)

    def check_keys(self, specs: Iterable[SeatLike]) -> None:
        """:func:`check_seat_keys` for ``specs``, with this seating's providers."""
        check_seat_keys(specs, self.providers, self.environ)

    def seat(self, specs: SeatSpecs) -> dict[str, Seat]:
        """A seat for every seat id of ``specs``, their keys checked first; each is
        closed with the seating."""
        self.check_keys(spec for _, spec in specs.values())
        seats = build_seats(
            self.game,
            specs,
            factory=self._factory,
            providers=self.providers,
            search=self.search,
            clients=self.clients,
        )
        self._seated.extend(seats.values())
        return seats

    async def preflight(self) -> list[str]:
        """The preflight call of every model seated so far; its warnings (see
        :meth:`SeatFactory.preflight`: a refused or unauthorised model raises)."""
        return await self._factory.preflight()

    def structured_output(self) -> list[str]:
        """One line per model with structured output: the shape it settled on."""
        return self._factory.structured_output()

    @staticmethod
    @contextmanager
    def episode(episode_id: str) -> Iterator[None]:
        """Within this block the seats' calls belong to ``episode_id`` (the cache's
        scope, and where a seat's first failure says it happened)."""
        with call_scope(episode_id):
            yield

    async def aclose(self) -> None:
        """Close every seat, then every provider client, then the cache."""
        try:
            await close_seats(self._seated)
        finally:
            self._seated.clear()
            try:
                await self._factory.aclose()
            finally:
                if self.cache is not None:
                    self.cache.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def scripted_seats(game: GameEntry, specs: SeatSpecs) -> dict[str, Seat]:
    """The seats of ``specs``, every one a scripted baseline (a worker process's):
    nothing to check, cache, preflight or close."""
    for seat, (_, spec) in specs.items():
        if not isinstance(spec, BaselineSeatConfig):
            raise ConfigError(f"{seat}: a scripted seat is a baseline, not {type(spec).__name__}")
    # a baseline's seat never asks the factory: there is no client to close
    return build_seats(game, specs, factory=SeatFactory(), providers={})


__all__ = ["SeatSpecs", "Seating", "check_seat_keys", "scripted_seats"]
