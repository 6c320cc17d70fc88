"""Structured output: the request shapes a server may take, and the order they are tried in.

Servers differ in how they take a JSON Schema for the reply:

- ``json_schema``: OpenAI's ``response_format = {"type": "json_schema", ...}`` (OpenAI,
  vLLM, llama.cpp's llama-server, Ollama); for Anthropic, the Messages API's
  ``output_config`` format of type ``json_schema``.
- ``json_object_schema``: ``{"type": "json_object", "schema": {...}}``, the shape
  llama-cpp-python's server takes (it answers ``json_schema`` with an HTTP 500).
- ``json_object``: ``{"type": "json_object"}``: any JSON object; the schema goes in
  the prompt.
- ``tool``: Anthropic only: one tool whose ``input_schema`` is the reply schema, and
  ``tool_choice`` forcing it; the tool call's input is the reply.
- ``prompt``: plain text, the schema in the prompt. Every server takes this.

``structured_output = "auto"`` (or ``true``) tries the provider's shapes in the order
of :data:`CANDIDATES` and keeps the first the server accepts (see
:mod:`harness.llm.negotiate`); naming a shape forces it; ``false`` sends no schema at
all (the prompts alone describe the reply).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Literal, get_args

from harness.llm.types import CompletionRequest, Message
from harness.models import JsonObject

Shape = Literal["json_schema", "json_object_schema", "json_object", "tool", "prompt"]
#: Every shape, for validation and help texts.
SHAPES: tuple[Shape, ...] = get_args(Shape)

#: What ``structured_output`` may say: a shape, ``auto``, or a boolean (true = auto).
StructuredOutput = Literal[
    "auto", "json_schema", "json_object_schema", "json_object", "tool", "prompt"
]

#: The shapes each provider kind can send, in the order ``auto`` tries them.
CANDIDATES: dict[str, tuple[Shape, ...]] = {
    "openai": ("json_schema", "json_object_schema", "json_object", "prompt"),
    "anthropic": ("json_schema", "tool", "prompt"),
    # Inspect turns a json_schema into each provider's own structured output
    "inspect": ("json_schema", "prompt"),
    "scripted": ("json_schema", "prompt"),
}

#: Shapes that carry the schema in the prompt rather than (only) in the request.
SCHEMA_IN_PROMPT: frozenset[Shape] = frozenset({"json_object", "prompt"})

#: The tool an Anthropic ``tool`` request forces.
TOOL_NAME = "reply"


def candidates(kind: str, setting: bool | str) -> tuple[Shape, ...]:
    """The shapes to try for ``setting`` (empty: no structured output).

    Raises ValueError for a shape the provider kind cannot send.
    """
    if setting is False:
        return ()
    if setting is True or setting == "auto":
        return CANDIDATES[kind]
    if setting not in CANDIDATES[kind]:
        raise ValueError(
            f"structured_output {setting!r} is not a shape {kind} can send; "
            f"choose one of {['auto', *CANDIDATES[kind]]} or false"
        )
    shape = next(s for s in CANDIDATES[kind] if s == setting)
    return (shape,)


def every_property_required(schema: JsonObject) -> JsonObject:
    """``schema`` with every top-level property required: the form OpenAI's strict mode
    takes, and every reply schema's before ``notes`` was optional (records written
    then sent it so)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return schema
    return {**schema, "required": list(properties)}


def is_strict(schema: JsonObject) -> bool:
    """Whether ``schema`` can go in OpenAI's strict mode, which wants every property of
    an object required: a reply schema with an optional property (``notes``, which a
    reply leaves out to keep the seat's notes) is sent with ``strict: false``."""
    return every_property_required(schema) == schema


def schema_instruction(schema: JsonObject) -> str:
    """The text that puts ``schema`` in the prompt, for shapes that need it there."""
    return (
        "Reply with one JSON object, and nothing else, that matches this JSON Schema:\n"
        + json.dumps(schema, ensure_ascii=False, sort_keys=True)
    )


def apply_shape(request: CompletionRequest, shape: Shape | None) -> CompletionRequest:
    """``request`` sent in ``shape``: the schema dropped for None, added to the prompt where
    the shape needs it (appended to the system prompt, or as one when there is none)."""
    if shape is None or request.json_schema is None:
        return replace(request, json_schema=None, shape=None)
    shaped = replace(request, shape=shape)
    if shape not in SCHEMA_IN_PROMPT:
        return shaped
    return replace(shaped, messages=schema_in_prompt(request.messages, request.json_schema))


def schema_in_prompt(messages: Sequence[Message], schema: JsonObject) -> tuple[Message, ...]:
    """``messages`` with ``schema`` in the prompt, as the shapes that need it there send it:
    appended to the system prompt, or as one when there is none."""
    instruction = schema_instruction(schema)
    out = list(messages)
    for index, message in enumerate(out):
        if message.role == "system":
            out[index] = Message("system", f"{message.content}\n\n{instruction}")
            break
    else:
        out.insert(0, Message("system", instruction))
    return tuple(out)


__all__ = [
    "CANDIDATES",
    "SCHEMA_IN_PROMPT",
    "SHAPES",
    "TOOL_NAME",
    "Shape",
    "StructuredOutput",
    "apply_shape",
    "candidates",
    "every_property_required",
    "is_strict",
    "schema_in_prompt",
    "schema_instruction",
]
