"""Resuming a results folder an earlier harness wrote (tests/golden/folders/: ``models``,
with a manifest from before manifests had a version, and ``older``, from before
identities) asks a model server only for episodes its entrants have not played as
they play now.

Those folders' model episodes were played when the game sent prompt layout 1; this
harness sends layout 2, so the text the seats read changed and the entrants are other
entrants (docs/tournaments.md, "Entrant identity"): their episodes play again, and
the run says why. With the game's layout as it was, nothing is asked: the earlier
folder layout costs no call.
"""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest

from harness.games.lighthouse.seat_io import LighthouseSeatIO
from harness.testing.llm_server import Reply, ScriptedLLMServer
from harness.tournament.store import ResultsFolder
from tests.golden.folders import unpack
from tests.golden.folders.make import KEY_ENV, MODELS
from tests.in_process import lighthouse

ENVIRON = {KEY_ENV: "sk-old-folders-0123456789"}
MODEL_ENTRANTS = {"model", "junk"}


def folder_and_config(tmp_path: Path, name: str) -> tuple[Path, Path, int]:
    """The old folder ``name`` unpacked, the config it was made by, and the port of
    the server its model entrants were played against (part of their identity)."""
    root = unpack(name, tmp_path)
    manifest = json.loads((root / "manifest.json").read_text("utf-8"))
    url = manifest["config"]["providers"]["local"]["baseUrl"]
    config = tmp_path / f"{name}.toml"
    config.write_text(MODELS.format(url=url, key_env=KEY_ENV, extra=""), encoding="utf-8")
    return root, config, int(url.rsplit(":", 1)[1].split("/")[0])


def server_at(port: int) -> ScriptedLLMServer:
    with socket.socket() as probe:
        if probe.connect_ex(("127.0.0.1", port)) == 0:
            pytest.skip(f"port {port}, which the folder's base_url names, is taken")
    return ScriptedLLMServer(default=Reply('{"transmit": false}'), port=port)


def resume(config: Path, root: Path) -> tuple[int, str]:
    done = lighthouse("run", config, "--out", root, "--no-report", "--workers", "0",
                      env={**os.environ, **ENVIRON})  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.returncode, done.stderr


@pytest.mark.parametrize("name", ["models", "older"])
def test_an_old_folder_whose_entrants_play_as_they_did_resumes_asking_nothing(
    tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, config, port = folder_and_config(tmp_path, name)
    # the layout the folder's episodes were played at
    monkeypatch.setattr(LighthouseSeatIO, "prompt_layout", 1)
    with server_at(port) as server:
        _, err = resume(config, root)
        assert server.requests == []
    assert "0 episodes played, 9 already done, 9 in all" in err
    assert not (root / "superseded").exists()
    assert len(ResultsFolder(root).summaries()) == 9


@pytest.mark.parametrize("name", ["models", "older"])
def test_an_old_folder_plays_again_only_what_was_played_at_the_first_prompt_layout(
    tmp_path: Path, name: str
) -> None:
    root, config, port = folder_and_config(tmp_path, name)
    with server_at(port) as server:
        _, err = resume(config, root)
        asked = len(server.requests)
    assert asked > 0
    assert "6 episodes played, 3 already done, 6 set aside" in err
    # the run says why: the harness, not the config, changed what the seats read
    assert (
        "entrants played at an earlier prompt layout of the game (this harness's prompts "
        "read otherwise): junk, model (6 earlier episode(s) set aside in superseded/1"
    ) in err
    assert "spec changed" not in err
    moved = ResultsFolder(root / "superseded" / "1").summaries()
    assert {line.entrant for line in moved} == MODEL_ENTRANTS  # the baselines' are kept
    # a second resume asks nothing more
    with server_at(port) as server:
        _, err = resume(config, root)
        assert server.requests == []
    assert "0 episodes played, 9 already done" in err
