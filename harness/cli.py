"""The ``lighthouse`` command.

Only the parser of the command asked for is built in full (the others are one line
in the list ``lighthouse --help`` prints), and each command imports what it runs
when it runs: ``lighthouse --help`` loads no game, no pydantic and no SDK.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any, TextIO, cast

from harness.commands import fake_llm, leaderboard, play, replay, serve, tournament, view
from harness.commands.parser import (
    Parser,
    Subcommand,
    add_game_argument,
    add_seed_argument,
    add_variant_argument,
    at_least,
    examples,
    variant_of,
)
from harness.errors import ConfigError, HarnessError


def _cmd_board(args: argparse.Namespace) -> int:
    from harness.registry import get_game

    game = get_game(args.game)
    variant = variant_of(game, args.variant)
    config = game.rules.make_config(variant, {})
    if args.chamber is None:
        state = game.rules.new_state(config, args.seed)
    elif game.chambers is not None:
        state = game.chambers.chamber_state(config, args.seed, args.chamber)
    else:
        raise ConfigError(f"--chamber: {game.name} has no chambers a seed fixes")
    if args.json:
        doc = {"seed": args.seed, "variant": variant, **game.view.board_json(state)}
        print(json.dumps(doc, indent=2))
        return 0
    print(game.view.render_board(state, args.seed, variant))
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    from harness.registry import get_game

    if args.of == "manifest":
        from harness.tournament.manifest import manifest_schema

        schema = manifest_schema()
    elif args.of == "report":
        from harness.report.model import report_schema

        schema = report_schema()
    elif args.of == "leaderboard":
        from harness.report.ratings import ratings_schema

        schema = ratings_schema()
    else:
        schema = get_game(args.game).codec.record_schema()
    print(json.dumps(schema, indent=2, sort_keys=True))
    return 0


def _board_arguments(board: argparse.ArgumentParser) -> None:
    add_game_argument(board)
    add_seed_argument(board)
    add_variant_argument(board)
    board.add_argument(
        "--chamber",
        type=at_least(1),
        help="the board at the start of this chamber, for games whose seed fixes every "
        "chamber (default: the first)",
    )
    board.add_argument("--json", action="store_true", help="print JSON instead of text")


def _schema_arguments(schema: argparse.ArgumentParser) -> None:
    schema.add_argument(
        "--of",
        choices=("record", "manifest", "report", "leaderboard"),
        default="record",
        help="what the schema is of (default: %(default)s)",
    )
    add_game_argument(schema, help="the game (of a record)")


BOARD = Subcommand(
    help="print the board a seed generates",
    description="Print the board (the layout, keys and starts) that a seed generates.",
    examples=(
        "lighthouse board --seed 7",
        "lighthouse board --seed 7 --variant spring --json",
        "lighthouse board --game relayroam --seed 3",
    ),
    add_arguments=_board_arguments,
    run=_cmd_board,
)
SCHEMA = Subcommand(
    help="print the JSON Schema of a record line, a manifest or a report",
    description="Print the JSON Schema every line of the game's records follows, or "
    "that of a results folder's manifest.json, of `lighthouse report --format json` "
    "or of `lighthouse leaderboard --format json` (docs/schemas/ holds each).",
    examples=(
        "lighthouse schema > lighthouse-record.schema.json",
        "lighthouse schema --game relayroam",
        "lighthouse schema --of report > report.schema.json",
    ),
    add_arguments=_schema_arguments,
    run=_cmd_schema,
)

#: Every subcommand, by name, in the order ``lighthouse --help`` lists them.
COMMANDS: dict[str, Subcommand] = {
    "board": BOARD,
    "play": play.COMMAND,
    "run": tournament.RUN,
    "report": tournament.REPORT,
    "merge": tournament.MERGE,
    "add": tournament.ADD,
    "leaderboard": leaderboard.COMMAND,
    "replay": replay.COMMAND,
    "view": view.COMMAND,
    "serve": serve.COMMAND,
    "fake-llm": fake_llm.COMMAND,
    "schema": SCHEMA,
}


class _Version(argparse.Action):
    """``--version``: the installed version, looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        from harness.version import harness_version

        print(f"{parser.prog} {harness_version()}")
        parser.exit()


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of the ``lighthouse`` command; with ``command``, only that
    subcommand's parser is built in full."""
    parser = Parser(
        prog="lighthouse",
        description="Run and inspect tournaments of Lighthouse, Relayroam and Hourloom "
        "between models and scripted bots.",
        epilog=examples(
            "lighthouse play --seed 7",
            "lighthouse run configs/smoke.toml",
            "lighthouse report results/smoke --format csv",
            "lighthouse COMMAND --help    # every flag of COMMAND, with its default",
        ),
    )
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, entry in COMMANDS.items():
        if command is None or command == name:
            entry.add_to(sub, name)
        else:  # its line in the list; its flags are not needed for this command line
            sub.add_parser(name, help=entry.help)
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` names: its first word that is not an option (the
    top-level options take no value)."""
    return next((word for word in argv if not word.startswith("-")), None)


@contextmanager
def guarded_terminal() -> Iterator[None]:
    """Everything printed meanwhile, on stdout and stderr, passes through a
    :class:`~harness.text.TerminalGuard`: no control character of a reply, a note, a
    record, a server's message or a file name reaches the terminal as itself."""
    from harness.text import TerminalGuard

    out, err = sys.stdout, sys.stderr
    sys.stdout = cast(TextIO, TerminalGuard(out))
    sys.stderr = cast(TextIO, TerminalGuard(err))
    try:
        yield
    finally:
        with suppress(ValueError, OSError):  # a closed stream (a broken pipe) has nothing left
            sys.stdout.flush()
            sys.stderr.flush()
        sys.stdout, sys.stderr = out, err


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``lighthouse`` command; returns the exit status.

    What the command prints is shown through :func:`guarded_terminal`.
    """
    try:
        with guarded_terminal():
            return _main(argv)
    except BrokenPipeError:  # e.g. piped into `head`: stop quietly
        sys.stderr.close()
        return 0


def _main(argv: Sequence[str] | None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    # "" names no command: only the list of commands is built, for --help or an error
    parser = build_parser(_command_of(words) or "")
    try:
        args = parser.parse_args(words)
    except SystemExit as exc:  # --help, --version, or a bad flag (its one line is printed)
        return exc.code if isinstance(exc.code, int) else 2
    try:
        status: int = args.func(args)
    except HarnessError as exc:
        from harness.llm.secrets import redact

        # every key read so far is hidden, whatever raised
        print(f"lighthouse: error: {redact(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("lighthouse: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a full disk is told in one line; anything else is raised
        from harness.files import no_room

        why = no_room(exc)
        if why is None:
            raise
        name = getattr(exc, "filename", None)
        where = f" writing {name}" if name else ""
        print(f"lighthouse: error: {why}{where}; make room there and run the command again",
              file=sys.stderr)  # fmt: skip
        return 2
    return status


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
