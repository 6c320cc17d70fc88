"""Results folders made by the real runner, and the browser served from them."""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from harness.browse.server import make_server
from harness.tournament.config import load_tournament
from harness.tournament.run import run_tournament

#: Two keepers, 50 seeds, both tides: 200 episodes, in a few seconds.
CONFIG_200 = """
name = "browse"
seeds = { start = 0, stop = 50 }
variants = ["default", "spring"]
reference = "silent"
concurrency = 8

[[entrants]]
name = "lantern"
keeper = { baseline = "lantern" }
runners = { baseline = "wallhug" }

[[entrants]]
name = "silent"
keeper = { baseline = "silent" }
runners = { baseline = "wallhug" }
"""


def make_folder(where: Path, config_text: str, name: str = "results") -> Path:
    """A results folder played by the real runner from ``config_text``."""
    config = where / f"{name}.toml"
    config.write_text(config_text, encoding="utf-8")
    out = where / name
    asyncio.run(run_tournament(load_tournament(config), out))
    return out


@pytest.fixture(scope="session")
def folder200(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_folder(tmp_path_factory.mktemp("browse"), CONFIG_200)


def digest(root: Path) -> dict[str, tuple[str, int, int]]:
    """Every file under ``root``: its sha256, size and modification time."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            st = path.stat()
            out[str(path.relative_to(root))] = (
                hashlib.sha256(path.read_bytes()).hexdigest(),
                st.st_size,
                st.st_mtime_ns,
            )
    return out


@contextmanager
def serving(root: Path) -> Iterator[str]:
    """The browser of ``root`` served on a free port of 127.0.0.1; yields its address."""
    server = make_server(root, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
