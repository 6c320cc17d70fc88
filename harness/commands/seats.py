"""Seat specs on the command line: a baseline's name, or ``openai:MODEL``/``anthropic:MODEL``.

``play`` and ``replay --until-tick`` take one spec per seat group of the game
(Lighthouse: ``--keeper``, ``--runners``; Relayroam: ``--player``) and share the LLM
options below.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from harness.errors import ConfigError
from harness.game import Game, SeatGroup
from harness.llm.deadlines import default_allowance
from harness.llm.keys import check_keys
from harness.llm.options import LLMSeatOptions
from harness.llm.seat import SeatFactory
from harness.llm.shapes import SHAPES
from harness.seats import BaselineSeat, Seat
from harness.validation import format_validation_error

#: The seat-group options the command line knows, across every hosted game.
GROUP_OPTIONS = ("keeper", "runners", "player")


def add_seat_arguments(parser: argparse.ArgumentParser) -> None:
    """``--keeper``, ``--runners``, ``--player`` and the LLM seat options."""
    parser.add_argument(
        "--keeper", help="Lighthouse keeper: lantern, silent, pilot, openai:MODEL, ..."
    )
    parser.add_argument("--runners", help="Lighthouse runners: wallhug, openai:MODEL, ...")
    parser.add_argument("--player", help="Relayroam player: greedy, openai:MODEL, ...")
    parser.add_argument("--base-url", help="an OpenAI-compatible server (vLLM, Ollama, ...)")
    parser.add_argument(
        "--api-key-env", help="environment variable holding the API key (default per provider)"
    )
    parser.add_argument("--prompts", type=Path, help="a folder of prompt files to use instead")
    parser.add_argument("--temperature", type=float)
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--call-timeout", type=float, default=60.0, help="seconds per call")
    parser.add_argument(
        "--allowance",
        type=float,
        help="seconds a model seat has per tick, retries included "
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
        help="the shape of structured output: auto tries the server's shapes in order",
    )
    parser.add_argument("--transport", choices=("aiohttp", "httpx"), default="aiohttp")


def given_specs(game: Game[Any], args: argparse.Namespace) -> dict[str, str]:
    """The seat-group specs given on the command line, checked against the game."""
    keys = {g.key for g in game.seat_groups()}
    given = {k: getattr(args, k) for k in GROUP_OPTIONS if getattr(args, k, None) is not None}
    for key in given:
        if key not in keys:
            raise ConfigError(
                f"--{key}: {game.name} has no such seat; its seats are {sorted(keys)}"
            )
    return given


def baseline_of(game: Game[Any], spec: str, role: str) -> str | None:
    """The baseline a spec names (``baseline`` = the role's default), or None."""
    names = game.baselines(role)
    if spec == "baseline":
        return names[0]
    return spec if spec in names else None


def seat_options(
    game: Game[Any], group: SeatGroup, spec: str, args: argparse.Namespace
) -> LLMSeatOptions | None:
    """A spec as LLM options; None when it names a baseline."""
    if baseline_of(game, spec, group.role) is not None:
        return None
    kind, _, model = spec.partition(":")
    if kind not in ("openai", "anthropic") or not model:
        choices = ", ".join(game.baselines(group.role))
        raise ConfigError(
            f"--{group.key}: {spec!r} is not a baseline ({choices}), "
            "openai:MODEL or anthropic:MODEL"
        )
    prompts = None
    if args.prompts is not None:
        prompts = {
            "system": args.prompts / f"{group.role}.system.md",
            "observation": args.prompts / f"{group.role}.observation.md",
            "retry_hint": args.prompts / "retry-hint.md",
        }
    data: dict[str, Any] = {
        "provider": {
            "kind": kind,
            "base_url": args.base_url,
            "api_key_env": args.api_key_env,
            "transport": args.transport,
        },
        "model": model,
        "prompts": prompts,
        "temperature": args.temperature,
        "max_tokens": args.max_tokens,
        "structured_output": _structured(args),
        "call_timeout_seconds": args.call_timeout,
        "allowance_seconds": args.allowance,
    }
    try:
        return LLMSeatOptions.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(format_validation_error(exc, "seat options")) from None


def _structured(args: argparse.Namespace) -> bool | str:
    choice = getattr(args, "structured_output", None)
    if choice is not None:
        return False if choice == "off" else str(choice)
    return "auto" if args.structured else False


def fit_allowance(options: LLMSeatOptions, model_seats: int) -> LLMSeatOptions:
    """``options`` with the default allowance for ``model_seats`` when none was given."""
    if options.allowance_seconds is not None:
        return options
    allowance = default_allowance(options.call_timeout_seconds, model_seats)
    return options.model_copy(update={"allowance_seconds": allowance})


def check_seat_keys(game: Game[Any], specs: dict[str, str], args: argparse.Namespace) -> None:
    """Read and check the key of every LLM seat in ``specs`` before anything is printed."""
    groups = {g.key: g for g in game.seat_groups()}
    options = (seat_options(game, groups[key], spec, args) for key, spec in specs.items())
    check_keys(o.provider for o in options if o is not None)


def build_seats(
    game: Game[Any], specs: dict[str, str], args: argparse.Namespace, factory: SeatFactory
) -> dict[str, Seat]:
    """Seats for every seat of the groups in ``specs`` (group key -> spec)."""
    seats: dict[str, Seat] = {}
    models = model_seats(game, specs)
    for group in game.seat_groups():
        spec = specs.get(group.key)
        if spec is None:
            continue
        options = seat_options(game, group, spec, args)
        for seat in group.seats:
            if options is not None:
                seats[seat] = factory.seat(game, group.role, fit_allowance(options, models))
            else:
                seats[seat] = BaselineSeat(baseline_of(game, spec, group.role) or "")
    return seats


def model_seats(game: Game[Any], specs: dict[str, str]) -> int:
    """How many seats of the game ``specs`` give to a model."""
    return sum(
        len(group.seats)
        for group in game.seat_groups()
        if group.key in specs and baseline_of(game, specs[group.key], group.role) is None
    )


__all__ = [
    "GROUP_OPTIONS",
    "add_seat_arguments",
    "baseline_of",
    "build_seats",
    "check_seat_keys",
    "fit_allowance",
    "given_specs",
    "model_seats",
    "seat_options",
]
