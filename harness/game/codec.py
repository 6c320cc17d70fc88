"""The record codec part: how a game's episodes are written to records and read back."""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel, TypeAdapter


class RecordCodec(Protocol):
    """A game's record models (see :mod:`harness.records` for the envelope). Pure."""

    @property
    def record_adapter(self) -> TypeAdapter[Any]:
        """Validates and parses any line of this game's records."""
        ...

    def record_schema(self) -> dict[str, Any]:
        """The JSON Schema of one line of this game's records (published in docs/schemas/)."""
        ...

    def config_model(self, state: Any) -> BaseModel:
        """The episode's config, as recorded in the header."""
        ...

    def board_model(self, state: Any) -> BaseModel:
        """The episode's board, written out explicitly for the header."""
        ...

    def start_state(self, header: Any) -> Any:
        """The starting state a record's header describes (its config and explicit board)."""
        ...

    def decision_model(self, decision: Any) -> BaseModel:
        """A decision as its record model."""
        ...

    def decision_from_json(self, data: Any) -> Any:
        """The decision a record's (or a hand-written) decision object stands for."""
        ...


__all__ = ["RecordCodec"]
