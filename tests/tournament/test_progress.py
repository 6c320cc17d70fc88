"""The progress line when output is a pipe or a file: a line per finished episode."""

from __future__ import annotations

import io

from harness.summary import EpisodeSummary
from harness.tournament.progress import Progress


def finished(n: int) -> EpisodeSummary:
    return EpisodeSummary.model_validate(
        {
            "episodeId": f"e--default--s{n}--r0", "entrant": "e", "seed": n,
            "variant": "default", "repetition": 0, "score": 1.0, "scores": [1.0],
            "reason": "complete", "metrics": {}, "fallbackFree": True,
            "seats": {"keeper": {"role": "keeper", "agent": "openai:m", "turns": 4, "calls": 4}},
        }
    )  # fmt: skip


def test_each_finished_episode_prints_a_line_at_once() -> None:
    stream = io.StringIO()
    progress = Progress(6, 0, stream=stream)
    progress.show()
    progress.add(finished(0))
    progress.add(finished(1))  # right after the first: not held back for a few seconds
    lines = stream.getvalue().splitlines()
    assert [line.split(" episodes")[0] for line in lines] == ["0/6", "1/6", "2/6"]
    assert "calls 8" in lines[-1]
    progress.show(final=True)  # nothing new to say: no repeated line
    assert len(stream.getvalue().splitlines()) == 3
