"""The one strict base of the harness's pydantic models, and the shape of a JSON object."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, JsonValue
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


__all__ = ["JsonObject", "StrictModel"]
