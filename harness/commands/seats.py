"""Seat specs on the command line: one flag per seat group of every hosted game.

``play`` and ``replay --until-tick`` take one spec per seat group (Lighthouse:
``--keeper``, ``--runners``; Relayroam: ``--player``): a baseline's name,
``openai:MODEL`` or ``anthropic:MODEL``, or ``python:MODULE:CALLABLE``. The flags come
from the games' seat groups, so a new game needs no edit here; the strings parse into
the same models a config uses (:mod:`harness.seat_spec`), with the shared options
below, and are seated by the one seating lifecycle (:mod:`harness.seating`).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Literal, get_args

from harness import defaults
from harness.commands.parser import at_least, number, seconds
from harness.errors import ConfigError

if TYPE_CHECKING:
    from harness.llm.options import ProviderOptions
    from harness.protocol import GameEntry
    from harness.seat_spec import SeatConfig
    from harness.seating import Seating


def group_flags() -> dict[str, str]:
    """Every seat group's option across the hosted games, with its help text."""
    from harness.registry import game_names, get_game

    helps: dict[str, list[str]] = {}
    for name in game_names():
        game = get_game(name)
        for group in game.seat_groups:
            choices = ", ".join(game.baseline_names(group.role))
            helps.setdefault(group.key, []).append(f"{name} {group.key}: {choices}")
    return {
        key: "; ".join(parts) + "; or openai:MODEL, anthropic:MODEL, python:MODULE:CALLABLE"
        for key, parts in helps.items()
    }


def add_seat_arguments(parser: argparse.ArgumentParser) -> None:
    """A flag per seat group of every game, and the options of model and agent seats."""
    for key, text in group_flags().items():
        parser.add_argument(
            f"--{key}", metavar="SPEC", help=text + " (default: the first baseline)"
        )
    _add_model_options(parser)
    _add_provider_options(parser)
    _add_agent_options(parser)


def _add_model_options(parser: argparse.ArgumentParser) -> None:
    """The options of every model seat: its server and key, prompts, sampling, timing,
    reply shape, history and transport."""
    from harness.llm.shapes import SHAPES

    parser.add_argument(
        "--base-url",
        metavar="URL",
        action="append",
        help="an OpenAI-compatible server (vLLM, Ollama, ...) (default: the provider's own); "
        "repeat it for a fleet of replicas, each call to the one with the fewest in flight",
    )
    parser.add_argument(
        "--api-key-env",
        metavar="NAME",
        help="environment variable holding the API key (default: OPENAI_API_KEY or "
        "ANTHROPIC_API_KEY)",
    )
    parser.add_argument(
        "--prompts",
        type=Path,
        metavar="DIR",
        help="a folder of prompt files to use instead (default: prompts/<game>/)",
    )
    parser.add_argument(
        "--temperature",
        type=number(0, 2),
        metavar="T",
        help="sampling temperature of model seats, 0..2 (default: the provider's)",
    )
    parser.add_argument(
        "--max-tokens",
        type=at_least(1),
        metavar="N",
        help=f"the most tokens a model may write in one reply (default: {defaults.MAX_TOKENS}; "
        f"{defaults.REASONING_MAX_TOKENS} with --reasoning-effort, the budget + "
        f"{defaults.MAX_TOKENS} with --thinking-budget)",
    )
    parser.add_argument(
        "--call-timeout",
        type=seconds(),
        metavar="S",
        help=f"seconds per model call, at most a day (default: {defaults.CALL_TIMEOUT_SECONDS:g}; "
        f"{defaults.REASONING_CALL_TIMEOUT_SECONDS:g} for a reasoning seat, "
        f"{defaults.FLEX_CALL_TIMEOUT_SECONDS:g} on the flex tier)",
    )
    parser.add_argument(
        "--allowance",
        type=seconds(),
        metavar="S",
        help="seconds a model seat has per tick, retries included, at most a day "
        "(default: --call-timeout x (model seats + 1))",
    )
    parser.add_argument(
        "--structured",
        action="store_true",
        help="ask for schema-constrained JSON replies (the same as --structured-output auto)",
    )
    parser.add_argument(
        "--structured-output",
        choices=("auto", *SHAPES, "off"),
        help="the shape of structured output: auto tries the server's shapes in order "
        "(default: off, or auto with --structured)",
    )
    parser.add_argument(
        "--history",
        type=at_least(0),
        metavar="K",
        help="send model seats their last K ticks (prompts and replies) as a conversation "
        "(default: 0, each tick alone)",
    )
    parser.add_argument(
        "--prompt-cache",
        action="store_true",
        help="ask the provider to cache the prompts' stable start (Anthropic cache_control, "
        "OpenAI prompt_cache_key)",
    )
    parser.add_argument(
        "--transport",
        choices=("aiohttp", "httpx"),
        help=f"the SDKs' HTTP transport (default: {defaults.TRANSPORT})",
    )


