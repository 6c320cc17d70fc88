"""``lighthouse run``, ``report``, ``merge`` and ``add``: tournaments and their results."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from harness.commands.parser import (
    Subcommand,
    add_folder_argument,
    add_folders_argument,
    add_format_argument,
    at_least,
)
from harness.errors import ConfigError, HarnessError

if TYPE_CHECKING:
    from harness.report.model import Report
    from harness.tournament.prepare import Prepared
    from harness.tournament.run import TournamentOutcome

CEILING_HELP = (
    "measure every entrant as a share of NAME: an entrant, or a baseline (e.g. pilot) "
    "whose team is played on the same seeds when no entrant is it (default: the game's "
    "ceiling baseline when an entrant plays it)"
)


def _run_flags(run_p: argparse.ArgumentParser) -> None:
    """``run``'s flags."""
    run_p.add_argument("config", type=Path, help="the tournament config (TOML)")
    run_p.add_argument(
        "--out", type=Path, metavar="DIR", help="results folder (default: results/<name>)"
    )
    run_p.add_argument(
        "--concurrency",
        type=at_least(1),
        metavar="N",
        help="episodes with a model seat at once (default: the config's concurrency, 8 "
        "unless it says)",
    )
    run_p.add_argument(
        "--workers",
        type=at_least(0),
        metavar="N",
        help="worker processes for the episodes whose seats are all scripted (default: "
        "one per core); 0 plays them in this process with the others",
    )
    run_p.add_argument(
        "--shard", metavar="I/N", help="play only this machine's share (default: 1/1, all)"
    )
    run_p.add_argument("--no-report", action="store_true", help="do not print the report")
    run_p.add_argument(
        "--keep-agent-episodes",
        action="store_true",
        help="a Python agent's code changed in no way that decides its play (a comment, "
        "a rename): keep its entrants' finished episodes instead of playing them again "
        "(recorded in the folder's manifest)",
    )
    run_p.add_argument(
        "--no-cache",
        action="store_true",
        help="ask the models again instead of replaying answers kept in DIR/calls.sqlite",
    )
    run_p.add_argument("--ceiling", metavar="NAME", help=CEILING_HELP)
    run_p.add_argument(
        "--dry-run",
        action="store_true",
        help="print the plan (episodes, calls, tokens, a cost bound) and exit; "
        "calls nothing, creates nothing, needs no API key",
    )
    run_p.add_argument(
        "--detect",
        type=float,
        metavar="D",
        help="with --dry-run: seeds needed to detect a paired difference of D points "
        "(default: not computed)",
    )
    run_p.add_argument(
        "--max-cost",
        type=float,
        metavar="USD",
        help="stop admitting episodes before the folder's recorded cost could pass USD "
        "(default: the config's max_cost, else no cap)",
    )
    _add_narrowing(run_p)


def _add_narrowing(run_p: argparse.ArgumentParser) -> None:
    """``--seeds``, ``--entrants`` and ``--limit``: what of the config a run plays now."""
    run_p.add_argument(
        "--seeds", metavar="A:B", help="only the config's seeds in [A, B) (default: all)"
    )
    run_p.add_argument("--entrants", metavar="a,b", help="only these entrants (default: all)")
    run_p.add_argument(
        "--limit",
        type=at_least(1),
        metavar="N",
        help="play at most N episodes now (default: all that are left)",
    )


def _report_flags(report: argparse.ArgumentParser) -> None:
    """``report``'s flags."""
    add_folder_argument(report)
    add_format_argument(report, "report", "csv", "json", "crossplay-csv")
    report.add_argument(
        "--reference",
        metavar="NAME",
        help="the entrant every other is paired against (default: the config's reference)",
    )
    report.add_argument(
        "--plot",
        type=Path,
        metavar="FILE.svg",
        help="also write an SVG of the score distributions (default: no plot)",
    )
    report.add_argument("--ceiling", metavar="NAME", help=CEILING_HELP)


def _merge_flags(merge: argparse.ArgumentParser) -> None:
    """``merge``'s flags."""
    add_folders_argument(merge, "the shards' folders")
    merge.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="the new, merged folder"
    )


def _add_flags(add: argparse.ArgumentParser) -> None:
    """``add``'s flags."""
    add_folder_argument(add)
    add.add_argument("record", type=Path, metavar="RECORD", help="the episode's record file")
    add.add_argument(
        "--as",
        dest="entrant",
        required=True,
        metavar="NAME",
        help="the entrant's name in the folder (a new entrant, or one the folder has "
        "with the same seats)",
    )


