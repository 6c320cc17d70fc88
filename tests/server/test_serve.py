"""``lighthouse serve``: its kept signing key, its front page, over real HTTP."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from harness.errors import ConfigError
from harness.registry import http_apis
from harness.server.app import create_app
from harness.server.key_file import default_key_file, kept_key
from tests.relayroam.live_server import Reply, http, running_server

WAIT = {"type": "wait"}
#: Seconds a started server has to answer (a bound, never a measured result).
BOUND_S = 60


def test_a_key_file_is_made_once_for_its_owner_alone(tmp_path: Path) -> None:
    path = tmp_path / "state" / "lighthouse" / "serve-signing.key"
    first = kept_key(path)
    assert first.created
    assert len(first.key) == 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert path.read_text() == first.key.hex() + "\n"
    again = kept_key(path)
    assert (again.key, again.created) == (first.key, False)
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary left


def test_the_default_place_is_the_users_state_folder(tmp_path: Path) -> None:
    # conftest points XDG_STATE_HOME at a folder of the test's own
    assert default_key_file() == Path(os.environ["XDG_STATE_HOME"]) / "lighthouse" / (
        "serve-signing.key"
    )


@pytest.mark.parametrize(
    ("content", "mode", "phrase"),
    [
        ("ab" * 32 + "\n", 0o644, "can be read by others (mode 0644)"),
        ("not a key\n", 0o600, "does not hold a key"),
        ("ab" * 8 + "\n", 0o600, "holds 8 bytes"),
    ],
)
def test_a_key_file_that_is_not_private_or_not_a_key_is_refused(
    tmp_path: Path, content: str, mode: int, phrase: str
) -> None:
    path = tmp_path / "k.key"
    path.write_text(content)
    path.chmod(mode)
    with pytest.raises(ConfigError) as info:
        kept_key(path)
    assert phrase in str(info.value)
    assert str(path) in str(info.value)
    assert "ab" * 8 not in str(info.value)  # never the key itself


def test_the_environment_key_wins_and_the_kept_key_is_asked_for_only_when_needed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []

    def kept() -> bytes:
        calls.append("kept")
        return b"k" * 32

    monkeypatch.delenv("RELAYROAM_TOKEN_KEY", raising=False)
    create_app(kept_key=kept)
    assert calls == ["kept"]  # Relayroam asked; Hourloom signs nothing and did not
    monkeypatch.setenv("RELAYROAM_TOKEN_KEY", "cd" * 32)
    create_app(kept_key=kept)
    assert calls == ["kept"]


def test_the_front_page_lists_every_game_and_its_page() -> None:
    with running_server(b"k" * 32) as base:
        reply = http("GET", base + "/")
    assert reply.status == 200
    assert reply.headers["content-type"].startswith("text/html")
    page = reply.raw.decode()
    for name, api in http_apis().items():
        assert f'data-game="{name}"' in page
        assert f"GET /api/games/{name}/init?seed=N" in page
        if api.page() is not None:
            assert f'<a href="{name}/">{name.capitalize()}</a>' in page
    assert "script-src ;" in reply.headers["content-security-policy"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def _serve(key_file: Path, log: Path) -> Iterator[str]:
    """``lighthouse serve --key-file KEY_FILE`` until the block ends; its lines to ``log``."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "RELAYROAM_TOKEN_KEY"}
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "harness.cli", "serve", "--port", str(port),
             "--key-file", str(key_file)],
            stdout=out, stderr=subprocess.STDOUT, env=env,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + BOUND_S
        while True:
            try:
                if http("GET", base + "/").status == 200:
                    break
            except OSError:
                pass
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=BOUND_S)


def _act(base: str, token: str) -> Reply:
    body = json.dumps({"stateToken": token, "action": WAIT}).encode()
    return http("POST", base + "/api/games/relayroam/action", body)


def test_a_game_in_play_survives_a_restart_and_another_key_is_explained(tmp_path: Path) -> None:
    key_file, log = tmp_path / "keys" / "serve.key", tmp_path / "serve.log"
    with _serve(key_file, log) as base:
        token = http("GET", base + "/api/games/relayroam/init?seed=7").json()["stateToken"]
        assert _act(base, token).status == 200
    with _serve(key_file, log) as base:  # restarted: the same key, read from the file
        reply = _act(base, token)
        assert reply.status == 200, reply.raw
        assert reply.json()["turn"] == 1
    with _serve(tmp_path / "other.key", log) as base:  # another key: the game is lost
        reply = _act(base, token)
    assert reply.status == 400
    message = reply.json()["message"]
    assert "its signature is not from this server's key" in message
    assert "The server's key has changed since the game began" in message
    assert "start a new game" in message
    text = log.read_text()
    assert f"Signing key: made now and kept in {key_file}" in text
    assert f"Signing key: kept in {key_file}" in text
    assert key_file.read_text().strip() not in text  # the key is never logged


def test_a_port_already_taken_is_a_clear_error_before_any_address_is_given() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = subprocess.run(
            [sys.executable, "-m", "harness.cli", "serve", "--port", str(port)],
            capture_output=True, text=True, timeout=BOUND_S, check=False,
        )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"lighthouse: error: cannot listen on 127.0.0.1:{port}: ")
    assert "choose another --port" in proc.stderr
    # no address that nothing serves, and no server log or traceback
    assert "http://" not in proc.stderr
    assert "Traceback" not in proc.stderr
    assert "ERROR" not in proc.stderr


def test_port_0_gives_the_address_of_the_port_the_system_picked(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "RELAYROAM_TOKEN_KEY"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", "serve", "--port", "0",
         "--key-file", str(tmp_path / "serve.key")],
        stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
        assert first.startswith("Games: http://127.0.0.1:"), first
        base = first.removeprefix("Games: ").strip().rstrip("/")
        assert not base.endswith(":0")
        deadline = time.monotonic() + BOUND_S
        while True:  # the socket is bound before the line; uvicorn serves it soon after
            try:
                reply = http("GET", base + "/")
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.1)
        assert reply.status == 200
        assert "relayroam" in reply.raw.decode()
    finally:
        proc.terminate()
        proc.wait(timeout=BOUND_S)
