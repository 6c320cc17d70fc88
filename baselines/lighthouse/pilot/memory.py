"""PILOT's notes: the runners' last six moves, kept where any keeper keeps its memory.

A WALLHUG runner with no order follows the left-hand wall from its heading, the
direction of its last successful move among its last six (decision L3). The keeper
sees only each runner's last move, so PILOT writes the recent moves into its own
notes every tick and reads them back the next: ``PILOT t12 1:NNEe 2:H 3:`` says
that at tick 12, before that tick's moves, runner 1's last moves were N, N, E and a
bumped E (a bump is written lower-case, a WAIT as H). Notes that are missing, from
another tick or unreadable leave PILOT with what the observation shows: the last
move alone.
"""

from __future__ import annotations

import re

from harness.games.lighthouse.observe import KeeperObservation
from harness.games.lighthouse.state import MOVE_HISTORY, Move, MoveRecord, RunnerStatus

_TOKEN = {Move.N: "N", Move.E: "E", Move.S: "S", Move.W: "W", Move.WAIT: "H"}
_MOVE = {token: move for move, token in _TOKEN.items()}
_NOTES = re.compile(r"PILOT t(\d+)((?: [123]:[NESWnesH]{0,6})*)")

History = tuple[MoveRecord, ...]


def encode(tick: int, histories: dict[int, History]) -> str:
    """The notes that carry ``histories`` (seat -> last moves) into tick ``tick + 1``."""
    parts = [f"PILOT t{tick}"]
    for seat in sorted(histories):
        text = "".join(
            _TOKEN[r.move].lower() if r.bumped else _TOKEN[r.move]
            for r in histories[seat][-MOVE_HISTORY:]
        )
        parts.append(f"{seat}:{text}")
    return " ".join(parts)


def _decode(notes: str, tick: int) -> dict[int, History] | None:
    match = _NOTES.fullmatch(notes.strip())
    if match is None or int(match.group(1)) != tick:
        return None
    histories: dict[int, History] = {}
    for item in match.group(2).split():
        seat, _, text = item.partition(":")
        histories[int(seat)] = tuple(
            MoveRecord(_MOVE[token.upper()], token.islower()) for token in text
        )
    return histories


def recall(obs: KeeperObservation) -> dict[int, History]:
    """Every active runner's last moves (up to six, oldest first) as of ``obs``.

    The notes written last tick hold the moves before it; the observation adds the
    move each runner made last tick.
    """
    before = _decode(obs.notes, obs.tick - 1) or {}
    histories: dict[int, History] = {}
    for runner in obs.runners:
        if runner.status is not RunnerStatus.ACTIVE:
            continue
        earlier = before.get(runner.seat, ())
        if runner.last_move is not None:
            earlier = (*earlier, MoveRecord(runner.last_move, runner.bumped))
        histories[runner.seat] = earlier[-MOVE_HISTORY:]
    return histories


__all__ = ["History", "encode", "recall"]
