"""Tournament configs: TOML, validated with pydantic; errors name the file and the key.

    name = "keeper-prompt-vs-lantern"
    seeds = { start = 0, stop = 100 }       # or a list: seeds = [1, 2, 3]
    variants = ["default", "spring"]
    repetitions = 1
    episode_timeout_seconds = 900
    reference = "lantern"

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

Every entrant plays the same seeds, variants and repetitions. Relative prompt paths
are resolved against the config file's folder.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel

from harness.errors import ConfigError
from harness.games.lighthouse.config import (
    LighthouseConfig,
    Variant,
    format_validation_error,
)
from harness.llm.options import LLMSeatOptions, PromptFiles, ProviderOptions

ENTRANT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class _Strict(BaseModel):
    model_config = ConfigDict(
        frozen=True, extra="forbid", alias_generator=to_camel, populate_by_name=True
    )


class BaselineSeatConfig(_Strict):
    """A seat played by a scripted baseline, e.g. ``{ baseline = "lantern" }``."""

    baseline: str


class LLMSeatConfig(_Strict):
    """A seat played by a model through a named provider."""

    provider: str = Field(description="A key of [providers].")
    model: str = Field(min_length=1)
    prompts: PromptFiles | None = None
    temperature: float | None = Field(None, ge=0, le=2)
    max_tokens: int = Field(512, ge=1)
    seed: int | None = None
    structured_output: bool = False
    call_timeout_seconds: float = Field(60.0, gt=0)
    allowance_seconds: float = Field(120.0, gt=0)


def _seat_kind(value: Any) -> str:
    if isinstance(value, dict) and "baseline" in value:
        return "baseline"
    if isinstance(value, BaselineSeatConfig):
        return "baseline"
    return "llm"


SeatConfig = Annotated[
    Annotated[BaselineSeatConfig, Tag("baseline")] | Annotated[LLMSeatConfig, Tag("llm")],
    Discriminator(_seat_kind),
]


class EntrantConfig(_Strict):
    """One entrant: a name, its keeper, and its runners (one spec for all, or three)."""

    name: str
    keeper: SeatConfig
    runners: SeatConfig | list[SeatConfig]

    @field_validator("name")
    @classmethod
    def _name_is_a_file_name(cls, value: str) -> str:
        if not ENTRANT_NAME.match(value):
            raise ValueError(
                f"{value!r} must be 1-64 letters, digits, '_', '.' or '-', "
                "starting with a letter or digit"
            )
        return value

    @field_validator("runners")
    @classmethod
    def _three_runners(cls, value: Any) -> Any:
        if isinstance(value, list) and len(value) != 3:
            raise ValueError(f"give one runner spec for all, or exactly 3; got {len(value)}")
        return value

    def runner_seats(self) -> tuple[SeatConfig, SeatConfig, SeatConfig]:
        """The three runners' specs."""
        if isinstance(self.runners, list):
            a, b, c = self.runners
            return (a, b, c)
        return (self.runners, self.runners, self.runners)


class SeedRange(_Strict):
    """Seeds ``start`` (inclusive) to ``stop`` (exclusive)."""

    start: int = Field(ge=0)
    stop: int

    @model_validator(mode="after")
    def _not_empty(self) -> SeedRange:
        if self.stop <= self.start:
            raise ValueError(f"stop ({self.stop}) must be greater than start ({self.start})")
        return self


def _default_variants() -> list[Variant]:
    return ["default"]


