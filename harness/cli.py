"""The ``lighthouse`` command."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from harness import __version__
from harness.commands import play, replay, serve, tournament
from harness.errors import HarnessError
from harness.games.lighthouse.board import generate_board
from harness.games.lighthouse.config import VARIANTS, LighthouseConfig
from harness.llm.secrets import redact
from harness.registry import game_names, get_game
from harness.validation import check_seed


def _cmd_board(args: argparse.Namespace) -> int:
    check_seed(args.seed)
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


def _cmd_schema(args: argparse.Namespace) -> int:
    print(json.dumps(get_game(args.game).codec.record_schema(), indent=2, sort_keys=True))
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

    play.add_parser(sub)
    tournament.add_parsers(sub)
    replay.add_parser(sub)

    serve.add_parser(sub)

    schema = sub.add_parser("schema", help="print the JSON Schema of a record line")
    schema.add_argument("--game", choices=game_names(), default="lighthouse")
    schema.set_defaults(func=_cmd_schema)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``lighthouse`` command; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        status: int = args.func(args)
    except HarnessError as exc:
        # every key read so far is hidden, whatever raised
        print(f"lighthouse: error: {redact(str(exc))}", file=sys.stderr)
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
