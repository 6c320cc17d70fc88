"""``lighthouse play``: one episode in the terminal, any seats, any hosted game."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from harness.commands.parser import (
    Subcommand,
    add_game_argument,
    add_seed_argument,
    add_variant_argument,
    seconds,
    variant_of,
)
from harness.commands.seats import add_seat_arguments
from harness.defaults import MAX_EPISODE_TIMEOUT_SECONDS
from harness.text import terminal_safe


def _add_arguments(play: argparse.ArgumentParser) -> None:
    """``play``'s flags."""
    add_game_argument(play)
    add_seed_argument(play)
    add_variant_argument(play)
    play.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="also write the episode record (JSONL) here (default: none is written)",
    )
    play.add_argument("--quiet", action="store_true", help="print only the results")
    play.add_argument(
        "--delay",
        type=seconds(zero=True),
        default=0.0,
        metavar="S",
        help="seconds to pause after each tick, to watch it",
    )
    play.add_argument(
        "--episode-timeout",
        type=seconds(maximum=MAX_EPISODE_TIMEOUT_SECONDS),
        metavar="S",
        help="episodeTimeoutSeconds, at most a year (default: the game's, or with model "
        "seats enough for every tick to take a seat's whole allowance; see docs/llm.md)",
    )
    play.add_argument(
        "--cache",
        type=Path,
        metavar="FILE",
        help="answer model calls from this SQLite call cache where it can, and store new "
        "answers (default: no cache)",
    )
    add_seat_arguments(play)


def run(args: argparse.Namespace) -> int:
    """Play the episode."""
    import asyncio

    from harness.api import Env
    from harness.commands.interrupt import run_interruptible
    from harness.commands.seats import check_seat_keys, given_specs, providers, seat_configs
    from harness.registry import get_game

    game = get_game(args.game)
    variant = variant_of(game, args.variant)
    env = Env(game, variant=variant, episode_timeout_seconds=args.episode_timeout)
    state = env.new_state(args.seed)
    specs = seat_configs(game, args)
    check_seat_keys(game, specs, args)
    given = given_specs(game, args)
    names = ", ".join(
        f"{g.key} {given.get(g.key, game.baseline_names(g.role)[0])}" for g in game.seat_groups
    )
    print(f"{game.name.capitalize()}, seed {args.seed}, variant {env.variant}: {names}")
    if not args.quiet:
        print(game.view.render_start(state))

    async def show(line: Any) -> None:
        print(game.view.render_tick(line))
        if args.delay:
            await asyncio.sleep(args.delay)  # the loop keeps serving the seats' calls

    def warn(warning: str) -> None:
        # a server's message is quoted in it: one line, its control characters shown
        print(f"warning: {terminal_safe(warning, one_line=True)}", file=sys.stderr)

    result = run_interruptible(
        env.aplay(
            args.seed,
            seats=specs,
            providers=providers(args),
            record=args.record,
            on_tick=None if args.quiet else show,
            on_warning=warn,
            on_info=print,
            search=(Path.cwd(),),
            cache=args.cache,
        )
    )
    print(result.summary)
    for line in result.notes:
        print(line)
    if args.record:
        print(f"record written to {args.record}")
    return 0


COMMAND = Subcommand(
    help="play one episode in the terminal (the game's baselines unless told otherwise)",
    description="Play one episode and show it tick by tick. Every seat the flags do "
    "not name is played by its role's first baseline.",
    examples=(
        "lighthouse play --seed 7",
        "lighthouse play --seed 7 --keeper pilot --quiet --record episode.jsonl",
        "lighthouse play --seed 7 --keeper silent --runners scout",
        "lighthouse play --seed 7 --keeper openai:gpt-4o-mini --runners wallhug",
        "lighthouse play --seed 7 --keeper openai:MODEL --base-url http://127.0.0.1:8080/v1",
        "lighthouse play --game relayroam --seed 3 --player vent-aware-greedy",
    ),
    add_arguments=_add_arguments,
    run=run,
)

__all__ = ["COMMAND", "run"]
