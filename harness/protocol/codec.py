"""The record codec part: how a game's episodes are written to records and read back.

Every game's record line is one of the envelope's three (:mod:`harness.records`),
filled with the game's own models; :data:`RecordLine` is what the shared machinery
knows of any game's line, and a game's own code narrows the parts it reads
(:func:`expect`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeAlias, TypeVar

from pydantic import BaseModel, Field, JsonValue, TypeAdapter
from typing_extensions import TypeForm

from harness.errors import RecordError
from harness.models import JsonObject
from harness.protocol.conventions import GameConfig, GameResults
from harness.protocol.rules import ConfigT, DecisionT, StateT
from harness.records import EndLine, HeaderLine, RecordModel, TickLine

#: A record's header, as the shared machinery knows any game's.
AnyHeader: TypeAlias = HeaderLine[GameConfig, BaseModel]
#: A record's tick line, as the shared machinery knows any game's.
AnyTick: TypeAlias = TickLine[BaseModel, BaseModel]
#: A record's end line, as the shared machinery knows any game's.
AnyEnd: TypeAlias = EndLine[GameResults]
#: A line of any game's record, validated by its game's record models.
RecordLine: TypeAlias = AnyHeader | AnyTick | AnyEnd

_M = TypeVar("_M", bound=BaseModel)


def expect(kind: type[_M], value: BaseModel) -> _M:
    """``value`` as the game's own model ``kind``: the part of a record line a game's
    view or codec reads, which its record models made. Another game's line is a
    :class:`RecordError`, never a misread."""
    if not isinstance(value, kind):
        raise RecordError(f"expected a {kind.__name__}, got a {type(value).__name__}")
    return value


def header_of(lines: Sequence[RecordLine]) -> AnyHeader:
    """The header of a record's lines (the first); a :class:`RecordError` if none is."""
    first = lines[0] if lines else None
    if not isinstance(first, HeaderLine):
        raise RecordError("a record starts with its header")
    return first


def ticks_of(lines: Sequence[RecordLine]) -> list[AnyTick]:
    """The tick lines of a record's lines, in order."""
    return [line for line in lines if isinstance(line, TickLine)]


def line_adapter(line: TypeForm[RecordLine]) -> TypeAdapter[RecordLine]:
    """The adapter that parses and validates any line of a game whose lines are
    ``line``: the envelope's three lines filled with the game's models, as a union
    discriminated by ``type`` (``Annotated[Header | Tick | End, Field(discriminator=
    "type")]``). Its lines are record lines (:data:`RecordLine`), each part a model of
    the kind the envelope names."""
    return TypeAdapter(line)


def line_schema(adapter: TypeAdapter[RecordLine], title: str, description: str) -> JsonObject:
    """The JSON Schema of one line of a game's records, as ``docs/schemas/`` publishes it."""
    schema: JsonObject = adapter.json_schema(by_alias=True, mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = title
    schema["description"] = description
    return schema


class RecordCodec(ABC, Generic[StateT, DecisionT]):
    """A game's record models (see :mod:`harness.records` for the envelope). Pure."""

    #: Validates and parses any line of this game's records.
    record_adapter: TypeAdapter[RecordLine]

    @abstractmethod
    def record_schema(self) -> JsonObject:
        """The JSON Schema of one line of this game's records (published in docs/schemas/)."""

    @abstractmethod
    def board_model(self, state: StateT) -> BaseModel:
        """The episode's board, written out explicitly for the header."""

    @abstractmethod
    def start_state(self, header: AnyHeader) -> StateT:
        """The starting state a record's header describes (its config and explicit board)."""

    @abstractmethod
    def decision_model(self, decision: DecisionT) -> BaseModel:
        """A decision as its record model."""

    def decision_dumped(self, decision: DecisionT) -> JsonObject:
        """The dump of :meth:`decision_model` (``model_dump(mode="json",
        by_alias=True)``), which the runner writes as it is. A game may make it without
        building the model, for speed, naming its keys by the model's; the record
        tests pin the two forms equal."""
        return self.decision_model(decision).model_dump(mode="json", by_alias=True)

    @abstractmethod
    def decision_from_json(self, data: JsonValue) -> DecisionT:
        """The decision a record's (or a hand-written) decision object stands for.

        ``data`` is unchecked: a value that is no decision raises TypeError or
        ValueError (a validation error is one)."""


class SeedBoard(RecordModel):
    """The "board" of a game whose seed fixes it whatever the player does: the seed.

    A game subclasses it to say, in the field's description, what its seed fixes."""

    seed: int = Field(ge=0)


class JsonAction(RecordModel):
    """A decision that is a JSON object in the game's own action grammar, kept as it
    is (the rules judge it, not the record)."""

    model_config = RecordModel.model_config | {"extra": "allow"}


@dataclass(frozen=True)
class SeedRecords:
    """A seed-board game's record models, as its record module names them for its
    codec: the adapter of its lines, their published schema, its board and its action."""

    adapter: TypeAdapter[RecordLine]
    schema: Callable[[], JsonObject]
    seed_model: type[SeedBoard] = SeedBoard
    action_model: type[BaseModel] = JsonAction


class SeedBoardCodec(RecordCodec[StateT, JsonObject], Generic[ConfigT, StateT]):
    """The codec of a game whose board is its seed and whose decisions are JSON objects
    (Relayroam, Hourloom): the header's board is ``{"seed": N}`` and the start state is
    made again from the config and that seed. A game names its models and how its
    rules start an episode and say its seed; stateless."""

    def __init__(
        self,
        *,
        record_adapter: TypeAdapter[RecordLine],
        schema: Callable[[], JsonObject],
        config_type: type[ConfigT],
        start: Callable[[ConfigT, int], StateT],
        seed_of: Callable[[StateT], int],
        seed_model: type[SeedBoard] = SeedBoard,
        action_model: type[BaseModel] = JsonAction,
    ) -> None:
        records = SeedRecords(record_adapter, schema, seed_model, action_model)
        self._bind(records, config_type, start, seed_of)

    def _bind(
        self,
        records: SeedRecords,
        config_type: type[ConfigT],
        start: Callable[[ConfigT, int], StateT],
        seed_of: Callable[[StateT], int],
    ) -> None:
        """Keep the game's record models and how its rules start an episode and say
        its seed (every constructor's one body)."""
        self.record_adapter = records.adapter
        self._records = records
        self._config_type = config_type
        self._start = start
        self._seed_of = seed_of

    def record_schema(self) -> JsonObject:
        return self._records.schema()

    def board_model(self, state: StateT) -> SeedBoard:
        return self._records.seed_model(seed=self._seed_of(state))

    def start_state(self, header: AnyHeader) -> StateT:
        config = expect(self._config_type, header.config)
        return self._start(config, expect(self._records.seed_model, header.board).seed)

    def decision_model(self, decision: JsonObject) -> BaseModel:
        return self._records.action_model.model_validate(decision)

    def decision_from_json(self, data: JsonValue) -> JsonObject:
        if not isinstance(data, dict):
            raise TypeError(f"an action is a JSON object, not {data!r}")
        return dict(data)


__all__ = [
    "AnyEnd",
    "AnyHeader",
    "AnyTick",
    "JsonAction",
    "RecordCodec",
    "RecordLine",
    "SeedBoard",
    "SeedBoardCodec",
    "SeedRecords",
    "expect",
    "header_of",
    "line_adapter",
    "line_schema",
    "ticks_of",
]
