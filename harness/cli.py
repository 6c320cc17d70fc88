"""The ``lighthouse`` command."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness import __version__
from harness.episode import run_episode
from harness.errors import HarnessError
from harness.games.lighthouse.board import generate_board
from harness.games.lighthouse.config import VARIANTS, LighthouseConfig
from harness.games.lighthouse.game import LighthouseGame
from harness.games.lighthouse.state import new_game
from harness.records import RecordWriter
from harness.seats import baseline_seats


def _cmd_board(args: argparse.Namespace) -> int:
    config = LighthouseConfig.for_variant(args.variant)
    board = generate_board(config, args.seed)
    if args.json:
        doc = {
            "seed": args.seed,
            "variant": args.variant,
            "config": config.to_json(),
            "rows": list(board.to_ascii()),
            "exit": list(board.exit),
            "starts": [list(p) for p in board.starts],
            "keys": [list(p) for p in board.keys],
        }
        print(json.dumps(doc, indent=2))
        return 0
    print(
        f"Lighthouse board, seed {args.seed}, variant {args.variant} "
        f"({board.width} x {board.height}, floodClock {config.flood_clock})"
    )
    for row in board.to_ascii():
        print(row)
    print("# wall  . floor  E exit  K key  1 2 3 runner starts")
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    config = LighthouseConfig.for_variant(args.variant)
    game = LighthouseGame()
    state = new_game(config, generate_board(config, args.seed))
    seats = baseline_seats(game, state)
    print(
        f"Lighthouse, seed {args.seed}, variant {args.variant}: LANTERN keeper, "
        f"WALLHUG runners ({', '.join(config.aliases)})"
    )
    for row in state.board.to_ascii():
        print("    " + row)

    def show(line: Any) -> None:
        print(game.render_tick(line))
        if args.delay:
            time.sleep(args.delay)

    on_tick = None if args.quiet else show
    writer = RecordWriter(args.record) if args.record else None
    try:
        outcome = asyncio.run(
            run_episode(
                game,
                state,
                seats,
                episode_id=f"lighthouse-{args.variant}-seed{args.seed}",
                seed=args.seed,
                variant=args.variant,
                writer=writer,
                on_tick=on_tick,
            )
        )
    finally:
        if writer is not None:
            writer.close()
    print(game.render_results(outcome.results))
    if args.record:
        print(f"record written to {args.record}")
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    from harness.games.lighthouse.record import record_schema

    print(json.dumps(record_schema(), indent=2, sort_keys=True))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``lighthouse`` command."""
    parser = argparse.ArgumentParser(
        prog="lighthouse", description="Run and inspect Lighthouse episodes."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    board = sub.add_parser("board", help="print the board a seed generates")
    board.add_argument("--seed", type=int, required=True)
    board.add_argument("--variant", choices=VARIANTS, default="default")
    board.add_argument("--json", action="store_true", help="print JSON instead of text")
    board.set_defaults(func=_cmd_board)

    play = sub.add_parser("play", help="play one LANTERN + 3 WALLHUG episode in the terminal")
    play.add_argument("--seed", type=int, required=True)
    play.add_argument("--variant", choices=VARIANTS, default="default")
    play.add_argument("--record", type=Path, help="write the episode record (JSONL) here")
    play.add_argument("--quiet", action="store_true", help="print only the results")
    play.add_argument("--delay", type=float, default=0.0, help="seconds to pause after each tick")
    play.set_defaults(func=_cmd_play)

    schema = sub.add_parser("schema", help="print the JSON Schema of a record line")
    schema.set_defaults(func=_cmd_schema)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``lighthouse`` command; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        status: int = args.func(args)
    except HarnessError as exc:
        print(f"lighthouse: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("lighthouse: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. piped into `head`: stop quietly
        sys.stderr.close()
        return 0
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
