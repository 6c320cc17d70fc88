"""One seat spec: the command line's strings and a config's tables are the same models,
with one set of defaults; the seat flags come from the games' seat groups."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import tomllib
from pathlib import Path
from typing import Any

import pytest
from pydantic import TypeAdapter

from harness import defaults, registry
from harness.cli import build_parser, main
from harness.errors import ConfigError
from harness.llm.anthropic_provider import AnthropicProvider
from harness.llm.calls import RetryPolicy
from harness.llm.openai_provider import OpenAIProvider
from harness.llm.options import LLMSeatOptions, PromptFiles, ProviderOptions
from harness.llm.seat import LLMSeat, SeatFactory
from harness.llm.types import CompletionRequest
from harness.protocol import GameEntry, SeatGroup
from harness.seat_spec import (
    BaselineSeatConfig,
    LLMSeatConfig,
    PythonSeatConfig,
    SeatConfig,
    cli_providers,
    parse_seat_arg,
)
from harness.tournament.config import load_tournament

SEAT = TypeAdapter(SeatConfig)
KEEPERS = ("lantern", "silent")


def from_toml(text: str) -> Any:
    """One seat spec written as a config writes it."""
    return SEAT.validate_python(tomllib.loads(f"seat = {text}")["seat"])


def from_cli(text: str, **options: Any) -> Any:
    return parse_seat_arg(text, role="keeper", baselines=KEEPERS, options=options)


@pytest.mark.parametrize(
    ("cli", "toml", "kind"),
    [
        ("lantern", '{ baseline = "lantern" }', BaselineSeatConfig),
        ("baseline", '{ baseline = "lantern" }', BaselineSeatConfig),
        ("silent", '{ baseline = "silent" }', BaselineSeatConfig),
        ("openai:gpt-4o-mini", '{ provider = "openai", model = "gpt-4o-mini" }', LLMSeatConfig),
        ("anthropic:claude-x", '{ provider = "anthropic", model = "claude-x" }', LLMSeatConfig),
        ("openai:org/model:tag", '{ provider = "openai", model = "org/model:tag" }', LLMSeatConfig),
        ("python:my_agents:keeper", '{ python = "my_agents:keeper" }', PythonSeatConfig),
        ("python:pkg.agents:Keeper.act", '{ python = "pkg.agents:Keeper.act" }', PythonSeatConfig),
    ],
)
def test_a_command_line_spec_is_the_model_a_config_gives(cli: str, toml: str, kind: type) -> None:
    parsed = from_cli(cli)
    assert isinstance(parsed, kind)
    assert parsed == from_toml(toml)


def test_the_flags_options_reach_only_the_kinds_that_have_them(tmp_path: Path) -> None:
    options = {"temperature": 0.3, "max_tokens": 99, "timeout_seconds": 4.0, "seed": None}
    llm = parse_seat_arg(
        "openai:m", role="keeper", baselines=KEEPERS, options=options, prompts=tmp_path
    )
    assert llm == from_toml(
        '{ provider = "openai", model = "m", temperature = 0.3, max_tokens = 99, '
        f'prompts = {{ system = "{tmp_path}/keeper.system.md", observation = '
        f'"{tmp_path}/keeper.observation.md", retry_hint = "{tmp_path}/retry-hint.md" }} }}'
    )
    agent = parse_seat_arg("python:a:b", role="keeper", baselines=KEEPERS, options=options)
    assert agent == PythonSeatConfig(python="a:b", timeout_seconds=4.0)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("gemini:pro", "--keeper: 'gemini:pro' is not a baseline (lantern, silent), openai:MODEL or anthropic:MODEL (or python:MODULE:CALLABLE)"),
        ("openai:", "is not a baseline"),
        ("python:my_agents", "--keeper: python: 'my_agents' is not MODULE:CALLABLE"),
        ("python:a b:c", "is not MODULE:CALLABLE"),
        ("wallhug", "is not a baseline (lantern, silent)"),
    ],
)  # fmt: skip
def test_a_bad_command_line_spec_is_one_clear_error(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_seat_arg(text, role="keeper", baselines=KEEPERS, where="--keeper")
    assert message in str(info.value)


def test_every_default_is_the_same_wherever_it_is_read() -> None:
    cli = from_cli("openai:m").resolve(cli_providers())
    config = from_toml('{ provider = "openai", model = "m" }').resolve(
        {"openai": ProviderOptions(kind="openai")}
    )
    assert cli == config
    # no allowance is set: it is fitted to the episode's model seats when the seat is built
    assert (cli.max_tokens, cli.call_timeout_seconds, cli.allowance_seconds) == (
        defaults.MAX_TOKENS,
        defaults.CALL_TIMEOUT_SECONDS,
        None,
    )
    assert cli.provider.transport == defaults.TRANSPORT == "aiohttp"
    assert CompletionRequest(model="m", messages=()).max_tokens == defaults.MAX_TOKENS
    assert CompletionRequest(model="m", messages=()).timeout_s == defaults.CALL_TIMEOUT_SECONDS
    assert RetryPolicy().call_timeout_s == defaults.CALL_TIMEOUT_SECONDS
    for provider in (OpenAIProvider, AnthropicProvider):
        transport = inspect.signature(provider).parameters["transport"].default
        assert transport == defaults.TRANSPORT
    assert PythonSeatConfig(python="a:b").timeout_seconds == defaults.AGENT_TIMEOUT_SECONDS
    # the command line sets nothing itself: an option left out is the model's default
    play = build_parser().parse_args(["play", "--seed", "1"])
    assert (play.max_tokens, play.call_timeout, play.transport, play.agent_timeout) == (
        None,
        None,
        None,
        None,
    )


@pytest.mark.parametrize(("runners", "allowance"), [("wallhug", 180.0), ("openai:m", 450.0)])
def test_a_call_timeout_on_the_command_line_widens_the_turn_with_it(
    monkeypatch: pytest.MonkeyPatch, runners: str, allowance: float
) -> None:
    # The turn covers the seat's own call queued behind the other model seats' calls,
    # then its retry: call timeout x (model seats + 1).
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-allowance")
    args = build_parser().parse_args(["play", "--seed", "1", "--call-timeout", "90"])
    from harness.commands.seats import seat_configs, seating
    from harness.seating import seats_of_groups

    args.keeper, args.runners = "openai:m", runners
    game = registry.get_game("lighthouse")
    specs = seat_configs(game, args)
    spec = specs["keeper"]
    assert isinstance(spec, LLMSeatConfig)
    assert (spec.call_timeout_seconds, spec.allowance_seconds) == (90.0, None)

    async def built() -> float:
        async with seating(game, args) as seats:
            keeper = seats.seat(seats_of_groups(game, specs))["keeper"]
            assert isinstance(keeper, LLMSeat)
            return keeper.allowance_s

    assert asyncio.run(built()) == allowance


def test_the_allowance_must_cover_a_call_in_configs_too() -> None:
    with pytest.raises(ValueError, match="allowance_seconds must be at least call_timeout"):
        from_toml(
            '{ provider = "p", model = "m", call_timeout_seconds = 30, allowance_seconds = 10 }'
        )


def test_the_prompt_layout_is_written_once(tmp_path: Path) -> None:
    files = PromptFiles.in_folder(tmp_path, "runner")
    assert (files.system.name, files.observation.name, files.retry_hint.name) == (
        "runner.system.md",
        "runner.observation.md",
        "retry-hint.md",
    )


def test_the_seat_factory_closes_its_clients_when_the_block_ends() -> None:
    options = LLMSeatOptions.model_validate(
        {"provider": {"kind": "openai", "api_key_env": "SEAT_SPEC_KEY"}, "model": "m"}
    )

    clients: list[Any] = []

    async def go() -> None:
        async with SeatFactory({"SEAT_SPEC_KEY": "sk-seat-spec-0123456789"}) as factory:
            provider = factory.provider(options.provider)
            assert not provider._client.is_closed()  # type: ignore[attr-defined]
            clients.append(provider._client)  # type: ignore[attr-defined]
            raise RuntimeError("inside")

    with pytest.raises(RuntimeError, match="inside"):
        asyncio.run(go())
    assert clients
    assert all(client.is_closed() for client in clients)


def pilot_game() -> GameEntry:
    """Relayroam under another name, whose one seat group is called ``pilot``."""
    return dataclasses.replace(
        registry.get_game("relayroam"),
        name="pilotroam",
        seat_groups=(SeatGroup("pilot", "player", ("player",)),),
        api=None,
    )


def test_a_new_game_gets_its_seat_flag_without_a_cli_edit(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(registry.GAMES, "pilotroam", pilot_game)
    registry.get_game.cache_clear()
    monkeypatch.setattr(registry, "get_game", registry.get_game)
    args = build_parser().parse_args(["play", "--game", "pilotroam", "--seed", "3", "--pilot", "x"])
    assert args.pilot == "x"
    assert (
        main(
            [
                "play",
                "--game",
                "pilotroam",
                "--seed",
                "3",
                "--pilot",
                "vent-aware-greedy",
                "--quiet",
            ]
        )
        == 0
    )
    assert "Pilotroam, seed 3, variant default: pilot vent-aware-greedy" in capsys.readouterr().out
    # and Lighthouse's flags are not the new game's
    assert main(["play", "--game", "pilotroam", "--seed", "3", "--keeper", "lantern"]) == 2
    assert (
        "--keeper: pilotroam has no such seat; its seats are ['pilot']" in capsys.readouterr().err
    )


def test_a_config_names_the_key_of_an_agent_it_cannot_import(tmp_path: Path) -> None:
    config = tmp_path / "t.toml"
    config.write_text(
        'name = "t"\nseeds = [1]\n[[entrants]]\nname = "a"\n'
        'keeper = { python = "agents_not_written_yet:keeper" }\nrunners = { baseline = "wallhug" }\n'
    )
    with pytest.raises(ConfigError) as info:
        load_tournament(config)
    assert (
        f"{config}: entrant 'a', keeper.python: agents_not_written_yet:keeper: no module 'agents_not_written_yet'"
        in str(info.value)
    )
    config.write_text(config.read_text().replace("agents_not_written_yet:keeper", "nocolon"))
    with pytest.raises(
        ConfigError, match=r"entrant 'a', keeper\.python: 'nocolon' is not MODULE:CALLABLE"
    ):
        load_tournament(config)
    config.write_text(
        config.read_text().replace('python = "nocolon"', 'python = "x:y", colour = 1')
    )
    with pytest.raises(
        ConfigError, match=r"entrant 'a', keeper\.colour: Extra inputs are not permitted"
    ):
        load_tournament(config)


def test_a_config_imports_its_agent_from_its_own_folder(tmp_path: Path) -> None:
    (tmp_path / "agents_next_to_the_config.py").write_text("def keeper(given):\n    return '{}'\n")
    config = tmp_path / "t.toml"
    config.write_text(
        'name = "t"\nseeds = [1]\n[[entrants]]\nname = "a"\n'
        'keeper = { python = "agents_next_to_the_config:keeper", timeout_seconds = 5 }\n'
        'runners = { baseline = "wallhug" }\n'
    )
    loaded = load_tournament(config)
    keeper = loaded.entrants[0].seats["keeper"]
    assert keeper == PythonSeatConfig(python="agents_next_to_the_config:keeper", timeout_seconds=5)


def test_a_baseline_of_another_role_is_refused_where_it_was_named() -> None:
    from harness.seating.build import build_seat, check_baseline

    game = registry.get_game("lighthouse")
    check_baseline(game, "runner", "scout")  # one of the role's: nothing to say
    spec = BaselineSeatConfig(baseline="scoot")
    with pytest.raises(ConfigError) as bare:  # a seat built from a spec alone
        build_seat(game, "runner", spec, factory=SeatFactory({}), providers={})
    assert str(bare.value) == (
        "baseline: 'scoot' is not a runner baseline; choose one of ['wallhug', 'scout']"
    )
    with pytest.raises(ConfigError) as in_a_config:
        check_baseline(game, "keeper", "scout", "t.toml: entrant 'x', keeper")
    assert str(in_a_config.value) == (
        "t.toml: entrant 'x', keeper.baseline: 'scout' is not a keeper baseline; "
        "choose one of ['lantern', 'silent', 'pilot']"
    )
