"""``lighthouse replay``: verified re-execution, reparse, completion, counterfactuals, viewers."""

from __future__ import annotations

import argparse
import json
import os
import re
from pathlib import Path
from typing import Any

from harness.commands.parser import Subcommand, at_least
from harness.commands.seats import add_seat_arguments
from harness.errors import ConfigError, HarnessError, RecordError
from harness.files import regular_files


def _add_arguments(rep: argparse.ArgumentParser) -> None:
    """``replay``'s flags."""
    rep.add_argument("record", type=Path, help="a record, or a results folder")
    rep.add_argument("--reparse", action="store_true", help="re-parse every model reply")
    _add_one_record_output(rep, "--complete", "write the full record")
    rep.add_argument("--view", action="store_true", help="step through the ticks")
    _add_one_record_output(rep, "--html", "write a self-contained viewer")
    rep.add_argument(
        "--until-tick",
        type=at_least(0),
        metavar="K",
        help="counterfactual: keep the record's ticks before K, then play on with the seats "
        "the flags name (default: replay it all)",
    )
    rep.add_argument(
        "--out",
        type=Path,
        metavar="FILE",
        help="where the counterfactual record goes, never inside a results folder "
        "(default: the working folder, named RECORD--from-tK.jsonl)",
    )
    rep.add_argument(
        "--beside",
        action="store_true",
        help="with --until-tick: write the counterfactual next to the record it starts "
        "from (refused when that is in a results folder)",
    )
    add_seat_arguments(rep)


def _add_one_record_output(rep: argparse.ArgumentParser, flag: str, does: str) -> None:
    """An option naming a file that what one record replays into is written to (``run``
    refuses it for a folder)."""
    rep.add_argument(
        flag, type=Path, metavar="OUT", help=f"{does} (one record only; default: none is written)"
    )


def record_paths(path: Path) -> tuple[list[Path], list[str]]:
    """A record, or every record of a results folder that can be read; and a line for
    each entry of the folder that cannot (a FIFO, a device, a symlink out of it)."""
    if path.is_dir():
        base = path / "records" if (path / "records").is_dir() else path
        found, skipped = regular_files(base, "*.jsonl", path)
        return found, [f"{path}{os.sep}{note}" for note in skipped]
    return [path], []


def run(args: argparse.Namespace) -> int:
    """Replay one record or a folder of them; check a results folder's lines too."""
    if args.until_tick is not None:
        return _counterfactual(args)
    if args.beside:
        raise ConfigError("--beside: goes with --until-tick (where a counterfactual goes)")
    from harness.tournament.lock import writer_of
    from harness.tournament.store import EPISODES, MANIFEST

    folder = args.record.is_dir()
    results = folder and any((args.record / name).exists() for name in (EPISODES, MANIFEST))
    paths, skipped = record_paths(args.record)
    for line in skipped:
        print(line)
    if not paths and not results:
        raise ConfigError(f"{args.record}: no records found")
    if len(paths) > 1 and (args.complete or args.html or args.view):
        raise ConfigError("--complete, --html and --view take one record, not a folder")
    if folder and (writer := writer_of(args.record)) is not None:
        print(f"note: {args.record} is being written right now ({writer}); "
              "episodes in play are not in it yet")  # fmt: skip
    bad = changes = strays = 0
    for path in paths:
        clean, changed = _replay_one(args, path, alone=not folder, results=results)
        if clean is None:  # a counterfactual in a results folder: named, not counted
            strays += 1
            continue
        bad += not clean
        changes += changed
    if folder:
        unread = f", {len(skipped)} not read" if skipped else ""
        aside = f", {strays} counterfactual(s) left out" if strays else ""
        replayed = len(paths) - strays
        print(f"{replayed} records: {replayed - bad} clean, {bad} not clean{unread}{aside}")
        bad += len(skipped)
        if results:
            bad += _check_results(args.record)
    if args.reparse:
        print(f"reparse: {changes} decision(s) would change")
    if args.complete:
        print(f"complete record written to {args.complete}")
    return 1 if bad else 0


def _replay_one(
    args: argparse.Namespace, path: Path, *, alone: bool, results: bool = False
) -> tuple[bool | None, int]:
    """Replay one record and print what it found; return (clean, reparse changes).

    A record that cannot be read stops a single replay (exit 2); in a folder it is
    reported, and the other records are replayed all the same. In a results folder
    (``results``) a counterfactual record is no episode of it: it is named once and
    not replayed (clean: None).
    """
    import asyncio

    from harness.records import RecordWriter
    from harness.replay import replay

    if results:
        from harness.tournament.audit import derived_from, stray_note

        origin = derived_from(path, args.record)
        if origin is not None:
            print(stray_note(str(path), origin))
            return None, 0

    try:
        writer = RecordWriter(args.complete) if args.complete else None
        try:
            result = asyncio.run(replay(path, reparse=args.reparse, writer=writer))
        finally:
            if writer is not None:
                writer.close()
    except (RecordError, ConfigError) as exc:
        if alone:
            raise
        # "PATH:7: problem" reads as "PATH: UNREADABLE: line 7: problem"
        problem = re.sub(r"^(\d+): ", r"line \1: ", str(exc).removeprefix(f"{path}:").strip())
        print(f"{path}: UNREADABLE: {problem}")
        return False, 0
    view = result.record.game.view
    if result.mismatch is not None:
        print(f"{path}: MISMATCH at {result.mismatch.describe()}")
    if result.incomplete:
        print(f"{path}: INCOMPLETE: this record has no end line "
              f"({len(result.record.ticks)} ticks; its results cannot be checked)")  # fmt: skip
    if result.clean and alone:
        print(f"{path}: replays clean ({len(result.record.ticks)} ticks, results match)")
    for change in result.reparse:
        print(
            f"{path}: tick {change.tick} {change.seat}: {change.recorded_source} "
            f"{json.dumps(change.recorded_decision)} -> {change.new_source} "
            f"{json.dumps(change.new_decision)}" + (f" ({change.note})" if change.note else "")
        )
    if args.view and result.lines:
        from harness.viewer.terminal import step_through

        step_through(view, result.lines)
    if args.html and result.lines:
        from harness.viewer.html import write_html

        write_html(view, result.lines, args.html)
        print(f"viewer written to {args.html}")
    return result.clean, len(result.reparse)


