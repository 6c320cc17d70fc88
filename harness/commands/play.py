"""``lighthouse play``: one episode in the terminal, any seats, any hosted game."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from harness.commands.seats import add_seat_arguments, build_seats, check_seat_keys, given_specs
from harness.episode import run_episode
from harness.errors import ConfigError
from harness.llm.seat import SeatFactory
from harness.records import RecordWriter
from harness.registry import game_names, get_game
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
    play.add_argument("--episode-timeout", type=float, help="episodeTimeoutSeconds")
    add_seat_arguments(play)
    play.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Play the episode."""
    check_seed(args.seed)
    game = get_game(args.game)
    variant = args.variant or game.variants[0]
    if variant not in game.variants:
        raise ConfigError(f"--variant: {game.name} has {list(game.variants)}, not {variant!r}")
    config = game.rules.make_config(variant, {}, args.episode_timeout)
    state = game.rules.new_state(config, args.seed)
    specs = given_specs(game, args)
    check_seat_keys(game, specs, args)
    names = ", ".join(
        f"{g.key} {specs.get(g.key, game.baseline_names(g.role)[0])}" for g in game.seat_groups
    )
    print(f"{game.name.capitalize()}, seed {args.seed}, variant {variant}: {names}")
    if not args.quiet:
        print(game.view.render_start(state))

    def show(line: Any) -> None:
        print(game.view.render_tick(line))
        if args.delay:
            time.sleep(args.delay)

    async def play() -> Any:
        factory = SeatFactory()
        try:
            seats = {**baseline_seats(game, state), **build_seats(game, specs, args, factory)}
            for warning in await factory.preflight():
                print(f"warning: {warning}", file=sys.stderr)
            with RecordWriter(args.record) if args.record else nullcontext() as writer:
                return await run_episode(
                    game,
                    state,
                    seats,
                    episode_id=f"{game.name}-{variant}-seed{args.seed}",
                    seed=args.seed,
                    variant=variant,
                    writer=writer,
                    on_tick=None if args.quiet else show,
                )
        finally:
            await factory.aclose()

    outcome = asyncio.run(play())
    print(game.view.render_results(outcome.results))
    if args.record:
        print(f"record written to {args.record}")
    return 0
