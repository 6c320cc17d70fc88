"""``lighthouse replay``: verified re-execution, reparse, completion, counterfactuals, viewers."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

from harness.commands.seats import add_seat_arguments, build_seats, check_seat_keys, given_specs
from harness.errors import ConfigError, RecordError
from harness.game import Game
from harness.games.registry import get_game
from harness.llm.seat import SeatFactory
from harness.records import RecordWriter


def add_parser(sub: Any) -> None:
    """Register ``replay``."""
    rep = sub.add_parser(
        "replay", help="re-execute recorded episodes with the current engine and check them"
    )
    rep.add_argument("record", type=Path, help="a record, or a results folder")
    rep.add_argument("--reparse", action="store_true", help="re-parse every model reply")
    rep.add_argument("--complete", type=Path, metavar="OUT", help="write the full record")
    rep.add_argument("--view", action="store_true", help="step through the ticks")
    rep.add_argument("--html", type=Path, metavar="OUT", help="write a self-contained viewer")
    rep.add_argument("--until-tick", type=int, metavar="K", help="counterfactual from tick K")
    rep.add_argument("--out", type=Path, help="where the counterfactual record goes")
    add_seat_arguments(rep)
    rep.set_defaults(func=run)


def record_paths(path: Path) -> list[Path]:
    """A record, or every record of a results folder."""
    if path.is_dir():
        base = path / "records" if (path / "records").is_dir() else path
        return sorted(base.glob("*.jsonl"))
    return [path]


def game_of_record(path: Path) -> Game[Any]:
    """The game a record's header names (Lighthouse when it names none)."""
    try:
        with path.open(encoding="utf-8") as handle:
            first = json.loads(handle.readline() or "{}")
    except OSError as exc:
        raise RecordError(f"{path}: cannot read: {exc.strerror}") from None
    except ValueError as exc:
        raise RecordError(f"{path}: not JSON Lines: {exc}") from None
    return get_game(first.get("game", "lighthouse") if isinstance(first, dict) else "lighthouse")


def run(args: argparse.Namespace) -> int:
    """Replay one record or a folder of them."""
    from harness.replay import replay

    if args.until_tick is not None:
        return _counterfactual(args)
    paths = record_paths(args.record)
    if not paths:
        raise ConfigError(f"{args.record}: no records found")
    if len(paths) > 1 and (args.complete or args.html or args.view):
        raise ConfigError("--complete, --html and --view take one record, not a folder")
    failures = changes = 0
    for path in paths:
        game = game_of_record(path)
        writer = RecordWriter(args.complete) if args.complete else None
        try:
            result = asyncio.run(replay(path, game, reparse=args.reparse, writer=writer))
        finally:
            if writer is not None:
                writer.close()
        if result.clean:
            if len(paths) == 1:
                print(f"{path}: replays clean ({len(result.record.ticks)} ticks, results match)")
        else:
            failures += 1
            assert result.mismatch is not None
            print(f"{path}: MISMATCH at {result.mismatch.describe()}")
        for change in result.reparse:
            changes += 1
            print(
                f"{path}: tick {change.tick} {change.seat}: {change.recorded_source} "
                f"{json.dumps(change.recorded_decision)} -> {change.new_source} "
                f"{json.dumps(change.new_decision)}" + (f" ({change.note})" if change.note else "")
            )
        if args.view and result.lines:
            from harness.viewer.terminal import step_through

            step_through(game, result.lines)
        if args.html and result.lines:
            from harness.viewer.html import write_html

            write_html(game, result.lines, args.html)
            print(f"viewer written to {args.html}")
    if len(paths) > 1:
        print(f"{len(paths)} records: {len(paths) - failures} clean, {failures} mismatched")
    if args.reparse:
        print(f"reparse: {changes} decision(s) would change")
    if args.complete:
        print(f"complete record written to {args.complete}")
    return 1 if failures else 0


def _counterfactual(args: argparse.Namespace) -> int:
    from harness.replay import counterfactual

    if args.record.is_dir():
        raise ConfigError("--until-tick takes one record, not a folder")
    game = game_of_record(args.record)
    specs = given_specs(game, args)
    check_seat_keys(game, specs, args)
    out = args.out or args.record.with_name(f"{args.record.stem}--from-t{args.until_tick}.jsonl")

    async def go() -> Any:
        factory = SeatFactory()
        try:
            new_seats = build_seats(game, specs, args, factory)
            with RecordWriter(out) as writer:
                return await counterfactual(
                    args.record, game, args.until_tick, new_seats, writer=writer
                )
        finally:
            await factory.aclose()

    _, outcome = asyncio.run(go())
    print(f"counterfactual from tick {args.until_tick}: {game.render_results(outcome.results)}")
    print(f"record written to {out}")
    return 0
