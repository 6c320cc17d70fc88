"""How long the ``lighthouse`` command takes to answer, and which imports cost most
(figures only, nothing asserted).

Usage::

    python -m benchmarks.cli_startup [--runs N] [--top K] [ARGS ...]

For each command line (default: ``--help``, ``board --seed 7``, ``run --help``,
``serve --help``) it starts a fresh interpreter N times (default 15), each running
``harness.cli.main(ARGS)`` with its output thrown away, and prints the median and the
fastest wall-clock time of a whole run, interpreter start included. Then, from one
run under ``python -X importtime``, it prints the K (default 12) imports with the
largest cumulative time, the modules a command loads that it might not need.

On a busy machine the figures move from run to run; the median of many runs and the
fastest are the ones to compare.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence

DEFAULT_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("--help",),
    ("board", "--seed", "7"),
    ("run", "--help"),
    ("serve", "--help"),
)
#: What each timed interpreter runs: the entry point, exactly as the script calls it.
CHILD = (
    "import sys\n"
    "from harness.cli import main\n"
    "try:\n"
    "    sys.exit(main(sys.argv[1:]))\n"
    "except SystemExit as exc:\n"
    "    sys.exit(exc.code)\n"
)


def time_runs(args: Sequence[str], runs: int) -> list[float]:
    """Wall-clock seconds of ``runs`` fresh runs of ``lighthouse ARGS``."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", CHILD, *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        times.append(time.perf_counter() - start)
    return times


def import_offenders(args: Sequence[str], top: int) -> list[tuple[int, int, str]]:
    """The ``top`` imports of one run by cumulative microseconds: (cumulative, self, name)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", CHILD, *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "[us]" in line:
            continue
        own, cumulative, name = line.removeprefix("import time:").split("|", 2)
        rows.append((int(cumulative), int(own), name.rstrip()))
    rows.sort(reverse=True)
    return rows[:top]


def main(argv: Sequence[str] | None = None) -> int:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=15, help="fresh runs per command line")
    parser.add_argument("--top", type=int, default=12, help="imports to list per command line")
    parser.add_argument("args", nargs="*", help="one command line to measure instead")
    options = parser.parse_args(argv)
    commands = (tuple(options.args),) if options.args else DEFAULT_COMMANDS
    print(f"Python {platform.python_version()} on {platform.machine()}, {options.runs} runs each")
    for args in commands:
        times = time_runs(args, options.runs)
        line = " ".join(args)
        print(
            f"\nlighthouse {line}: median {statistics.median(times):.3f} s, "
            f"fastest {min(times):.3f} s"
        )
        print("  cumulative   self  module (one run, -X importtime, microseconds)")
        for cumulative, own, name in import_offenders(args, options.top):
            print(f"  {cumulative:>10,} {own:>6,}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
