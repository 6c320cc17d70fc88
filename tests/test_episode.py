"""The async episode runner and the episode record, with baseline seats."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import looptime
import pytest

from harness.episode import run_episode
from harness.errors import HarnessError, RecordError
from harness.games.lighthouse.board import generate_board
from harness.games.lighthouse.config import LighthouseConfig
from harness.games.lighthouse.record import record_schema
from harness.games.lighthouse.state import GameState, new_game
from harness.reader import open_record
from harness.records import AgentInfo, RecordWriter
from harness.registry import get_game
from harness.seats import BaselineSeat, Seat, SeatReply, SeatRequest, baseline_seats

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_FILE = ROOT / "docs" / "schemas" / "lighthouse-record.schema.json"
GOLDEN_RECORDS = sorted((ROOT / "tests" / "golden" / "records").glob("baseline-*.jsonl"))
GAME = get_game("lighthouse")


def start(seed: int, variant: str = "default", **overrides: Any) -> GameState:
    config = LighthouseConfig.for_variant(variant, **overrides)  # type: ignore[arg-type]
    return new_game(config, generate_board(config, seed))


def play(
    state: GameState,
    path: Path | None = None,
    seats: dict[str, Seat] | None = None,
    *,
    loop_factory: Callable[[], asyncio.AbstractEventLoop] | None = None,
    **kwargs: Any,
) -> Any:
    seats = seats or baseline_seats(GAME, state)
    writer = RecordWriter(path) if path else None
    try:
        with asyncio.Runner(loop_factory=loop_factory) as runner:
            return runner.run(
                run_episode(GAME, state, seats, episode_id="test", writer=writer, **kwargs)
            )
    finally:
        if writer:
            writer.close()


def without_wall_clock(value: Any) -> Any:
    """A record line with every wallClock field removed."""
    if isinstance(value, dict):
        return {k: without_wall_clock(v) for k, v in value.items() if k != "wallClock"}
    if isinstance(value, list):
        return [without_wall_clock(v) for v in value]
    return value


def stable_lines(path: Path) -> list[str]:
    return [
        json.dumps(without_wall_clock(json.loads(line)), ensure_ascii=False)
        for line in path.read_text(encoding="utf-8").splitlines()
    ]


def differing_paths(a: Any, b: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """The path of every leaf where two JSON values differ."""
    if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
        for key in a:
            yield from differing_paths(a[key], b[key], (*path, key))
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            yield from differing_paths(x, y, (*path, str(index)))
    elif a != b:
        yield path


# --- determinism -----------------------------------------------------------------------


@pytest.mark.parametrize(("seed", "variant"), [(5, "default"), (8, "spring")])
def test_same_seed_gives_identical_records(tmp_path: Path, seed: int, variant: str) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    play(start(seed, variant), a, seed=seed, variant=variant)
    play(start(seed, variant), b, seed=seed, variant=variant)
    assert stable_lines(a) == stable_lines(b)
    # the wall clock really is confined to its fields: they differ, nothing else does
    raw_a, raw_b = ([json.loads(line) for line in p.read_text().splitlines()] for p in (a, b))
    differences = list(differing_paths(raw_a, raw_b))
    assert differences  # playSeconds alone is kept to the microsecond
    assert all("wallClock" in path for path in differences), differences


def test_the_baseline_golden_records_are_all_there() -> None:
    # The tests below are made one per file: a lost file would drop its test silently.
    assert [record.name for record in GOLDEN_RECORDS] == [
        "baseline-default-seed12.jsonl",
        "baseline-default-seed7.jsonl",
        "baseline-spring-seed3.jsonl",
    ]


@pytest.mark.parametrize("record", GOLDEN_RECORDS, ids=lambda p: p.name)
def test_golden_records_are_reproduced(tmp_path: Path, record: Path) -> None:
    header = json.loads(record.read_text().splitlines()[0])
    seed, variant = header["seed"], header["variant"]
    fresh = tmp_path / "fresh.jsonl"
    play(start(seed, variant), fresh, seed=seed, variant=variant)
    expected = stable_lines(record)
    actual = stable_lines(fresh)
    # episode ids differ (the CLI names its episodes); everything else must match
    expected[0] = expected[0].replace(header["episodeId"], "test")
    assert actual == expected


# --- one concurrent batch per tick -----------------------------------------------------


class SlowSeat:
    """A baseline seat that takes its time, counting how many calls are in flight."""

    def __init__(self, tracker: dict[str, int], role: str, delay: float = 0.01) -> None:
        self.inner = BaselineSeat(GAME.baseline_names(role)[0])
        self.tracker = tracker
        self.delay = delay

    @property
    def agent(self) -> AgentInfo:
        return self.inner.agent

    async def decide(self, request: SeatRequest) -> SeatReply:
        self.tracker["now"] += 1
        self.tracker["peak"] = max(self.tracker["peak"], self.tracker["now"])
        key = f"tick{request.tick}"
        self.tracker[key] = max(self.tracker.get(key, 0), self.tracker["now"])
        try:
            await asyncio.sleep(self.delay)
            return await self.inner.decide(request)
        finally:
            self.tracker["now"] -= 1


def test_all_seats_of_a_tick_are_in_flight_at_once() -> None:
    state = start(7, max_ticks=6)
    tracker = {"now": 0, "peak": 0}
    seats: dict[str, Seat] = {s.seat: SlowSeat(tracker, s.role) for s in GAME.rules.seats(state)}
    outcome = play(state, seats=seats)
    assert tracker["peak"] == 4
    ticks = [line for line in outcome.lines if line.type == "tick"]
    for line in ticks:
        # every active seat of every tick was in flight together
        assert tracker[f"tick{line.tick}"] == len(line.seats)
    assert tracker["now"] == 0


def test_only_active_seats_are_asked() -> None:
    state = start(3, "spring")
    outcome = play(state)
    ticks = [line for line in outcome.lines if line.type == "tick"]
    assert set(ticks[0].seats) == {"keeper", "runner1", "runner2", "runner3"}
    for before, line in itertools.pairwise(ticks):
        active_after = {f"runner{r.seat}" for r in before.state.runners if r.status == "active"}
        assert set(line.seats) == {"keeper", *active_after}
    # the game is one where runners do drop out, so the check above narrowed the seats
    assert len(ticks[-1].seats) < 4


# --- the deadline (D2) -----------------------------------------------------------------


class HangAt:
    """A baseline seat that never answers from tick ``tick`` on."""

    def __init__(self, tick: int) -> None:
        self.inner = BaselineSeat("wallhug")
        self.tick = tick

    @property
    def agent(self) -> AgentInfo:
        return self.inner.agent

    async def decide(self, request: SeatRequest) -> SeatReply:
        if request.tick >= self.tick:
            await asyncio.Event().wait()
        return await self.inner.decide(request)


def test_budget_running_out_ends_with_deadline_and_leaves_the_tick_unresolved(
    tmp_path: Path,
) -> None:
    # The loop's clock is fast-forwarded (looptime): it stands still while any task
    # can run and jumps to the next timer when all of them wait. Ticks 0-2 take no
    # loop time however busy the machine is, and the hang at tick 3 lasts exactly
    # until the play budget runs out, at once in real time.
    state = start(7, episode_timeout_seconds=900)  # play budget 540 s
    seats = baseline_seats(GAME, state)
    seats["runner2"] = HangAt(3)
    path = tmp_path / "deadline.jsonl"
    outcome = play(state, path, seats=seats, loop_factory=looptime.new_event_loop)
    lines = open_record(path).lines()
    ticks = [line for line in lines if line.type == "tick"]
    assert [t.tick for t in ticks] == [0, 1, 2]  # tick 3 was never resolved
    end = lines[-1]
    assert end.type == "end"
    assert end.results.reason == "deadline"
    assert end.results.ticks == 3
    assert end.results.clock == ticks[-1].state.clock
    assert outcome.results.reason == "deadline"
    raw_end = json.loads(path.read_text().splitlines()[-1])
    assert raw_end["wallClock"]["playSeconds"] == 540.0  # the budget, to the microsecond


# --- errors -----------------------------------------------------------------------------


def test_a_missing_seat_is_refused() -> None:
    state = start(1)
    seats = baseline_seats(GAME, state)
    del seats["runner3"]
    with pytest.raises(HarnessError, match="no seat given for runner3"):
        play(state, seats=seats)


class Broken:
    agent = AgentInfo(kind="scripted", name="broken")

    async def decide(self, request: SeatRequest) -> SeatReply:
        raise RuntimeError("seat blew up")


def test_a_seat_error_propagates_and_cancels_the_batch() -> None:
    state = start(1)
    tracker = {"now": 0, "peak": 0}
    seats: dict[str, Seat] = {
        s.seat: SlowSeat(tracker, s.role, delay=5) for s in GAME.rules.seats(state)
    }
    seats["runner1"] = Broken()
    with pytest.raises(RuntimeError, match="seat blew up"):
        play(state, seats=seats)
    assert tracker["now"] == 0  # the slow seats were cancelled, not left running


# --- the record and its schema ---------------------------------------------------------


def test_published_schema_matches_the_models() -> None:
    published = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert published == record_schema(), (
        "docs/schemas/lighthouse-record.schema.json is stale: "
        "run `lighthouse schema > docs/schemas/lighthouse-record.schema.json`"
    )


def _validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


@pytest.mark.parametrize(("seed", "variant"), [(0, "default"), (4, "spring"), (9, "default")])
def test_baseline_records_validate_against_the_published_schema(
    tmp_path: Path, seed: int, variant: str
) -> None:
    path = tmp_path / "r.jsonl"
    play(start(seed, variant), path, seed=seed, variant=variant)
    validator = _validator()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for line in lines:
        validator.validate(line)
    assert [line["type"] for line in lines[:1] + lines[-1:]] == ["header", "end"]


@pytest.mark.parametrize("record", GOLDEN_RECORDS, ids=lambda p: p.name)
def test_golden_records_validate(record: Path) -> None:
    validator = _validator()
    for line in record.read_text().splitlines():
        validator.validate(json.loads(line))


def test_schema_rejects_a_broken_line() -> None:
    validator = _validator()
    bad = {"type": "tick", "tick": 0, "seats": {}, "state": {"clock": "late"}}
    assert list(validator.iter_errors(bad))


def test_header_holds_everything_a_replay_needs(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    state = start(7)
    play(state, path, seed=7, variant="default")
    header = json.loads(path.read_text().splitlines()[0])
    assert header["recordVersion"] == 1
    assert header["game"] == "lighthouse"
    assert header["board"]["rows"] == list(state.board.to_ascii())
    assert header["config"]["tidePeriod"] == 7
    assert [(s["seat"], s["name"], s["agent"]["name"]) for s in header["seats"]] == [
        ("keeper", None, "lantern"),
        ("runner1", "Sprocket", "wallhug"),
        ("runner2", "Gizmo", "wallhug"),
        ("runner3", "Ratchet", "wallhug"),
    ]
    # replaying from the header and the recorded decisions alone reproduces every tick
    lines = open_record(path).lines()
    replayed = GAME.codec.start_state(lines[0])
    for line in lines[1:-1]:
        decisions = {
            seat: GAME.codec.decision_from_json(turn.decision.model_dump())
            for seat, turn in line.seats.items()
        }
        replayed, snapshot = GAME.rules.resolve(replayed, decisions)
        assert snapshot == line.state
    assert GAME.rules.results(replayed) == lines[-1].results


def test_tick_lines_carry_raw_reply_decision_source_and_state(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    play(start(2), path)
    first_tick = json.loads(path.read_text().splitlines()[1])
    keeper = first_tick["seats"]["keeper"]
    assert json.loads(keeper["raw"]) == {
        "transmit": True,
        "message": keeper["decision"]["message"],
    }
    assert keeper["source"] == "baseline"
    assert keeper["rawLength"] == len(keeper["raw"].encode())
    state = first_tick["state"]
    assert state["transmission"] == keeper["decision"]["message"]
    assert state["clock"] == 2
    assert state["waterLine"] == 9
    assert len(state["runners"]) == 3
    assert len(state["grid"]) == 9


def test_a_broken_record_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    play(start(2), path)
    lines = path.read_text().splitlines()
    lines[2] = lines[2].replace('"clock": ', '"clock": "x', 1)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(RecordError, match=r"r\.jsonl:3: "):
        open_record(path).lines()
