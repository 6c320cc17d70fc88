"""How big a record is: one Lighthouse episode with a model in every seat.

    python -m benchmarks.record_size [--seed 7] [--out record.jsonl]

Plays one default-variant episode through the real runner with four LLM seats on a
scripted provider (in process, no network) whose replies look like a chatty model's:
a keeper that transmits every other tick with notes, runners that give a move and a
sentence of notes. Each reply is drawn from the request's text, so the episode is the
same on every run. Prints the record's size in bytes, per line type, and the part of
it that keeps the prompts (the header's ``prompts`` and each call's ``promptSha256``),
and what keeping the text of each turn's last request instead would take (made again
from the record by the viewer's :func:`~harness.viewer.prompts.sent_prompts`). Figures
only: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import tempfile
from pathlib import Path

from harness.episode import run_episode
from harness.llm.options import LLMSeatOptions
from harness.llm.scripted import ScriptedProvider
from harness.llm.seat import SeatFactory
from harness.llm.types import CompletionRequest
from harness.reader import open_record
from harness.records import RecordWriter
from harness.registry import get_game
from harness.seats import Seat
from harness.viewer.prompts import sent_prompts

GAME = get_game("lighthouse")
ALIASES = ("Sprocket", "Gizmo", "Ratchet")


def _rng(request: CompletionRequest) -> random.Random:
    text = "".join(m.content for m in request.messages)
    return random.Random(hashlib.sha256(text.encode()).digest())


def keeper(request: CompletionRequest) -> str:
    """A keeper that talks every other time and keeps a line of notes."""
    rng = _rng(request)
    orders = "; ".join(f"{a} {rng.choice('NESW')}" for a in ALIASES)
    notes = "Keys at the top left and right; Gizmo is nearest the gate. Water rises soon."
    reply = {"transmit": rng.random() < 0.5, "message": orders, "notes": notes}
    return json.dumps(reply)


def runner(request: CompletionRequest) -> str:
    """A runner that steps into an open tile of its window (north if it can), with a note."""
    rng = _rng(request)
    lines = request.messages[1].content.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("Your surroundings")) + 1
    window = [line.strip() for line in lines[top : top + 3]]
    around = {"N": window[0][1], "W": window[1][0], "E": window[1][2], "S": window[2][1]}
    open_ = [move for move, tile in around.items() if tile not in "#~"]
    move = "N" if "N" in open_ and rng.random() < 0.6 else rng.choice(open_ or ["WAIT"])
    return json.dumps({"move": move, "notes": "Following the keeper; a wall to the west."})


def play(seed: int, path: Path) -> None:
    """Play the episode and write its record to ``path``."""
    state = GAME.rules.new_state(GAME.rules.make_config("default", {}), seed)
    options = LLMSeatOptions.model_validate(
        {"provider": {"kind": "scripted"}, "model": "scripted-model"}
    )

    async def go() -> None:
        async with SeatFactory() as factory:
            seats: dict[str, Seat] = {}
            for spec in GAME.rules.seats(state):
                script = keeper if spec.role == "keeper" else runner
                provider = ScriptedProvider(script=script)
                seats[spec.seat] = factory.seat(GAME, spec.role, options, provider=provider)
            with RecordWriter(path) as writer:
                await run_episode(
                    GAME, state, seats, episode_id="size", seed=seed, variant="default",
                    writer=writer,
                )  # fmt: skip

    asyncio.run(go())


def measure(path: Path) -> None:
    """Print the record's size and the share of it that keeps the prompts."""
    data = path.read_bytes()
    lines = [json.loads(line) for line in data.splitlines()]
    by_type: dict[str, int] = {}
    for raw, line in zip(data.splitlines(keepends=True), lines, strict=True):
        by_type[line["type"]] = by_type.get(line["type"], 0) + len(raw)
    prompts = len(json.dumps(lines[0].get("prompts", {}), ensure_ascii=False))
    hashes = calls = 0
    for line in lines[1:-1]:
        for turn in line["seats"].values():
            for call in turn.get("calls", []):
                calls += 1
                if "promptSha256" in call:
                    hashes += len(f', "promptSha256": "{call["promptSha256"]}"')
    ticks = sum(1 for line in lines if line["type"] == "tick")
    made = sent_prompts(GAME, open_record(path).lines())
    as_text = sum(
        len(json.dumps([[m.role, m.content] for m in p.messages], ensure_ascii=False))
        for seats in made.turns.values()
        for p in seats.values()
    )
    checks = sorted({p.check for seats in made.turns.values() for p in seats.values()})
    print(f"record: {len(data)} bytes, {ticks} ticks, {calls} calls")
    print("per line type: " + ", ".join(f"{k} {v}" for k, v in by_type.items()))
    print(f"header prompts: {prompts} bytes; calls' promptSha256: {hashes} bytes")
    print(f"each turn's last request as text instead: {as_text} bytes (made again: {checks})")


def main() -> None:
    """Play, write, measure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, help="keep the record here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.out or Path(tmp) / "record.jsonl"
        play(args.seed, path)
        measure(path)


if __name__ == "__main__":
    main()
