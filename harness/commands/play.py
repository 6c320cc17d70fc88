"""``lighthouse play``: one episode in the terminal, any seats, any hosted game."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from harness.commands.closing import closing_lines
from harness.commands.seats import (
    add_seat_arguments,
    build_seats,
    check_seat_keys,
    fit_allowance,
    given_specs,
    model_seats,
    seat_options,
)
from harness.episode import run_episode
from harness.errors import ConfigError
from harness.games.registry import game_names, get_game
from harness.llm.cache import CallCache, call_scope
from harness.llm.deadlines import default_episode_timeout
from harness.llm.seat import SeatFactory
from harness.records import RecordWriter
from harness.seats import baseline_seats
from harness.validation import check_seed


def add_parser(sub: Any) -> None:
    """Register ``play``."""
    play = sub.add_parser(
        "play",
        help="play one episode in the terminal (the game's baselines unless told otherwise)",
    )
    play.add_argument("--game", choices=game_names(), default="lighthouse")
    play.add_argument("--seed", type=int, required=True)
    play.add_argument("--variant", help="a rules variant (Lighthouse: default, spring)")
    play.add_argument("--record", type=Path, help="write the episode record (JSONL) here")
    play.add_argument("--quiet", action="store_true", help="print only the results")
    play.add_argument("--delay", type=float, default=0.0, help="seconds to pause after each tick")
    play.add_argument(
        "--episode-timeout",
        type=float,
        help="episodeTimeoutSeconds (default: the game's, or with model seats enough for "
        "every tick to take a seat's whole allowance; see docs/llm.md)",
    )
    play.add_argument(
        "--cache",
        type=Path,
        metavar="FILE",
        help="answer model calls from this SQLite call cache where it can, and store new answers",
    )
    add_seat_arguments(play)
    play.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Play the episode."""
    check_seed(args.seed)
    game = get_game(args.game)
    variant = args.variant or game.variants()[0]
    if variant not in game.variants():
        raise ConfigError(f"--variant: {game.name} has {list(game.variants())}, not {variant!r}")
    config = game.make_config(variant, {}, args.episode_timeout)
    specs = given_specs(game, args)
    check_seat_keys(game, specs, args)
    if args.episode_timeout is None:
        timeout = default_episode_timeout(config, _allowances(game, specs, args))
        if timeout is not None:
            config = game.make_config(variant, {}, timeout)
    state = game.new_state(config, args.seed)
    names = ", ".join(
        f"{g.key} {specs.get(g.key, game.baselines(g.role)[0])}" for g in game.seat_groups()
    )
    print(f"{game.name.capitalize()}, seed {args.seed}, variant {variant}: {names}")
    if not args.quiet:
        print(game.render_start(state))

    def show(line: Any) -> None:
        print(game.render_tick(line))
        if args.delay:
            time.sleep(args.delay)

    def warn(text: str) -> None:
        print(f"warning: {text}", file=sys.stderr)

    episode_id = f"{game.name}-{variant}-seed{args.seed}"

    async def play() -> Any:
        cache = CallCache(args.cache) if args.cache else None
        factory = SeatFactory(cache=cache, notify=warn)
        try:
            seats = {**baseline_seats(game, state), **build_seats(game, specs, args, factory)}
            for warning in await factory.preflight():
                warn(warning)
            for line in factory.structured_output():
                print(line)
            with (
                RecordWriter(args.record) if args.record else nullcontext() as writer,
                call_scope(episode_id),
            ):
                return await run_episode(
                    game,
                    state,
                    seats,
                    episode_id=episode_id,
                    seed=args.seed,
                    variant=variant,
                    writer=writer,
                    on_tick=None if args.quiet else show,
                )
        finally:
            await factory.aclose()
            if cache is not None:
                cache.close()

    outcome = asyncio.run(play())
    print(game.render_results(outcome.results))
    for line in closing_lines(outcome.lines):
        print(line)
    if args.record:
        print(f"record written to {args.record}")
    return 0


def _allowances(game: Any, specs: dict[str, str], args: argparse.Namespace) -> list[float]:
    """The allowance of every model seat ``specs`` make (defaults fitted to their number)."""
    models = model_seats(game, specs)
    out = []
    for group in game.seat_groups():
        spec = specs.get(group.key)
        options = seat_options(game, group, spec, args) if spec is not None else None
        if options is not None:
            allowance = fit_allowance(options, models).allowance_seconds
            out += [allowance or 0.0] * len(group.seats)
    return out
