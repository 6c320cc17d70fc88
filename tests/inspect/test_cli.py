"""``inspect eval`` finds the tasks through the entry point, from a folder that is not
the project's; its log's scores are the harness's; the exported records replay clean.

The model is Inspect's OpenAI-compatible provider (``openai-api/scripted/m``) against
a scripted server on 127.0.0.1, so the command line alone sets everything up (a mock
model's custom outputs cannot be given on it); the harness plays the same seeds
against the same server with its own provider.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai.log import read_eval_log

from harness.testing.llm_server import ScriptedLLMServer
from tests.in_process import command, lighthouse
from tests.inspect.helpers import KEY_ENV, harness_play, read_lines
from tests.inspect.replies import server_reply

ROOT = Path(__file__).resolve().parents[2]


def test_inspect_eval_runs_a_task_by_name_from_any_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv(KEY_ENV, "sk-inspect-test")
    env = {**os.environ, "SCRIPTED_API_KEY": "sk-inspect-test", "PYTHONPATH": ""}
    with ScriptedLLMServer(server_reply()) as server:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "inspect_ai",
                "eval",
                "lighthouse_harness/lighthouse_keeper",
                "--model",
                "openai-api/scripted/m",
                "--model-base-url",
                server.openai_url,
                "-T",
                "seeds=0:2",
                "-T",
                "variant=spring",
                "-T",
                "rules={maxTicks: 10}",
                "--log-dir",
                str(tmp_path / "logs"),
                "--display",
                "none",
            ],
            cwd=elsewhere,
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        (path,) = (tmp_path / "logs").glob("*.eval")
        log = read_eval_log(str(path))
        assert log.status == "success"
        assert log.eval.task == "lighthouse_harness/lighthouse_keeper"
        assert log.samples is not None
        scores = {s.metadata["seed"]: s.scores["game_score"].value for s in log.samples if s.scores}
        expected = {
            seed: harness_play(
                server,
                "lighthouse",
                {"keeper": "model", "runners": "wallhug"},
                seed,
                rules={"maxTicks": 10},
                variant="spring",
            )
            for seed in (0, 1)
        }
    assert scores == {seed: played.scores[0] for seed, played in expected.items()}

    # the export and the replay in this process (the export's own process is tested below)
    from lighthouse_harness.export import main as export

    out = tmp_path / "records"
    exported = command(export, path, out, cwd=elsewhere)
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.strip() == f"2 records written to {out}"
    for seed, played in expected.items():
        kept = read_lines(out / f"spring-s{seed}-e1.jsonl")
        assert kept[-1]["results"] == played.lines[-1]["results"]
        assert kept[0]["seats"][0]["agent"]["details"]["provider"] == "inspect"
    replayed = lighthouse("replay", out, cwd=ROOT)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr


def test_export_refuses_what_is_not_a_log_in_one_line(tmp_path: Path) -> None:
    from lighthouse_harness.export import main

    not_a_log = tmp_path / "notes.eval"
    not_a_log.write_text("not a zip file")
    # a real process for the first, this one for the second: the same one line each
    real = subprocess.run(
        [sys.executable, "-m", "lighthouse_harness.export", str(tmp_path / "missing.eval"),
         str(tmp_path / "o")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    for done in (real, command(main, not_a_log, tmp_path / "o")):
        assert done.returncode == 2
        assert done.stderr.startswith("export: error: ")
        assert len(done.stderr.strip().splitlines()) == 1
    assert main([str(tmp_path / "missing.eval"), str(tmp_path / "o")]) == 2
