"""Lighthouse's parameters, validated at the boundary.

Field names are snake_case in Python and camelCase (the rules' vocabulary) in every
serialised form: ``LighthouseConfig(tide_delay=10).model_dump(by_alias=True)`` gives
``{"tideDelay": 10, ...}``. Both spellings are accepted on input.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, Literal

from pydantic import Field, ValidationInfo, field_validator

from harness.errors import ConfigError
from harness.models import JsonObject
from harness.protocol.conventions import DEFAULT_EPISODE_TIMEOUT, EpisodeTimeout, GameConfig
from harness.validation import validated

Variant = Literal["default", "spring"]
VARIANTS: tuple[Variant, ...] = ("default", "spring")

DEFAULT_ALIASES: tuple[str, str, str] = ("Sprocket", "Gizmo", "Ratchet")
_FORBIDDEN_ALIAS_CHARS = (":", ";")
#: The least width and height of a board (both odd), and why that least.
_ODD_AT_LEAST = {
    "width": (11, " (three starts 4 apart need x = 1, 5, 9)"),
    "height": (7, ""),
}


class LighthouseConfig(GameConfig):
    """Every rules parameter of one Lighthouse episode (defaults per the decisions)."""

    VARIANTS: ClassVar[tuple[str, ...]] = VARIANTS

    width: int = Field(11, description="Board width in tiles; odd, at least 11.")
    height: int = Field(9, description="Board height in tiles; odd, at least 7.")
    tide_delay: int = Field(10, ge=0, description="Clock value before the first row can flood.")
    tide_period: int = Field(7, ge=1, description="Clock units between two rows flooding.")
    max_ticks: int = Field(60, ge=1, description="Tick cap; reaching it ends the game as timeup.")
    key_count: int = Field(3, ge=1, description="Number of keys on the board.")
    episode_timeout_seconds: EpisodeTimeout = DEFAULT_EPISODE_TIMEOUT
    message_cap: int = Field(160, ge=1, description="Keeper message cap, in runes.")
    keeper_notes_cap: int = Field(400, ge=0, description="Keeper notes cap, in runes.")
    runner_notes_cap: int = Field(200, ge=0, description="Runner notes cap, in runes.")
    aliases: tuple[str, str, str] = Field(
        DEFAULT_ALIASES, description="The runners' names for seats 1, 2 and 3."
    )

    @field_validator("width", "height")
    @classmethod
    def _odd_and_wide_enough(cls, value: int, info: ValidationInfo) -> int:
        least, why = _ODD_AT_LEAST[info.field_name or ""]
        if value % 2 == 0 or value < least:
            raise ValueError(f"must be odd and at least {least}{why}")
        return value

    @field_validator("aliases")
    @classmethod
    def _aliases_are_distinct_words(cls, value: tuple[str, str, str]) -> tuple[str, str, str]:
        for alias in value:
            if not alias:
                raise ValueError("an alias must not be empty")
            if any(ch.isspace() for ch in alias) or any(c in alias for c in _FORBIDDEN_ALIAS_CHARS):
                raise ValueError(f"alias {alias!r} must not contain whitespace, ':' or ';'")
        folded = [alias.casefold() for alias in value]
        if len(set(folded)) != len(folded):
            raise ValueError(f"aliases must be distinct ignoring case, got {list(value)}")
        return value

    @property
    def flood_clock(self) -> int:
        """The clock at which the exit row (y = 0) floods: tideDelay + height * tidePeriod."""
        return self.tide_delay + self.height * self.tide_period

    @property
    def tick_cap(self) -> int:
        """The most ticks an episode can last: maxTicks, after which it ends as timeup."""
        return self.max_ticks

    @classmethod
    def variant_defaults(cls, variant: str) -> Mapping[str, object]:
        """``spring``: tidePeriod 5; ``default`` changes nothing."""
        return {"tide_period": 5} if variant == "spring" else {}

    def to_json(self) -> JsonObject:
        """The config in the rules' camelCase vocabulary."""
        return self.model_dump(mode="json", by_alias=True)

    @classmethod
    def for_variant(cls, variant: Variant = "default", **overrides: object) -> LighthouseConfig:
        """The defaults of ``variant`` (``spring``: tidePeriod 5) with ``overrides`` applied."""
        if variant not in VARIANTS:
            raise ConfigError(f"variant: unknown variant {variant!r}; choose one of {VARIANTS}")
        return load_config({**cls.variant_defaults(variant), **overrides})


def load_config(data: Mapping[str, object], *, source: str = "config") -> LighthouseConfig:
    """Validate ``data`` into a config, raising :class:`ConfigError` that names each bad field."""
    return validated(LighthouseConfig, data, source)


__all__ = [
    "DEFAULT_ALIASES",
    "VARIANTS",
    "LighthouseConfig",
    "Variant",
    "load_config",
]
