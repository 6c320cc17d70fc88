"""``lighthouse view DIR``: browse a results folder (served, or written as static files)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.commands.parser import (
    Subcommand,
    add_address_arguments,
    add_folder_argument,
)
from harness.text import terminal_safe

DEFAULT_PORT = 8001


def _add_arguments(view: argparse.ArgumentParser) -> None:
    """``view``'s flags."""
    add_folder_argument(view)
    view.add_argument(
        "--out",
        type=Path,
        metavar="SITE",
        help="write the browser as static files into SITE (works from file://) "
        "(default: serve it instead)",
    )
    add_address_arguments(view, DEFAULT_PORT)


def view_command(args: argparse.Namespace) -> int:
    """Write the static site, or serve the browser until interrupted."""
    if args.out is not None:
        from harness.browse.site import write_site

        written = write_site(args.dir, args.out)
        for problem in written.skipped:
            print(f"warning: no page for {terminal_safe(problem, one_line=True)}", file=sys.stderr)
        print(
            f"wrote {args.out / 'index.html'} and {written.pages} episode page"
            f"{'s' if written.pages != 1 else ''}",
            file=sys.stderr,
        )
        return 0
    from harness.browse.server import make_server
    from harness.commands.interrupt import serve_until_interrupted

    server = make_server(args.dir, args.host, args.port)
    host, port = str(server.server_address[0]), server.server_address[1]
    print(
        f"results browser of {args.dir} at http://{host}:{port}/ (Ctrl-C to stop)",
        file=sys.stderr,
        flush=True,
    )
    return serve_until_interrupted(server.serve_forever, server.server_close, "stopped")


COMMAND = Subcommand(
    help="browse a results folder: leaderboard, intervals, plot, every episode",
    description="Browse a results folder: the leaderboard and paired tables with their "
    "intervals, a plot of every entrant's scores, the per-entrant figures, and a "
    "sortable, filterable table of every episode, each opening in the episode viewer. "
    "Reads the folder only; works on a folder still being written.",
    examples=(
        "lighthouse view results/smoke              # serve it at http://127.0.0.1:8001/",
        "lighthouse view results/smoke --out site   # or write files: open site/index.html",
    ),
    add_arguments=_add_arguments,
    run=view_command,
)

__all__ = ["COMMAND", "DEFAULT_PORT", "view_command"]
