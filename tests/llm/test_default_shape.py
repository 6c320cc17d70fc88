"""``structured_output`` defaults to ``"auto"`` for a provider with a ``base_url``.

A setting given is kept; a provider's own API keeps ``false``; the config a manifest
keeps (and so the entrant's identity) says the value that was run.
"""

from __future__ import annotations

from pathlib import Path

from harness.llm.options import ProviderOptions, default_structured_output
from harness.seat_spec import LLMSeatConfig, parse_seat_arg
from harness.tournament.config import load_tournament

CONFIG = """
name = "shapes"
seeds = [1]

[providers.local]
kind = "openai"
base_url = "http://127.0.0.1:9/v1"

[providers.hosted]
kind = "openai"

[[entrants]]
name = "team"
keeper = { provider = "local", model = "m" }
runners = [
    { provider = "local", model = "m", structured_output = false },
    { provider = "hosted", model = "m" },
    { provider = "local", model = "m", structured_output = "prompt" },
]
"""


def test_an_unset_shape_is_auto_at_a_base_url_and_a_given_one_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "shapes.toml"
    path.write_text(CONFIG)
    config = load_tournament(path)
    seats = config.entrants[0].seats
    keeper, runners = seats["keeper"], seats["runners"]
    assert isinstance(keeper, LLMSeatConfig)
    assert isinstance(runners, list)
    assert keeper.structured_output == "auto"
    assert [getattr(r, "structured_output", None) for r in runners] == [False, False, "prompt"]
    assert config.seat_options(keeper).structured_output == "auto"
    # what the manifest keeps says so, and the identity is taken of it
    dumped = config.model_dump(mode="json", by_alias=True)["entrants"][0]["seats"]
    assert dumped["keeper"]["structuredOutput"] == "auto"
    assert [r["structuredOutput"] for r in dumped["runners"]] == [False, False, "prompt"]


def test_the_command_lines_base_url_gets_auto_unless_told_off() -> None:
    local = {"openai": ProviderOptions(kind="openai", base_url="http://127.0.0.1:9/v1")}
    hosted = {"openai": ProviderOptions(kind="openai")}
    plain = parse_seat_arg("openai:m", role="keeper", baselines=())
    off = parse_seat_arg(
        "openai:m", role="keeper", baselines=(), options={"structured_output": False}
    )
    assert isinstance(plain, LLMSeatConfig)
    assert isinstance(off, LLMSeatConfig)
    assert plain.resolve(local).structured_output == "auto"
    assert plain.resolve(hosted).structured_output is False
    assert off.resolve(local).structured_output is False
    assert default_structured_output(local["openai"]) == "auto"
