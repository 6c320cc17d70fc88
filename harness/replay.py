"""Offline replay: re-execute an episode from its record and check every tick against it.

Replay does not redraw stored frames: it rebuilds the starting state from the
header's config and board, feeds the recorded decisions through the current engine
(via :class:`RecordedSeat`, through the same episode runner as a live game) and
compares each tick's state and the final results with the record. The same seats
serve three more uses:

- ``reparse``: re-parse every recorded model reply with the current parser and
  report each decision that would change;
- a hand-written record (header plus per-tick decisions) replays too, and can be
  written out as a complete record;
- a counterfactual replays the original up to a tick and continues live with other
  seats (:class:`SwitchAt`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, JsonValue, TypeAdapter, ValidationError

from harness.episode import EpisodeOutcome, run_episode
from harness.errors import PlayBudgetExhausted, RecordError, RulesError
from harness.json_reply import json_type
from harness.models import JsonObject
from harness.protocol import (
    AnyHeader,
    FailureKind,
    GameEntry,
    GameResults,
    ParseFailure,
    RecordCodec,
    RecordLine,
    SeatIO,
)
from harness.reader import HAND_WRITTEN, HAND_WRITTEN_VERSION, open_record
from harness.records import (
    AGENT_SOURCES,
    HUMAN_SOURCES,
    LENGTH_STOP_REASONS,
    MODEL_SOURCES,
    SOURCES,
    AgentInfo,
    CallRecord,
    DerivedFrom,
    EndLine,
    ModelReply,
    RecordWriter,
    SeatTurn,
    Source,
    TickLine,
    TurnWallClock,
    json_object,
    keys,
)
from harness.seats import BaselineSeat, Seat, SeatReply, SeatRequest, turn_source
from harness.text import MAX_REPLY_BYTES

# The keys of the lines replay reads as JSON, as their models name them.
_TICK = keys(TickLine)
_END = keys(EndLine)
_TURN = keys(SeatTurn)
_REPLY = keys(ModelReply)
_CALL_FAILURE = keys(CallRecord).failure
_CALL_STOP_REASON = keys(CallRecord).stop_reason
_LATENCY_MS = keys(TurnWallClock).latency_ms
_LATENCY = TypeAdapter(float)
#: Every source a turn may name, by itself.
_SOURCES: dict[str, Source] = {source: source for source in SOURCES}


@dataclass(frozen=True)
class LoadedRecord:
    """A record as replay reads it: its game, its header model, its raw tick and end lines."""

    path: Path
    game: GameEntry
    header: AnyHeader
    ticks: list[JsonObject]
    end: JsonObject | None

    @property
    def deadline_ended(self) -> bool:
        """Whether the recorded episode ended because its play budget ran out (D2)."""
        results = self.end.get(_END.results) if self.end is not None else None
        return isinstance(results, dict) and results.get(GameResults.REASON) == "deadline"

    @property
    def hand_written(self) -> bool:
        """A record written by hand: a header and decisions, no states and no end line."""
        return self.header.harness_version == HAND_WRITTEN_VERSION and not any(
            _TICK.state in tick for tick in self.ticks
        )

    @property
    def incomplete(self) -> bool:
        """A played record without its end line: cut short, so never clean."""
        return self.end is None and not self.hand_written


def load_record(path: Path, game: GameEntry | None = None) -> LoadedRecord:
    """Read a record for replay, full or hand-written (a header and per-tick decisions only).

    Read with :func:`~harness.reader.open_record`: a hand-written header needs
    ``config``, ``board`` and ``seats`` (seat, role, name), everything else is filled in
    (its game is ``game``'s, else Lighthouse). The tick lines are kept as JSON, checked
    for their shape only: replay compares them with the ticks it replays. Raises
    :class:`RecordError` naming the line (and, as data, the line and tick).
    """
    record = open_record(path, hand_written=True, default_game=game.name if game else "lighthouse")
    if game is not None and record.game.name != game.name:
        raise RecordError(f"{path}:1: a {record.game.name} record, not {game.name}", line=1)
    ticks: list[JsonObject] = []
    end = None
    for number, line in record.objects():
        kind = line.get(_TICK.type, "tick")
        number_of_tick = line.get(_TICK.tick)
        tick = number_of_tick if type(number_of_tick) is int else None
        where = f"{path}:{number}"
        if kind == "end":
            end = line
        elif kind == "tick":
            seats = line.get(_TICK.seats)
            if not isinstance(seats, dict) or tick is None:
                raise RecordError(
                    f"{where}: a tick line needs 'tick' (an integer) and 'seats'",
                    line=number,
                    tick=tick,
                )
            if not all(isinstance(turn, dict) for turn in seats.values()):
                raise RecordError(
                    f"{where}: each seat's turn must be a JSON object", line=number, tick=tick
                )
            if tick != len(ticks):
                raise RecordError(
                    f"{where}: expected tick {len(ticks)}, got {tick}", line=number, tick=tick
                )
            ticks.append(line)
        else:
            raise RecordError(f"{where}: unknown line type {kind!r}", line=number, tick=tick)
    return LoadedRecord(path, game or record.game, record.header, ticks, end)


@dataclass
class ReparseChange:
    """A recorded decision that the current parser would change."""

    tick: int
    seat: str
    recorded_source: str
    recorded_decision: JsonValue
    new_source: str
    new_decision: JsonObject | None
    note: str = ""


class RecordedSeat:
    """A seat that answers with what the record says it decided at each tick."""

    def __init__(
        self,
        seat: str,
        agent: AgentInfo,
        turns: Mapping[int, JsonObject],
        codec: RecordCodec,
        *,
        ends_by_deadline_at: int | None = None,
        reparse: list[ReparseChange] | None = None,
    ) -> None:
        self.seat = seat
        self._agent = agent
        self._turns = turns
        self._codec = codec
        self._deadline_at = ends_by_deadline_at
        self._reparse = reparse

    @property
    def agent(self) -> AgentInfo:
        return self._agent

    async def decide(self, request: SeatRequest) -> SeatReply:
        tick = request.tick
        turn = self._turns.get(tick)
        if turn is None:
            if self._deadline_at is not None and tick >= self._deadline_at:
                raise PlayBudgetExhausted(f"tick {tick}: the record ends by deadline")
            raise RecordError(f"tick {tick}: no decision recorded for {self.seat}", tick=tick)
        try:
            decision = self._codec.decision_from_json(turn.get(_TURN.decision))
        except (ValidationError, TypeError, ValueError) as exc:
            raise RecordError(f"tick {tick}: {self.seat}: bad decision: {exc}", tick=tick) from None
        try:
            raw, source, latency, replies, calls, error = _turn_parts(turn)
        except (ValidationError, TypeError, ValueError, AttributeError) as exc:
            raise RecordError(f"tick {tick}: {self.seat}: bad turn: {exc}", tick=tick) from None
        if self._reparse is not None:
            self._check_reparse(request, turn)
        return SeatReply(
            raw=raw,
            decision=decision,
            source=source,
            latency_s=latency,
            replies=replies,
            calls=calls,
            error=error,
        )

    def _check_reparse(self, request: SeatRequest, turn: JsonObject) -> None:
        replies = turn.get(_TURN.replies, [])
        if not isinstance(replies, list) or not replies:
            return  # a baseline, or a call that never answered: nothing to re-parse
        io, obs = request.io, request.observation
        parsed = [_reparse_one(io, obs, json_object(reply)) for reply in replies]
        problems = [p if isinstance(p, ParseFailure) else None for p in parsed]
        recorded_source = str(turn.get(_TURN.source, "scripted"))
        calls = turn.get(_TURN.calls, [])
        calls = calls if isinstance(calls, list) else []
        # A call without a reply ended the turn: its recorded failure is what happened.
        last = calls[-1] if len(calls) > len(replies) else None
        failure = last.get(_CALL_FAILURE) if isinstance(last, dict) else None
        # a Python agent's and a person's replies carry their own tags
        tags = {"python": AGENT_SOURCES, "human": HUMAN_SOURCES}.get(
            self._agent.kind, MODEL_SOURCES
        )
        if self._agent.kind == "human" and recorded_source == "fallback_timeout":
            failure = "timeout"  # a person's timer ran out: no call records it
        # the last answered call gave the last reply: its stop reason says if it was cut
        answered = [c for c in calls if isinstance(c, dict) and c.get(_CALL_FAILURE) is None]
        cut = bool(answered) and answered[-1].get(_CALL_STOP_REASON) in LENGTH_STOP_REASONS
        classified = turn_source(
            problems, failure if isinstance(failure, str) else None, tags, cut=cut
        )
        new_source: str = classified or "rejected"
        note = ""
        new_decision: object = None
        if classified in (tags.first, tags.retry):
            new_decision = parsed[0 if classified == tags.first else 1]
        elif classified is not None:
            new_decision = request.baseline()[1]
        else:
            problem = problems[0]
            why = problem.message if problem is not None else "no decision"
            note = f"the current parser rejects the reply ({why}); no retry reply was recorded"
        new_doc = _decision_doc(self._codec, new_decision)
        if new_source != recorded_source or new_doc != turn.get(_TURN.decision):
            assert self._reparse is not None
            self._reparse.append(
                ReparseChange(
                    request.tick, self.seat, recorded_source, turn.get(_TURN.decision, {}),
                    new_source, new_doc, note,
                )
            )  # fmt: skip


def _turn_parts(
    turn: JsonObject,
) -> tuple[str, Source, float, tuple[ModelReply, ...], tuple[CallRecord, ...], str | None]:
    """A recorded turn's raw text, source, latency, replies, calls and error, checked.

    Raises ValueError, TypeError or a validation error for a turn that was edited
    into something no harness writes.
    """
    raw = turn.get(_TURN.raw, json.dumps(turn.get(_TURN.decision)))
    if not isinstance(raw, str):
        raise TypeError(f"raw must be a string, not {json_type(raw)}")
    source = turn.get(_TURN.source, "scripted")
    if not isinstance(source, str) or source not in _SOURCES:
        raise ValueError(f"unknown source {source!r}")
    clock = turn.get(_TURN.wall_clock) or {}
    if not isinstance(clock, dict):
        raise TypeError(f"wallClock must be an object, not {json_type(clock)}")
    latency = _LATENCY.validate_python(clock.get(_LATENCY_MS, 0.0)) / 1000.0
    replies = tuple(ModelReply.model_validate(r) for r in _listed(turn.get(_TURN.replies, [])))
    calls = tuple(CallRecord.model_validate(c) for c in _listed(turn.get(_TURN.calls, [])))
    error = turn.get(_TURN.error)
    if error is not None and not isinstance(error, str):
        raise TypeError(f"error must be a string, not {json_type(error)}")
    return raw, _SOURCES[source], latency, replies, calls, error


def _listed(value: JsonValue) -> list[JsonValue]:
    if not isinstance(value, list):
        raise TypeError(f"expected a list, not {json_type(value)}")
    return value


def _reparse_one(io: SeatIO, observation: object, reply: JsonObject) -> object:
    length = reply.get(_REPLY.raw_length, 0)
    too_long = isinstance(length, int | float) and length > MAX_REPLY_BYTES
    if reply.get(_REPLY.raw_clipped) or too_long:
        return ParseFailure(FailureKind.TOO_LONG, "reply too long")
    raw = reply.get(_REPLY.raw, "")
    decision = io.parse_reply(observation, raw if isinstance(raw, str) else "")
    if isinstance(decision, ParseFailure):
        return decision
    return io.refuse(observation, decision) or decision


def _decision_doc(codec: RecordCodec, decision: object) -> JsonObject | None:
    if decision is None or isinstance(decision, ParseFailure):
        return None
    return codec.decision_dumped(decision)


class SwitchAt:
    """Plays ``before`` for ticks before ``tick`` and ``after`` from then on."""

    def __init__(self, tick: int, before: Seat, after: Seat) -> None:
        self.tick, self.before, self.after = tick, before, after

    @property
    def agent(self) -> AgentInfo:
        after = self.after.agent
        before = self.before.agent
        details = {**after.details, "fromTick": str(self.tick), "before": before.name}
        # the ticks before the switch were played with the first agent's prompts
        texts = {**before.prompt_texts, **after.prompt_texts}
        return AgentInfo(kind=after.kind, name=after.name, details=details, prompt_texts=texts)

    async def decide(self, request: SeatRequest) -> SeatReply:
        seat = self.before if request.tick < self.tick else self.after
        return await seat.decide(request)


def recorded_seats(
    record: LoadedRecord,
    *,
    reparse: list[ReparseChange] | None = None,
) -> dict[str, RecordedSeat]:
    """One :class:`RecordedSeat` per seat of the record's header.

    A record cut short is replayed as far as it goes: its seats run out of decisions
    as a deadline would end the episode, so its ticks are still checked.
    """
    stops = record.deadline_ended or record.incomplete
    deadline_at = len(record.ticks) if stops else None
    kept = record.header.prompts
    return {
        info.seat: RecordedSeat(
            info.seat,
            _with_prompts(info.agent, kept),
            {
                i: json_object(json_object(line[_TICK.seats])[info.seat])
                for i, line in enumerate(record.ticks)
                if info.seat in json_object(line[_TICK.seats])
            },
            record.game.codec,
            ends_by_deadline_at=deadline_at,
            reparse=reparse,
        )
        for info in record.header.seats
    }


def _with_prompts(agent: AgentInfo, kept: Mapping[str, str]) -> AgentInfo:
    """``agent`` with the texts of its prompts that the header keeps, so a replay's
    record (``--complete``) keeps them too."""
    texts = {sha: kept[sha] for sha in agent.details.values() if sha in kept}
    return agent.model_copy(update={"prompt_texts": texts}) if texts else agent


@dataclass(frozen=True)
class Mismatch:
    """The first place where the replay and the record disagree."""

    tick: int | None
    field: str
    recorded: JsonValue
    replayed: JsonValue

    def describe(self) -> str:
        """One line for the terminal."""
        where = "results" if self.tick is None else f"tick {self.tick}"
        return f"{where}: {self.field}: recorded {self.recorded!r}, replayed {self.replayed!r}"


@dataclass
class ReplayResult:
    """What a replay found."""

    record: LoadedRecord
    lines: tuple[RecordLine, ...] = ()
    mismatch: Mismatch | None = None
    reparse: list[ReparseChange] = field(default_factory=list)

    @property
    def incomplete(self) -> bool:
        """Whether the record has no end line (so its results could not be checked)."""
        return self.record.incomplete

    @property
    def clean(self) -> bool:
        """Whether every tick and the results matched (a record without its end line never is)."""
        return self.mismatch is None and not self.incomplete


def first_difference(
    recorded: JsonValue, replayed: JsonValue, path: str = ""
) -> tuple[str, JsonValue, JsonValue] | None:
    """The first (path, recorded, replayed) where two JSON values differ, or None."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        for key in list(recorded) + [k for k in replayed if k not in recorded]:
            sub = f"{path}.{key}" if path else key
            if key not in replayed or key not in recorded:
                return (sub, recorded.get(key), replayed.get(key))
            found = first_difference(recorded[key], replayed[key], sub)
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(replayed, list):
        for i, (a, b) in enumerate(zip(recorded, replayed, strict=False)):
            found = first_difference(a, b, f"{path}.{i}")
            if found:
                return found
        if len(recorded) != len(replayed):
            return (f"{path}.length", len(recorded), len(replayed))
        return None
    if (
        isinstance(recorded, int | float)
        and isinstance(replayed, int | float)
        and (isinstance(recorded, float) or isinstance(replayed, float))
    ):
        return None if abs(recorded - replayed) <= 1e-9 else (path, recorded, replayed)
    return None if recorded == replayed else (path, recorded, replayed)


def compare(record: LoadedRecord, lines: tuple[BaseModel, ...]) -> Mismatch | None:
    """The first disagreement between a record and the lines its replay produced."""
    t = _TICK
    produced: list[JsonObject] = [line.model_dump(mode="json", by_alias=True) for line in lines]
    ticks = [line for line in produced if line[t.type] == "tick"]
    for recorded, replayed in zip(record.ticks, ticks, strict=False):
        number = recorded[t.tick]
        tick = number if isinstance(number, int) else None
        asked, answered = json_object(recorded[t.seats]), json_object(replayed[t.seats])
        if set(asked) != set(answered):
            # a decision for a seat that was not asked (say, a runner already out)
            return Mismatch(tick, "seats", [*sorted(asked)], [*sorted(answered)])
        if t.state not in recorded:
            continue  # a hand-written tick: nothing to check
        found = first_difference(recorded[t.state], replayed[t.state], "state")
        if found:
            return Mismatch(tick, *found)
    if len(ticks) != len(record.ticks):
        return Mismatch(None, "ticks", len(record.ticks), len(ticks))
    if record.end is not None:
        found = first_difference(
            record.end.get(_END.results), produced[-1][_END.results], "results"
        )
        if found:
            return Mismatch(None, *found)
    return None


async def replay(
    path: Path,
    game: GameEntry | None = None,
    *,
    reparse: bool = False,
    writer: RecordWriter | None = None,
) -> ReplayResult:
    """Re-resolve the record at ``path`` with the current engine and compare (see module).

    The record's header names its game; ``game``, when given, must be that one.
    """
    record = load_record(path, game)
    game = record.game
    changes: list[ReparseChange] = []
    seats = recorded_seats(record, reparse=changes if reparse else None)
    result = ReplayResult(record, reparse=changes)
    try:
        outcome = await run_episode(
            game,
            game.codec.start_state(record.header),
            seats,
            episode_id=record.header.episode_id,
            seed=record.header.seed,
            variant=record.header.variant,
            writer=writer,
        )
    except (RecordError, RulesError) as exc:
        result.mismatch = Mismatch(exc.tick, "decisions", "a decision the rules accept", str(exc))
        return result
    result.lines = outcome.lines
    result.mismatch = compare(record, outcome.lines)
    return result


async def counterfactual(
    path: Path,
    game: GameEntry | None,
    until_tick: int,
    new_seats: Mapping[str, Seat],
    *,
    writer: RecordWriter | None = None,
    episode_id: str | None = None,
) -> tuple[LoadedRecord, EpisodeOutcome]:
    """Replay the record up to ``until_tick``, then play on live with ``new_seats``.

    Seats not in ``new_seats`` keep playing as recorded, which needs them to be
    baselines (the record cannot speak for a model past its last tick).
    """
    record = load_record(path, game)
    game = record.game
    if not 0 <= until_tick <= len(record.ticks):
        raise RecordError(f"--until-tick: {until_tick} is outside 0..{len(record.ticks)}")
    recorded = recorded_seats(record)
    seats: dict[str, Seat] = {}
    for info in record.header.seats:
        live = new_seats.get(info.seat)
        if live is None:
            if info.agent.kind != "baseline":
                raise RecordError(
                    f"{info.seat} was played by {info.agent.name}; say who plays it from "
                    f"tick {until_tick} (e.g. --keeper or --runners)"
                )
            live = BaselineSeat(info.agent.name)
        seats[info.seat] = SwitchAt(until_tick, recorded[info.seat], live)
    outcome = await run_episode(
        game,
        game.codec.start_state(record.header),
        seats,
        episode_id=episode_id or f"{record.header.episode_id}--from-t{until_tick}",
        seed=record.header.seed,
        variant=record.header.variant,
        writer=writer,
        derived_from=DerivedFrom(
            episode_id=record.header.episode_id, record=path.name, until_tick=until_tick
        ),
    )
    return record, outcome


__all__ = [
    "HAND_WRITTEN",
    "HAND_WRITTEN_VERSION",
    "LoadedRecord",
    "Mismatch",
    "RecordedSeat",
    "ReparseChange",
    "ReplayResult",
    "SwitchAt",
    "compare",
    "counterfactual",
    "first_difference",
    "load_record",
    "recorded_seats",
    "replay",
]
