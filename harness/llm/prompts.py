"""Prompt files: loading, hashing and filling the templates, and the messages they make.

Templates use ``string.Template`` placeholders (``$observation``, ``$problem``), so
the JSON braces that prompts are full of need no escaping. :func:`first_messages` and
:func:`retry_messages` are the one way a seat's messages are made from its templates:
the LLM seat sends them, and the viewer makes them again from a record (the templates
kept in its header, the observation from its states) to show what a model was sent.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from string import Template

from harness.errors import ConfigError
from harness.llm.options import PromptFiles
from harness.llm.types import Message
from harness.text import truncate_runes

#: A failed reply sent back with the retry hint is cut to this many runes.
RETRY_ECHO_RUNES = 4000


def _prompts_dir() -> Path:
    try:
        return Path(str(files("prompts")))
    except ModuleNotFoundError:  # an editable install made before prompts/ was a package
        return Path(__file__).resolve().parents[2] / "prompts"


#: Where the default prompt files live: the ``prompts`` package, shipped in the wheel as
#: package data (a regular package on disk, so its folder is a real path).
PROMPTS_DIR = _prompts_dir()


def default_prompt_files(game: str, role: str) -> PromptFiles:
    """The shipped prompt files of ``role`` in ``game``."""
    return PromptFiles.in_folder(PROMPTS_DIR / game, role)


@dataclass(frozen=True)
class Prompt:
    """One loaded prompt file."""

    path: Path
    text: str

    @property
    def sha256(self) -> str:
        """sha256 of the file's UTF-8 text, as records store it."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def fill(self, **values: str) -> str:
        """The template with ``values`` substituted (unknown placeholders left as is)."""
        return fill(self.text, **values)


@dataclass(frozen=True)
class PromptSet:
    """A seat's three prompts."""

    system: Prompt
    observation: Prompt
    retry_hint: Prompt

    @classmethod
    def load(cls, files: PromptFiles) -> PromptSet:
        """Read the files, refusing a missing or empty one with a clear message."""
        return cls(
            system=_read(files.system, "system"),
            observation=_read(files.observation, "observation"),
            retry_hint=_read(files.retry_hint, "retry_hint"),
        )

    def hashes(self) -> dict[str, str]:
        """Each prompt's sha256, keyed as a record's agent details keep them."""
        return {
            "systemPromptSha256": self.system.sha256,
            "observationPromptSha256": self.observation.sha256,
            "retryHintSha256": self.retry_hint.sha256,
        }

    def texts(self) -> dict[str, str]:
        """Each prompt's text by its sha256, as a record's header keeps them."""
        return {p.sha256: p.text for p in (self.system, self.observation, self.retry_hint)}


def fill(template: str, **values: str) -> str:
    """``template`` with ``values`` substituted (unknown placeholders left as is)."""
    return Template(template).safe_substitute(values)


@dataclass(frozen=True)
class Exchange:
    """One earlier tick of a seat's conversation (seat option ``history``): the user
    message it was first sent that tick, and the model's last reply of the tick as a
    record keeps it (:attr:`~harness.records.ModelReply.raw`), cut to
    :data:`RETRY_ECHO_RUNES` like a retry's echo. Both can be made again from a record,
    so a conversation sent with history hashes the same when rebuilt."""

    prompt: str
    reply: str

    @classmethod
    def of(cls, prompt: str, reply: str) -> Exchange:
        """The exchange of a tick that sent ``prompt`` and was last answered ``reply``."""
        return cls(prompt, truncate_runes(reply, RETRY_ECHO_RUNES))


def first_messages(
    system: str,
    observation_template: str,
    observation: str,
    history: Sequence[Exchange] = (),
) -> tuple[Message, ...]:
    """A tick's first messages: the system prompt, the earlier ticks of ``history``
    (oldest first, each a user and an assistant turn), then the observation template
    filled in. The stable part (the system prompt) leads, so a provider can cache it."""
    earlier = [
        message
        for past in history
        for message in (Message("user", past.prompt), Message("assistant", past.reply))
    ]
    return (
        Message("system", system),
        *earlier,
        Message("user", fill(observation_template, observation=observation)),
    )


def retry_messages(
    first: Sequence[Message], failed: str, hint_template: str, problem: str
) -> tuple[Message, ...]:
    """The retry's messages (decision R5): the first ones, the failed reply (cut to
    :data:`RETRY_ECHO_RUNES`) and the hint template filled with the ``problem``."""
    return (
        *first,
        Message("assistant", truncate_runes(failed, RETRY_ECHO_RUNES)),
        Message("user", fill(hint_template, problem=problem)),
    )


def _read(path: Path, field: str) -> Prompt:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"prompts.{field}: cannot read {path}: {exc.strerror}") from None
    if not text.strip():
        raise ConfigError(f"prompts.{field}: {path} is empty")
    return Prompt(path, text)


__all__ = [
    "PROMPTS_DIR",
    "RETRY_ECHO_RUNES",
    "Exchange",
    "Prompt",
    "PromptSet",
    "default_prompt_files",
    "fill",
    "first_messages",
    "retry_messages",
]
