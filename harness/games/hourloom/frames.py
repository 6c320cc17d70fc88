"""Hourloom's viewer frames, made here so that the page only draws them (``board.js``).

A frame is the state after a tick as the record holds it (H30's glyphs, where you and
each echo stand, each echo's next input, each gate open or shut for you, the
sandglass, the score), the tick's events in words (:mod:`.words`), and what a tick
state leaves out, which the rules' own replay of the record's actions adds: the ground
under every body (a spark an echo stands on), who holds each plate, the inputs each
echo has left, and the chamber's laps. Should the replay disagree with the record (a
record edited by hand, or written under other rules), the frames from that tick on
are drawn from the record alone, and say so in ``note``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import JsonValue

from harness.errors import HarnessError
from harness.games.hourloom.config import HourloomConfig
from harness.games.hourloom.game import PLAYER, Episode, HourloomRules, tick_state
from harness.games.hourloom.observe import (
    FLOOR,
    GATE_LETTERS,
    YOU_GLYPH,
    LapStatus,
    glyph_rows,
    lap_status,
    plate_holder,
)
from harness.games.hourloom.record import AutoEnd, HourloomTickState, InputName, SeedModel
from harness.games.hourloom.state import Chamber, Phase, State
from harness.games.hourloom.turn import bodies_of
from harness.games.hourloom.words import END_WORDS, at, tick_words
from harness.models import JsonObject, StrictModel, absent_if_none
from harness.protocol import Frame, FrameSeat, RecordLine, expect, header_of, ticks_of
from harness.protocol.view import frame_seat


class EchoView(StrictModel):
    """An echo in a frame: its tile (None once gone), its next input, its inputs left."""

    echo: int
    tile: int | None
    at: str | None
    next: InputName | None
    left: int | None


class GateView(StrictModel):
    """A gate in a frame: open or shut for you, and who stands on each of its plates."""

    gate: str
    open: bool
    by: list[str]


class GatePlace(StrictModel):
    """Where a gate and its plates lie."""

    gate: str
    at: str
    plates: list[str]


class LapPlace(StrictModel):
    """A lap's alcove and keystone, and its sand."""

    lap: int
    alcove: str
    keystone: str
    budget: int


class ChamberView(StrictModel):
    """What never changes in a chamber: where its gates and plates lie, and its laps."""

    gates: list[GatePlace]
    laps: list[LapPlace]


class HourloomFrame(Frame):
    """A position of the viewer (see the module); ``chambers`` only in the first frame,
    ``note`` only once the record departs from the rules' replay."""

    chamber: int
    multiplier_pct: int
    phase: Phase
    status: str
    lap: int
    laps: int
    turn: int
    sand: int
    lap_budget: int
    has_keystone: bool
    score: int
    grid: list[str]
    terrain: list[str]
    you: int
    you_at: str
    echoes: list[EchoView]
    gates: list[GateView]
    lap_status: list[LapStatus]
    events: list[str]
    auto_end: AutoEnd | None
    chambers: dict[str, ChamberView] | None = absent_if_none()
    note: str | None = absent_if_none()

    def text(self) -> str:
        """The frame as terminal text."""
        out = [f"== {self.label}   {status(self)}"]
        out += ["  " + row for row in self.grid]
        echoes = [
            f"{e.echo}: {e.at} next {e.next}" if e.at else f"{e.echo}: gone" for e in self.echoes
        ]
        if echoes:
            out.append("  echoes: " + "; ".join(echoes))
        if self.gates:
            gates = (f"{g.gate} {'open' if g.open else 'shut'}" for g in self.gates)
            out.append("  gates (for you): " + ", ".join(gates))
        out += ["  " + words for words in self.events]
        if self.note is not None:
            out.append("  note: " + self.note)
        for seat in self.seats:
            out.append(f"  [{seat.source}] player: {seat.raw}")
        return "\n".join(out)


def status(frame: HourloomFrame) -> str:
    """One line: where the run stands in ``frame``."""
    key = ", keystone held" if frame.has_keystone else ""
    return (
        f"chamber {frame.chamber} ({frame.multiplier_pct}%)  lap {frame.lap}/"
        f"{frame.laps}  turn {frame.turn}  sand {frame.sand}/{frame.lap_budget}"
        f"{key}  score {frame.score}  {frame.phase}"
    )


def _status(s: HourloomTickState) -> str:
    """Where the run stands, in words."""
    if s.phase == "sealed":
        return f"chamber {s.chamber} sealed: next DESCEND or END_RUN"
    if s.phase == "over":
        why = END_WORDS.get(s.end_reason or "", "over")
        if s.auto_end is not None:
            why = "ended by the harness's cap"
        return f"run over: {why}"
    key = "keystone held: now the exit" if s.has_keystone else "keystone not taken yet"
    return f"lap {s.lap} running, {key}"


def _terrain(s: HourloomTickState, rules: State | None) -> list[str]:
    """The ground of every tile, bodies left out; from the record's glyphs alone (a
    body's tile drawn as floor) when there is no replayed state."""
    if rules is not None:
        return list(glyph_rows(rules, bodies=False))
    bodies = {YOU_GLYPH, *"123456789"}
    return ["".join(FLOOR if g in bodies else g for g in row) for row in s.grid]


def _echoes(s: HourloomTickState, rules: State | None, width: int) -> list[EchoView]:
    out = []
    for k, (tile, nxt) in enumerate(zip(s.echoes, s.echo_next, strict=False), 1):
        left = None
        if tile is not None and rules is not None and k <= len(rules.logs):
            left = len(rules.logs[k - 1]) - rules.turn
        where = at(tile, width) if tile is not None else None
        out.append(EchoView(echo=k, tile=tile, at=where, next=nxt, left=left))
    return out


