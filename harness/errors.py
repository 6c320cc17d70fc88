"""The harness's one exception tree.

Every error the harness raises on purpose derives from :class:`HarnessError`, so a
caller can catch the whole family in one place and let genuine bugs through::

    HarnessError
    ├── ConfigError            a config value is invalid (the message names the field)
    ├── BoardError             a board cannot be generated or an ASCII board is malformed
    ├── RulesError             a game was driven outside its rules (e.g. a move for a
    │                          resolved runner, a tick after the end)
    └── RecordError            an episode record is malformed or unreadable

A model reply that fails to parse is *not* an exception: it is an expected outcome,
returned as a :class:`harness.games.lighthouse.replies.ParseFailure` value.
"""

from __future__ import annotations


class HarnessError(Exception):
    """Base class of every error the harness raises deliberately."""


class ConfigError(HarnessError, ValueError):
    """A configuration value is invalid; the message names the offending field."""


class BoardError(HarnessError, ValueError):
    """A board could not be generated, or an ASCII board is malformed."""


class RulesError(HarnessError):
    """A game state was asked to do something the rules do not allow."""


class RecordError(HarnessError, ValueError):
    """An episode record is malformed, truncated or of an unknown version."""


__all__ = ["BoardError", "ConfigError", "HarnessError", "RecordError", "RulesError"]
