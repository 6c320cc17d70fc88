"""Config: defaults, the spring variant, and refusals that name the field."""

from __future__ import annotations

import pytest

from harness.errors import ConfigError
from harness.games.lighthouse.config import LighthouseConfig, load_config


def test_defaults_match_the_decisions() -> None:
    c = LighthouseConfig()
    assert (c.width, c.height, c.tide_delay, c.tide_period) == (11, 9, 10, 7)
    assert (c.max_ticks, c.key_count, c.episode_timeout_seconds) == (60, 3, 900)
    assert (c.message_cap, c.keeper_notes_cap, c.runner_notes_cap) == (160, 400, 200)
    assert c.aliases == ("Sprocket", "Gizmo", "Ratchet")  # B7
    assert c.flood_clock == 73
    assert c.play_budget_seconds == pytest.approx(540)


def test_key_count_defaults_to_three() -> None:  # B6
    assert LighthouseConfig().key_count == 3


def test_spring_variant_has_tide_period_five() -> None:
    spring = LighthouseConfig.for_variant("spring")
    assert spring.tide_period == 5
    assert spring.flood_clock == 55
    assert LighthouseConfig.for_variant("default") == LighthouseConfig()


def test_camel_case_is_the_public_vocabulary() -> None:
    c = load_config({"tideDelay": 4, "maxTicks": 20})
    assert (c.tide_delay, c.max_ticks) == (4, 20)
    doc = c.to_json()
    assert doc["tideDelay"] == 4
    assert doc["episodeTimeoutSeconds"] == 900
    assert load_config(doc) == c


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"width": 12}, "width"),
        ({"width": 9}, "width"),
        ({"height": 8}, "height"),
        ({"height": 5}, "height"),
        ({"tideDelay": -1}, "tideDelay"),
        ({"tidePeriod": 0}, "tidePeriod"),
        ({"maxTicks": 0}, "maxTicks"),
        ({"keyCount": 0}, "keyCount"),
        ({"episodeTimeoutSeconds": 0}, "episodeTimeoutSeconds"),
        ({"messageCap": 0}, "messageCap"),
        ({"runnerNotesCap": -1}, "runnerNotesCap"),
        ({"aliases": ["Ann", "ann", "Bo"]}, "aliases"),
        ({"aliases": ["Ann", "", "Bo"]}, "aliases"),
        ({"aliases": ["An n", "Cy", "Bo"]}, "aliases"),
        ({"aliases": ["Ann:", "Cy", "Bo"]}, "aliases"),
        ({"aliases": ["Ann", "Cy;", "Bo"]}, "aliases"),
        ({"aliases": ["Ann", "Cy"]}, "aliases"),
        ({"tideDelay": "soon"}, "tideDelay"),
        ({"tideDelya": 3}, "tideDelya"),
    ],
)
def test_invalid_values_are_refused_naming_the_field(data: dict[str, object], field: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(data, source="my.toml")
    message = str(info.value)
    assert message.startswith(f"my.toml: {field}")


def test_unknown_variant_is_refused() -> None:
    with pytest.raises(ConfigError, match="variant"):
        LighthouseConfig.for_variant("neap")  # type: ignore[arg-type]


def test_config_is_frozen() -> None:
    c = LighthouseConfig()
    with pytest.raises(ValueError, match="frozen"):
        c.width = 13  # type: ignore[misc]
