"""``lighthouse view DIR``: browse a results folder (served, or written as static files)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from harness.commands.parser import add_subcommand
from harness.text import terminal_safe

DEFAULT_PORT = 8001
HELP = "browse a results folder: leaderboard, intervals, plot, every episode"


def _port(text: str) -> int:
    # digits only, and few of them: int() of a 5,000-digit string is refused with a traceback
    if not (text.isascii() and text.isdigit() and len(text) <= 5) or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text[:20]!r} is not a port number 0..65535")
    return int(text)


def add_parser(sub: Any) -> None:
    """Register ``view``."""
    view = add_subcommand(
        sub,
        "view",
        view_command,
        help=HELP,
        description="Browse a results folder: the leaderboard and paired tables with their "
        "intervals, a plot of every entrant's scores, the per-entrant figures, and a "
        "sortable, filterable table of every episode, each opening in the episode viewer. "
        "Reads the folder only; works on a folder still being written.",
        example_lines=(
            "lighthouse view results/smoke              # serve it at http://127.0.0.1:8001/",
            "lighthouse view results/smoke --out site   # or write files: open site/index.html",
        ),
    )
    view.add_argument("dir", type=Path, metavar="DIR", help="the results folder")
    view.add_argument(
        "--out",
        type=Path,
        metavar="SITE",
        help="write the browser as static files into SITE (works from file://) "
        "(default: serve it instead)",
    )
    view.add_argument(
        "--host", default="127.0.0.1", help="address to serve on (default: %(default)s)"
    )
    view.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        help="port to serve on; 0 picks a free one (default: %(default)s)",
    )


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

    server = make_server(args.dir, args.host, args.port)
    host, port = str(server.server_address[0]), server.server_address[1]
    print(
        f"results browser of {args.dir} at http://{host}:{port}/ (Ctrl-C to stop)",
        file=sys.stderr,
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    finally:
        server.server_close()
    return 0


__all__ = ["add_parser", "view_command"]
