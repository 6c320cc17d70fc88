"""The plan replayed through the real turn rules, and its repairs (decision H17).

Every lap's inputs are played by :func:`~harness.games.hourloom.turn.play_turn`, with
the echoes of earlier laps replaying theirs. The first defect (a refused move of
yours, or an echo's hold) is turned into WAITs for whoever should yield; a head-on
meeting, which no waiting resolves, abandons the attempt. This draws nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.games.hourloom.events import EchoHeld, LapCompleted, TurnPaid
from harness.games.hourloom.generator.layout import AttemptFailed
from harness.games.hourloom.grid import Input, neighbour
from harness.games.hourloom.state import Chamber, State
from harness.games.hourloom.turn import YOU, bodies_of, chamber_start, move_block, play_turn

Plan = tuple[tuple[Input, ...], ...]


@dataclass(frozen=True)
class Repair:
    """Add ``waits`` WAITs to lap ``lap`` before its move number ``move``."""

    lap: int
    move: int
    waits: int


@dataclass(frozen=True)
class Replayed:
    """A plan that played cleanly: each lap's grains, and the state after the last lap."""

    grains: tuple[int, ...]
    final: State


@dataclass
class Checkpoints:
    """The state at each lap's start in the last replay of one chamber, and the grains of
    the laps before it. A lap's start depends only on the laps before it, so a replay
    of a plan whose first laps are unchanged resumes there (the outcome is the same)."""

    plan: Plan = ()
    starts: list[State] = field(default_factory=list)
    grains: list[int] = field(default_factory=list)

    def resume(self, chamber: Chamber, plan: Plan) -> tuple[int, State]:
        """The first lap (0-based) whose start is known for ``plan``, and that start."""
        same = 0
        while same < min(len(plan), len(self.plan), len(self.starts)) and (
            plan[same] == self.plan[same]
        ):
            same += 1
        if same == 0 or not self.starts:
            self.starts, self.grains = [chamber_start(0, 0, chamber, 0)], []
            return 0, self.starts[0]
        first = min(same, len(self.starts) - 1)
        del self.starts[first + 1 :]
        del self.grains[first:]
        return first, self.starts[first]


def replay(
    chamber: Chamber, plan: Plan, checkpoints: Checkpoints | None = None
) -> Replayed | Repair:
    """Play ``plan`` lap by lap; return its grains, or the repair of its first defect.

    With ``checkpoints`` (from earlier replays of the same chamber) the replay resumes
    at the first lap whose inputs, or whose earlier laps' inputs, changed.
    """
    marks = checkpoints if checkpoints is not None else Checkpoints()
    first, state = marks.resume(chamber, plan)
    marks.plan = plan
    grains = marks.grains
    for lap, inputs in enumerate(plan[first:], first + 1):
        if lap > len(marks.starts):
            marks.starts.append(state)
        spent = 0
        completed = False
        for turn, entry in enumerate(inputs):
            if completed:
                raise AttemptFailed(f"lap {lap} completed before its plan ended")
            direction = None if entry == "WAIT" else entry
            if direction is not None:
                bodies = bodies_of(state.player, state.echoes)
                block, target = move_block(chamber, state.player, direction, YOU, bodies)
                if block is not None:
                    if block != "echo_in_the_way" or target is None:
                        raise AttemptFailed(f"lap {lap} turn {turn}: {block}")
                    echo = bodies[target]
                    return _yield_to_echo(chamber, plan, lap, turn, state.player, target, echo)
            before = state
            state, events = play_turn(state, direction)
            for event in events:
                if isinstance(event, EchoHeld):
                    return _repair_hold(plan, lap, turn, before, event)
                if isinstance(event, TurnPaid):
                    spent += event.grains
                if isinstance(event, LapCompleted):
                    completed = True
            if state.phase == "over":
                raise AttemptFailed(f"lap {lap} ran out of sand in the replay")
        if not completed:
            raise AttemptFailed(f"lap {lap} did not complete")
        grains.append(spent)
    return Replayed(tuple(grains), state)


def move_index(inputs: tuple[Input, ...], turn: int) -> int:
    """Which move of a lap (counting from 0) its input ``turn`` is."""
    return sum(1 for entry in inputs[:turn] if entry != "WAIT")


def next_move(inputs: tuple[Input, ...], start: int) -> int | None:
    """The first turn at or after ``start`` whose input is a move, or None."""
    return next((t for t in range(start, len(inputs)) if inputs[t] != "WAIT"), None)


def _target(chamber: Chamber, tile: int, entry: Input) -> int | None:
    if entry == "WAIT":
        return None
    return neighbour(tile, entry, chamber.width, chamber.height)


def _yield_to_echo(
    chamber: Chamber, plan: Plan, lap: int, turn: int, here: int, there: int, echo: int
) -> Repair:
    """Your move onto ``there`` is refused by ``echo``: wait as long as it will stay."""
    log = plan[echo - 1]
    if _target(chamber, there, log[turn]) == here:
        raise AttemptFailed(f"lap {lap} turn {turn}: head-on with echo {echo}")
    leaves = next_move(log, turn)
    free_at = len(log) if leaves is None else leaves + 1
    return Repair(lap, move_index(plan[lap - 1], turn), free_at - turn)


def _repair_hold(plan: Plan, lap: int, turn: int, before: State, held: EchoHeld) -> Repair:
    """Echo ``held.echo`` was blocked on lap ``lap``'s turn ``turn``: delay who should yield."""
    if held.cause not in ("you", "echo") or held.target is None:
        raise AttemptFailed(f"lap {lap} turn {turn}: echo {held.echo} held by {held.cause}")
    chamber = before.chamber
    echo = held.echo
    mine = plan[lap - 1]
    if held.cause == "you":
        if mine[turn] != "WAIT":
            # You just stepped into its way: you wait until it has passed through.
            own = plan[echo - 1]
            leaves = next_move(own, turn + 1)
            free_at = len(own) if leaves is None else leaves + 1
            return Repair(lap, move_index(mine, turn), free_at - turn)
        leaves = next_move(mine, turn + 1)
        if leaves is None or _target(chamber, held.target, mine[leaves]) == held.tile:
            raise AttemptFailed(f"lap {lap} turn {turn}: head-on with echo {echo}")
        # You stand there: the echo's own lap waits until you have moved on.
        return Repair(echo, move_index(plan[echo - 1], turn), leaves - turn)
    blocker = held.blocker
    assert blocker is not None
    theirs = plan[blocker - 1]
    if _target(chamber, held.target, theirs[turn]) == held.tile:
        raise AttemptFailed(f"lap {lap} turn {turn}: echoes {echo} and {blocker} head-on")
    later = blocker > echo  # a later echo moves after this one within the turn
    leaves = next_move(theirs, turn if later else turn + 1)
    free_at = len(theirs) if leaves is None else leaves + (1 if later else 0)
    return Repair(echo, move_index(plan[echo - 1], turn), free_at - turn)


__all__ = ["Plan", "Repair", "Replayed", "move_index", "next_move", "replay"]
