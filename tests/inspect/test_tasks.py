"""Each task under Inspect's mock model plays what the harness plays for the same replies.

Inspect's ``mockllm/model`` answers with valid replies, garbage and refusals (a
content-filter stop), chosen by a hash of the conversation; the harness plays the
same seeds with its own OpenAI provider against a scripted server that answers the
same conversations the same way. The log's scores, every tick's replies, sources
and decisions, and the fallbacks counted must agree, and the records exported from
the log must replay clean.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model

from harness.cli import main
from harness.summary import FALLBACK_SOURCES
from harness.testing.llm_server import ScriptedLLMServer
from lighthouse_harness import tasks
from lighthouse_harness.export import export_records
from lighthouse_harness.record import RECORD_KEY
from tests.inspect.helpers import (
    KEY_ENV,
    SHORT,
    TASKS,
    harness_play,
    read_lines,
    record_lines,
    story,
)
from tests.inspect.replies import mock_output, server_reply

SEEDS = (0, 1)


def run_eval(task: Task, log_dir: Path, custom: Callable[..., Any] = mock_output) -> EvalLog:
    """The task evaluated with Inspect's mock model answering through ``custom``."""
    model = get_model("mockllm/model", custom_outputs=custom)
    (log,) = inspect_eval(task, model=model, log_dir=str(log_dir), display="none")
    return log


@pytest.mark.parametrize("name", list(TASKS))
def test_a_task_scores_what_the_harness_plays_for_the_same_replies(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-inspect-test")
    game, seats = TASKS[name]
    make_task = getattr(tasks, name)
    log = run_eval(make_task(seeds="0:2", rules=SHORT[game]), tmp_path / "logs")
    assert log.status == "success", log.error
    assert log.samples is not None
    assert [s.metadata["seed"] for s in log.samples] == list(SEEDS)

    fallbacks = turns = 0
    with ScriptedLLMServer(server_reply()) as server:
        for sample in log.samples:
            played = harness_play(server, game, seats, sample.metadata["seed"], rules=SHORT[game])
            score = sample.scores["game_score"] if sample.scores else None
            assert score is not None
            assert score.value == played.scores[0]
            kept = record_lines(sample.store[RECORD_KEY])
            assert story(kept) == story(played.lines)
            assert kept[-1]["results"] == played.lines[-1]["results"]
            fell_back = [t for t in story(played.lines) if t[3] in FALLBACK_SOURCES]
            model_turns = [t for t in story(played.lines) if t[3] != "baseline"]
            assert score.metadata is not None
            assert score.metadata["fallbacks"] == len(fell_back)
            assert score.metadata["model_turns"] == len(model_turns)
            fallbacks += len(fell_back)
            turns += len(model_turns)
            # the transcript: a model event per call, with the messages the seat sent,
            # and an info event per tick naming each seat's source
            ticks = [line for line in kept if line["type"] == "tick"]
            calls = [c for t in ticks for turn in t["seats"].values() for c in turn["calls"]]
            events = [e for e in sample.events if e.event == "model"]
            assert len(events) == len(calls)
            assert [e.input[0].role for e in events] == ["system"] * len(calls)
            infos = [e.data for e in sample.events if e.event == "info"]
            assert [d["tick"] for d in infos if isinstance(d, dict)] == [t["tick"] for t in ticks]
    # the replies did what they are for: some turns fell back, most did not
    assert 0 < fallbacks < turns

    assert log.results is not None
    metrics = {
        m.name.split("/")[-1]: m.value for s in log.results.scores for m in s.metrics.values()
    }
    assert metrics["fallback_rate"] == pytest.approx(fallbacks / turns)
    values = [s.scores["game_score"].value for s in log.samples if s.scores]
    assert metrics["mean"] == pytest.approx(sum(values) / len(values))  # type: ignore[arg-type]

    written = export_records(Path(log.location), tmp_path / "records")
    assert len(written) == len(SEEDS)
    for path, sample in zip(sorted(written), log.samples, strict=True):
        assert read_lines(path) == record_lines(sample.store[RECORD_KEY])
    assert main(["replay", str(tmp_path / "records")]) == 0


def test_a_model_seat_has_the_game_figures_as_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    figures = {
        "lighthouse_keeper": ("K", "E", "B"),
        "relayroam_player": ("optimum", "of_best"),
        "hourloom_player": ("planned", "sealed", "of_best"),
    }
    for name, keys in figures.items():
        game = TASKS[name][0]
        log = run_eval(getattr(tasks, name)(seeds=3, rules=SHORT[game]), tmp_path / name)
        assert log.samples is not None
        (sample,) = log.samples
        assert sample.scores is not None
        meta = sample.scores["game_score"].metadata
        assert meta is not None
        assert all(key in meta for key in keys), (name, sorted(meta))
        assert meta["game"] == game
        assert meta["seed"] == 3
        if "of_best" in keys:
            best = meta["optimum"] if "optimum" in meta else meta["planned"]
            assert math.isclose(meta["of_best"], sample.scores["game_score"].as_float() / best)


def test_one_sample_per_seed_and_variant(tmp_path: Path) -> None:
    task = tasks.lighthouse_keeper(seeds="4,9", variant="default,spring", rules=SHORT["lighthouse"])
    assert [(s.id, s.metadata) for s in task.dataset] == [
        (f"{variant}-s{seed}", {"game": "lighthouse", "seed": seed, "variant": variant})
        for variant in ("default", "spring")
        for seed in (4, 9)
    ]
    log = run_eval(task, tmp_path)
    assert log.samples is not None
    headers = [record_lines(s.store[RECORD_KEY])[0] for s in log.samples]
    assert sorted((h["variant"], h["seed"]) for h in headers) == [
        ("default", 4),
        ("default", 9),
        ("spring", 4),
        ("spring", 9),
    ]
    assert {h["seats"][0]["agent"]["name"] for h in headers} == {"inspect:mockllm/model"}
