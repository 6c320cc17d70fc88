"""The twelve-step tick, the end check and the scoring (rules, "Resolution order").

Steps 1 (OBSERVE) and 2 (DECIDE) happen outside: the runner builds observations
with :mod:`harness.games.lighthouse.observe` and asks the seats. :func:`resolve_tick`
is steps 3-12, one pure function from a frozen state and the decisions to the next
frozen state and a description of what happened.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from harness.errors import RulesError
from harness.games.lighthouse.board import Pos
from harness.games.lighthouse.state import (
    MOVE_HISTORY,
    GameState,
    KeeperDecision,
    Move,
    MoveRecord,
    Reason,
    Runner,
    RunnerDecision,
    RunnerStatus,
    Transmission,
)


@dataclass(frozen=True)
class RunnerEvent:
    """What happened to one runner in one tick (only runners active at its start)."""

    seat: int
    move: Move
    start: Pos
    end: Pos
    bumped: bool
    picked_key: Pos | None
    escaped: bool
    drowned: bool


@dataclass(frozen=True)
class TickEvents:
    """What one tick did, for the record and for rendering."""

    tick: int
    transmission: str | None
    runners: tuple[RunnerEvent, ...]
    gate_opened: bool
    clock_before: int
    clock_after: int
    water_line: int
    reason: Reason | None


@dataclass(frozen=True)
class Results:
    """An episode's results (rules, "Scoring"), unrounded (decision T5).

    ``scores`` holds the same teamScore for all four seats: keeper, runner 1, 2, 3.
    """

    team_score: float
    keys_collected: int
    escaped: int
    time_bonus: float
    clock: int
    flood_clock: int
    key_count: int
    ticks: int
    reason: Reason

    @property
    def scores(self) -> tuple[float, float, float, float]:
        """results.scores: one team score per seat, keeper first."""
        s = self.team_score
        return (s, s, s, s)


def transmits(decision: KeeperDecision) -> bool:
    """Whether a keeper decision puts a message on the air (decision T1).

    ``transmit`` decides when present and is inferred from the message when absent;
    an empty or whitespace-only message (``str.strip``, decision L0) is silence
    whatever the flag says.
    """
    if not decision.message.strip():
        return False
    return decision.transmit if decision.transmit is not None else True


# Longer than the harness's 80-line bound on purpose: it mirrors steps 3-12 of a tick
# in the rules (docs/rules.md), one numbered block each, so it reads beside them.
def resolve_tick(
    state: GameState,
    keeper: KeeperDecision,
    runners: Mapping[int, RunnerDecision],
) -> tuple[GameState, TickEvents]:
    """Resolve steps 3-12 of tick ``state.tick`` and return the next state and events.

    ``runners`` maps each ACTIVE runner's seat to its decision, and only those:
    a decision for a resolved runner, or a missing one, is a :class:`RulesError`.
    """
    if state.over:
        raise RulesError(
            f"tick {state.tick}: the episode is over ({state.reason})", tick=state.tick
        )
    active = [r.seat for r in state.runners if r.active]
    if sorted(runners) != active:
        raise RulesError(
            f"tick {state.tick}: decisions for runner seats {sorted(runners)}, "
            f"but the active runners are {active}",
            tick=state.tick,
        )
    t = state.tick

    # 3. KEEPER TRANSMIT (delivered at tick t + 1).
    spoke = transmits(keeper)
    transmissions = state.transmissions
    if spoke:
        transmissions = (*transmissions, Transmission(t, keeper.message))
    keeper_notes = keeper.notes if keeper.notes is not None else state.keeper_notes

    # 4. RUNNER MOVES, in seat order; water as it stands at the start of the tick.
    moved: list[Runner] = []
    starts: dict[int, Pos] = {}
    bumps: dict[int, bool] = {}
    for runner in state.runners:
        if not runner.active:
            moved.append(runner)
            continue
        decision = runners[runner.seat]
        starts[runner.seat] = runner.pos
        target = _step(runner.pos, decision.move)
        bumped = decision.move is not Move.WAIT and (
            not state.board.is_floor(target) or state.is_flooded(target)
        )
        bumps[runner.seat] = bumped
        history = (*runner.moves, _MOVE_RECORDS[decision.move, bumped])[-MOVE_HISTORY:]
        # built whole rather than with replace(), which costs several times more and
        # runs for every runner every tick; every field is named
        moved.append(
            Runner(
                seat=runner.seat,
                alias=runner.alias,
                pos=runner.pos if bumped else target,
                status=runner.status,
                keys=runner.keys,
                moves=history,
                notes=decision.notes if decision.notes is not None else runner.notes,
            )
        )

    # 5. KEY PICKUP, in seat order.
    collected = list(state.collected)
    picked: dict[int, Pos] = {}
    for i, runner in enumerate(moved):
        if runner.active and runner.pos in state.board.keys and runner.pos not in collected:
            collected.append(runner.pos)
            picked[runner.seat] = runner.pos
            moved[i] = replace(runner, keys=(*runner.keys, runner.pos))

    # 6. GATE: opens for good once every key is collected.
    gate_opened_tick = state.gate_opened_tick
    gate_opened = gate_opened_tick is None and len(collected) == len(state.board.keys)
    if gate_opened:
        gate_opened_tick = t

    # 7. EXIT, in seat order.
    escaped: set[int] = set()
    for i, runner in enumerate(moved):
        if runner.active and runner.pos == state.board.exit and gate_opened_tick is not None:
            escaped.add(runner.seat)
            moved[i] = replace(runner, status=RunnerStatus.ESCAPED)

    # 8. CLOCK, then 9. TIDE from the new clock.
    clock = state.clock + 1 + int(spoke)
    water_line = state.tide.water_line(clock)

    # 10. DROWN: every still-active runner on a flooded tile.
    drowned: set[int] = set()
    for i, runner in enumerate(moved):
        if runner.active and runner.pos[1] >= water_line:
            drowned.add(runner.seat)
            moved[i] = replace(runner, status=RunnerStatus.DROWNED)

    # 11. TICK RECORD and 12. END CHECK, in the rules' order.
    tick = t + 1
    reason: Reason | None = None
    if all(not r.active for r in moved):
        reason = Reason.COMPLETE
    elif clock >= state.flood_clock:
        reason = Reason.COMPLETE
    elif tick >= state.config.max_ticks:
        reason = Reason.TIMEUP

    r1, r2, r3 = moved
    # built whole rather than with replace(), as the runners above: every field is named
    next_state = GameState(
        config=state.config,
        board=state.board,
        tick=tick,
        clock=clock,
        runners=(r1, r2, r3),
        collected=tuple(collected),
        gate_opened_tick=gate_opened_tick,
        transmissions=transmissions,
        keeper_notes=keeper_notes,
        reason=reason,
    )
    events = TickEvents(
        tick=t,
        transmission=keeper.message if spoke else None,
        runners=tuple(
            RunnerEvent(
                seat=r.seat,
                move=runners[r.seat].move,
                start=starts[r.seat],
                end=r.pos,
                bumped=bumps[r.seat],
                picked_key=picked.get(r.seat),
                escaped=r.seat in escaped,
                drowned=r.seat in drowned,
            )
            for r in moved
            if r.seat in starts
        ),
        gate_opened=gate_opened,
        clock_before=state.clock,
        clock_after=clock,
        water_line=water_line,
        reason=reason,
    )
    return next_state, events


def end_by_deadline(state: GameState) -> GameState:
    """End the episode with reason ``deadline`` at the last resolved tick (decision D2)."""
    if state.over:
        raise RulesError(
            f"tick {state.tick}: the episode is already over ({state.reason})", tick=state.tick
        )
    return replace(state, reason=Reason.DEADLINE)


def results(state: GameState) -> Results:
    """The results of a finished episode (rules, "Scoring").

    K = keys collected, E = runners escaped, B = clamp(1 - clock / floodClock, 0, 1)
    when all three escaped (else 0); teamScore = 6 K / keyCount + 10 E + 6 B.
    """
    if state.reason is None:
        raise RulesError(f"tick {state.tick}: the episode is not over yet", tick=state.tick)
    k = len(state.collected)
    e = sum(1 for r in state.runners if r.status is RunnerStatus.ESCAPED)
    flood_clock = state.flood_clock
    b = min(max(1 - state.clock / flood_clock, 0.0), 1.0) if e == len(state.runners) else 0.0
    key_count = len(state.board.keys)
    return Results(
        team_score=6 * (k / key_count) + 10 * e + 6 * b,
        keys_collected=k,
        escaped=e,
        time_bonus=b,
        clock=state.clock,
        flood_clock=flood_clock,
        key_count=key_count,
        ticks=state.tick,
        reason=state.reason,
    )


#: Every move record there can be: records are immutable, so each runner's history
#: shares them rather than making one per runner per tick.
_MOVE_RECORDS: dict[tuple[Move, bool], MoveRecord] = {
    (move, bumped): MoveRecord(move, bumped) for move in Move for bumped in (False, True)
}


def _step(pos: Pos, move: Move) -> Pos:
    dx, dy = move.delta
    return (pos[0] + dx, pos[1] + dy)


__all__ = [
    "Results",
    "RunnerEvent",
    "TickEvents",
    "end_by_deadline",
    "resolve_tick",
    "results",
    "transmits",
]
