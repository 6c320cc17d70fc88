"""A registry entry: one game's parts, its metadata and its bots, bundled."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Generic, cast

from harness.errors import ConfigError
from harness.protocol.api import HttpApi
from harness.protocol.codec import RecordCodec
from harness.protocol.report import Report
from harness.protocol.rules import ChamberStates, ConfigT, DecisionT, ObsT, Rules, StateT
from harness.protocol.seat_io import Baseline, SeatIO
from harness.protocol.view import View


@dataclass(frozen=True)
class SeatGroup:
    """Seats a tournament config names together, e.g. Lighthouse's ``runners``.

    ``key`` is the config key (and ``play``'s option), ``role`` the seats' role, and
    ``seats`` their ids; an entrant gives one spec for all of them or one per seat.
    """

    key: str
    role: str
    seats: tuple[str, ...]


# eq=False: an entry is one game, compared (and hashed) by identity.
@dataclass(frozen=True, eq=False)
class GameEntry(Generic[ConfigT, StateT, ObsT, DecisionT]):
    """Everything the harness knows of one hosted game (see :mod:`harness.registry`).

    Typed over the game's config, state, observation and decision, so that its parts
    are checked to fit one another where the entry is made; the shared machinery holds
    any game's entry as a plain ``GameEntry`` (:meth:`erase`). Each consumer takes the
    part it uses: the runner the rules, the seat I/O and the codec; a seat the seat I/O
    and its role's baselines; the viewer the view; reports the report part and the seat
    groups.

    An optional capability is an optional part, None when the game has none: its HTTP
    API (:attr:`api`) and its chambers (:attr:`chambers`).
    """

    #: The game's name in records and configs, e.g. ``"lighthouse"``.
    name: str
    #: The seats as configs name them; the first group leads the leaderboard.
    seat_groups: tuple[SeatGroup, ...]
    #: role -> baseline name -> scripted player; the first of a role is its default
    #: (``play`` without a spec) and its fallback unless :attr:`fallbacks` names one.
    baselines: Mapping[str, Mapping[str, Baseline[ObsT]]]
    rules: Rules[ConfigT, StateT, ObsT, DecisionT]
    seat_io: SeatIO[ObsT, DecisionT]
    codec: RecordCodec[StateT, DecisionT]
    view: View[StateT]
    report: Report
    #: The best score an episode can have, for plots; None when it depends on the seed.
    max_score: float | None = None
    #: The baseline whose team reports measure entrants against (it plays every seat
    #: group whose role has it, each other group its default baseline), or None.
    ceiling: str | None = None
    #: role -> the scripted player a seat falls back to when a reply cannot be used,
    #: for a role whose fallback is not simply its first baseline (e.g. one that must
    #: never end the episode where that baseline would); see :meth:`fallback`.
    fallbacks: Mapping[str, Baseline[ObsT]] = field(default_factory=dict)
    #: Optional: the game's HTTP API, mounted by ``lighthouse serve``.
    api: HttpApi | None = None
    #: Optional: a page to play the game in a browser over the step-by-step API that
    #: ``lighthouse serve`` gives a game without an :attr:`api` (its HTML, read when
    #: asked for).
    page: Callable[[], str] | None = None
    #: Optional: the start of any chamber a seed fixes, for ``lighthouse board --chamber``.
    chambers: ChamberStates[ConfigT, StateT] | None = None

    def __post_init__(self) -> None:
        for group in self.seat_groups:
            if not self.baselines.get(group.role):
                raise ConfigError(f"{self.name}: role {group.role!r} has no baseline")
        if self.ceiling is not None and not any(self.ceiling in b for b in self.baselines.values()):
            raise ConfigError(f"{self.name}: the ceiling {self.ceiling!r} is no baseline")
        for role in self.fallbacks:
            if role not in self.baselines:
                raise ConfigError(f"{self.name}: a fallback for {role!r}, which is no role")

    @property
    def variants(self) -> tuple[str, ...]:
        """The rules variants a tournament may choose from (its config's); the first is
        the default."""
        return self.rules.config_type.VARIANTS

    def erase(self) -> GameEntry:
        """This entry as the shared machinery holds any game's.

        The machinery hands a game's parts only values the same game made (a state
        its rules started, an observation its rules gave, a decision its seat I/O
        parsed or its codec read), so it need know none of their types.
        """
        return cast(GameEntry, self)

    def role_baselines(self, role: str) -> Mapping[str, Baseline[ObsT]]:
        """The scripted players of ``role``, by name; the first is the default."""
        found = self.baselines.get(role)
        if not found:
            raise ConfigError(
                f"{self.name} has no role {role!r}; its roles: {list(self.baselines)}"
            )
        return found

    def baseline_names(self, role: str) -> tuple[str, ...]:
        """The names of ``role``'s baselines; the first is the default."""
        return tuple(self.role_baselines(role))

    def fallback(self, role: str) -> Baseline[ObsT]:
        """The scripted player that answers for ``role`` when a reply cannot be used:
        its entry in :attr:`fallbacks`, else the role's first baseline."""
        given = self.fallbacks.get(role)
        if given is not None:
            return given
        baselines = self.role_baselines(role)
        return baselines[next(iter(baselines))]


__all__ = ["GameEntry", "SeatGroup"]
