"""Tournament configs: TOML, validated with pydantic; errors name the file and the key.

    name = "keeper-prompt-vs-lantern"
    seeds = { start = 0, stop = 100 }       # or a list: seeds = [1, 2, 3]
    variants = ["default", "spring"]
    repetitions = 1
    episode_timeout_seconds = 900
    reference = "lantern"
    max_cost = 25.0                         # optional: US dollars, see budget.py

    [providers.openai]
    kind = "openai"
    requests_per_period = 500

    [[entrants]]
    name = "lantern"
    keeper = { baseline = "lantern" }
    runners = { baseline = "wallhug" }

    [[entrants]]
    name = "my-prompt"
    keeper = { provider = "openai", model = "gpt-4o-mini", prompts = { system = "..." } }
    runners = { baseline = "wallhug" }

    [[entrants]]
    name = "my-agent"
    keeper = { python = "my_agents:keeper" }
    runners = { baseline = "wallhug" }

Every entrant plays the same seeds, variants and repetitions. A seat is any spec of
:mod:`harness.seat_spec`. Relative prompt paths are resolved against the config
file's folder, and Python agents are imported from it (or the working folder).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from harness.agents import load_agent
from harness.defaults import MAX_EPISODE_TIMEOUT_SECONDS
from harness.errors import ConfigError
from harness.llm.fleet import endpoint_label
from harness.llm.options import LLMSeatOptions, PromptFiles, ProviderOptions
from harness.models import absent_if_none
from harness.protocol import GameConfig, GameEntry, SeatGroup
from harness.registry import game_names, get_game
from harness.seat_spec import (
    SEAT_TAGS,
    BaselineSeatConfig,
    HumanSeatConfig,
    LLMSeatConfig,
    PythonSeatConfig,
    SeatConfig,
)
from harness.seating.build import check_baseline, seats_of_groups
from harness.toml_file import read_toml
from harness.tournament.crossplay import CrossplayConfig
from harness.tournament.names import ENTRANT_NAME, ENTRANT_RULE, PLAIN_NAME, PLAIN_RULE
from harness.tournament.seat_text import SeatSpecs, specs_of_text
from harness.validation import (
    MAX_SEED,
    StrictModel,
    format_validation_error,
    seconds_field,
    seed_problem,
    short_repr,
)

#: The most seeds a range may hold: a tournament is planned in memory, episode by episode.
MAX_RANGE = 1_000_000
#: Path segments a config file does not spell: union tags and the entrant's seat map.
HIDDEN_SEGMENTS = frozenset({"one", "many", "seats", "groups", *SEAT_TAGS})


class EntrantConfig(StrictModel):
    """One entrant: a name and a spec for each of the game's seat groups.

    In TOML the groups are keys of the entrant (Lighthouse: ``keeper`` and
    ``runners``; Relayroam: ``player``); a group of several seats takes one spec for
    all or a list with one per seat, each a table or its short string
    (:mod:`harness.tournament.seat_text`). Which keys are valid depends on the game,
    so they are checked when the config is resolved against it.
    """

    name: str
    seats: dict[str, SeatSpecs]

    @model_validator(mode="before")
    @classmethod
    def _collect_seats(cls, data: Any) -> Any:
        if isinstance(data, dict) and "seats" not in data:
            named = {"name": data["name"]} if "name" in data else {}  # else: "Field required"
            seats = {k: specs_of_text(v) for k, v in data.items() if k != "name"}
            return {**named, "seats": seats}
        return data

    @field_validator("name")
    @classmethod
    def _name_is_a_file_name(cls, value: str) -> str:
        if not ENTRANT_NAME.fullmatch(value):
            raise ValueError(f"{short_repr(value)} must be {ENTRANT_RULE}")
        return value

    def seat_specs(self, game: GameEntry) -> dict[str, tuple[str, SeatConfig]]:
        """Every seat id of ``game`` with its role and spec (the entrant is resolved)."""
        return seats_of_groups(game, self.seats)

    def has_human(self) -> bool:
        """Whether a person plays one of its seats: a run leaves its episodes to the page
        (``lighthouse serve``), which ``lighthouse add`` joins to the folder."""
        return any(
            isinstance(spec, HumanSeatConfig)
            for specs in self.seats.values()
            for spec in (specs if isinstance(specs, list) else [specs])
        )


class SeedRange(StrictModel):
    """Seeds ``start`` (inclusive) to ``stop`` (exclusive)."""

    start: int
    stop: int

    @field_validator("start", mode="before")
    @classmethod
    def _start_is_a_seed(cls, value: Any) -> Any:
        problem = seed_problem(value)
        if problem is not None:
            raise ValueError(problem.replace("seed", "start", 1))
        return value

    @field_validator("stop", mode="before")
    @classmethod
    def _stop_follows_a_seed(cls, value: Any) -> Any:
        # stop is excluded, so it may be one past the largest seed
        if type(value) is not int or not 0 < value <= MAX_SEED + 1:
            raise ValueError(
                f"stop must be an integer 1..{MAX_SEED + 1} (it is excluded), "
                f"got {short_repr(value)}"
            )
        return value

    @model_validator(mode="after")
    def _not_empty(self) -> SeedRange:
        if self.stop <= self.start:
            raise ValueError(f"stop ({self.stop}) must be greater than start ({self.start})")
        if self.stop - self.start > MAX_RANGE:
            raise ValueError(f"a range holds at most {MAX_RANGE:,} seeds")
        return self


class TournamentConfig(StrictModel):
    """A whole tournament."""

    name: str = Field(description="A plain name; the default results folder is results/<name>.")
    game: str = Field("lighthouse", description="The game: lighthouse or relayroam.")
    seeds: (
        Annotated[list[Annotated[int, Field(ge=0, le=MAX_SEED)]], Field(max_length=MAX_RANGE)]
        | SeedRange
    )
    variants: list[str] | None = Field(None, description="Default: the game's first variant.")
    repetitions: int = Field(1, ge=1)
    episode_timeout_seconds: float | None = seconds_field(
        None,
        maximum=MAX_EPISODE_TIMEOUT_SECONDS,
        description="At most a year. Default: the game's (900 s), or for an entrant with "
        "model seats enough for every tick to take a seat's whole allowance (docs/llm.md).",
    )
    rules: dict[str, Any] = Field(
        default_factory=dict, description="Rules parameters to override, e.g. maxTicks."
    )
    reference: str | None = None
    concurrency: int = Field(8, ge=1)
    max_cost: float | None = Field(
        None, gt=0, description="US dollars: stop admitting episodes past it (--max-cost)."
    )
    providers: dict[str, ProviderOptions] = Field(default_factory=dict)
    crossplay: CrossplayConfig | None = absent_if_none(  # a config without one hashes as before
        "Members of each seat group whose full product is played "
        "(docs/crossplay.md); its entrants are appended to entrants."
    )
    entrants: list[EntrantConfig] = Field(
        default_factory=list, description="At least one, unless [crossplay] makes them."
    )
    cache: bool = Field(
        True,
        exclude=True,  # not part of the config's hash: a resume may turn it off or on
        description="Answer model calls from DIR/calls.sqlite where it can (--no-cache).",
    )

    @field_validator("seeds", mode="before")
    @classmethod
    def _seeds_shape(cls, value: Any) -> Any:
        # One clear message instead of one per member of the union.
        if isinstance(value, dict):
            return SeedRange.model_validate(value)
        if not isinstance(value, list) or not value:
            raise ValueError("give a non-empty list of seeds or { start = A, stop = B }")
        for index, seed in enumerate(value):
            problem = seed_problem(seed)
            if problem is not None:
                raise ValueError(f"{problem} (number {index + 1} in the list)")
        if len(set(value)) != len(value):
            raise ValueError("seeds must be distinct")
        return value

    @field_validator("name")
    @classmethod
    def _name_is_plain(cls, value: str) -> str:
        # The name becomes the folder results/<name>: it must not lead anywhere else.
        if not PLAIN_NAME.fullmatch(value):
            raise ValueError(
                f"{short_repr(value)} must be a plain name, {PLAIN_RULE} (it names the "
                "results folder results/<name>; use --out to put the results elsewhere)"
            )
        return value

    @field_validator("variants")
    @classmethod
    def _variants_distinct(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and (not value or len(set(value)) != len(value)):
            raise ValueError("give distinct variants, at least one")
        return value

    @field_validator("game")
    @classmethod
    def _known_game(cls, value: str) -> str:
        if value not in game_names():
            raise ValueError(f"unknown game {value!r}; choose one of {list(game_names())}")
        return value

    @model_validator(mode="after")
    def _crossplay_entrants(self) -> TournamentConfig:
        # the design's entrants join the list; a config as run already lists them
        if self.crossplay is not None:
            made = crossplay_entrants(self.crossplay, get_game(self.game), self.entrants)
            # set once, while the model is being made (it is frozen after)
            object.__setattr__(self, "entrants", [*self.entrants, *made])
        if not self.entrants:
            raise ValueError(
                "entrants: give at least one [[entrants]] table or a [crossplay] section"
            )
        return self

    @model_validator(mode="after")
    def _cross_checks(self) -> TournamentConfig:
        names = [e.name for e in self.entrants]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"entrants: duplicate names {duplicates}")
        first_of: dict[str, str] = {}
        for name in names:
            other = first_of.setdefault(name.casefold(), name)
            if other != name:
                raise ValueError(
                    f"entrants: {other!r} and {name!r} differ only in case; their files "
                    "would collide on a case-insensitive file system (macOS, Windows)"
                )
        if self.reference is not None and self.reference not in names:
            raise ValueError(f"reference: {self.reference!r} is not an entrant ({names})")
        for entrant in self.entrants:
            for where, seat in _seats_of(entrant):
                if isinstance(seat, LLMSeatConfig) and seat.provider not in self.providers:
                    raise ValueError(
                        f"entrant {entrant.name!r}, {where}.provider: "
                        + missing_provider(seat.provider, self.providers)
                    )
                if isinstance(seat, LLMSeatConfig):
                    try:  # an option its provider does not take stops the load
                        seat.resolve(self.providers)
                    except ConfigError as exc:
                        raise ValueError(f"entrant {entrant.name!r}, {where}: {exc}") from None
        return self

    def seed_list(self) -> list[int]:
        """The seeds, in order."""
        return list(self.seed_order())

    def seed_order(self) -> range | list[int]:
        """The seeds, in order; a range stays a range (a million seeds take no memory)."""
        if isinstance(self.seeds, SeedRange):
            return range(self.seeds.start, self.seeds.stop)
        return self.seeds

    def variant_list(self) -> list[str]:
        """The variants played (the game's default when none are given)."""
        return self.variants or [get_game(self.game).variants[0]]

    def game_config(self, variant: str) -> GameConfig:
        """The rules parameters of ``variant`` with this tournament's overrides."""
        return get_game(self.game).rules.make_config(
            variant, self.rules, self.episode_timeout_seconds
        )

    def seat_options(self, seat: LLMSeatConfig) -> LLMSeatOptions:
        """An LLM seat's full options, its provider resolved."""
        return seat.resolve(self.providers)

    def canonical_json(self) -> str:
        """The config as run, normalised: what the results folder's hash is taken of.

        A provider's base URLs are written as records name them
        (:func:`~harness.llm.fleet.endpoint_label`): a manifest never holds the
        credentials a URL may carry, and identities do not change with them."""
        data = self.model_dump(mode="json", by_alias=True)
        for name, provider in self.providers.items():
            labels = [endpoint_label(url) for url in provider.base_urls]
            if labels:
                shown = labels if isinstance(provider.base_url, list) else labels[0]
                data["providers"][name]["baseUrl"] = shown
        return json.dumps(data, sort_keys=True)

    def config_hash(self) -> str:
        """sha256 of :meth:`canonical_json`."""
        return hashlib.sha256(self.canonical_json().encode()).hexdigest()


def _seat_gaps(named: Collection[str], keys: Sequence[str]) -> tuple[list[str], list[str]]:
    """The seat group keys ``named`` that are not among a game's ``keys`` (sorted), and
    the game's keys ``named`` leaves out (in the game's order)."""
    return sorted(set(named) - set(keys)), [key for key in keys if key not in named]


def crossplay_entrants(
    design: CrossplayConfig, game: GameEntry, given: Sequence[EntrantConfig]
) -> list[EntrantConfig]:
    """The entrants ``design`` makes that ``given`` does not list already (a config as
    run lists them all); raises ValueError for a seat group the game lacks or misses,
    and for an entrant of ``given`` that takes a design entrant's name with other seats."""
    keys = [g.key for g in game.seat_groups]
    unknown, missing = _seat_gaps(design.groups, keys)
    if unknown:
        raise ValueError(
            f"crossplay.{unknown[0]}: {game.name} has no such seat group; its seat "
            f"groups are {keys}"
        )
    if missing:
        raise ValueError(
            f"crossplay: name the members of {missing[0]!r} too ([crossplay.{missing[0]}]): "
            "the design plays every seat group's members with every other's"
        )
    have = {entrant.name: entrant for entrant in given}
    made = []
    for table in design.entrants(keys):
        entrant = EntrantConfig.model_validate(table)
        mine = have.get(entrant.name)
        if mine is None:
            made.append(entrant)
        elif mine.seats != entrant.seats:
            raise ValueError(
                f"entrants: {entrant.name!r} is an entrant [crossplay] makes, with other "
                "seats; give your [[entrants]] table another name"
            )
    return made


def missing_provider(name: str, defined: Collection[str]) -> str:
    """Why a model seat's provider ``name`` is not found, and how to add it."""
    have = f" (this config has: {', '.join(sorted(defined))})" if defined else ""
    return (
        f"there is no [providers.{name}] table{have}; add one for this model seat, with "
        'kind = "openai" or "anthropic" (and base_url for another OpenAI-compatible '
        "server): see docs/tournaments.md"
    )


def entrant_label(index: int, data: Any) -> str:
    """How an error names the entrant at ``index`` (from 0) of the raw config ``data``:
    by its name when it has a valid one, else by its place, counted from 1."""
    entrants = data.get("entrants") if isinstance(data, dict) else None
    entrant = entrants[index] if isinstance(entrants, list) and index < len(entrants) else None
    name = entrant.get("name") if isinstance(entrant, dict) else None
    if isinstance(name, str) and PLAIN_NAME.fullmatch(name):
        return f"entrant {name!r}"
    return f"[[entrants]] number {index + 1}"


def _place_in(data: Any) -> Callable[[Sequence[str | int]], str]:
    """An error's key path as the file reads: ``entrant 'gpt', keeper.temperature``."""

    def place(parts: Sequence[str | int]) -> str:
        path = ".".join(str(part) for part in parts)
        if len(parts) >= 2 and parts[0] == "entrants" and isinstance(parts[1], int):
            label = entrant_label(parts[1], data)
            rest = ".".join(str(part) for part in parts[2:])
            return f"{label}, {rest}" if rest else label
        return path

    return place


def _seats_of(entrant: EntrantConfig) -> list[tuple[str, SeatConfig]]:
    """Each seat spec of an entrant with its key path (``runners.1``)."""
    seats: list[tuple[str, SeatConfig]] = []
    for key, spec in entrant.seats.items():
        if isinstance(spec, list):
            seats += [(f"{key}.{i}", one) for i, one in enumerate(spec)]
        else:
            seats.append((key, spec))
    return seats


def load_tournament(path: Path) -> TournamentConfig:
    """Read, validate and resolve a tournament config.

    Raises :class:`ConfigError` whose message names the file, the key and the problem.
    """
    source = str(path)
    data = read_toml(path)  # linear, bounded depth; any failure is a ConfigError
    try:
        config = TournamentConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(
            format_validation_error(exc, source, hidden=HIDDEN_SEGMENTS, place=_place_in(data))
        ) from None
    return _resolve(config, path.parent, source)


def _resolve(config: TournamentConfig, base: Path, source: str) -> TournamentConfig:
    game = get_game(config.game)
    groups = {g.key: g for g in game.seat_groups}
    crossplay = config.crossplay
    if crossplay is not None:  # first, so that an error names the design's member
        crossplay = crossplay.model_copy(
            update={
                "groups": {
                    key: {
                        name: _with_defaults(
                            _resolve_group(
                                spec, game, groups[key], base, f"{source}: crossplay.{key}.{name}"
                            ),
                            config.providers,
                        )
                        for name, spec in members.items()
                    }
                    for key, members in crossplay.groups.items()
                }
            }
        )
    entrants = []
    for entrant in config.entrants:
        where_entrant = f"{source}: entrant {entrant.name!r}"
        unknown, missing = _seat_gaps(entrant.seats, list(groups))
        if unknown:
            raise ConfigError(
                f"{where_entrant}, {unknown[0]}: not a seat of {game.name}; "
                f"its seats are {list(groups)}"
            )
        if missing:
            raise ConfigError(f"{where_entrant}: missing {missing[0]!r} (who plays it?)")
        seats = {
            key: _with_defaults(
                _resolve_group(spec, game, groups[key], base, f"{where_entrant}, {key}"),
                config.providers,
            )
            for key, spec in entrant.seats.items()
        }
        entrants.append(entrant.model_copy(update={"seats": seats}))
    for variant in config.variant_list():
        try:
            config.game_config(variant)
        except ConfigError as exc:
            raise ConfigError(f"{source}: {exc}") from None
    return config.model_copy(update={"entrants": entrants, "crossplay": crossplay})


def _with_defaults(spec: SeatSpecs, providers: Mapping[str, ProviderOptions]) -> SeatSpecs:
    """``spec`` with each model seat's provider-dependent defaults made explicit
    (:meth:`LLMSeatConfig.with_defaults`), so that the config a manifest keeps, and the
    identity taken of it, say what was run."""
    if isinstance(spec, list):
        return [_with_defaults_one(one, providers) for one in spec]
    return _with_defaults_one(spec, providers)


def _with_defaults_one(seat: SeatConfig, providers: Mapping[str, ProviderOptions]) -> SeatConfig:
    if isinstance(seat, LLMSeatConfig) and seat.provider in providers:
        return seat.with_defaults(providers[seat.provider])
    return seat


def _resolve_group(
    spec: SeatSpecs, game: GameEntry, group: SeatGroup, base: Path, where: str
) -> SeatSpecs:
    """A seat group's specs resolved (``where`` names it): one for all, or one a seat."""
    if isinstance(spec, list) and len(spec) != len(group.seats):
        raise ConfigError(
            f"{where}: give one spec for all, or exactly {len(group.seats)}; got {len(spec)}"
        )
    if not isinstance(spec, list):
        return _resolve_seat(spec, game, group.role, base, where)
    return [
        _resolve_seat(one, game, group.role, base, f"{where}.{i}") for i, one in enumerate(spec)
    ]


def _resolve_seat(
    seat: SeatConfig, game: GameEntry, role: str, base: Path, where: str
) -> SeatConfig:
    if isinstance(seat, BaselineSeatConfig):
        check_baseline(game, role, seat.baseline, where)
        return seat
    if isinstance(seat, HumanSeatConfig):
        return seat  # a person: nothing to import or read
    if isinstance(seat, PythonSeatConfig):
        try:  # imported now, so a missing agent stops the run before anything is written
            load_agent(seat.python, (base.resolve(), Path.cwd()))
        except ConfigError as exc:
            raise ConfigError(f"{where}.python: {exc}") from None
    if seat.prompts is None:
        return seat
    resolved = {}
    for field in ("system", "observation", "retry_hint"):
        file = getattr(seat.prompts, field)
        file = file if file.is_absolute() else (base / file)
        if not file.is_file():
            raise ConfigError(f"{where}.prompts.{field}: no such file {file}")
        resolved[field] = file.resolve()
    return seat.model_copy(update={"prompts": PromptFiles.model_validate(resolved)})


__all__ = [
    "BaselineSeatConfig",
    "EntrantConfig",
    "LLMSeatConfig",
    "PythonSeatConfig",
    "SeatConfig",
    "SeedRange",
    "TournamentConfig",
    "load_tournament",
]
