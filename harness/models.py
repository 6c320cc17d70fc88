"""The one strict base of the harness's pydantic models."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class StrictModel(BaseModel):
    """camelCase on the wire (snake_case accepted too), unknown keys refused, immutable.

    The base of every record model, config and option set the harness validates at a
    boundary, so that a misspelt key is an error rather than a silent default.
    """

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True
    )


__all__ = ["StrictModel"]
