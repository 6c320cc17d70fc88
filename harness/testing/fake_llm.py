"""``lighthouse fake-llm``'s server: a stand-in model, OpenAI- and Anthropic-compatible.

It is the scripted server the tests use (:class:`~harness.testing.llm_server.ScriptedLLMServer`)
with a default that answers like a model seat of the harness needs: each request gets
the simplest reply its reply schema allows (:func:`harness.llm.schema_reply.schema_reply`:
a silent keeper, a runner or a player that waits), or the next reply of a script.

The reply schema is the one the request carries (OpenAI's ``response_format``, an
Anthropic forced tool); a request without one (structured output off, the default)
is known by its system prompt: each game's shipped system prompt names its game and
role, and so the role's reply schema. A request it cannot place gets ``{}``.

A script (``--script FILE``) is JSON: a list of replies, served in order to every
request and then again from the start; or an object mapping a role (``keeper``,
``runner``, ``player``) to such a list, for the requests of that role (the others get
the default). A reply is a string, sent as it is, or an object, sent as its JSON.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import JsonValue, RootModel

from harness.errors import ConfigError
from harness.json_reply import StrictJsonError, strict_loads
from harness.llm.schema_reply import schema_reply
from harness.testing.llm_server import Reply, ScriptedLLMServer
from harness.validation import validated

#: The largest script file read (a script is a few replies).
MAX_SCRIPT_BYTES = 1 << 20
#: Replies each role's script holds at most.
MAX_SCRIPT_REPLIES = 10_000

ScriptReplies = list[str | dict[str, JsonValue]]


class Script(RootModel[ScriptReplies | dict[str, ScriptReplies]]):
    """A script: replies for every request, or per role (see the module's docstring)."""


def load_script(path: Path) -> dict[str | None, list[str]]:
    """The replies of the script at ``path``, by role (None: every role's).

    A file that cannot be read, is not JSON or not of the script's shape is a
    :class:`ConfigError` naming it.
    """
    try:
        with path.open("rb") as file:
            data = file.read(MAX_SCRIPT_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"--script {path}: cannot read it: {exc.strerror or exc}") from None
    if len(data) > MAX_SCRIPT_BYTES:
        raise ConfigError(f"--script {path}: larger than {MAX_SCRIPT_BYTES} bytes")
    try:
        parsed = strict_loads(data.decode("utf-8"))
    except (UnicodeDecodeError, StrictJsonError, ValueError) as exc:
        raise ConfigError(f"--script {path}: not a JSON script: {exc}") from None
    script = validated(Script, parsed, f"--script {path}")
    given = script.root
    by_role: dict[str | None, ScriptReplies] = {None: given} if isinstance(given, list) else {}
    if isinstance(given, dict):
        by_role.update(given)
    out: dict[str | None, list[str]] = {}
    for role, replies in by_role.items():
        where = f"--script {path}" + (f": {role}" if role is not None else "")
        if not replies:
            raise ConfigError(f"{where}: no replies")
        if len(replies) > MAX_SCRIPT_REPLIES:
            raise ConfigError(f"{where}: more than {MAX_SCRIPT_REPLIES} replies")
        out[role] = [r if isinstance(r, str) else json.dumps(r) for r in replies]
    return out


@cache
def _roles() -> dict[str, tuple[str, str]]:
    """Each shipped system prompt's text, with the game and role it is for."""
    from harness.llm.prompts import PromptSet, default_prompt_files
    from harness.registry import game_names, get_game

    known: dict[str, tuple[str, str]] = {}
    for name in game_names():
        for group in get_game(name).seat_groups:
            system = PromptSet.load(default_prompt_files(name, group.role)).system.text
            known[system.strip()] = (name, group.role)
    return known


def _system_prompt(body: Mapping[str, Any]) -> str | None:
    """The system prompt of a chat request, in OpenAI's shape or Anthropic's."""
    system = body.get("system")
    if system is None:
        messages = body.get("messages")
        first = messages[0] if isinstance(messages, list) and messages else None
        if isinstance(first, Mapping) and first.get("role") in ("system", "developer"):
            system = first.get("content")
    if isinstance(system, list):  # content blocks
        parts = [b.get("text") for b in system if isinstance(b, Mapping)]
        system = "".join(p for p in parts if isinstance(p, str))
    return system if isinstance(system, str) else None


def _request_schema(body: Mapping[str, Any]) -> object:
    """The reply schema a request sends: OpenAI's json_schema, or a forced tool's input."""
    shape = body.get("response_format")
    if isinstance(shape, Mapping):
        spec = shape.get("json_schema")
        if isinstance(spec, Mapping) and "schema" in spec:
            return spec["schema"]
        if "schema" in shape:
            return shape["schema"]
    tools = body.get("tools")
    if isinstance(tools, list) and tools and isinstance(tools[0], Mapping):
        if "input_schema" in tools[0]:
            return tools[0]["input_schema"]
        function = tools[0].get("function")
        if isinstance(function, Mapping):
            return function.get("parameters")
    return None


class FakeReplies:
    """The server's default answer to every request (see the module's docstring)."""

    def __init__(self, script: Mapping[str | None, list[str]] | None = None) -> None:
        self._lock = threading.Lock()
        self._script: dict[str | None, Iterator[str]] = {
            role: itertools.cycle(replies) for role, replies in (script or {}).items()
        }

    def __call__(self, path: str, body: Any) -> Reply:
        body = body if isinstance(body, Mapping) else {}
        system = _system_prompt(body)
        placed = _roles().get(system.strip()) if system is not None else None
        role = placed[1] if placed is not None else None
        with self._lock:
            replies = self._script.get(role) or self._script.get(None)
            if replies is not None:
                return Reply(next(replies))
        schema = _request_schema(body)
        if schema is None and placed is not None:
            from harness.registry import get_game

            schema = get_game(placed[0]).seat_io.reply_schema(placed[1])
        return Reply(schema_reply(schema))


def fake_llm_server(port: int = 0, script: Path | None = None) -> ScriptedLLMServer:
    """The server, not started: on 127.0.0.1 at ``port`` (0: a free one)."""
    replies = FakeReplies(load_script(script) if script is not None else None)
    try:
        return ScriptedLLMServer(replies, port=port, keep_requests=False)
    except OSError as exc:
        raise ConfigError(f"--port {port}: cannot listen there: {exc.strerror or exc}") from None


__all__ = ["MAX_SCRIPT_BYTES", "FakeReplies", "Script", "fake_llm_server", "load_script"]
