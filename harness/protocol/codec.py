"""The record codec part: how a game's episodes are written to records and read back."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

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


@runtime_checkable
class DumpedDecisions(Protocol):
    """An optional capability of a codec: a decision in the form its record line holds
    (``model_dump(mode="json", by_alias=True)`` of :meth:`RecordCodec.decision_model`),
    made without building the model. A game pins the two forms equal in its tests."""

    def decision_dumped(self, decision: Any) -> dict[str, Any]:
        """The dump of ``decision_model(decision)``."""
        ...


class SeededEpisode(Protocol):
    """A harness episode state whose rules' state carries the seed that fixes its board."""

    @property
    def config(self) -> Any: ...

    @property
    def rules(self) -> Any: ...


class SeedBoardCodec:
    """The codec of a game whose board is its seed and whose decisions are JSON objects
    (Relayroam, Hourloom): the header's board is ``{"seed": N}`` and the start state is
    made again from the config and that seed. A game names its models; stateless."""

    def __init__(
        self,
        *,
        record_adapter: TypeAdapter[Any],
        seed_model: type[BaseModel],
        action_model: type[BaseModel],
        schema: Callable[[], dict[str, Any]],
        start: Callable[[Any, int], Any],
    ) -> None:
        self.record_adapter = record_adapter
        self.seed_model = seed_model
        self.action_model = action_model
        self._schema = schema
        self._start = start  # (config, seed) -> the first state, as the rules make it

    def record_schema(self) -> dict[str, Any]:
        return self._schema()

    def config_model(self, state: SeededEpisode) -> Any:
        return state.config

    def board_model(self, state: SeededEpisode) -> BaseModel:
        return self.seed_model(seed=state.rules.seed)

    def start_state(self, header: Any) -> Any:
        return self._start(header.config, header.board.seed)

    def decision_model(self, decision: Any) -> BaseModel:
        return self.action_model.model_validate(decision)

    def decision_from_json(self, data: Any) -> dict[str, Any]:
        if not isinstance(data, dict):
            raise TypeError(f"an action is a JSON object, not {data!r}")
        return dict(data)


__all__ = ["DumpedDecisions", "RecordCodec", "SeedBoardCodec", "SeededEpisode"]