def run(args: argparse.Namespace) -> int:
    """Play (or resume, or grow) a tournament and print its report; or, with
    ``--dry-run``, print its plan. A dry run and a run are prepared alike, so the plan
    printed is the run's."""
    prepared = _prepare(args)
    if args.dry_run:
        from harness.tournament.dryrun import describe_run

        print(describe_run(prepared, detect=args.detect), end="")
        return 0
    outcome = _play(prepared)
    if outcome is None:
        return 130
    _print_outcome(outcome)
    if args.no_report:
        if args.ceiling:
            from harness.results import read_results

            read_results(prepared.out, ceiling=args.ceiling)  # plays and keeps the hidden ceiling
    else:
        print(report_text(prepared.out, "md", None, args.ceiling))
    return 0


def _prepare(args: argparse.Namespace) -> Prepared:
    """The run the flags ask for, every flag checked before anything is played or written."""
    from harness.registry import get_game
    from harness.tournament.ceiling import ceiling_team
    from harness.tournament.config import load_tournament
    from harness.tournament.narrow import (
        Narrowing,
        check_limit,
        narrow,
        parse_entrants,
        parse_seeds,
    )
    from harness.tournament.plan import parse_shard
    from harness.tournament.pool import usable_cores
    from harness.tournament.prepare import prepare

    config = load_tournament(args.config)
    if args.ceiling is not None and args.ceiling not in [e.name for e in config.entrants]:
        ceiling_team(get_game(config.game), args.ceiling)  # refused now, not after the run
    if args.detect is not None and not (args.detect > 0 and args.detect != float("inf")):
        raise ConfigError(f"--detect: must be a positive number of points, got {args.detect}")
    if args.detect is not None and not args.dry_run:
        raise ConfigError("--detect: goes with --dry-run")
    shard = parse_shard(args.shard) if args.shard else (1, 1)
    config, narrowing = narrow(
        config,
        Narrowing(
            seeds=parse_seeds(args.seeds) if args.seeds else None,
            entrants=parse_entrants(args.entrants) if args.entrants else None,
            limit=check_limit(args.limit) if args.limit is not None else None,
        ),
    )
    out = args.out or Path("results") / (
        config.name if shard == (1, 1) else f"{config.name}-shard{shard[0]}of{shard[1]}"
    )
    return prepare(
        config,
        out,
        concurrency=args.concurrency,
        shard=shard,
        config_file=str(args.config),
        max_cost=args.max_cost,
        narrowing=narrowing,
        cache=False if args.no_cache else None,
        workers=usable_cores() if args.workers is None else args.workers,
        keep_agent_episodes=args.keep_agent_episodes,
        flag="--out" if args.out else "name",
        # a dry run only reads the folder: one it may not write is fine
        write=not args.dry_run,
    )


def _play(prepared: Prepared) -> TournamentOutcome | None:
    """Play the run with a progress line; None when Ctrl-C stopped it (said on stderr)."""
    from harness.commands.interrupt import run_interruptible
    from harness.tournament.progress import Progress
    from harness.tournament.run import execute

    progress = Progress(prepared.planned, 0)
    print(f"tournament {prepared.config.name}: results in {prepared.out}", file=sys.stderr)
    try:
        return run_interruptible(execute(prepared, progress=progress))
    except HarnessError:  # e.g. a full disk: the error goes on a line of its own
        if progress.live:
            progress.show(final=True)
        raise
    except KeyboardInterrupt:
        progress.show(final=True)
        print(
            f"lighthouse: interrupted with {progress.done} of {progress.total} episodes "
            "finished; run the same command again to play the rest",
            file=sys.stderr,
        )
        return None


def _print_outcome(outcome: TournamentOutcome) -> None:
    """What the run played, and why it stopped early if it did, on stderr."""
    aside = f", {outcome.set_aside} set aside (earlier specs)" if outcome.set_aside else ""
    print(
        f"{outcome.played} episodes played, {outcome.already_done} already done{aside}, "
        f"{outcome.planned} in all{_by_workers(outcome.in_workers, outcome.workers)}",
        file=sys.stderr,
    )
    if outcome.stopped is not None:
        stop = outcome.stopped
        why = (
            f"stopped at the cost cap: ${outcome.spent_usd:,.2f} of ${stop.cap_usd:,.2f}"
            if stop.reason == "cost_cap"
            else f"stopped after --limit {stop.limit}"
        )
        print(f"lighthouse: {why}; run again to play the rest", file=sys.stderr)


def _by_workers(played: int, workers: int) -> str:
    """``; N of them by W worker processes``, or nothing when no worker played."""
    if not played:
        return ""
    return f"; {played} of them by {workers} worker process{'es' if workers > 1 else ''}"


def report_text(
    folder_path: Path, fmt: str, reference: str | None, ceiling: str | None = None
) -> str:
    """The report of a results folder in ``fmt`` (md, csv or json).

    ``ceiling`` names the entrant or baseline every entrant is measured against; by
    default the game's ceiling baseline when an entrant plays it (or it was kept).
    """
    from harness.results import read_results

    return _render(read_results(folder_path, reference=reference, ceiling=ceiling).report, fmt)


