"""The one strict base of the harness's pydantic models, and the shape of a JSON object."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue
from pydantic.alias_generators import to_camel

#: A JSON object as the harness reads or writes it: a record line, an HTTP body, a
#: JSON Schema. Its values are JSON values, to be narrowed where they are read.
JsonObject = dict[str, JsonValue]


class StrictModel(BaseModel):
    """camelCase on the wire (snake_case accepted too), unknown keys refused, immutable.

    The base of every record model, config and option set the harness validates at a
    boundary, so that a misspelt key is an error rather than a silent default.
    """

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True
    )


def _is_none(value: object) -> bool:
    return value is None


def _is_empty(value: object) -> bool:
    return not value


def absent_if_none(
    description: str | None = None, *, alias: str | None = None, ge: float | None = None
) -> Any:
    """A field that defaults to null and is left out of the dump while null.

    The shape of every key added to a published format (a record line, a results line,
    a config that is hashed) after files were written without it: a value that does
    not use it dumps, and hashes, as it did before the key existed.
    """
    return Field(None, alias=alias, ge=ge, exclude_if=_is_none, description=description)


def absent_if_empty(
    default: object = False,
    *,
    default_factory: Callable[[], Any] | None = None,
    description: str | None = None,
    alias: str | None = None,
) -> Any:
    """A field left out of the dump while empty (false, zero, an empty list or mapping):
    as :func:`absent_if_none`, for a key whose "nothing" is its empty value."""
    if default_factory is not None:  # a mutable empty value: a new one for every model
        return Field(
            default_factory=default_factory,
            alias=alias,
            exclude_if=_is_empty,
            description=description,
        )
    return Field(default, alias=alias, exclude_if=_is_empty, description=description)


__all__ = ["JsonObject", "StrictModel", "absent_if_empty", "absent_if_none"]
