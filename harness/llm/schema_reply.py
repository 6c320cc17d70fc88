"""The simplest reply a reply schema allows: what a model seat without a model says.

Both the ``scripted`` provider kind (a model seat of a config that calls no server:
each seat answers with its role's) and ``lighthouse fake-llm`` (a server that stands
in for one) answer with it when no script says otherwise.

The rule, for one JSON schema: an object holds every required property; a string
enum takes the value named ``wait`` (in any case) when it has one, so that a mover
stays where the rules always let it, else its first; a string is empty (or as long as
``minLength`` asks); a boolean is false; a number is its ``minimum``, else 0; an array
is empty (or ``minItems`` long); ``anyOf``/``oneOf`` take their first branch and a list
of types its first that is not ``null``. A schema deeper than :data:`MAX_DEPTH`, or
one the rule does not know, gives ``null`` there.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import JsonValue

#: A schema is read at most this deep (a request's schema comes from outside).
MAX_DEPTH = 32
#: The enum value a mover stays put with, in any case.
_STAY = "wait"


def schema_instance(schema: object, depth: int = 0) -> JsonValue:
    """The simplest value ``schema`` allows (see the module's docstring)."""
    if depth > MAX_DEPTH or not isinstance(schema, Mapping):
        return None
    if "const" in schema:
        return _json_value(schema["const"])
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        stay = [v for v in enum if isinstance(v, str) and v.lower() == _STAY]
        return _json_value(stay[0] if stay else enum[0])
    for key in ("anyOf", "oneOf", "allOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            return schema_instance(branches[0], depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"] or kind
        kind = kinds[0] if kinds else None
    if kind == "object" or (kind is None and "properties" in schema):
        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        required = schema.get("required")
        names = [n for n in required if isinstance(n, str)] if isinstance(required, list) else []
        return {name: schema_instance(properties.get(name), depth + 1) for name in names}
    if kind == "string":
        return "x" * _count(schema.get("minLength"))
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        low = schema.get("minimum")
        if isinstance(low, int | float) and not isinstance(low, bool):
            return int(low) if kind == "integer" else low
        return 0
    if kind == "array":
        item = schema_instance(schema.get("items"), depth + 1)
        return [item] * _count(schema.get("minItems"))
    return None


def schema_reply(schema: object) -> str:
    """:func:`schema_instance` of ``schema`` as reply text (JSON); ``{}`` without one."""
    if schema is None:
        return "{}"
    return json.dumps(schema_instance(schema), ensure_ascii=False)


def _count(value: object) -> int:
    """A ``minLength``/``minItems`` as a small count (at most 64: a reply stays short)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return max(0, min(value, 64))
    return 0


def _json_value(value: Any) -> JsonValue:
    """``value`` if it is plain JSON (a string, number, boolean or null), else null."""
    return value if isinstance(value, str | int | float | bool) or value is None else None


__all__ = ["MAX_DEPTH", "schema_instance", "schema_reply"]
