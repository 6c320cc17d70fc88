"""Memory in the size of a tournament: peak RSS of scripted tournaments, small and large.

    python -m benchmarks.memory [--episodes 100000] [--seconds 60] [--skip-large]
                                [--skip-million]

(Run it as a module, like every benchmark here.)

Every figure comes from a fresh child process of its own (``python -m
benchmarks.memory --child ...``), so each ``ru_maxrss`` is that run's own peak:

1. tournaments: one entrant, LANTERN keeping for three WALLHUG runners, on seeds
   0..E-1 of the default variant, played by ``lighthouse run`` (the command's own
   entry point, in the child: records written and fsynced, the report built and
   printed at the end) for E = 1,000 and E = ``--episodes``. The peak RSS covers the
   report: its digest and, while its statistics are computed, the table of cell means
   on seeds x variants (:class:`~harness.report.methods.SeedTable`, numpy arrays) and
   the resamplings' working set (blocks of about a million numbers). Printed: the
   wall and CPU time, the child's peak RSS, and, after that peak was read, the
   Python memory the report's compact form (its
   :class:`~harness.report.digest.Digest`) holds per episode, measured with
   ``tracemalloc`` while the folder is streamed into it again (after a first pass
   that fills pydantic's bounded cache of parsed strings);
2. a million seeds: the same entrant on seeds 0..999,999, ``lighthouse run`` for
   ``--seconds`` seconds: the time from the child's start to the first finished
   episode (its results line on disk), the episodes finished in the window, and the
   peak RSS over the window.

Temporary folders are removed at the end. Figures only: nothing here is asserted.
Another benchmark may call :func:`tournament_figures` and :func:`million_figures`.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

SMALL = 1_000
LARGE = 100_000
MILLION = 1_000_000
WARM_LINES = 20_000

CONFIG = """\
name = "memory"
seeds = {{ start = 0, stop = {seeds} }}
variants = ["default"]
repetitions = 1

[[entrants]]
name = "lantern"
keeper = {{ baseline = "lantern" }}
runners = {{ baseline = "wallhug" }}
"""


def _maxrss_mb() -> float:
    """This process's peak resident set in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _children_hwm_mb() -> list[float]:
    """The peak resident set (VmHWM) of each live child of this process, in MB (Linux)."""
    found = []
    me = str(os.getpid())
    for entry in Path("/proc").iterdir():
        try:
            if (
                entry.name.isdecimal()
                and (entry / "stat").read_text().rpartition(")")[2].split()[1] == me
            ):
                status = (entry / "status").read_text()
                found.append(int(status.split("VmHWM:")[1].split()[0]) / 1024)
        except (OSError, IndexError, ValueError):
            continue
    return found


def _cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _write_config(folder: Path, seeds: int) -> Path:
    path = folder / "memory.toml"
    path.write_text(CONFIG.format(seeds=seeds), encoding="utf-8")
    return path


def digest_bytes_per_episode(out: Path) -> float:
    """The Python memory the report's compact form holds per episode of the folder
    ``out``, by ``tracemalloc``: the folder streamed into a digest, measured while it
    is alive."""
    from harness.registry import get_game
    from harness.results.selection import select_digest
    from harness.tournament.store import ResultsFolder

    folder = ResultsFolder(out)
    manifest = folder.manifest()
    game = get_game(manifest.game)
    # pydantic's JSON parser keeps a cache of strings (bounded: 16,384 of them); it is
    # filled first, so that what is measured is what the digest holds
    for _ in itertools.islice(folder.iter_summaries(), WARM_LINES):
        pass
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    folded, _ = select_digest(game, manifest, folder.iter_summaries(), out)
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return held / max(folded.episodes, 1)


def _child_tournament(episodes: int, work: Path, result: Path) -> None:
    """Play the tournament with ``lighthouse run`` (report printed to /dev/null)."""
    from harness.cli import main

    config = _write_config(work, episodes)
    out = work / "out"
    start, cpu = time.perf_counter(), _cpu_s()
    with open(os.devnull, "w") as sink:
        saved, sys.stdout = sys.stdout, sink
        try:
            status = main(["run", str(config), "--out", str(out)])
        finally:
            sys.stdout = saved
    figures: dict[str, Any] = {
        "episodes": episodes,
        "status": status,
        "wall_s": time.perf_counter() - start,
        "cpu_s": _cpu_s() - cpu,
        "maxrss_mb": _maxrss_mb(),  # read before tracemalloc adds its own
        # the largest worker process's peak (workers are reaped when the run ends)
        "workers_maxrss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
    }
    figures["digest_bytes_per_episode"] = digest_bytes_per_episode(out)
    result.write_text(json.dumps(figures), encoding="utf-8")