def _add_provider_options(parser: argparse.ArgumentParser) -> None:
    """The options that only one provider's model seats take."""
    from harness.llm.options import MIN_THINKING_BUDGET
    from harness.llm.types import MaxTokensField, ReasoningEffort, ServiceTier

    parser.add_argument(
        "--reasoning-effort",
        choices=get_args(ReasoningEffort),
        help=_only(
            "openai", "an OpenAI reasoning model's effort (o-series, GPT-5 family)", "the model's"
        ),
    )
    parser.add_argument(
        "--thinking-budget",
        type=at_least(MIN_THINKING_BUDGET),
        metavar="N",
        help=_only(
            "anthropic",
            "Anthropic extended thinking: the most tokens a model may think in, at least "
            f"{MIN_THINKING_BUDGET}",
            "off",
        ),
    )
    parser.add_argument(
        "--service-tier",
        choices=get_args(ServiceTier),
        help=_only(
            "openai", "OpenAI's service tier, flex being cheaper and slower", "the account's"
        ),
    )
    parser.add_argument(
        "--max-tokens-field",
        choices=get_args(MaxTokensField),
        help=_only(
            "openai",
            "the field --max-tokens is sent in",
            "max_completion_tokens to OpenAI itself or with --reasoning-effort, else max_tokens",
        ),
    )


def _only(provider: Literal["openai", "anthropic"], does: str, default: str) -> str:
    """The help of an option that only ``provider``'s model seats use."""
    return f"{does} ({provider}: seats only) (default: {default})"


def _add_agent_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``python:`` seats."""
    parser.add_argument(
        "--agent-timeout",
        type=seconds(),
        metavar="S",
        help="seconds per call of a python: seat, at most a day "
        f"(default: {defaults.AGENT_TIMEOUT_SECONDS:g})",
    )
    parser.add_argument(
        "--agent-isolation",
        choices=("process", "none"),
        help="where a python: seat runs: process (worker processes of its own, killed when a "
        "call outlasts its timeout) or none (this process) (default: process)",
    )


def given_specs(game: GameEntry, args: argparse.Namespace) -> dict[str, str]:
    """The seat-group specs given on the command line, checked against the game."""
    keys = {g.key for g in game.seat_groups}
    given = {k: getattr(args, k) for k in group_flags() if getattr(args, k, None) is not None}
    for key in given:
        if key not in keys:
            raise ConfigError(
                f"--{key}: {game.name} has no such seat; its seats are {sorted(keys)}"
            )
    return given


def seat_configs(game: GameEntry, args: argparse.Namespace) -> dict[str, SeatConfig]:
    """The given specs as seat models (group key -> spec), the flags' options applied."""
    from harness.seat_spec import parse_seat_arg

    groups = {g.key: g for g in game.seat_groups}
    timeout = args.call_timeout
    options = {
        "temperature": args.temperature,
        "max_tokens": args.max_tokens,
        "structured_output": _structured(args),
        "history": getattr(args, "history", None),
        "prompt_cache": True if getattr(args, "prompt_cache", False) else None,
        "reasoning_effort": getattr(args, "reasoning_effort", None),
        "thinking_budget": getattr(args, "thinking_budget", None),
        "service_tier": getattr(args, "service_tier", None),
        "max_tokens_field": getattr(args, "max_tokens_field", None),
        "call_timeout_seconds": timeout,
        # None: the default for the episode's model seats (see harness.llm.deadlines)
        "allowance_seconds": args.allowance,
        "timeout_seconds": args.agent_timeout,
        "isolation": getattr(args, "agent_isolation", None),
    }
    return {
        key: parse_seat_arg(
            text,
            role=groups[key].role,
            baselines=game.baseline_names(groups[key].role),
            options=options,
            prompts=args.prompts,
            where=f"--{key}",
        )
        for key, text in given_specs(game, args).items()
    }


def providers(args: argparse.Namespace) -> dict[str, ProviderOptions]:
    """The providers ``openai:MODEL`` and ``anthropic:MODEL`` name, from the flags."""
    from harness.seat_spec import cli_providers

    return cli_providers(
        base_url=args.base_url, api_key_env=args.api_key_env, transport=args.transport
    )


def check_seat_keys(
    game: GameEntry, specs: dict[str, SeatConfig], args: argparse.Namespace
) -> None:
    """Read and check the key of every model seat in ``specs`` before anything is printed."""
    from harness.seating import check_seat_keys as check

    check(specs.values(), providers(args))


def _structured(args: argparse.Namespace) -> bool | str | None:
    choice = getattr(args, "structured_output", None)
    if choice is not None:
        return False if choice == "off" else str(choice)
    return "auto" if args.structured else None


def seating(game: GameEntry, args: argparse.Namespace) -> Seating:
    """The seating of a command's seats: the flags' providers, and Python agents looked
    for in the current folder too."""
    from harness.seating import Seating

    return Seating(game, providers=providers(args), search=(Path.cwd(),))


__all__ = [
    "add_seat_arguments",
    "check_seat_keys",
    "given_specs",
    "group_flags",
    "providers",
    "seat_configs",
    "seating",
]
