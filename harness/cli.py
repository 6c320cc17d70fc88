"""The ``lighthouse`` command."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from harness import __version__
from harness.commands import play, replay, serve, tournament, view
from harness.errors import ConfigError, HarnessError
from harness.game import ChamberStates
from harness.llm.secrets import redact
from harness.registry import game_names, get_game
from harness.validation import check_seed


def _cmd_board(args: argparse.Namespace) -> int:
    check_seed(args.seed)
    game = get_game(args.game)
    variant = args.variant or game.variants[0]
    if variant not in game.variants:
        raise ConfigError(f"--variant: {game.name} has {list(game.variants)}, not {variant!r}")
    config = game.rules.make_config(variant, {})
    if args.chamber is None:
        state = game.rules.new_state(config, args.seed)
    elif isinstance(game.rules, ChamberStates):
        state = game.rules.chamber_state(config, args.seed, args.chamber)
    else:
        raise ConfigError(f"--chamber: {game.name} has no chambers a seed fixes")
    if args.json:
        doc = {"seed": args.seed, "variant": variant, **game.view.board_json(state)}
        print(json.dumps(doc, indent=2))
        return 0
    print(game.view.render_board(state, args.seed, variant))
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
    board.add_argument("--game", choices=game_names(), default="lighthouse")
    board.add_argument("--seed", type=int, required=True)
    board.add_argument("--variant", help="a rules variant (default: the game's first)")
    board.add_argument(
        "--chamber",
        type=int,
        help="the board at the start of this chamber (games whose seed fixes every chamber)",
    )
    board.add_argument("--json", action="store_true", help="print JSON instead of text")
    board.set_defaults(func=_cmd_board)

    play.add_parser(sub)
    tournament.add_parsers(sub)
    replay.add_parser(sub)
    view.add_parser(sub)

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
