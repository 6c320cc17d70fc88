"""The base of every record model, and the type parameters a game's lines fill in."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

from harness.models import StrictModel

# Covariant: a line is immutable, so a game's line (its header with its config, ...) is
# a line of the envelope's base models too (harness.protocol.RecordLine).
ConfigT = TypeVar("ConfigT", bound=BaseModel, covariant=True)
BoardT = TypeVar("BoardT", bound=BaseModel, covariant=True)
DecisionT = TypeVar("DecisionT", covariant=True)
StateT = TypeVar("StateT", bound=BaseModel, covariant=True)
ResultsT = TypeVar("ResultsT", bound=BaseModel, covariant=True)


class RecordModel(StrictModel):
    """Base of every record model: the harness's one strict base, under its record name."""