class TournamentConfig(_Strict):
    """A whole tournament."""

    name: str = Field(min_length=1)
    game: Literal["lighthouse"] = "lighthouse"
    seeds: list[Annotated[int, Field(ge=0)]] | SeedRange
    variants: list[Variant] = Field(default_factory=lambda: _default_variants(), min_length=1)
    repetitions: int = Field(1, ge=1)
    episode_timeout_seconds: float = Field(900.0, gt=0)
    rules: dict[str, Any] = Field(
        default_factory=dict, description="Rules parameters to override, e.g. maxTicks."
    )
    reference: str | None = None
    concurrency: int = Field(8, ge=1)
    providers: dict[str, ProviderOptions] = Field(default_factory=dict)
    entrants: list[EntrantConfig] = Field(min_length=1)

    @field_validator("seeds", mode="before")
    @classmethod
    def _seeds_shape(cls, value: Any) -> Any:
        # One clear message instead of one per member of the union.
        if isinstance(value, dict):
            return SeedRange.model_validate(value)
        if not isinstance(value, list) or not value:
            raise ValueError("give a non-empty list of seeds or { start = A, stop = B }")
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value):
            raise ValueError("seeds must be whole numbers >= 0")
        if len(set(value)) != len(value):
            raise ValueError("seeds must be distinct")
        return value

    @field_validator("variants")
    @classmethod
    def _variants_distinct(cls, value: list[Variant]) -> list[Variant]:
        if len(set(value)) != len(value):
            raise ValueError("variants must be distinct")
        return value

    @model_validator(mode="after")
    def _cross_checks(self) -> TournamentConfig:
        names = [e.name for e in self.entrants]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"entrants: duplicate names {duplicates}")
        if self.reference is not None and self.reference not in names:
            raise ValueError(f"reference: {self.reference!r} is not an entrant ({names})")
        for index, entrant in enumerate(self.entrants):
            for where, seat in _seats_of(entrant):
                if isinstance(seat, LLMSeatConfig) and seat.provider not in self.providers:
                    raise ValueError(
                        f"entrants.{index}.{where}.provider: unknown provider {seat.provider!r}; "
                        f"defined: {sorted(self.providers)}"
                    )
        return self

    def seed_list(self) -> list[int]:
        """The seeds, in order."""
        if isinstance(self.seeds, SeedRange):
            return list(range(self.seeds.start, self.seeds.stop))
        return list(self.seeds)

    def game_config(self, variant: Variant) -> LighthouseConfig:
        """The rules parameters of ``variant`` with this tournament's overrides."""
        return LighthouseConfig.for_variant(
            variant, **{**self.rules, "episode_timeout_seconds": self.episode_timeout_seconds}
        )

    def seat_options(self, seat: LLMSeatConfig) -> LLMSeatOptions:
        """An LLM seat's full options, its provider resolved."""
        data = seat.model_dump(exclude={"provider"})
        data["provider"] = self.providers[seat.provider]
        return LLMSeatOptions.model_validate(data)

    def canonical_json(self) -> str:
        """The config as run, normalised: what the results folder's hash is taken of."""
        return json.dumps(self.model_dump(mode="json", by_alias=True), sort_keys=True)

    def config_hash(self) -> str:
        """sha256 of :meth:`canonical_json`."""
        return hashlib.sha256(self.canonical_json().encode()).hexdigest()


def _seats_of(entrant: EntrantConfig) -> list[tuple[str, SeatConfig]]:
    seats: list[tuple[str, SeatConfig]] = [("keeper", entrant.keeper)]
    if isinstance(entrant.runners, list):
        seats += [(f"runners.{i}", seat) for i, seat in enumerate(entrant.runners)]
    else:
        seats.append(("runners", entrant.runners))
    return seats


def load_tournament(path: Path, *, baselines: dict[str, tuple[str, ...]]) -> TournamentConfig:
    """Read, validate and resolve a tournament config.

    ``baselines`` maps each role to the game's baseline names. Raises
    :class:`ConfigError` whose message names the file, the key and the problem.
    """
    source = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    try:
        config = TournamentConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(format_validation_error(exc, source)) from None
    return _resolve(config, path.parent, source, baselines)


def _resolve(
    config: TournamentConfig, base: Path, source: str, baselines: dict[str, tuple[str, ...]]
) -> TournamentConfig:
    entrants = []
    for index, entrant in enumerate(config.entrants):
        seats: dict[str, Any] = {}
        for where, seat in _seats_of(entrant):
            role = "keeper" if where == "keeper" else "runner"
            if isinstance(seat, BaselineSeatConfig):
                if seat.baseline not in baselines[role]:
                    raise ConfigError(
                        f"{source}: entrants.{index}.{where}.baseline: {seat.baseline!r} is not "
                        f"a {role} baseline; choose one of {list(baselines[role])}"
                    )
                seats[where] = seat
                continue
            prompts = seat.prompts
            if prompts is not None:
                resolved = {}
                for field in ("system", "observation", "retry_hint"):
                    file = getattr(prompts, field)
                    file = file if file.is_absolute() else (base / file)
                    if not file.is_file():
                        raise ConfigError(
                            f"{source}: entrants.{index}.{where}.prompts.{field}: "
                            f"no such file {file}"
                        )
                    resolved[field] = file.resolve()
                prompts = PromptFiles.model_validate(resolved)
            seats[where] = seat.model_copy(update={"prompts": prompts})
        runners: Any = (
            [seats[f"runners.{i}"] for i in range(3)]
            if isinstance(entrant.runners, list)
            else seats["runners"]
        )
        entrants.append(entrant.model_copy(update={"keeper": seats["keeper"], "runners": runners}))
    for variant in config.variants:
        try:
            config.game_config(variant)
        except ConfigError as exc:
            raise ConfigError(f"{source}: rules: {exc}") from None
    return config.model_copy(update={"entrants": entrants})


__all__ = [
    "BaselineSeatConfig",
    "EntrantConfig",
    "LLMSeatConfig",
    "SeedRange",
    "TournamentConfig",
    "load_tournament",
]
