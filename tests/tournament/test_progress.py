"""The progress line when output is a pipe or a file: a line when something changed, at
most one a second during a run, and the latest never held back longer than that."""

from __future__ import annotations

import asyncio
import io
import time

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


def test_outside_a_run_each_finished_episode_prints_a_line_at_once() -> None:
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


def test_during_a_run_a_pipe_gets_a_line_a_second_and_the_latest_is_printed_later() -> None:
    stream = io.StringIO()

    async def go() -> tuple[list[str], Progress]:
        progress = Progress(6, 0, stream=stream, every=1.0)
        progress.show()
        for n in range(3):  # all within the second after the first line: held back
            progress.add(finished(n))
        held = stream.getvalue().splitlines()
        deadline = time.monotonic() + 30
        while len(stream.getvalue().splitlines()) < 2 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)  # the timer prints the latest line, on its own
        progress.show(final=True)  # nothing new since: no repeated line
        return held, progress

    held, progress = asyncio.run(go())
    assert [line.split(" episodes")[0] for line in held] == ["0/6"]
    lines = stream.getvalue().splitlines()
    assert [line.split(" episodes")[0] for line in lines] == ["0/6", "3/6"]
    assert "calls 12" in lines[-1]
    assert progress.done == 3


def test_the_final_line_is_printed_at_once_and_cancels_the_one_held_back() -> None:
    stream = io.StringIO()

    async def go() -> None:
        progress = Progress(2, 0, stream=stream, every=3600.0)
        progress.show()
        progress.add(finished(0))
        progress.add(finished(1))
        progress.show(final=True)
        await asyncio.sleep(0)

    asyncio.run(go())
    lines = stream.getvalue().splitlines()
    assert [line.split(" episodes")[0] for line in lines] == ["0/2", "2/2"]
