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

import inspect
from collections.abc import Callable, Mapping, Sequence
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

#: A task's choice of players (model or baseline) for its game's seat groups, by seat
#: group key; its own parameters become the task's.
SeatChoice = Callable[..., Mapping[str, str]]


def seated_task(game: str) -> Callable[[SeatChoice], Callable[..., Task]]:
    """Make a choice of players into a task function of ``game`` (:func:`game_task`).

    The task function takes the parameters every task takes (see the module's
    docstring), then the choice's own, keyword only; it bears the choice's name and
    docstring, so that ``@task`` registers it under that name and Inspect's ``-T``
    reaches each of its parameters.
    """

    def make(choose: SeatChoice) -> Callable[..., Task]:
        def task_function(
            seeds: Seeds = "0:10",
            variant: str | Sequence[str] | None = None,
            prompts: str | None = None,
            structured_output: bool | StructuredOutput = False,
            rules: Mapping[str, Any] | str | None = None,
            call_timeout: float = defaults.CALL_TIMEOUT_SECONDS,
            **choice: str,
        ) -> Task:
            return game_task(
                game,
                choose(**choice),
                seeds=seeds,
                variant=variant,
                prompts=prompts,
                structured_output=structured_output,
                rules=rules,
                call_timeout=call_timeout,
            )

        for name in ("__module__", "__name__", "__qualname__", "__doc__"):
            setattr(task_function, name, getattr(choose, name))
        # Inspect reads a task's parameters from its signature: the common ones, then
        # the choice's (in place of the catch-all that passes them on).
        common = inspect.signature(task_function).parameters.values()
        own = inspect.signature(choose).parameters.values()
        task_function.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [
                *(p for p in common if p.kind is not inspect.Parameter.VAR_KEYWORD),
                *(p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own),
            ],
            return_annotation=inspect.signature(task_function).return_annotation,
        )
        return task_function

    return make


@task
@seated_task("lighthouse")
def lighthouse_keeper(runners: str = "wallhug") -> Mapping[str, str]:
    """Lighthouse with the model as the keeper (role ``keeper``) and scripted runners."""
    return {"keeper": MODEL, "runners": runners}


@task
@seated_task("lighthouse")
def lighthouse_team() -> Mapping[str, str]:
    """Lighthouse played by models in every seat: the keeper (role ``keeper``) and the
    three runners (role ``runner``); a role not given plays the task's model."""
    return {"keeper": MODEL, "runners": MODEL}


@task
@seated_task("relayroam")
def relayroam_player() -> Mapping[str, str]:
    """Relayroam with the model as the player (role ``player``)."""
    return {"player": MODEL}


@task
@seated_task("hourloom")
def hourloom_player() -> Mapping[str, str]:
    """Hourloom with the model as the player (role ``player``)."""
    return {"player": MODEL}


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
    "seated_task",
]
