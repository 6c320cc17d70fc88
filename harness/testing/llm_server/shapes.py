"""The structured-output shapes a local server refuses, as the scripted server's
``shapes`` rules."""

from __future__ import annotations

from harness.models import JsonObject
from harness.testing.llm_server.actions import Fail

#: llama-cpp-python's words when ``response_format.type`` is not one it knows.
LLAMA_CPP_PYTHON_MESSAGE = (
    "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n  "
    "Input should be 'text' or 'json_object' [type=literal_error, input_value='{kind}', "
    "input_type=str]"
)


def _format_type(body: JsonObject) -> str | None:
    shape = body.get("response_format")
    kind = shape.get("type") if isinstance(shape, dict) else None
    return kind if isinstance(kind, str) else None


def llama_cpp_python(path: str, body: JsonObject) -> Fail | None:
    """llama-cpp-python's server: ``json_object`` (with or without a schema) or plain text;
    any other ``response_format`` gets an HTTP 500 with a validation message."""
    kind = _format_type(body)
    if kind is None or kind in ("text", "json_object"):
        return None
    message = LLAMA_CPP_PYTHON_MESSAGE.format(kind=kind)
    return Fail(500, body={"error": {"message": message, "type": "internal_server_error"}})


def json_object_schema_only(path: str, body: JsonObject) -> Fail | None:
    """A server that takes nothing but ``{"type": "json_object", "schema": {...}}`` (HTTP 400)."""
    shape = body.get("response_format")
    if isinstance(shape, dict) and shape.get("type") == "json_object" and "schema" in shape:
        return None
    message = "response_format must be a json_object with a schema"
    return Fail(400, body={"error": {"message": message, "type": "invalid_request_error"}})


def json_schema_only(path: str, body: JsonObject) -> Fail | None:
    """A server that wants a JSON Schema (OpenAI's ``json_schema``, or Anthropic's
    ``output_config``) on every request (HTTP 400 otherwise)."""
    if _format_type(body) == "json_schema" or "output_config" in body:
        return None
    message = "this test server only answers requests with a json_schema"
    return Fail(400, body={"error": {"message": message, "type": "invalid_request_error"}})
