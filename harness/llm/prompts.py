"""Prompt files: loading, hashing and filling the templates.

Templates use ``string.Template`` placeholders (``$observation``, ``$problem``), so
the JSON braces that prompts are full of need no escaping.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from string import Template

from harness.errors import ConfigError
from harness.llm.options import PromptFiles


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
        return Template(self.text).safe_substitute(values)


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


def _read(path: Path, field: str) -> Prompt:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"prompts.{field}: cannot read {path}: {exc.strerror}") from None
    if not text.strip():
        raise ConfigError(f"prompts.{field}: {path} is empty")
    return Prompt(path, text)


__all__ = ["PROMPTS_DIR", "Prompt", "PromptSet", "default_prompt_files"]
