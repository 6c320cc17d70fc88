"""``lighthouse leaderboard``: one rating scale over the entrants of several folders."""

from __future__ import annotations

import argparse

from harness.commands.parser import Subcommand, add_folders_argument, add_format_argument


def _add_arguments(board: argparse.ArgumentParser) -> None:
    """``leaderboard``'s flags."""
    add_folders_argument(board, "results folders")
    add_format_argument(board, "leaderboard", "json")


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


COMMAND = Subcommand(
    help="rate the entrants of several results folders on one Bradley-Terry scale",
    description="Join results folders that share seeds and fit one Bradley-Terry "
    "rating scale over every entrant, on paired per-seed outcomes with seed-"
    "clustered bootstrap intervals (docs/crossplay.md). Entrants with the same "
    "identity in several folders link them; entrants no seed connects are refused.",
    examples=(
        "lighthouse leaderboard results/october results/november",
        "lighthouse leaderboard results/a results/b --format json",
    ),
    add_arguments=_add_arguments,
    run=leaderboard_command,
)

__all__ = ["COMMAND", "leaderboard_command"]