def _check_results(root: Path) -> int:
    """Check every results line against its record; print each problem; return how many."""
    from harness.registry import get_game
    from harness.tournament.audit import audit
    from harness.tournament.store import ResultsFolder

    folder = ResultsFolder(root)
    episodes, records = folder.episodes_path, folder.records
    try:
        game = get_game(folder.manifest().game)
    except (RecordError, ConfigError) as exc:
        print(f"{folder.manifest_path}: UNREADABLE: {exc}")
        return 1
    found = audit(episodes, records, game)
    for check in found.problems:
        print(f"{episodes}:{check.describe()}")
    for orphan in found.orphans:
        print(f"{records / orphan}.jsonl: no results line (the report leaves this episode out; "
              "`lighthouse run` writes its line when the record replays clean)")  # fmt: skip
    if found.torn:
        print(f"{episodes}: the last line is cut short (a run stopped while writing it; "
              "`lighthouse run` removes it)")  # fmt: skip
    unhashed = sum(c.unhashed for c in found.checks)
    if unhashed:
        print(f"note: {unhashed} results line(s) carry no record sha256 (written by an older "
              "harness); their figures match their records")  # fmt: skip
    bad = len(found.problems) + len(found.orphans)
    print(f"{len(found.checks)} results lines: {len(found.checks) - len(found.problems)} "
          f"match their records, {len(found.problems)} do not")  # fmt: skip
    return bad


def _counterfactual_out(args: argparse.Namespace) -> Path:
    """Where the counterfactual goes: ``--out``, else the working folder (next to the
    record with ``--beside``); never inside a results folder, where it would pass for
    one of its episodes (a ConfigError)."""
    from harness.tournament.store import results_root

    if args.out is not None and args.beside:
        raise ConfigError("--beside: give --out or --beside, not both")
    name = f"{args.record.stem}--from-t{args.until_tick}.jsonl"
    out: Path = args.out or (args.record.with_name(name) if args.beside else Path(name))
    root = results_root(out.absolute().parent)
    if root is not None:
        flag = "--out" if args.out is not None else "--beside" if args.beside else "the default"
        raise ConfigError(
            f"{flag}: {out} is inside the results folder {root}, where a counterfactual "
            "would pass for an episode of it; write it elsewhere with --out FILE"
        )
    return out


def _counterfactual(args: argparse.Namespace) -> int:
    import asyncio

    from harness.commands.seats import check_seat_keys, seat_configs, seating
    from harness.records import RecordWriter
    from harness.replay import counterfactual, load_record
    from harness.seating import seats_of_groups

    if args.record.is_dir():
        raise ConfigError("--until-tick takes one record, not a folder")
    record = load_record(args.record)
    game = record.game
    if args.until_tick > len(record.ticks):  # before any file is made
        raise ConfigError(
            f"--until-tick: {args.until_tick} is outside 0..{len(record.ticks)} "
            f"({args.record} has {len(record.ticks)} ticks)"
        )
    specs = seat_configs(game, args)
    check_seat_keys(game, specs, args)
    out = _counterfactual_out(args)
    made = not out.exists()

    async def go() -> Any:
        async with seating(game, args) as seats:  # closes a Python agent's worker processes
            new_seats = seats.seat(seats_of_groups(game, specs))
            with RecordWriter(out) as writer:
                return await counterfactual(
                    args.record, game, args.until_tick, new_seats, writer=writer
                )

    try:
        _, outcome = asyncio.run(go())
    except HarnessError:
        if made:  # refused before it played: leave no half-written record behind
            out.unlink(missing_ok=True)
        raise
    print(
        f"counterfactual from tick {args.until_tick}: {game.view.render_results(outcome.results)}"
    )
    print(f"record written to {out}")
    return 0


COMMAND = Subcommand(
    help="re-execute recorded episodes with the current engine and check them",
    description="Re-execute recorded episodes with the current engine and name the "
    "first tick and field that disagree; for a results folder, also check every "
    "results line against its record. Exit status 1 when anything is not clean.",
    examples=(
        "lighthouse replay results/smoke",
        "lighthouse replay episode.jsonl --html episode.html",
        "lighthouse replay episode.jsonl --reparse",
        "lighthouse replay episode.jsonl --until-tick 5 --keeper pilot --out what-if.jsonl",
        "lighthouse replay results/smoke/records/ID.jsonl --until-tick 5 --keeper pilot",
    ),
    add_arguments=_add_arguments,
    run=run,
)
