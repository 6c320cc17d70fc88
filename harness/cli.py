"""The ``lighthouse`` command."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from harness import __version__
from harness.episode import run_episode
from harness.errors import ConfigError, HarnessError
from harness.games.lighthouse.board import generate_board
from harness.games.lighthouse.config import VARIANTS, LighthouseConfig, format_validation_error
from harness.games.lighthouse.game import KEEPER, RUNNER, LighthouseGame
from harness.games.lighthouse.state import new_game
from harness.llm.options import LLMSeatOptions
from harness.llm.seat import SeatFactory
from harness.records import RecordWriter
from harness.seats import BaselineSeat, Seat, baseline_seats


def _cmd_board(args: argparse.Namespace) -> int:
    config = LighthouseConfig.for_variant(args.variant)
    board = generate_board(config, args.seed)
    if args.json:
        doc = {
            "seed": args.seed,
            "variant": args.variant,
            "config": config.to_json(),
            "rows": list(board.to_ascii()),
            "exit": list(board.exit),
            "starts": [list(p) for p in board.starts],
            "keys": [list(p) for p in board.keys],
        }
        print(json.dumps(doc, indent=2))
        return 0
    print(
        f"Lighthouse board, seed {args.seed}, variant {args.variant} "
        f"({board.width} x {board.height}, floodClock {config.flood_clock})"
    )
    for row in board.to_ascii():
        print(row)
    print("# wall  . floor  E exit  K key  1 2 3 runner starts")
    return 0


def _baseline_of(spec: str, role: str) -> str | None:
    """The baseline a seat spec names (``baseline`` = the role's default), or None."""
    names = LighthouseGame().baselines(role)
    if spec == "baseline":
        return names[0]
    return spec if spec in names else None


def _seat_options(spec: str, role: str, args: argparse.Namespace) -> LLMSeatOptions | None:
    """A seat spec as LLM options: None for a baseline, else ``kind:MODEL``."""
    baseline = "a baseline (" + ", ".join(LighthouseGame().baselines(role)) + ")"
    if _baseline_of(spec, role) is not None:
        return None
    kind, _, model = spec.partition(":")
    if kind not in ("openai", "anthropic") or not model:
        raise ConfigError(
            f"--{'keeper' if role == KEEPER else 'runners'}: {spec!r} is not {baseline}, "
            "openai:MODEL or anthropic:MODEL"
        )
    prompts = None
    if args.prompts is not None:
        prompts = {
            "system": args.prompts / f"{role}.system.md",
            "observation": args.prompts / f"{role}.observation.md",
            "retry_hint": args.prompts / "retry-hint.md",
        }
    data: dict[str, Any] = {
        "provider": {
            "kind": kind,
            "base_url": args.base_url,
            "api_key_env": args.api_key_env,
            "transport": args.transport,
        },
        "model": model,
        "prompts": prompts,
        "temperature": args.temperature,
        "max_tokens": args.max_tokens,
        "structured_output": args.structured,
        "call_timeout_seconds": args.call_timeout,
        "allowance_seconds": args.call_timeout * 2,
    }
    try:
        return LLMSeatOptions.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(format_validation_error(exc, "seat options")) from None


def _cmd_play(args: argparse.Namespace) -> int:
    overrides = {}
    if args.episode_timeout is not None:
        overrides["episode_timeout_seconds"] = args.episode_timeout
    config = LighthouseConfig.for_variant(args.variant, **overrides)
    game = LighthouseGame()
    state = new_game(config, generate_board(config, args.seed))
    keeper = _seat_options(args.keeper, KEEPER, args)
    runners = _seat_options(args.runners, RUNNER, args)
    print(
        f"Lighthouse, seed {args.seed}, variant {args.variant}: keeper {args.keeper}, "
        f"runners {args.runners} ({', '.join(config.aliases)})"
    )
    for row in state.board.to_ascii():
        print("    " + row)

    def show(line: Any) -> None:
        print(game.render_tick(line))
        if args.delay:
            time.sleep(args.delay)

    async def play() -> Any:
        factory = SeatFactory()
        seats: dict[str, Seat] = dict(baseline_seats(game, state))
        try:
            for spec in game.seats(state):
                given = args.keeper if spec.role == KEEPER else args.runners
                options = keeper if spec.role == KEEPER else runners
                if options is not None:
                    seats[spec.seat] = factory.seat(game, spec.role, options)
                else:
                    seats[spec.seat] = BaselineSeat(_baseline_of(given, spec.role) or "")
            for warning in await factory.preflight():
                print(f"warning: {warning}", file=sys.stderr)
            with RecordWriter(args.record) if args.record else nullcontext() as writer:
                return await run_episode(
                    game,
                    state,
                    seats,
                    episode_id=f"lighthouse-{args.variant}-seed{args.seed}",
                    seed=args.seed,
                    variant=args.variant,
                    writer=writer,
                    on_tick=None if args.quiet else show,
                )
        finally:
            await factory.aclose()

    outcome = asyncio.run(play())
    print(game.render_results(outcome.results))
    if args.record:
        print(f"record written to {args.record}")
    return 0


def _load(config_path: Path) -> Any:
    from harness.tournament.config import load_tournament

    game = LighthouseGame()
    return load_tournament(
        config_path, baselines={role: game.baselines(role) for role in (KEEPER, RUNNER)}
    )


def _cmd_run(args: argparse.Namespace) -> int:
    from harness.tournament.progress import Progress
    from harness.tournament.run import parse_shard, plan_episodes, run_tournament

    config = _load(args.config)
    shard = parse_shard(args.shard) if args.shard else (1, 1)
    out = args.out or Path("results") / (
        config.name if shard == (1, 1) else f"{config.name}-shard{shard[0]}of{shard[1]}"
    )
    progress = Progress(len(plan_episodes(config, shard)), 0)
    print(f"tournament {config.name}: results in {out}", file=sys.stderr)
    try:
        outcome = asyncio.run(
            run_tournament(
                config,
                out,
                concurrency=args.concurrency,
                shard=shard,
                progress=progress,
                config_file=str(args.config),
            )
        )
    except KeyboardInterrupt:
        progress.show(final=True)
        print(
            f"lighthouse: interrupted with {progress.done} of {progress.total} episodes "
            "finished; run the same command again to play the rest",
            file=sys.stderr,
        )
        return 130
    print(
        f"{outcome.played} episodes played, {outcome.already_done} already done, "
        f"{outcome.planned} in all",
        file=sys.stderr,
    )
    if not args.no_report:
        print(_report_text(out, "md", None))
    return 0


def _report_text(folder_path: Path, fmt: str, reference: str | None) -> str:
    from harness.report.build import build_report
    from harness.report.render import to_csv, to_json, to_markdown
    from harness.tournament.store import ResultsFolder

    folder = ResultsFolder(folder_path)
    if not folder.manifest_path.exists():
        raise ConfigError(f"{folder_path}: no manifest.json here; is it a results folder?")
    manifest = folder.manifest()
    config = manifest.get("config", {})
    order = [e["name"] for e in config.get("entrants", [])]
    report = build_report(
        LighthouseGame(),
        folder.summaries(),
        reference=reference or config.get("reference"),
        order=order,
        title=f"Tournament {config.get('name', folder_path.name)}",
    )
    render = {"md": to_markdown, "csv": to_csv, "json": to_json}[fmt]
    return render(report)


def _cmd_report(args: argparse.Namespace) -> int:
    print(_report_text(args.dir, args.format, args.reference), end="")
    if args.plot:
        from harness.report.render import to_svg
        from harness.tournament.store import ResultsFolder

        folder = ResultsFolder(args.dir)
        order = [e["name"] for e in folder.manifest().get("config", {}).get("entrants", [])]
        args.plot.write_text(to_svg(folder.summaries(), order, high=42.0), encoding="utf-8")
        print(f"plot written to {args.plot}", file=sys.stderr)
    return 0


def _cmd_merge(args: argparse.Namespace) -> int:
    from harness.tournament.merge import merge_folders

    merged = merge_folders(args.dirs, args.out)
    print(f"merged {len(args.dirs)} folders into {args.out}: {merged} episodes", file=sys.stderr)
    return 0


def _record_paths(path: Path) -> list[Path]:
    if path.is_dir():
        base = path / "records" if (path / "records").is_dir() else path
        return sorted(base.glob("*.jsonl"))
    return [path]


def _cmd_replay(args: argparse.Namespace) -> int:
    from harness.replay import counterfactual, replay

    game = LighthouseGame()
    if args.until_tick is not None:
        return _counterfactual(args, game, counterfactual)
    paths = _record_paths(args.record)
    if not paths:
        raise ConfigError(f"{args.record}: no records found")
    if len(paths) > 1 and (args.complete or args.html or args.view):
        raise ConfigError("--complete, --html and --view take one record, not a folder")
    failures = 0
    changes = 0
    for path in paths:
        writer = RecordWriter(args.complete) if args.complete else None
        try:
            result = asyncio.run(replay(path, game, reparse=args.reparse, writer=writer))
        finally:
            if writer is not None:
                writer.close()
        ticks = len(result.record.ticks)
        if result.clean:
            if len(paths) == 1:
                print(f"{path}: replays clean ({ticks} ticks, results match)")
        else:
            failures += 1
            assert result.mismatch is not None
            print(f"{path}: MISMATCH at {result.mismatch.describe()}")
        for change in result.reparse:
            changes += 1
            print(
                f"{path}: tick {change.tick} {change.seat}: {change.recorded_source} "
                f"{json.dumps(change.recorded_decision)} -> {change.new_source} "
                f"{json.dumps(change.new_decision)}" + (f" ({change.note})" if change.note else "")
            )
        if args.view and result.lines:
            from harness.viewer.terminal import step_through

            step_through(game, result.lines)
        if args.html and result.lines:
            from harness.viewer.html import write_html

            write_html(game, result.lines, args.html)
            print(f"viewer written to {args.html}")
    if len(paths) > 1:
        print(f"{len(paths)} records: {len(paths) - failures} clean, {failures} mismatched")
    if args.reparse:
        print(f"reparse: {changes} decision(s) would change")
    if args.complete:
        print(f"complete record written to {args.complete}")
    return 1 if failures else 0


def _counterfactual(args: argparse.Namespace, game: LighthouseGame, counterfactual: Any) -> int:
    if args.record.is_dir():
        raise ConfigError("--until-tick takes one record, not a folder")
    out = args.out or args.record.with_name(f"{args.record.stem}--from-t{args.until_tick}.jsonl")
    overrides = {}
    if args.keeper:
        overrides[KEEPER] = _seat_options(args.keeper, KEEPER, args)
    if args.runners:
        overrides[RUNNER] = _seat_options(args.runners, RUNNER, args)

    async def go() -> Any:
        factory = SeatFactory()
        try:
            from harness.replay import load_record

            header = load_record(args.record, game).header
            new_seats: dict[str, Seat] = {}
            for info in header.seats:
                spec = args.keeper if info.role == KEEPER else args.runners
                if spec is None:
                    continue
                options = overrides.get(info.role)
                new_seats[info.seat] = (
                    factory.seat(game, info.role, options)
                    if options is not None
                    else BaselineSeat(_baseline_of(spec, info.role) or "")
                )
            with RecordWriter(out) as writer:
                return await counterfactual(
                    args.record, game, args.until_tick, new_seats, writer=writer
                )
        finally:
            await factory.aclose()

    _, outcome = asyncio.run(go())
    print(f"counterfactual from tick {args.until_tick}: {game.render_results(outcome.results)}")
    print(f"record written to {out}")
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    from harness.games.lighthouse.record import record_schema

    print(json.dumps(record_schema(), indent=2, sort_keys=True))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``lighthouse`` command."""
    parser = argparse.ArgumentParser(
        prog="lighthouse", description="Run and inspect Lighthouse episodes."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    board = sub.add_parser("board", help="print the board a seed generates")
    board.add_argument("--seed", type=int, required=True)
    board.add_argument("--variant", choices=VARIANTS, default="default")
    board.add_argument("--json", action="store_true", help="print JSON instead of text")
    board.set_defaults(func=_cmd_board)

    play = sub.add_parser(
        "play",
        help="play one episode in the terminal (LANTERN + 3 WALLHUG unless told otherwise)",
    )
    play.add_argument("--seed", type=int, required=True)
    play.add_argument("--variant", choices=VARIANTS, default="default")
    play.add_argument(
        "--keeper", default="lantern", help="lantern (default), openai:MODEL or anthropic:MODEL"
    )
    play.add_argument(
        "--runners", default="wallhug", help="wallhug (default), openai:MODEL or anthropic:MODEL"
    )
    play.add_argument("--base-url", help="an OpenAI-compatible server (vLLM, Ollama, ...)")
    play.add_argument(
        "--api-key-env", help="environment variable holding the API key (default per provider)"
    )
    play.add_argument("--prompts", type=Path, help="a folder of prompt files to use instead")
    play.add_argument("--temperature", type=float)
    play.add_argument("--max-tokens", type=int, default=512)
    play.add_argument("--call-timeout", type=float, default=60.0, help="seconds per call")
    play.add_argument("--episode-timeout", type=float, help="episodeTimeoutSeconds")
    play.add_argument(
        "--structured", action="store_true", help="ask for schema-constrained JSON replies"
    )
    play.add_argument("--transport", choices=("aiohttp", "httpx"), default="aiohttp")
    play.add_argument("--record", type=Path, help="write the episode record (JSONL) here")
    play.add_argument("--quiet", action="store_true", help="print only the results")
    play.add_argument("--delay", type=float, default=0.0, help="seconds to pause after each tick")
    play.set_defaults(func=_cmd_play)

    run = sub.add_parser("run", help="play a tournament config; resumes where it stopped")
    run.add_argument("config", type=Path)
    run.add_argument("--out", type=Path, help="results folder (default results/<name>)")
    run.add_argument("--concurrency", type=int, help="episodes at once (default: config's)")
    run.add_argument("--shard", help="I/N: play only this machine's share")
    run.add_argument("--no-report", action="store_true", help="do not print the report")
    run.set_defaults(func=_cmd_run)

    report = sub.add_parser("report", help="report on a results folder")
    report.add_argument("dir", type=Path)
    report.add_argument("--format", choices=("md", "csv", "json"), default="md")
    report.add_argument("--reference", help="the entrant to pair against")
    report.add_argument("--plot", type=Path, help="also write an SVG of the score distributions")
    report.set_defaults(func=_cmd_report)

    merge = sub.add_parser("merge", help="join the results folders of a tournament's shards")
    merge.add_argument("dirs", type=Path, nargs="+")
    merge.add_argument("--out", type=Path, required=True)
    merge.set_defaults(func=_cmd_merge)

    rep = sub.add_parser(
        "replay", help="re-execute recorded episodes with the current engine and check them"
    )
    rep.add_argument("record", type=Path, help="a record, or a results folder")
    rep.add_argument("--reparse", action="store_true", help="re-parse every model reply")
    rep.add_argument("--complete", type=Path, metavar="OUT", help="write the full record")
    rep.add_argument("--view", action="store_true", help="step through the ticks")
    rep.add_argument("--html", type=Path, metavar="OUT", help="write a self-contained viewer")
    rep.add_argument("--until-tick", type=int, metavar="K", help="counterfactual from tick K")
    rep.add_argument("--keeper", help="who keeps from tick K: lantern, silent, openai:MODEL, ...")
    rep.add_argument("--runners", help="who runs from tick K: wallhug, openai:MODEL, ...")
    rep.add_argument("--out", type=Path, help="where the counterfactual record goes")
    rep.add_argument("--base-url")
    rep.add_argument("--api-key-env")
    rep.add_argument("--prompts", type=Path)
    rep.add_argument("--temperature", type=float)
    rep.add_argument("--max-tokens", type=int, default=512)
    rep.add_argument("--call-timeout", type=float, default=60.0)
    rep.add_argument("--structured", action="store_true")
    rep.add_argument("--transport", choices=("aiohttp", "httpx"), default="aiohttp")
    rep.set_defaults(func=_cmd_replay)

    schema = sub.add_parser("schema", help="print the JSON Schema of a record line")
    schema.set_defaults(func=_cmd_schema)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``lighthouse`` command; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        status: int = args.func(args)
    except HarnessError as exc:
        print(f"lighthouse: error: {exc}", file=sys.stderr)
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
