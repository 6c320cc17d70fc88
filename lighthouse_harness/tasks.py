"""The Inspect tasks: every game the harness hosts, one sample per (seed, variant).

    inspect eval lighthouse_harness/lighthouse_keeper --model openai/gpt-4o-mini \\
        -T seeds=0:50 -T variant=spring

Every task takes ``seeds`` (``0:50``, ``10-20``, ``3,5,8``; see
:mod:`lighthouse_harness.params`), ``variant`` (one or a comma list; default the
game's first), ``prompts`` (a folder with the roles' prompt files), ``structured_output``
(``false``, ``auto`` or a shape, as in a tournament config), ``rules`` (the game's
rules overrides, e.g. ``-T rules="{maxTicks: 20}"``) and ``call_timeout`` (seconds
one model call may take before the turn falls back).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from pydantic import ValidationError

from harness import defaults
from harness.api import Env
from harness.errors import ConfigError
from harness.llm.options import LLMSettings, PromptFiles
from harness.llm.prompts import PromptSet
from harness.llm.shapes import StructuredOutput
from harness.registry import get_game
from harness.validation import format_validation_error
from lighthouse_harness.params import Seeds, parse_rules, parse_seeds, parse_variants
from lighthouse_harness.scorer import game_score
from lighthouse_harness.solver import MODEL, play_episode


@task
def lighthouse_keeper(
    seeds: Seeds = "0:10",
    variant: str | Sequence[str] | None = None,
    prompts: str | None = None,
    structured_output: bool | StructuredOutput = False,
    rules: Mapping[str, Any] | str | None = None,
    call_timeout: float = defaults.CALL_TIMEOUT_SECONDS,
    runners: str = "wallhug",
) -> Task:
    """Lighthouse with the model as the keeper (role ``keeper``) and scripted runners."""
    return game_task(
        "lighthouse",
        {"keeper": MODEL, "runners": runners},
        seeds=seeds,
        variant=variant,
        prompts=prompts,
        structured_output=structured_output,
        rules=rules,
        call_timeout=call_timeout,
    )


@task
def lighthouse_team(
    seeds: Seeds = "0:10",
    variant: str | Sequence[str] | None = None,
    prompts: str | None = None,
    structured_output: bool | StructuredOutput = False,
    rules: Mapping[str, Any] | str | None = None,
    call_timeout: float = defaults.CALL_TIMEOUT_SECONDS,
) -> Task:
    """Lighthouse played by models in every seat: the keeper (role ``keeper``) and the
    three runners (role ``runner``); a role not given plays the task's model."""
    return game_task(
        "lighthouse",
        {"keeper": MODEL, "runners": MODEL},
        seeds=seeds,
        variant=variant,
        prompts=prompts,
        structured_output=structured_output,
        rules=rules,
        call_timeout=call_timeout,
    )


@task
def relayroam_player(
    seeds: Seeds = "0:10",
    variant: str | Sequence[str] | None = None,
    prompts: str | None = None,
    structured_output: bool | StructuredOutput = False,
    rules: Mapping[str, Any] | str | None = None,
    call_timeout: float = defaults.CALL_TIMEOUT_SECONDS,
) -> Task:
    """Relayroam with the model as the player (role ``player``)."""
    return game_task(
        "relayroam",
        {"player": MODEL},
        seeds=seeds,
        variant=variant,
        prompts=prompts,
        structured_output=structured_output,
        rules=rules,
        call_timeout=call_timeout,
    )


@task
def hourloom_player(
    seeds: Seeds = "0:10",
    variant: str | Sequence[str] | None = None,
    prompts: str | None = None,
    structured_output: bool | StructuredOutput = False,
    rules: Mapping[str, Any] | str | None = None,
    call_timeout: float = defaults.CALL_TIMEOUT_SECONDS,
) -> Task:
    """Hourloom with the model as the player (role ``player``)."""
    return game_task(
        "hourloom",
        {"player": MODEL},
        seeds=seeds,
        variant=variant,
        prompts=prompts,
        structured_output=structured_output,
        rules=rules,
        call_timeout=call_timeout,
    )


def game_task(
    game: str,
    seats: Mapping[str, str],
    *,
    seeds: Seeds,
    variant: str | Sequence[str] | None,
    prompts: str | None,
    structured_output: bool | StructuredOutput,
    rules: Mapping[str, Any] | str | None,
    call_timeout: float,
) -> Task:
    """A task of ``game`` whose seat groups ``seats`` names (model or baseline).

    Every parameter is checked here, before any sample runs: a bad one is a
    :class:`ConfigError` naming it.
    """
    entry = get_game(game)
    overrides = parse_rules(rules)
    variants = parse_variants(entry, variant)
    for one in variants:
        Env(entry, variant=one, rules=overrides)  # the rules' own checks, once per variant
    roles = {group.key: group.role for group in entry.seat_groups}
    for key, player in seats.items():
        if player != MODEL and player not in entry.baseline_names(roles[key]):
            raise ConfigError(
                f"{key}: {player!r} is not a {roles[key]} baseline; "
                f"choose one of {list(entry.baseline_names(roles[key]))}"
            )
    try:  # the settings a model seat takes, checked as a tournament config's are
        LLMSettings.model_validate(
            {
                "model": "-",
                "structured_output": structured_output,
                "call_timeout_seconds": call_timeout,
            }
        )
    except ValidationError as exc:
        raise ConfigError(format_validation_error(exc, game)) from None
    if prompts is not None:
        for key, player in seats.items():
            if player == MODEL:
                PromptSet.load(PromptFiles.in_folder(Path(prompts), roles[key]))
    samples = [
        Sample(
            id=f"{one}-s{seed}",
            input=f"{game}, variant {one}, seed {seed}: {_players(seats)}",
            metadata={"game": game, "seed": seed, "variant": one},
        )
        for one in variants
        for seed in parse_seeds(seeds)
    ]
    return Task(
        dataset=samples,
        solver=play_episode(
            game,
            seats,
            rules=overrides,
            prompts=prompts,
            structured_output=structured_output,
            call_timeout=call_timeout,
        ),
        scorer=game_score(),
        metadata={"game": game, "seats": dict(seats), "rules": overrides},
    )


def _players(seats: Mapping[str, str]) -> str:
    return ", ".join(f"{key} {player}" for key, player in seats.items())


__all__ = [
    "game_task",
    "hourloom_player",
    "lighthouse_keeper",
    "lighthouse_team",
    "relayroam_player",
]
