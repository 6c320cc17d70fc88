"""``lighthouse leaderboard``: one rating scale over the entrants of several folders."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from harness.commands.parser import add_subcommand

HELP = "rate the entrants of several results folders on one Bradley-Terry scale"


def add_parser(sub: Any) -> None:
    """Register ``leaderboard``."""
    board = add_subcommand(
        sub,
        "leaderboard",
        leaderboard_command,
        help=HELP,
        description="Join results folders that share seeds and fit one Bradley-Terry "
        "rating scale over every entrant, on paired per-seed outcomes with seed-"
        "clustered bootstrap intervals (docs/crossplay.md). Entrants with the same "
        "identity in several folders link them; entrants no seed connects are refused.",
        example_lines=(
            "lighthouse leaderboard results/october results/november",
            "lighthouse leaderboard results/a results/b --format json",
        ),
    )
    board.add_argument("dirs", type=Path, nargs="+", metavar="DIR", help="results folders")
    board.add_argument(
        "--format", choices=("md", "json"), default="md", help="the leaderboard's format"
    )


def leaderboard_command(args: argparse.Namespace) -> int:
    """Print the scale."""
    from harness.report.ratings import ratings_markdown
    from harness.results.leaderboard import leaderboard

    ratings = leaderboard(args.dirs)
    if args.format == "json":
        print(ratings.model_dump_json(by_alias=True, indent=2))
    else:
        print(ratings_markdown(ratings), end="")
    return 0


__all__ = ["HELP", "add_parser", "leaderboard_command"]
