"""The preflight's look at a local server's chat template (harness/llm/chat_template.py).

The scripted server answers ``GET /props`` as llama.cpp's ``llama-server`` does; the
preflight is the real one, its call made through the real OpenAI SDK.
"""

from __future__ import annotations

import asyncio
import socket

import pytest
from pydantic import JsonValue

from harness.llm.chat_template import ADVICE, props_url, template_warning
from harness.llm.seat import SeatFactory
from harness.registry import get_game
from harness.testing.llm_server import ScriptedLLMServer
from tests.llm.conftest import role_default, seat_options

GAME = get_game("lighthouse")
#: llama.cpp's fallback for a GGUF without a template: Llama 2's [INST] format.
LLAMA2 = (
    "{% for message in messages %}{% if message['role'] == 'user' %}"
    "{{ '[INST] ' + message['content'] + ' [/INST]' }}{% endif %}{% endfor %}"
)
GEMMA = (
    "{{ bos_token }}{% for message in messages %}{{ '<start_of_turn>' + message['role'] "
    "+ '\\n' + message['content'] + '<end_of_turn>\\n' }}{% endfor %}"
)


def preflight_warnings(props: JsonValue) -> tuple[list[str], list[str]]:
    """The preflight's warnings for one keeper on a server whose /props is ``props``,
    and the GET requests the server saw."""
    with ScriptedLLMServer(default=role_default, props=props) as server:

        async def go() -> list[str]:
            factory = SeatFactory()
            try:
                factory.seat(GAME, "keeper", seat_options(server, "openai"))
                return await factory.preflight()
            finally:
                await factory.aclose()

        warnings = asyncio.run(go())
        return warnings, list(server.gets)


def test_a_server_with_no_chat_template_is_warned_about_with_what_to_serve() -> None:
    warnings, gets = preflight_warnings(
        {"chat_template": "", "model_path": "/models/gemma-3-270m.gguf", "total_slots": 1}
    )
    assert gets == ["/props"]
    (warning,) = warnings
    assert warning.startswith("preflight openai:test-model: the server reports no chat template")
    assert ADVICE in warning
    assert "--chat-template" in warning


def test_a_fallback_template_for_the_models_family_is_warned_about() -> None:
    (warning,) = preflight_warnings(
        {"chat_template": LLAMA2, "model_path": "/models/gemma-3-270m-Q8_0.gguf"}
    )[0]
    assert "the chat template is not gemma's own (it lacks <start_of_turn>)" in warning


@pytest.mark.parametrize(
    "props",
    [
        {"chat_template": GEMMA, "model_path": "/models/gemma-3-270m-it.gguf"},
        {"chat_template": LLAMA2, "model_path": "/models/mystery.gguf"},  # no family named
        None,  # a 404: not llama.cpp
        ["not", "an", "object"],
        {"chat_template": 7},
    ],
)
def test_a_server_with_its_own_template_or_that_says_nothing_gets_no_warning(
    props: JsonValue,
) -> None:
    warnings, gets = preflight_warnings(props)
    assert warnings == []
    assert gets == ["/props"]


def test_an_unreachable_or_hostile_endpoint_never_fails_the_look() -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert asyncio.run(template_warning("x", f"http://127.0.0.1:{port}/v1")) is None
    deep: JsonValue = {"chat_template": ""}
    for _ in range(200):
        deep = [deep]
    with ScriptedLLMServer(props=deep) as server:
        assert asyncio.run(template_warning("x", server.openai_url)) is None
    assert props_url("http://127.0.0.1:8080/v1/") == "http://127.0.0.1:8080/props"
    assert props_url("http://127.0.0.1:8080") == "http://127.0.0.1:8080/props"
