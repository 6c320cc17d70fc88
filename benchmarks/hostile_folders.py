"""What reading a hostile results folder costs: peak memory and time of each reader.

    python -m benchmarks.hostile_folders [--seeds 20]

(Run it as a module, like every benchmark here.)

Plays a scripted tournament (two entrants, ``--seeds`` seeds) into a temporary
folder, then plants what no run writes: records that are symlinks to /dev/zero and to
a file outside the folder, a FIFO, and a results line of 2 GiB (sparse: no disk). For
``report``, ``replay DIR``, ``view --out`` and ``merge`` it prints the peak RSS and
the wall time of the command (a subprocess each: ``ru_maxrss`` of the child) on the
clean folder and on the hostile one; and the peak memory of parsing a 3 KB Inspect
``seeds`` string that names 37 million seeds (refused at 100,000).

Figures only: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from harness.errors import ConfigError
from harness.tournament.config import load_tournament
from harness.tournament.run import run_tournament

CONFIG = """
name = "bench"
seeds = {{ start = 0, stop = {seeds} }}
variants = ["default", "spring"]
reference = "silent"
[[entrants]]
name = "lantern"
keeper = {{ baseline = "lantern" }}
runners = {{ baseline = "wallhug" }}
[[entrants]]
name = "silent"
keeper = {{ baseline = "silent" }}
runners = {{ baseline = "wallhug" }}
"""


def _plant(folder: Path, outside: Path) -> None:
    records = folder / "records"
    (records / "zero--default--s0--r0.jsonl").symlink_to("/dev/zero")
    os.mkfifo(records / "fifo--default--s0--r0.jsonl")
    outside.write_bytes(next(records.glob("*.jsonl")).read_bytes())
    (records / "outside--default--s0--r0.jsonl").symlink_to(outside)
    lines = (folder / "episodes.jsonl").read_bytes()
    with (folder / "episodes.jsonl").open("wb") as out:
        out.truncate(2 << 30)
        out.seek(0, os.SEEK_END)
        out.write(b"\n" + lines)


def _measure(args: list[str], cwd: Path) -> tuple[float, float, int]:
    """Peak RSS (MiB) and wall seconds of ``lighthouse ARGS``, and its exit status."""
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "harness.cli", *args], cwd=cwd,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    _, status, usage = os.wait4(child.pid, 0)  # this child's own figures
    child.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss / 1024, time.perf_counter() - started, child.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=20)
    opts = parser.parse_args()
    print(f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        config = where / "bench.toml"
        config.write_text(CONFIG.format(seeds=opts.seeds))
        asyncio.run(run_tournament(load_tournament(config), where / "clean"))
        shutil.copytree(where / "clean", where / "hostile", symlinks=True)
        _plant(where / "hostile", where / "outside.jsonl")
        print(f"\n{opts.seeds * 4} episodes; the hostile folder adds /dev/zero, a FIFO, a "
              "symlink out and a 2 GiB line")  # fmt: skip
        print(f"{'command':<10} {'folder':<8} {'peak RSS':>10} {'wall':>8} {'exit':>5}")
        for name, args in (
            ("report", ["report", "{}"]),
            ("replay", ["replay", "{}"]),
            ("view", ["view", "{}", "--out", "{}-site"]),
            ("merge", ["merge", "{}", "--out", "{}-merged"]),
        ):
            for folder in ("clean", "hostile"):
                peak, seconds, status = _measure([a.format(where / folder) for a in args], where)
                print(f"{name:<10} {folder:<8} {peak:>7.0f} MiB {seconds:>7.1f}s {status:>5}")
    from lighthouse_harness.params import parse_seeds

    tracemalloc.start()
    try:
        parse_seeds(",".join(["0-99999"] * 375))
    except ConfigError as exc:
        refused = str(exc)
    _, peak_bytes = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"\nseeds string of {len(','.join(['0-99999'] * 375)):,} characters: {refused!r}, "
          f"peak {peak_bytes / 1024:,.0f} KiB traced")  # fmt: skip


if __name__ == "__main__":
    main()