def _child_million(seconds: float, work: Path, result: Path, started: float) -> None:
    """``lighthouse run`` on a million seeds; after ``seconds``, write the figures and
    leave without finishing (the parent removes the folder)."""
    from harness.cli import main

    config = _write_config(work, MILLION)
    out = work / "out"
    episodes = out / "episodes.jsonl"
    first: list[float] = []

    def watch() -> None:
        deadline = started + seconds
        while time.time() < deadline:
            if not first and episodes.exists() and episodes.stat().st_size > 0:
                first.append(time.time() - started)
            time.sleep(0.01)
        finished = 0
        if episodes.exists():
            with episodes.open("rb") as handle:
                finished = sum(1 for _ in handle)
        figures = {
            "seeds": MILLION,
            "seconds": seconds,
            "first_episode_s": first[0] if first else None,
            "finished": finished,
            "maxrss_mb": _maxrss_mb(),
            "workers_hwm_mb": _children_hwm_mb(),
        }
        result.write_text(json.dumps(figures), encoding="utf-8")
        os._exit(0)  # the run is cut off here, on purpose

    threading.Thread(target=watch, daemon=True).start()
    with open(os.devnull, "w") as sink:
        sys.stdout = sink
        main(["run", str(config), "--out", str(out)])
    time.sleep(seconds)  # finished early (it cannot): let the watcher write the figures


def _spawn(args: list[str], timeout: float | None = None) -> dict[str, Any]:
    """Run this module as a child with ``args``; its figures, or a note why none came."""
    work = Path(tempfile.mkdtemp(prefix="lighthouse-memory-"))
    result = work / "figures.json"
    try:
        subprocess.run(
            [sys.executable, "-m", "benchmarks.memory", "--child", *args,
             "--work", str(work), "--result", str(result), "--started", str(time.time())],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=timeout,
            check=False,
        )  # fmt: skip
        if not result.exists():
            return {"error": "the child wrote no figures"}
        data: dict[str, Any] = json.loads(result.read_text(encoding="utf-8"))
        return data
    except subprocess.TimeoutExpired:
        return {"error": f"the child ran past {timeout} s"}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def tournament_figures(episodes: int) -> dict[str, Any]:
    """Peak RSS and times of a scripted tournament of ``episodes`` episodes (a child)."""
    return _spawn(["tournament", "--episodes", str(episodes)])


def million_figures(seconds: float = 60.0) -> dict[str, Any]:
    """The first ``seconds`` of a million-seed scripted run: time to the first finished
    episode and peak RSS (a child)."""
    return _spawn(["million", "--seconds", str(seconds)], timeout=seconds + 120)


def _show_tournament(figures: dict[str, Any]) -> str:
    if "error" in figures:
        return f"  error: {figures['error']}"
    return (
        f"  {figures['episodes']:>9,} episodes: peak RSS {figures['maxrss_mb']:7.1f} MB "
        f"(largest worker {figures['workers_maxrss_mb']:.1f} MB), "
        f"wall {figures['wall_s']:7.1f} s, CPU {figures['cpu_s']:7.1f} s, "
        f"report's compact form {figures['digest_bytes_per_episode']:.1f} B/episode "
        f"(exit {figures['status']})"
    )


def report(episodes: int, seconds: float, *, large: bool = True, million: bool = True) -> None:
    """Print the figures: tournaments of 1,000 and ``episodes`` episodes, and the first
    ``seconds`` of a million seeds."""
    print("scripted tournaments (lantern keeper, 3 wallhug runners), `lighthouse run`:")
    small = tournament_figures(SMALL)
    print(_show_tournament(small))
    if large:
        big = tournament_figures(episodes)
        print(_show_tournament(big))
        if "error" not in small and "error" not in big:
            ratio = big["maxrss_mb"] / small["maxrss_mb"]
            print(f"  run's peak RSS, {episodes:,} against {SMALL:,} episodes: {ratio:.2f}x")
    if million:
        print(f"a million seeds, the first {seconds:g} s of `lighthouse run`:")
        cut = million_figures(seconds)
        if "error" in cut:
            print(f"  error: {cut['error']}")
        else:
            first = cut["first_episode_s"]
            workers = cut["workers_hwm_mb"]
            print(
                f"  first finished episode after "
                f"{'-' if first is None else f'{first:.2f} s'} (from the child's start), "
                f"{cut['finished']:,} finished, peak RSS {cut['maxrss_mb']:.1f} MB in the "
                f"run, {' + '.join(f'{w:.1f}' for w in workers) or 'none'} MB in its "
                f"{len(workers)} child process(es) (the workers and multiprocessing's "
                f"resource tracker): {cut['maxrss_mb'] + sum(workers):.1f} MB in all"
            )


def main(argv: list[str] | None = None) -> int:
    """Print the figures (or, with ``--child``, be one of the children)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=LARGE, help="the larger tournament")
    parser.add_argument("--seconds", type=float, default=60.0, help="the million-seed window")
    parser.add_argument("--skip-large", action="store_true", help="only the 1,000-episode one")
    parser.add_argument("--skip-million", action="store_true", help="no million-seed run")
    parser.add_argument("--child", choices=("tournament", "million"), help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--result", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--started", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child == "tournament":
        _child_tournament(args.episodes, args.work, args.result)
        return 0
    if args.child == "million":
        _child_million(args.seconds, args.work, args.result, args.started)
        return 0
    report(args.episodes, args.seconds, large=not args.skip_large,
           million=not args.skip_million)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
