"""A key that no HTTP header can carry is refused when read, before any request."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main
from harness.errors import FatalProviderError
from harness.llm.anthropic_provider import AnthropicProvider
from harness.llm.keys import check_keys, key_problem
from harness.llm.openai_provider import OpenAIProvider
from harness.llm.options import ProviderOptions
from harness.llm.seat import SeatFactory
from harness.testing.llm_server import ScriptedLLMServer
from tests.in_process import command
from tests.llm.conftest import GAME, KEY_ENV, play_llm, seat_options

GOOD = "sk-test-Kz7Qw3Xe9Rt5Yu1Io"
#: Keys that must be refused, the kind of error, and what the message says.
BAD_KEYS = {
    "carriage_return": (GOOD + "\r", "bad_key", f"character {len(GOOD) + 1} of "),
    "space": ("sk-test Kz7Qw3Xe9", "bad_key", "is a space (U+0020)"),
    "non_ascii": ("sk-test-Kz7Qw3Xé9", "bad_key", "is a non-ASCII character (U+00E9)"),
    "empty": ("", "missing_key", "is not set"),
}
CASES = sorted(BAD_KEYS)


@pytest.mark.parametrize(
    ("key", "problem"),
    [
        (GOOD + "\r", "is a carriage return (U+000D)"),
        (GOOD + "\n", "is a line feed (U+000A)"),
        ("\t" + GOOD, "character 1 of 26 is a tab (U+0009)"),
        (GOOD + "\x7f", "is a control character (U+007F)"),
        (GOOD + "\x00", "is a control character (U+0000)"),
        (GOOD + "\u00a0", "is a whitespace character (U+00A0)"),
        (GOOD + "\u200b", "is a non-ASCII character (U+200B)"),
        (GOOD + "\u2019", "is a non-ASCII character (U+2019)"),
        (GOOD + "\udce9", "is a byte that is not UTF-8 (0xE9)"),  # as os.environ keeps it
        ("", "it is empty"),
    ],
)
def test_key_problem_names_the_character_not_the_key(key: str, problem: str) -> None:
    found = key_problem(key)
    assert found is not None
    assert problem in found
    for i in range(len(GOOD) - 7):
        assert GOOD[i : i + 8] not in found


@pytest.mark.parametrize("key", [GOOD, "ollama", "x", "sk-!#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"])
def test_printable_ascii_keys_pass(key: str) -> None:
    assert key_problem(key) is None


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("sdk", ["openai", "anthropic"])
@pytest.mark.parametrize("transport", ["httpx", "aiohttp"])
def test_a_bad_key_stops_the_seat_before_any_request(
    server: ScriptedLLMServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    case: str,
    sdk: str,
    transport: str,
) -> None:
    key, kind, says = BAD_KEYS[case]
    monkeypatch.setenv(KEY_ENV, key)
    with pytest.raises(FatalProviderError) as info:
        play_llm(server, sdk, tmp_path / "r.jsonl", provider={"transport": transport})
    assert info.value.kind == kind
    assert says in str(info.value)
    assert KEY_ENV in str(info.value)
    assert "\n" not in str(info.value)
    assert "\r" not in str(info.value)
    if key:
        assert key.strip() not in str(info.value)
    assert server.requests == []
    assert not (tmp_path / "r.jsonl").exists()


@pytest.mark.parametrize("provider", [OpenAIProvider, AnthropicProvider])
def test_providers_built_by_hand_check_their_key(provider: type) -> None:
    with pytest.raises(FatalProviderError) as info:
        provider(api_key=GOOD + "\r", base_url="http://127.0.0.1:9")
    assert info.value.kind == "bad_key"
    assert GOOD not in str(info.value)


def test_check_keys_can_let_an_unset_variable_pass(server: ScriptedLLMServer) -> None:
    options = seat_options(server, "openai").provider
    check_keys([options], {}, require=False)
    with pytest.raises(FatalProviderError, match="is not set"):
        check_keys([options], {}, require=True)
    with pytest.raises(FatalProviderError, match="carriage return"):
        check_keys([options], {KEY_ENV: GOOD + "\r"}, require=False)
    keyless = ProviderOptions(kind="scripted")
    check_keys([keyless], {}, require=True)


def test_a_seat_factory_refuses_before_it_builds_a_client(
    server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, GOOD + "\r")
    factory = SeatFactory()
    with pytest.raises(FatalProviderError, match="carriage return"):
        factory.seat(GAME, "keeper", seat_options(server, "openai"))
    assert factory._providers == {}


def lighthouse(key: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The command with ``key`` as the key (none when empty): a real process for a key
    that is not ASCII (the environment a child reads encodes it), this one otherwise."""
    env = {k: v for k, v in os.environ.items() if k != KEY_ENV}
    if key:
        env[KEY_ENV] = key
    if key.isascii():
        return command(main, *args, env=env)
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def assert_refused(proc: subprocess.CompletedProcess[str], key: str, says: str) -> None:
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("lighthouse: error:")]
    assert len(errors) == 1, proc.stderr
    assert says in errors[0]
    assert "Traceback" not in proc.stderr
    if key:
        assert key.strip() not in proc.stderr + proc.stdout


@pytest.mark.parametrize("case", CASES)
def test_play_refuses_a_bad_key_with_exit_2(
    server: ScriptedLLMServer, tmp_path: Path, case: str
) -> None:
    key, _, says = BAD_KEYS[case]
    record = tmp_path / "r.jsonl"
    proc = lighthouse(
        key, "play", "--seed", "1", "--keeper", "openai:test-model",
        "--base-url", server.openai_url, "--api-key-env", KEY_ENV, "--record", str(record),
    )  # fmt: skip
    assert_refused(proc, key, says)
    assert server.requests == []
    assert not record.exists()


TOURNAMENT = """
name = "keys"
seeds = {{ start = 0, stop = 2 }}
rules = {{ maxTicks = 3 }}

[providers.local]
kind = "openai"
base_url = "{url}"
api_key_env = "{key_env}"

[[entrants]]
name = "llm"
keeper = {{ provider = "local", model = "scripted" }}
runners = {{ baseline = "wallhug" }}
"""


@pytest.mark.parametrize("case", ["carriage_return", "empty"])
def test_run_refuses_a_bad_key_before_the_results_folder_exists(
    server: ScriptedLLMServer, tmp_path: Path, case: str
) -> None:
    key, _, says = BAD_KEYS[case]
    config = tmp_path / "keys.toml"
    config.write_text(TOURNAMENT.format(url=server.openai_url, key_env=KEY_ENV))
    out = tmp_path / "results"
    proc = lighthouse(key, "run", str(config), "--out", str(out), "--no-report")
    assert_refused(proc, key, says)
    assert server.requests == []
    assert not out.exists()
