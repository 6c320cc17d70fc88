"""A rules value as JSON: a frozen dataclass as an object with camelCase keys.

The games' rules keep their values as frozen dataclasses whose field names are the
rules' names in snake_case; on the wire (HTTP APIs, events, a state's JSON) the same
names are camelCase. :func:`fields_json` writes one such value as that object, so
that a game names its fields once, in its dataclass; :func:`value_json` writes any
value made of them (an observation the HTTP API sends, whatever its game).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import fields, is_dataclass
from typing import TYPE_CHECKING

from pydantic import JsonValue

from harness.errors import HarnessError
from harness.models import JsonObject

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

#: Each dataclass's fields and their camelCase keys, worked out once per class.
_KEYS: dict[type, tuple[tuple[str, str], ...]] = {}


def fields_json(value: DataclassInstance) -> JsonObject:
    """``value`` as a JSON object: each field under its camelCase name, in the
    dataclass's order; each field's value as :func:`value_json` writes it."""
    out: JsonObject = {}
    for name, key in camel_keys(type(value)):
        out[key] = value_json(getattr(value, name))
    return out


def camel_keys(kind: type[DataclassInstance]) -> tuple[tuple[str, str], ...]:
    """Each field of the dataclass ``kind`` and its camelCase key, in order."""
    keys = _KEYS.get(kind)
    if keys is None:
        keys = _KEYS[kind] = tuple((f.name, camel(f.name)) for f in fields(kind))
    return keys


def camel(name: str) -> str:
    """``name`` (snake_case) in camelCase: ``lap_budget`` is ``lapBudget``."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def value_json(value: object) -> JsonValue:
    """``value`` as JSON, all the way down: a dataclass as :func:`fields_json`'s object,
    an enum as its value, a tuple or list as an array (a position ``(x, y)`` is
    ``[x, y]``), a mapping as an object with string keys. A value that is no JSON (a
    set, an object) is a :class:`HarnessError`."""
    if isinstance(value, enum.Enum):  # first: a str or int enum is written as its value
        return value_json(value.value)
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, tuple | list):
        return [value_json(item) for item in value]
    if is_dataclass(value) and not isinstance(value, type):
        return fields_json(value)
    if isinstance(value, Mapping):
        return {str(key): value_json(item) for key, item in value.items()}
    raise HarnessError(f"a {type(value).__name__} is not a JSON value")


__all__ = ["camel", "camel_keys", "fields_json", "value_json"]
