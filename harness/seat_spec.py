"""Who plays a seat: one specification for configs, the command line and the Python API.

In a tournament config (TOML) a seat is one of::

    { baseline = "lantern" }                          the role's scripted baseline
    { provider = "openai", model = "gpt-4o-mini" }    a model, through a [providers] entry
    { python = "my_agents:keeper" }                   your own agent: a Python callable
    { human = "Ada" }                                 a person, on a page (lighthouse serve)

On the command line the same three are strings, which :func:`parse_seat_arg` turns
into the same models: ``lantern`` (``baseline`` is the role's first baseline),
``openai:MODEL`` or ``anthropic:MODEL`` (the LLM flags fill in the rest, and name
the provider's settings), and ``python:MODULE:CALLABLE``. Every default comes from
:mod:`harness.defaults`. A person's seat (``human``) is played on a page, never by a
run: a run plays the rest of a config and leaves a human entrant's episodes to the
page (``lighthouse add`` joins them to a results folder).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, Self

from pydantic import (
    Discriminator,
    Field,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)

from harness import defaults
from harness.errors import ConfigError
from harness.llm.options import (
    LLMSeatOptions,
    LLMSettings,
    PromptFiles,
    ProviderOptions,
    default_structured_output,
)
from harness.records import AgentInfo
from harness.validation import (
    StrictModel,
    format_validation_error,
    seconds_field,
    short_repr,
    validated,
)

#: ``MODULE:CALLABLE``: a dotted module path, a colon, a dotted attribute path. Each
#: dot separates two names, so matching is linear.
IMPORT_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
#: The program being run: an agent there runs in the harness's process.
MAIN_MODULE = "__main__"
#: The provider kinds a command-line spec may name (``openai:MODEL``).
CLI_PROVIDERS: tuple[Literal["openai", "anthropic"], ...] = ("openai", "anthropic")


class BaselineSeatConfig(StrictModel):
    """A seat played by a scripted baseline of its role, e.g. ``{ baseline = "lantern" }``."""

    baseline: str


class LLMSeatConfig(LLMSettings):
    """A seat played by a model through a named provider."""

    provider: str = Field(
        description="A key of [providers]; on the command line, openai or anthropic."
    )

    def resolve(self, providers: Mapping[str, ProviderOptions]) -> LLMSeatOptions:
        """The seat's settings with its provider looked up in ``providers``.

        Raises :class:`ConfigError` for a provider not there, and for an option the
        provider's kind does not take (:data:`~harness.llm.options.PROVIDER_ONLY`).
        """
        try:
            provider = providers[self.provider]
        except KeyError:
            raise ConfigError(
                f"provider: there is no provider {self.provider!r} (there are: "
                f"{', '.join(sorted(providers)) or 'none'}); a config defines one in a "
                f"[providers.{self.provider}] table, the Python API in providers="
            ) from None
        spec = self.with_defaults(provider)
        settings = {name: getattr(spec, name) for name in LLMSettings.model_fields}
        try:
            return LLMSeatOptions(provider=provider, **settings)
        except ValidationError as exc:
            # an option the provider does not take (reasoning_effort on an Anthropic
            # seat, say): said as the seat's own problem, not as a traceback
            raise ConfigError(format_validation_error(exc, "seat")) from None

    def with_defaults(self, provider: ProviderOptions) -> LLMSeatConfig:
        """This spec with the defaults that depend on its provider made explicit: an
        unset ``structured_output`` (:func:`default_structured_output`)."""
        if "structured_output" in self.model_fields_set:
            return self
        shape = default_structured_output(provider)
        return self.model_copy(update={"structured_output": shape})


class PythonSeatConfig(StrictModel):
    """A seat played by your own Python callable, e.g. ``{ python = "my_agents:keeper" }``.

    The callable gets an :class:`harness.agents.AgentInput` and returns the reply text
    or a decision; see docs/agents.md.
    """

    python: str = Field(description="MODULE:CALLABLE, e.g. my_agents:keeper.", max_length=300)
    timeout_seconds: float = seconds_field(
        defaults.AGENT_TIMEOUT_SECONDS,
        description="Bound of one call, at most a day; past it the role's baseline answers "
        "(fallback_timeout).",
    )
    prompts: PromptFiles | None = Field(
        None, description="The prompts its input's text is made of; defaults to prompts/<game>/."
    )
    isolation: Literal["process", "none"] | None = Field(
        None,
        # how the agent is run, not who plays: not part of the config's hash, so an
        # entrant keeps its identity (and a resume its episodes) whichever is chosen
        exclude=True,
        description="Where it runs: process (worker processes of its own, killed on a "
        "timeout; the default) or none (the harness's process). See docs/agents.md.",
    )

    @field_validator("python")
    @classmethod
    def _is_an_import_path(cls, value: str) -> str:
        if not IMPORT_PATH.fullmatch(value):
            raise ValueError(f"{short_repr(value)} is not MODULE:CALLABLE, e.g. my_agents:keeper")
        return value

    @model_validator(mode="after")
    def _main_runs_here(self) -> Self:
        if self.isolation == "process" and self.python.startswith(f"{MAIN_MODULE}:"):
            raise ValueError(
                f'isolation = "process": a worker process cannot import {MAIN_MODULE} (the '
                'program being run); move the agent into a module, or use isolation = "none"'
            )
        return self

    def runs_in(self) -> Literal["process", "none"]:
        """Where the agent runs: as asked, else in worker processes (``process``), but
        for one in ``__main__``, which only this process has (``none``)."""
        if self.isolation is not None:
            return self.isolation
        return "none" if self.python.startswith(f"{MAIN_MODULE}:") else "process"


#: A person's name as a seat shows it: a letter or digit, then up to 39 letters, digits,
#: spaces and ``_ . ' -``. No ``:``, so it never reads as ``PROVIDER:MODEL``.
HUMAN_NAME = re.compile(r"[^\W_][\w .'-]{0,39}")


class HumanSeatConfig(StrictModel):
    """A seat played by a person on a page (decision L4), e.g. ``{ human = "Ada" }``.

    The person's replies are judged as any seat's are: parsed, sent back once with a
    hint, then the role's baseline (``human``, ``human_retry``, ``fallback_parse``).
    There is no wall-clock play budget; with ``tick_seconds`` a tick left unanswered
    that long is the seat's fallback, tagged ``fallback_timeout``.
    """

    human: str = Field(
        description="The player's chosen name: a letter or digit, then up to 39 letters, "
        "digits, spaces and _ . ' -",
        max_length=40,
    )
    tick_seconds: float | None = seconds_field(
        None,
        description="A per-tick timer, at most a day: a tick the person leaves unanswered "
        "that long is the role's baseline (fallback_timeout). None: no timer.",
    )

    @field_validator("human")
    @classmethod
    def _is_a_name(cls, value: str) -> str:
        if not HUMAN_NAME.fullmatch(value) or value != value.rstrip():
            raise ValueError(
                f"{short_repr(value)} is not a player's name: a letter or digit, then up to "
                "39 letters, digits, spaces and _ . ' - (no trailing space)"
            )
        return value

    def agent(self) -> AgentInfo:
        """The seat's agent, as its record's header names it."""
        details = {} if self.tick_seconds is None else {"tickSeconds": f"{self.tick_seconds:g}"}
        return AgentInfo(kind="human", name=self.human, details=details)


#: The episode timeout of an episode a person plays: the longest any config may have,
#: so its record's config states that it had no wall-clock play budget (decision L4;
#: a per-tick timer, when set, is the seat's ``tickSeconds``).
HUMAN_EPISODE_TIMEOUT = defaults.MAX_EPISODE_TIMEOUT_SECONDS


#: The union's tags, as pydantic puts them in an error's path (a file does not spell them).
SEAT_TAGS = frozenset({"baseline seat", "LLM seat", "python seat", "human seat"})


def _seat_kind(value: Any) -> str | None:
    if isinstance(value, BaselineSeatConfig) or (isinstance(value, dict) and "baseline" in value):
        return "baseline seat"
    if isinstance(value, PythonSeatConfig) or (isinstance(value, dict) and "python" in value):
        return "python seat"
    if isinstance(value, HumanSeatConfig) or (isinstance(value, dict) and "human" in value):
        return "human seat"
    if isinstance(value, LLMSeatConfig | dict):
        return "LLM seat"
    return None  # not a table: SEAT_SHAPES says what a seat is


#: What a seat is, for a value that is not one (a bare "lantern", a number).
SEAT_SHAPES = (
    'a seat is a table: { baseline = "NAME" }, { provider = "NAME", model = "MODEL" }, '
    '{ python = "MODULE:CALLABLE" } or { human = "NAME" }'
)

SeatConfig = Annotated[
    Annotated[BaselineSeatConfig, Tag("baseline seat")]
    | Annotated[LLMSeatConfig, Tag("LLM seat")]
    | Annotated[PythonSeatConfig, Tag("python seat")]
    | Annotated[HumanSeatConfig, Tag("human seat")],
    Discriminator(_seat_kind, custom_error_type="seat_shape", custom_error_message=SEAT_SHAPES),
]
"""One seat's spec: a baseline, a model, a Python callable or a person."""