def _gates(s: HourloomTickState, rules: State | None) -> list[GateView]:
    """Each gate open or shut for you, and who stands on each of its plates (in the
    chamber's order, :func:`chamber_view`); no plates when there is no replayed state."""
    bodies = bodies_of(s.player, tuple(s.echoes))
    chamber = rules.chamber.gates if rules is not None else ()
    return [
        GateView(
            gate=GATE_LETTERS[i],
            open=is_open,
            by=[plate_holder(bodies, p) for p in chamber[i].plates] if i < len(chamber) else [],
        )
        for i, is_open in enumerate(s.gates_open[: len(GATE_LETTERS)])
    ]


def chamber_view(chamber: Chamber) -> ChamberView:
    """What never changes in a chamber: where its gates and plates lie, and its laps."""
    w = chamber.width
    return ChamberView(
        gates=[
            GatePlace(gate=GATE_LETTERS[i], at=at(g.tile, w), plates=[at(p, w) for p in g.plates])
            for i, g in enumerate(chamber.gates)
        ],
        laps=[
            LapPlace(lap=lap, alcove=at(a, w), keystone=at(k, w), budget=budget)
            for lap, (a, k, budget) in enumerate(
                zip(chamber.alcoves, chamber.keystones, chamber.lap_budgets, strict=True), 1
            )
        ],
    )


def frame_of(
    s: HourloomTickState,
    rules: State | None,
    label: str,
    tick: int | None,
    action: Mapping[str, JsonValue] | None = None,
    *,
    events: list[str] | None = None,
    seats: list[FrameSeat] | None = None,
    chambers: dict[str, ChamberView] | None = None,
    note: str | None = None,
) -> HourloomFrame:
    """A viewer frame of the tick state ``s``, completed by ``rules`` (the rules' state
    after the same tick) when there is one; ``events`` in words, unless given, are the
    tick's."""
    width = len(s.grid[0]) if s.grid else 0
    if events is None:
        events = tick_words(
            s.events,
            width,
            action=action,
            refused=None if s.ok else (s.reason or "unknown_action"),
            auto_end=s.auto_end,
        )
    return HourloomFrame(
        label=label,
        tick=tick,
        chamber=s.chamber,
        multiplier_pct=s.multiplier_pct,
        phase=s.phase,
        status=_status(s),
        lap=s.lap,
        laps=s.laps,
        turn=s.turn,
        sand=s.sand,
        lap_budget=s.lap_budget,
        has_keystone=s.has_keystone,
        score=s.score,
        grid=list(s.grid),
        terrain=_terrain(s, rules),
        you=s.player,
        you_at=at(s.player, width),
        echoes=_echoes(s, rules, width),
        gates=_gates(s, rules),
        lap_status=[] if rules is None else [lap_status(rules, n) for n in range(1, s.laps + 1)],
        events=events,
        auto_end=s.auto_end,
        seats=seats or [],
        chambers=chambers,
        note=note,
    )


def _follow(
    rules: HourloomRules,
    episode: Episode | None,
    action: JsonObject | None,
    recorded: HourloomTickState,
) -> Episode | None:
    """``episode`` after ``action``, or None when the rules' tick state is not the
    recorded one (or the rules cannot play the action at all)."""
    if episode is None or action is None:
        return None
    try:
        after, state = rules.resolve(episode, {PLAYER: action})
    except HarnessError:
        return None
    return after if state == recorded else None


def view_frames(lines: Sequence[RecordLine]) -> list[HourloomFrame]:
    """The start, then one frame per action (see the module)."""
    header = header_of(lines)
    rules = HourloomRules()
    config = expect(HourloomConfig, header.config)
    first = rules.new_state(config, expect(SeedModel, header.board).seed)
    # The chambers' fixed parts travel once, in the first frame, which the page draws
    # first; every frame names its chamber.
    chambers = {"1": chamber_view(first.rules.chamber)}
    frames = []
    episode: Episode | None = first
    departed: int | None = None
    for line in ticks_of(lines):
        turn = line.seats.get(PLAYER)
        action = turn.decision.model_dump() if turn is not None else None
        recorded = expect(HourloomTickState, line.state)
        episode = _follow(rules, episode, action, recorded)
        if episode is None and departed is None:
            departed = line.tick
        if episode is not None:
            number = episode.rules.chamber.number
            chambers.setdefault(str(number), chamber_view(episode.rules.chamber))
        note = None
        if departed is not None:
            note = (
                f"from tick {departed} on, the record departs from the rules' replay of its "
                "actions: drawn from the record alone (no plates, laps or ground under bodies)"
            )
        seats = [frame_seat(seat, t) for seat, t in line.seats.items()]
        frames.append(
            frame_of(
                recorded,
                episode.rules if episode is not None else None,
                f"tick {line.tick}",
                line.tick,
                action,
                seats=seats,
                note=note,
            )
        )
    start = tick_state(first, True, None, [], None)
    c = first.rules.chamber
    opening = (
        f"the run starts in chamber {c.number}: {c.width} x {c.height}, {c.laps} laps, "
        f"multiplier {c.multiplier_pct}%, {start.sand} grains for lap 1"
    )
    # made last: it carries every chamber the replay reached
    return [
        frame_of(start, first.rules, "start", None, events=[opening], chambers=chambers),
        *frames,
    ]


__all__ = [
    "ChamberView",
    "EchoView",
    "GateView",
    "HourloomFrame",
    "frame_of",
    "status",
    "view_frames",
]
