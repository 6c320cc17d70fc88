"""How long hostile 1 MiB replies take to parse, and how long they hold the event loop.

    python -m benchmarks.hostile_parse [--repeat 5]

(Run it as a module, like every benchmark here.)

Each hostile reply is just under 1 MiB (MAX_REPLY_BYTES), the most a reply may be
before it is refused unread as too long. For each kind it prints:

1. the parse time (best of ``--repeat``) of Lighthouse's runner parser, Relayroam's
   action parser and the strict loader (states, HTTP bodies, record lines), with the
   failure kind the reply parser gave;
2. the longest the event loop went without running while an LLM seat (the scripted
   provider: no network) got that reply twice, the retry included: a coroutine that
   sleeps 1 ms in a loop records the largest gap between its wake-ups, minus the 1 ms
   (the smallest such figure of ``--repeat`` runs, so that the OS scheduling another
   process once does not count; a valid 13-byte reply gives the control figure).
   Replies over PARSE_OFF_LOOP_CHARS are parsed in a worker thread, so this is what
   the interpreter's thread switching (every 5 ms by default) and the C parts of a
   parse (regular-expression matches of at most 64 Ki characters, one
   ``json.loads``) still cost the loop.

Figures only: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import platform
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from harness.games.lighthouse.board import generate_board
from harness.games.lighthouse.config import LighthouseConfig
from harness.games.lighthouse.replies import parse_runner_reply
from harness.games.lighthouse.state import new_game
from harness.games.relayroam.actions import parse_action
from harness.json_reply import StrictJsonError, strict_loads
from harness.llm.options import LLMSeatOptions
from harness.llm.prompts import PromptSet, default_prompt_files
from harness.llm.scripted import ScriptedProvider
from harness.llm.seat import LLMSeat
from harness.protocol import ParseFailure, SeatSpec
from harness.registry import get_game
from harness.seats import SeatRequest
from harness.text import MAX_REPLY_BYTES

SIZE = MAX_REPLY_BYTES - 64  # room for the wrapping below, still about 1 MiB


def _fill(unit: str, size: int = SIZE) -> str:
    return unit * (size // len(unit))


def hostile_replies() -> dict[str, str]:
    """Each kind of hostile reply, about 1 MiB of it."""
    half = SIZE // 2
    return {
        "unclosed fence": "```" + _fill("a", SIZE - 3),
        "unclosed ```json fence, deep": "```json\n" + _fill("[", SIZE - 8),
        "deep arrays": "[" * half + "]" * half,
        "deep objects": _fill('{"a":', half) + "1" + "}" * (half // 5),
        "many tokens": "[" + _fill("[],", SIZE - 4) + "[]]",
        "huge string": '{"move": "N", "notes": "' + _fill("a", SIZE - 30) + '"}',
        "escapes in a string": '{"move": "N", "notes": "' + _fill("\\\\", SIZE - 30) + '"}',
        "unclosed string of quotes": '{"notes": "' + _fill('\\"', SIZE - 12),
        "4300-digit integers": "[" + _fill("9" * 4300 + ",", SIZE - 4310) + "1]",
        "a 5000-digit integer": '{"move": ' + "9" * 5000 + "}",
        "1e999": '{"move": "N", "x": [' + _fill("1e999,", SIZE - 30) + "1]}",
        "lone surrogates": '{"move": "N", "notes": "' + _fill("\ud800", SIZE // 3 - 30) + '"}',
        "prose": _fill("The runner should go north, I think. [see above] {maybe} "),
    }


def best_ms(fn: Callable[[], Any], repeat: int) -> float:
    """The fastest of ``repeat`` runs of ``fn``, in milliseconds."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best * 1000


def strict_outcome(text: str) -> str:
    try:
        strict_loads(text)
    except StrictJsonError:
        return "error"
    return "value"


def runner_request() -> SeatRequest:
    game = get_game("lighthouse")
    config = LighthouseConfig()
    state = new_game(config, generate_board(config, 7))
    spec = next(s for s in game.rules.seats(state) if s.role == "runner")
    observation = game.rules.observe(state, spec.seat)
    return SeatRequest(game.seat_io, game.baselines[spec.role], spec, 0, observation)


async def loop_stall_ms(reply: str, request: SeatRequest) -> tuple[float, str]:
    """The largest event-loop gap (ms) while a seat gets ``reply`` twice; its source."""
    options = LLMSeatOptions.model_validate(
        {"provider": {"kind": "scripted"}, "model": "hostile", "allowance_seconds": 60}
    )
    spec: SeatSpec = request.seat
    seat = LLMSeat(
        provider=ScriptedProvider([reply, reply]),
        options=options,
        prompts=PromptSet.load(default_prompt_files("lighthouse", spec.role)),
    )
    worst = 0.0
    done = False

    async def ticker() -> None:
        nonlocal worst
        loop = asyncio.get_running_loop()
        while not done:
            before = loop.time()
            await asyncio.sleep(0.001)
            worst = max(worst, loop.time() - before - 0.001)

    tick = asyncio.create_task(ticker())
    await asyncio.sleep(0.01)  # let the ticker settle
    answer = await seat.decide(request)
    done = True
    await tick
    return worst * 1000, answer.source


async def best_stall_ms(reply: str, request: SeatRequest, repeat: int) -> tuple[float, str]:
    """The smallest of ``repeat`` largest gaps: a gap that the machine's other work (the
    OS running another process) caused in one run is unlikely to recur in every run."""
    results = [await loop_stall_ms(reply, request) for _ in range(repeat)]
    return min(stall for stall, _ in results), results[-1][1]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (best kept)")
    args = parser.parse_args(argv)
    print(f"python {platform.python_version()} on {platform.machine()}, {sys.platform}")
    print(f"each reply is about {SIZE / (1 << 20):.2f} MiB; times in ms, best of {args.repeat}")
    request = runner_request()
    header = (
        f"{'reply':<30} {'lighthouse':>10} {'relayroam':>10} {'strict':>8}  "
        f"{'failure kind':<12} {'loop stall':>10}  seat source"
    )
    print(header)
    print("-" * len(header))
    control = asyncio.run(best_stall_ms('{"move": "N"}', request, args.repeat))[0]
    for kind, text in hostile_replies().items():
        parsed = parse_runner_reply(text, notes_cap=200)
        failure = parsed.kind if isinstance(parsed, ParseFailure) else "parsed"
        lighthouse = best_ms(partial(parse_runner_reply, text, notes_cap=200), args.repeat)
        relayroam = best_ms(partial(parse_action, text), args.repeat)
        strict = best_ms(partial(strict_outcome, text), args.repeat)
        stall, source = asyncio.run(best_stall_ms(text, request, args.repeat))
        print(
            f"{kind:<30} {lighthouse:>10.1f} {relayroam:>10.1f} {strict:>8.1f}  "
            f"{failure:<12} {stall:>10.1f}  {source}"
        )
    print(f"(loop stall for a valid 13-byte reply, as a control: {control:.1f} ms)")


if __name__ == "__main__":
    main()
