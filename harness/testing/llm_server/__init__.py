"""A scripted OpenAI- and Anthropic-compatible HTTP server on 127.0.0.1.

Tests, demos and benchmarks point the real SDKs at it (``base_url``) and script what
each request gets: a reply text (with any usage object, verbatim), an HTTP error with
headers, a delay, a dropped connection, raw bytes with any status and headers (a body
that is not valid UTF-8, an HTML page, a gzip bomb), or a body that never ends
(chunked, or under a Content-Length it never reaches). It answers ``POST /v1/chat/completions``
in OpenAI's shape and ``POST /v1/messages`` in Anthropic's (a forced tool is answered
with a ``tool_use`` block holding the reply), and keeps every request it saw (path,
headers, JSON body) for assertions. ``GET /props`` answers ``props`` when given, as
llama.cpp's server describes itself (its chat template, its model file), else 404.

It can behave as the local servers do: ``shapes`` decides which structured-output
requests it refuses (:func:`llama_cpp_python` answers ``json_schema`` with the HTTP
500 llama-cpp-python gives; :func:`json_object_schema_only` takes nothing but a
``json_object`` with a schema), and ``serial=True`` answers one request at a time,
as a server with one slot does (``peak_serving`` stays 1 while ``peak_in_flight``
counts the requests waiting for it). With ``prefix_cache`` (a :class:`PrefixCache`)
it reports usage as a provider with a prompt cache would: the prompt's tokens, and,
of them, the ones its longest common start with an earlier request shares.
``timings=True`` adds llama.cpp's ``timings`` to
each OpenAI answer: the time the server worked on the request (from the moment it
took it up, a serial server's queue left out), as llama.cpp reports its own.

    with ScriptedLLMServer() as server:
        server.push(Reply('{"move": "N"}'), Fail(429, headers={"retry-after": "0"}))
        ...  # AsyncOpenAI(base_url=server.openai_url, api_key=...)
"""

from __future__ import annotations

from harness.testing.llm_server.actions import (
    Action,
    Drop,
    Endless,
    Fail,
    Hang,
    Raw,
    Reply,
    ShapeRule,
)
from harness.testing.llm_server.completions import completion_body
from harness.testing.llm_server.handler import SeenRequest
from harness.testing.llm_server.prefix_cache import PrefixCache, common_start, prompt_text
from harness.testing.llm_server.server import ScriptedLLMServer
from harness.testing.llm_server.shapes import (
    LLAMA_CPP_PYTHON_MESSAGE,
    json_object_schema_only,
    json_schema_only,
    llama_cpp_python,
)

__all__ = [
    "LLAMA_CPP_PYTHON_MESSAGE",
    "Action",
    "Drop",
    "Endless",
    "Fail",
    "Hang",
    "PrefixCache",
    "Raw",
    "Reply",
    "ScriptedLLMServer",
    "SeenRequest",
    "ShapeRule",
    "common_start",
    "completion_body",
    "json_object_schema_only",
    "json_schema_only",
    "llama_cpp_python",
    "prompt_text",
]
