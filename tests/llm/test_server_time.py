"""The server's own time for a request, as llama.cpp's body or OpenAI's header says it."""

from __future__ import annotations

import math

from harness.llm.wire import (
    MAX_SERVER_MS,
    PROCESSING_MS_HEADER,
    header_server_ms,
    llama_cpp_server_ms,
    server_ms,
)


def test_llama_cpp_timings_add_up_and_hostile_ones_are_unknown() -> None:
    assert llama_cpp_server_ms({"prompt_ms": 12.5, "predicted_ms": 30}) == 42.5
    hostiles: list[object] = [
        None,
        [],
        "12",
        {"prompt_ms": 1.0},  # half of it
        {"prompt_ms": -1, "predicted_ms": 5},
        {"prompt_ms": math.nan, "predicted_ms": 5},
        {"prompt_ms": math.inf, "predicted_ms": 5},
        {"prompt_ms": True, "predicted_ms": 5},
        {"prompt_ms": 10**400, "predicted_ms": 5},
        {"prompt_ms": MAX_SERVER_MS + 1, "predicted_ms": 5},
    ]
    for hostile in hostiles:
        assert llama_cpp_server_ms(hostile) is None, hostile
    assert server_ms(0) == 0.0


def test_the_processing_header_is_read_when_it_is_a_time() -> None:
    assert header_server_ms({PROCESSING_MS_HEADER: "154"}) == 154.0
    assert header_server_ms({}) is None
    for hostile in ["", "soon", "-3", "nan", "inf", "1" * 400, "1e400"]:
        assert header_server_ms({PROCESSING_MS_HEADER: hostile}) is None, hostile
