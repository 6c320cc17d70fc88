"""The keys a record model's dump uses, by field name, so that each key is spelt once."""

from __future__ import annotations

from functools import cache

from pydantic import BaseModel


class Keys:
    """The keys a record model's dump uses, by field name: ``keys(SeatTurn).raw_length``
    is ``"rawLength"``; an unknown field is an AttributeError naming the model.

    Lines are written from JSON objects built without their models (the runner's fast
    path, :func:`dump_doc`) and read as such objects (results lines, a game's
    figures); both name every key through these, so that each key is spelt once, by
    its model.
    """

    def __init__(self, model: type[BaseModel]) -> None:
        for name, info in model.model_fields.items():
            setattr(self, name, info.serialization_alias or info.alias or name)
        self._model = model.__name__

    def __getattr__(self, name: str) -> str:
        # only reached for a name that is no field of the model
        raise AttributeError(f"{self._model} has no field {name!r}")


@cache
def keys(model: type[BaseModel]) -> Keys:
    """The :class:`Keys` of ``model`` (made once per model)."""
    return Keys(model)