def cli_providers(
    *,
    base_url: str | Sequence[str] | None = None,
    api_key_env: str | None = None,
    transport: str | None = None,
) -> dict[str, ProviderOptions]:
    """The providers ``openai:MODEL`` and ``anthropic:MODEL`` name, with the flags' settings.

    ``base_url`` is one URL, or the URLs of a repeated ``--base-url`` (one of them is
    that URL, as a config with one URL gives)."""
    if base_url is not None and not isinstance(base_url, str):
        urls = list(base_url)
        base_url = urls[0] if len(urls) == 1 else urls
    given = {"base_url": base_url, "api_key_env": api_key_env, "transport": transport}
    settings = {key: value for key, value in given.items() if value is not None}
    return {
        kind: validated(ProviderOptions, {"kind": kind, **settings}, "provider options")
        for kind in CLI_PROVIDERS
    }


def parse_seat_arg(
    text: str,
    *,
    role: str,
    baselines: Sequence[str],
    options: Mapping[str, Any] | None = None,
    prompts: Path | None = None,
    where: str = "seat",
) -> BaselineSeatConfig | LLMSeatConfig | PythonSeatConfig:
    """A command-line seat spec as its model.

    ``options`` are settings for a model or agent seat (``temperature``,
    ``timeout_seconds``, ...; each applies to the kinds that have it, None means the
    default); ``prompts`` a folder with the role's prompt files. Raises
    :class:`ConfigError` starting with ``where`` (e.g. ``--keeper``).
    """
    if text == "baseline":
        return BaselineSeatConfig(baseline=baselines[0])
    if text in baselines:
        return BaselineSeatConfig(baseline=text)
    kind, _, rest = text.partition(":")
    given = {key: value for key, value in (options or {}).items() if value is not None}
    if prompts is not None:
        given["prompts"] = PromptFiles.in_folder(prompts, role)
    model: type[LLMSeatConfig | PythonSeatConfig]
    if kind in CLI_PROVIDERS and rest:
        model, data = LLMSeatConfig, {"provider": kind, "model": rest}
    elif kind == "python" and rest:
        model, data = PythonSeatConfig, {"python": rest}
    else:
        raise ConfigError(
            f"{where}: {text!r} is not a baseline ({', '.join(baselines)}), "
            "openai:MODEL or anthropic:MODEL (or python:MODULE:CALLABLE)"
        )
    data.update({key: value for key, value in given.items() if key in model.model_fields})
    return validated(model, data, where)


__all__ = [
    "CLI_PROVIDERS",
    "HUMAN_EPISODE_TIMEOUT",
    "HUMAN_NAME",
    "IMPORT_PATH",
    "SEAT_SHAPES",
    "SEAT_TAGS",
    "BaselineSeatConfig",
    "HumanSeatConfig",
    "LLMSeatConfig",
    "PythonSeatConfig",
    "SeatConfig",
    "cli_providers",
    "parse_seat_arg",
]
