"""Typed rules events: one frozen dataclass per kind, and their JSON objects.

A game's rules say what happened during a step as a list of events, each a value of
its own small class. :class:`GameEvent` is the base of those classes: a subclass is a
frozen dataclass, and its ``type`` on the wire (:attr:`GameEvent.KIND`) is its class
name in lowerCamel (``LapCompleted`` is ``lapCompleted``), so that neither is written
again for every kind. :func:`event_json` writes any event as the records and the HTTP
APIs carry it.
"""

from __future__ import annotations

from dataclasses import Field, dataclass
from typing import ClassVar

from typing_extensions import dataclass_transform

from harness.models import JsonObject
from harness.protocol.fields import camel_keys


@dataclass_transform(frozen_default=True)
class GameEvent:
    """The base of a game's event kinds: each subclass is a frozen dataclass of the
    fields it declares (a base's fields first, as with any dataclass). A subclass whose
    name starts with ``_`` is a shared block of fields, not a kind of its own."""

    #: The event's ``type`` in JSON: the class name in lowerCamel.
    KIND: ClassVar[str]
    #: What :func:`dataclasses.dataclass` adds to every subclass.
    __dataclass_fields__: ClassVar[dict[str, Field[object]]]

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls.KIND = cls.__name__[:1].lower() + cls.__name__[1:]
        dataclass(frozen=True)(cls)


def event_json(event: GameEvent) -> JsonObject:
    """``event`` as a JSON object: ``{"type": ..., ...}`` with its fields under their
    camelCase names, in their order, a tuple as an array."""
    out: JsonObject = {"type": event.KIND}
    # not fields_json: events are written every tick, and their values are flat
    for name, key in camel_keys(type(event)):
        value = getattr(event, name)
        out[key] = list(value) if isinstance(value, tuple) else value
    return out


__all__ = ["GameEvent", "event_json"]
