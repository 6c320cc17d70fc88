"""A seat group's specs as a config writes them: tables, a list of them, or short strings.

A seat group of a tournament config takes one spec for all its seats or a list with
one per seat (Lighthouse's ``runners``: three). Each spec is a table
(:mod:`harness.seat_spec`) or the short string the command line takes::

    runners = "scout"                              every runner plays SCOUT
    runners = ["openai:gpt-4o-mini", "wallhug", "wallhug"]   one model among two WALLHUGs

A string is a baseline's name (``"wallhug"``), ``PROVIDER:MODEL`` (``PROVIDER`` a key
of the config's ``[providers]``) or ``python:MODULE:CALLABLE``; it reads as the table
it stands for, so an entrant written either way has the same identity and the same
config hash (a folder resumes as it was).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Discriminator, Tag

from harness.seat_spec import SeatConfig

#: The most characters a seat's short string may have (a model name is far shorter).
MAX_SEAT_TEXT = 300


def _one_or_many(value: Any) -> str:
    return "many" if isinstance(value, list) else "one"


SeatSpecs = Annotated[
    Annotated[SeatConfig, Tag("one")] | Annotated[list[SeatConfig], Tag("many")],
    Discriminator(_one_or_many),
]
"""A seat group's specs: one for every seat, or a list with one per seat."""


def seat_of_text(value: Any) -> Any:
    """A seat's short string as the table it stands for; anything else as it is."""
    if not isinstance(value, str) or len(value) > MAX_SEAT_TEXT:
        return value  # a table, or a string too long to be a spec: validation says why
    kind, colon, rest = value.partition(":")
    if not colon:
        return {"baseline": value}
    if kind == "python":
        return {"python": rest}
    return {"provider": kind, "model": rest}


def specs_of_text(value: Any) -> Any:
    """A seat group's specs with every short string read as its table."""
    if isinstance(value, list):
        return [seat_of_text(one) for one in value]
    return seat_of_text(value)


__all__ = ["MAX_SEAT_TEXT", "SeatSpecs", "seat_of_text", "specs_of_text"]
