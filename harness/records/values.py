"""The parts of a dumped record line, read back as the JSON types its models make them."""

from __future__ import annotations

from pydantic import JsonValue

from harness.errors import RecordError
from harness.json_reply import json_type
from harness.models import JsonObject


def json_object(value: JsonValue) -> JsonObject:
    """``value``, a part of a dumped record line that its models make a JSON object
    (:class:`RecordError` if it is not: a line no record model wrote)."""
    if not isinstance(value, dict):
        raise RecordError(f"expected a JSON object, got {json_type(value)}")
    return value


def json_list(value: JsonValue) -> list[JsonValue]:
    """``value``, a part of a dumped record line that its models make a JSON array."""
    if not isinstance(value, list):
        raise RecordError(f"expected a JSON array, got {json_type(value)}")
    return value


def json_objects(value: JsonValue) -> list[JsonObject]:
    """``value``, a part of a dumped record line that its models make an array of objects."""
    return [json_object(item) for item in json_list(value)]


def json_number(value: JsonValue) -> float:
    """``value``, a part of a dumped record line that its models make a number."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise RecordError(f"expected a number, got {json_type(value)}")
    return float(value)


def json_int(value: JsonValue) -> int:
    """``value``, a part of a dumped record line that its models make a whole number."""
    if type(value) is not int:
        raise RecordError(f"expected a whole number, got {json_type(value)}")
    return value


def json_text(value: JsonValue) -> str:
    """``value``, a part of a dumped record line that its models make a string."""
    if not isinstance(value, str):
        raise RecordError(f"expected a string, got {json_type(value)}")
    return value
