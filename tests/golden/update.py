"""Rewrite the golden files from the current code: the only way they change.

    python -m tests.golden.update            # rewrite what differs, say what changed
    python -m tests.golden.update --check    # only say what differs (exit 1 if any)

Exit status 2 when a file cannot be made at all (say, inputs that no longer fit).

The test run itself only compares. Run this after a deliberate change of the rules,
the record format or the rendering, review ``git diff tests/golden`` line by line and
commit the new files with a message that says why they changed (tests/golden/README.md).

Records are compared without their wallClock fields, so a file whose content is the
same is left alone and a commit holds only real changes.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from harness.episode import run_episode
from harness.errors import HarnessError
from harness.games.lighthouse.board import generate_board
from harness.games.lighthouse.config import LighthouseConfig
from harness.games.lighthouse.state import new_game
from harness.records import RecordWriter
from harness.registry import get_game
from harness.seats import baseline_seats
from tests.golden.llm_records import SCENARIOS, build
from tests.golden.reports import FOLDERS, SUFFIXES, golden_path, outputs
from tests.test_episode import stable_lines
from tests.test_golden_playthroughs import GOLDEN_DIR, parse_inputs, play

HERE = Path(__file__).resolve().parent
RECORDS = HERE / "records"
GAME = get_game("lighthouse")


@dataclass(frozen=True)
class Golden:
    """One golden file and how to make it afresh (``make(path)`` writes it)."""

    path: Path
    make: Callable[[Path], None]
    is_record: bool


def _transcript(inputs: Path) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        _, text = play(parse_inputs(inputs))
        path.write_text(text, encoding="utf-8")

    return make


def _baseline_record(golden: Path) -> Callable[[Path], None]:
    # The seed, variant and episode id come from the file's own header.
    header = json.loads(golden.read_text(encoding="utf-8").splitlines()[0])

    def make(path: Path) -> None:
        config = LighthouseConfig.for_variant(header["variant"])
        state = new_game(config, generate_board(config, header["seed"]))

        async def go() -> None:
            with RecordWriter(path) as writer:
                await run_episode(
                    GAME,
                    state,
                    baseline_seats(GAME, state),
                    episode_id=header["episodeId"],
                    seed=header["seed"],
                    variant=header["variant"],
                    writer=writer,
                )

        asyncio.run(go())

    return make


def _llm_record(name: str) -> Callable[[Path], None]:
    return lambda path: build(name, path)


@functools.cache
def _outputs(name: str) -> dict[str, bytes]:
    return outputs(name)


def _report_file(name: str, suffix: str) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        path.write_bytes(_outputs(name)[suffix])

    return make


def goldens() -> Iterator[Golden]:
    """Every generated golden file (the hand-written tests/golden/hand/ is not one)."""
    for inputs in sorted(GOLDEN_DIR.glob("*.inputs.txt")):
        name = inputs.name.removesuffix(".inputs.txt")
        yield Golden(GOLDEN_DIR / f"{name}.txt", _transcript(inputs), is_record=False)
    for record in sorted(RECORDS.glob("baseline-*.jsonl")):
        yield Golden(record, _baseline_record(record), is_record=True)
    for name in sorted(SCENARIOS):
        yield Golden(RECORDS / f"{name}.jsonl", _llm_record(name), is_record=True)
    for name in FOLDERS:
        for suffix in SUFFIXES:
            yield Golden(golden_path(name, suffix), _report_file(name, suffix), is_record=False)


def _same(golden: Golden, fresh: Path) -> bool:
    if not golden.path.exists():
        return False
    if golden.is_record:
        return stable_lines(fresh) == stable_lines(golden.path)
    return fresh.read_bytes() == golden.path.read_bytes()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.golden.update", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a file would change"
    )
    args = parser.parse_args(argv)
    changed = failed = 0
    with tempfile.TemporaryDirectory() as scratch:
        for golden in goldens():
            fresh = Path(scratch) / golden.path.name
            where = golden.path.relative_to(HERE.parents[1])
            try:
                golden.make(fresh)
            except (HarnessError, ValueError) as exc:
                # e.g. inputs that no longer fit the game: the file is left as it was
                failed += 1
                print(f"failed     {where}: {exc}")
                continue
            if _same(golden, fresh):
                print(f"unchanged  {where}")
                continue
            changed += 1
            if args.check:
                print(f"differs    {where}")
            else:
                golden.path.write_bytes(fresh.read_bytes())
                print(f"rewrote    {where}")
    if changed and not args.check:
        print(f"{changed} golden file(s) rewritten: review `git diff tests/golden`, then commit")
        print("them with a message that says why they changed.")
    if failed:
        print(f"{failed} golden file(s) could not be made: fix their inputs or the code.")
        return 2
    return 1 if changed and args.check else 0


if __name__ == "__main__":
    sys.exit(main())