def _render(report: Report, fmt: str) -> str:
    from harness.report.render import to_csv, to_json, to_markdown

    if fmt == "crossplay-csv":
        from harness.report.crossplay_render import crossplay_csv

        return crossplay_csv(report.crossplay)
    render = {"md": to_markdown, "csv": to_csv, "json": to_json}[fmt]
    return render(report)


def report_command(args: argparse.Namespace) -> int:
    """Print a report; write the plot when asked."""
    from harness.results import read_results

    if args.plot is not None:
        _check_plot(args.plot)  # before the report is printed: one error, no output
    # one read for both: the plot needs the counted lines themselves
    results = read_results(
        args.dir, reference=args.reference, ceiling=args.ceiling, keep=args.plot is not None
    )
    print(_render(results.report, args.format), end="")
    if args.plot:
        try:
            args.plot.write_text(results.plot(), encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"--plot: cannot write {args.plot}: {exc.strerror or exc}") from None
        print(f"plot written to {args.plot}", file=sys.stderr)
    return 0


def _check_plot(path: Path) -> None:
    """``--plot`` names an .svg file in a folder that exists; else a ConfigError."""
    if path.suffix.lower() != ".svg":
        raise ConfigError(
            f"--plot: {path} does not end in .svg; the plot is an SVG image, so name a "
            f"file.svg (e.g. {path.with_suffix('.svg')})"
        )
    if not path.parent.is_dir():
        raise ConfigError(f"--plot: there is no folder {path.parent} to write {path.name} into")


def add_command(args: argparse.Namespace) -> int:
    """Add a person's episode to a results folder."""
    from harness.results import read_results
    from harness.tournament.join import add_record

    joined = add_record(args.dir, args.record, entrant=args.entrant)
    done = read_results(args.dir).completeness
    made = "a new entrant" if joined.new_entrant else "an entrant the folder had"
    print(
        f"added {joined.episode_id} to {args.dir} as {made}; {done.summary()}",
        file=sys.stderr,
    )
    if joined.new_entrant:
        print(
            "to keep it when you run the folder's config file again, add to that file:\n"
            + joined.toml,
            file=sys.stderr,
        )
    return 0


def merge_command(args: argparse.Namespace) -> int:
    """Join shards."""
    from harness.results import read_results
    from harness.tournament.merge import merge_folders

    merged = merge_folders(args.dirs, args.out)
    done = read_results(args.out).completeness
    count = len(args.dirs)
    print(
        f"merged {count} folder{'s' if count != 1 else ''} into {args.out}: {merged} "
        f"episodes; {done.summary()}",
        file=sys.stderr,
    )
    return 0


RUN = Subcommand(
    help="play a tournament config; resumes where it stopped",
    description="Play every episode of a tournament config (docs/tournaments.md) into "
    "a results folder, then print its report. Run it again to resume, or after "
    "adding seeds or entrants to play only what is new.",
    examples=(
        "lighthouse run configs/smoke.toml",
        "lighthouse run configs/keeper-models.toml --dry-run --detect 5",
        "lighthouse run my.toml --concurrency 16 --max-cost 20",
        "lighthouse run my.toml --shard 1/4 --out results/my-1    # then lighthouse merge",
    ),
    add_arguments=_run_flags,
    run=run,
)
REPORT = Subcommand(
    help="report on a results folder",
    description="Print the report of a results folder: the leaderboard with its "
    "intervals, the paired comparison, the per-entrant figures.",
    examples=(
        "lighthouse report results/smoke",
        "lighthouse report results/smoke --format csv > smoke.csv",
        "lighthouse report results/smoke --reference lantern --plot smoke.svg",
        "lighthouse report results/crossplay --format crossplay-csv   # one figure a row",
    ),
    add_arguments=_report_flags,
    run=report_command,
)
MERGE = Subcommand(
    help="join the results folders of a tournament's shards",
    description="Join the results folders of a tournament's shards (run --shard I/N) "
    "into one, checking that they belong to one config.",
    examples=("lighthouse merge results/my-1 results/my-2 --out results/my",),
    add_arguments=_merge_flags,
    run=merge_command,
)
ADD = Subcommand(
    help="add a person's episode (played in lighthouse serve) to a results folder",
    description="Add the record of an episode a person played (on the page of "
    "lighthouse serve) to a results folder, as an entrant of its own: a human "
    "baseline in the same report as the models and bots. The record must replay "
    "clean and be of one of the folder's seeds, variants and rules; the entrant's "
    "seats are the record's (a person, baselines at the rest).",
    examples=(
        "lighthouse add results/smoke ada-seed3.jsonl --as ada",
        "lighthouse report results/smoke",
    ),
    add_arguments=_add_flags,
    run=add_command,
)

__all__ = ["ADD", "MERGE", "REPORT", "RUN", "report_text", "run"]
