"""Episode records: one JSON object per line, the harness's single memory.

A record is a header line, one line per resolved tick and a closing line. The
envelope here is game-agnostic; a game fills in its own config, board, decision,
tick-state and results models (see ``harness.games.lighthouse.record``), and
publishes the JSON Schema of its lines under ``docs/schemas/``.

Everything that depends on the wall clock (start and finish times, latencies) lives
in fields named ``wallClock``, so two runs of the same episode give records that are
byte-identical once those fields are dropped.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import IO, Any, Generic, Literal, TypeVar, get_args

from pydantic import BaseModel, Field, JsonValue, TypeAdapter, ValidationError

from harness.errors import RecordError
from harness.json_reply import StrictJsonError, json_type, strict_loads
from harness.models import JsonObject, StrictModel, absent_if_empty, absent_if_none

#: Bumped whenever a field changes meaning or a required field is added.
RECORD_VERSION = 1

#: Where a decision came from (decision R7). Other games may add sources of this shape.
Source = Literal[
    "baseline",
    "llm",
    "llm_retry",
    "fallback_parse",
    "fallback_length",
    "fallback_timeout",
    "fallback_api",
    "fallback_refused",
    "scripted",
    "python",
    "python_retry",
    "fallback_error",
    "human",
    "human_retry",
]
"""Where a decision came from (decision R7). ``fallback_refused``: the rules refused the
model's action twice (games with refusals, e.g. Relayroam); ``fallback_length``: the
second reply did not parse either and was cut by the length limit (its call's
``stopReason`` one of :data:`LENGTH_STOP_REASONS`), counted apart from
``fallback_parse``, whose replies were whole; ``scripted``: given
directly, as in a hand-written record replayed; ``python`` and ``python_retry``: a
Python agent's reply (after the retry hint); ``fallback_error``: the agent raised;
``human`` and ``human_retry``: a person's reply, typed on a page (decision L4; a tick
their timer ran out on is ``fallback_timeout``).

Every source named ``fallback_*`` is the role's baseline answering for a seat whose
own answer could not be used, and every ``*_retry`` the seat's answer after the
retry with a hint: the sets below are derived from this one list by those names."""
AgentKind = Literal["baseline", "llm", "scripted", "python", "human"]
"""Who plays a seat; ``human``: a person, by the name they chose (decision L4)."""

#: The stop reasons (a call's ``stopReason``) that say the reply was cut by the length
#: limit: OpenAI's ``length``, Anthropic's ``max_tokens``, Inspect's ``model_length``
#: (the context window) as well as its ``max_tokens``.
LENGTH_STOP_REASONS: frozenset[str] = frozenset({"length", "max_tokens", "model_length"})

#: Every source, in the order of :data:`Source`.
SOURCES: tuple[Source, ...] = get_args(Source)
#: The sources of a turn where the role's baseline answered for the seat (R7).
FALLBACK_SOURCES: frozenset[Source] = frozenset(s for s in SOURCES if s.startswith("fallback_"))
#: The sources of a reply that needed the retry with a hint (a model's or a Python agent's).
RETRY_SOURCES: frozenset[Source] = frozenset(s for s in SOURCES if s.endswith("_retry"))
#: The sources of a decision the seat's own player made at the first ask: shown untagged.
PLAIN_SOURCES: frozenset[Source] = (
    frozenset(SOURCES) - FALLBACK_SOURCES - RETRY_SOURCES - {"scripted"}
)


@dataclass(frozen=True)
class TurnSources:
    """The sources a seat that answers in text tags its turns with (R5, R7).

    A reply used at the first ask is ``first``, after the retry with a hint ``retry``;
    an ask that got no answer in time is ``fallback_timeout``, one that failed
    otherwise ``failed``; two replies that could not be used are ``fallback_parse``
    (``fallback_refused`` when the rules refused the second).
    """

    first: Source
    retry: Source
    failed: Source


#: A model's turns: ``llm``, ``llm_retry``; a call that failed is ``fallback_api``.
MODEL_SOURCES = TurnSources("llm", "llm_retry", "fallback_api")
#: A Python agent's turns: ``python``, ``python_retry``; a call that raised is
#: ``fallback_error``.
AGENT_SOURCES = TurnSources("python", "python_retry", "fallback_error")
#: A person's turns (decision L4): ``human``, ``human_retry``; a tick their per-tick
#: timer ran out on is ``fallback_timeout`` (a person's turn has no other failure).
HUMAN_SOURCES = TurnSources("human", "human_retry", "fallback_timeout")

# Covariant: a line is immutable, so a game's line (its header with its config, ...) is
# a line of the envelope's base models too (harness.protocol.RecordLine).
ConfigT = TypeVar("ConfigT", bound=BaseModel, covariant=True)
BoardT = TypeVar("BoardT", bound=BaseModel, covariant=True)
DecisionT = TypeVar("DecisionT", covariant=True)
StateT = TypeVar("StateT", bound=BaseModel, covariant=True)
ResultsT = TypeVar("ResultsT", bound=BaseModel, covariant=True)


class RecordModel(StrictModel):
    """Base of every record model: the harness's one strict base, under its record name."""


class AgentInfo(RecordModel):
    """Who plays a seat: a baseline by name, an LLM with its provider and model, a
    Python agent by import path, or a person by the name they chose (``human``)."""

    kind: AgentKind
    name: str = Field(
        description="e.g. 'lantern', 'wallhug', 'openai:gpt-4o-mini', 'my_agents:keeper' "
        "or, for a person, the name they chose"
    )
    details: dict[str, str] = Field(
        default_factory=dict, description="Agent settings worth keeping, e.g. prompt sha256."
    )
    prompt_texts: dict[str, str] = Field(
        default_factory=dict,
        exclude=True,
        description="The text of each prompt file the agent reads, by its sha256. Not written "
        "with the agent: the header keeps each text once, in ``prompts``.",
    )


#: What a seat's label adds to a person's name, so that a human entrant never reads as
#: a bot or a model in a report (decision L4).
HUMAN_MARK = " (human)"


def agent_label(kind: str, name: str) -> str:
    """A seat's agent as reports and tables show it: its name, and for a person
    ``Ada (human)``."""
    return f"{name}{HUMAN_MARK}" if kind == "human" else name


class SeatInfo(RecordModel):
    """One seat of the episode."""

    seat: str = Field(description="The seat's id, e.g. 'keeper' or 'runner1'.")
    role: str = Field(description="The seat's role, which picks its prompts and baseline.")
    name: str | None = Field(None, description="The seat's in-game name (a runner's alias).")
    agent: AgentInfo


class HeaderWallClock(RecordModel):
    """Wall-clock facts of the header (never compared by determinism checks)."""

    started_at: str = Field(description="UTC start time, ISO 8601.")


class DerivedFrom(RecordModel):
    """The original of a counterfactual episode: its decisions were replayed up to a tick."""

    episode_id: str
    record: str = Field(description="The original record's file name.")
    until_tick: int = Field(description="Ticks before this one replay the original.")


class HeaderLine(RecordModel, Generic[ConfigT, BoardT]):
    """The first line: everything needed to replay the episode without regenerating."""

    type: Literal["header"] = "header"
    record_version: int = RECORD_VERSION
    harness_version: str
    game: str
    episode_id: str
    seed: int | None = None
    variant: str | None = None
    config: ConfigT
    board: BoardT
    seats: list[SeatInfo]
    prompts: dict[str, str] = absent_if_empty(
        default_factory=dict,
        description="The text of every prompt file a seat read, by its sha256 (the hashes "
        "the seats' agent details name), each once. With the states, it makes every "
        "prompt again (docs/records.md). Absent without model or agent seats, and on "
        "records written before it existed.",
    )
    derived_from: DerivedFrom | None = Field(
        None, description="Set on a counterfactual: the record it continues."
    )
    wall_clock: HeaderWallClock | None = None


class TurnWallClock(RecordModel):
    """Wall-clock facts of one seat's turn."""

    latency_ms: float


class ParseErrorRecord(RecordModel):
    """Why a model's reply did not parse."""

    kind: str
    message: str


class ModelReply(RecordModel):
    """One reply a model gave this tick (the first, and the retry if there was one)."""

    raw: str = Field(description="The reply text, whole up to 1 MiB (decision R8).")
    raw_length: int = Field(description="Length of the full reply in UTF-8 bytes.")
    raw_sha256: str = Field(description="sha256 of the full reply's UTF-8 bytes.")
    raw_clipped: bool = Field(False, description="True when raw was cut at 1 MiB.")
    parse_error: ParseErrorRecord | None = Field(None, description="Null when the reply parsed.")
    reasoning: str | None = absent_if_none(
        description="The model's reasoning beside this reply, as its API gave it (an "
        "OpenAI-compatible server's reasoning_content, Anthropic's thinking blocks, or "
        "their summary), redacted and cut at 1 MiB of UTF-8 as raw is; absent when it "
        "gave none, and on older records.",
    )
    reasoning_clipped: bool = absent_if_empty(
        False,
        description="True when reasoning was cut at 1 MiB (absent when false).",
    )


class CallWallClock(RecordModel):
    """Wall-clock facts of one call: all of it, and its two parts (null on older records).

    ``latencyMs`` runs from the call's start to its end, retries and backoff included;
    ``waitMs`` is the part spent waiting for the harness's own limiter (rate limit,
    in-flight cap); ``requestMs`` the part spent in HTTP requests, which includes any
    queue inside the server.
    """

    latency_ms: float
    wait_ms: float | None = absent_if_none()
    request_ms: float | None = absent_if_none()
    server_ms: float | None = absent_if_none(
        description="The server's own time for the answered request, where it reports "
        "one (llama.cpp's timings, OpenAI's openai-processing-ms); absent otherwise.",
    )
    overlapped: bool | None = absent_if_none(
        description="Whether another request to the same server (endpoint) was in flight "
        "during the answered request, from any seat or episode; absent without an "
        "answer, and on older records.",
    )


class CallRecord(RecordModel):
    """Accounting for one logical LLM call, its transport retries included."""

    provider: str
    model: str
    attempts: int
    errors: list[str] = Field(description="The error kind of every failed attempt.")
    failure: str | None = Field(None, description="Why the call gave up, or null.")
    input_tokens: int | None = Field(
        description="Input tokens as the server counted them, those read from or written "
        "to its prompt cache included (for Anthropic: its inputTokens and its two cache "
        "counts together); null when it gave no usable "
        "count (none, or not a count: negative, not a number, past a billion), and then "
        "the call's cost is priced at the bound of its input (docs/llm.md)."
    )
    output_tokens: int | None = Field(
        description="Output tokens as the server counted them; null when unknown, as for "
        "inputTokens (priced at the request's maxTokens)."
    )
    reasoning_tokens: int | None = Field(
        None,
        description="Of outputTokens, the model's reasoning, as the server counted them; "
        "null when it reports none (every model that does not reason).",
    )
    cached_input_tokens: int | None = absent_if_none(
        description="Of inputTokens, those read from the provider's prompt cache; absent "
        "when the server reported none (or no usable count), and on older records.",
    )
    cache_write_tokens: int | None = absent_if_none(
        description="Of inputTokens, those written to the provider's prompt cache "
        "(Anthropic); absent when none were reported, as for cachedInputTokens.",
    )
    cache_write_1h_tokens: int | None = absent_if_none(
        alias="cacheWrite1hTokens",
        description="Of cacheWriteTokens, those kept for an hour (the rest for five "
        "minutes); absent when the server did not say.",
    )
    stop_reason: str | None = absent_if_none(
        description="Why the model stopped, in its API's words (finish_reason: stop, "
        "length, ...; stop_reason: end_turn, max_tokens, tool_use, ...), cut to 40 "
        "characters; absent when the call failed, the provider did not say, or on "
        "older records.",
    )
    service_tier: str | None = absent_if_none(
        description="The OpenAI service tier that served the call (default, flex, "
        "priority, ...), as the answer said, cut to 40 characters; absent when it said "
        "none, and on older records.",
    )
    cost_usd: float | None = Field(
        None,
        description="The call's price from the provider's prices (null without one); an "
        "upper bound when a token count is null.",
    )
    cached: bool = absent_if_empty(
        False,
        description="True when the answer came from the call cache: no request was made "
        "(absent when false).",
    )
    message: str | None = absent_if_none(
        description="The server's message for the last failed attempt, redacted and cut "
        "to 1000 characters (absent when no attempt failed).",
    )
    prompt_sha256: str | None = absent_if_none(
        description="sha256 of the messages sent, as UTF-8 JSON [[role, content], ...] "
        "(compact, lone surrogates as U+FFFD); absent on records written before it existed.",
    )
    endpoint: str | None = absent_if_none(
        description="For a provider with several base URLs: the endpoint that answered "
        "(its URL without credentials); absent otherwise, and when none answered.",
    )
    endpoint_errors: dict[str, int] = absent_if_empty(
        default_factory=dict,
        description="For a provider with several base URLs: the failed attempts per "
        "endpoint (absent when none failed at an endpoint).",
    )
    wall_clock: CallWallClock | None = None


class SeatTurn(RecordModel, Generic[DecisionT]):
    """One seat's turn in one tick: the text the decision came from, the decision, its source.

    For an LLM seat ``replies`` holds every model reply of the tick and ``calls`` the
    accounting of every call (a Python agent's replies are kept the same way); on a
    fallback, ``raw`` is the baseline's reply.
    """

    raw: str = Field(description="The text the decision was parsed from, whole up to 1 MiB.")
    raw_length: int = Field(description="Length of the full text in UTF-8 bytes.")
    raw_sha256: str = Field(description="sha256 of the full text's UTF-8 bytes.")
    raw_clipped: bool = Field(False, description="True when raw was cut at 1 MiB.")
    decision: DecisionT
    source: Source
    replies: list[ModelReply] = Field(default_factory=list)
    calls: list[CallRecord] = Field(default_factory=list)
    error: str | None = absent_if_none(
        description="Why a Python agent's call failed (fallback_error, fallback_timeout): "
        "the exception's type and message. Absent otherwise.",
    )
    wall_clock: TurnWallClock | None = None


class TickWallClock(RecordModel):
    """Wall-clock facts of one tick: how long its batch of seat turns took.

    ``concurrency`` is ``callMs / tickMs``: the mean number of model requests in
    flight during the tick (requests answered from the cache left out). A batch of n
    equal requests that a server runs at once gives n; one that it answers one at a
    time gives (n + 1) / 2 (see docs/llm.md). ``firstCalls``, ``firstCallMs`` and
    ``firstSpanMs`` measure the same of the seats' first calls alone, the requests
    sent together: what a report judges a server by (harness/timing.py).
    """

    tick_ms: float = Field(description="From asking the seats to the last answer.")
    call_ms: float = Field(description="The sum of the tick's model requests' requestMs.")
    calls: int = Field(description="Model requests made (cached answers left out).")
    concurrency: float | None = Field(description="callMs / tickMs; null without requests.")
    first_calls: int | None = absent_if_none(
        description="Seats whose first model call of the tick was a request: the requests "
        "that could overlap (a seat's retry waits for its first call). Absent without "
        "requests, and on records written before it existed.",
    )
    first_call_ms: float | None = absent_if_none(
        description="The sum of those first calls' requestMs (absent as firstCalls).",
    )
    first_span_ms: float | None = absent_if_none(
        description="The longest of those first calls' latencyMs: from asking the seats "
        "to the last of them answered (absent as firstCalls).",
    )


class TickLine(RecordModel, Generic[DecisionT, StateT]):
    """One resolved tick: each active seat's turn, then the state after the tick."""

    type: Literal["tick"] = "tick"
    tick: int
    seats: dict[str, SeatTurn[DecisionT]]
    state: StateT
    wall_clock: TickWallClock | None = absent_if_none()


class EndWallClock(RecordModel):
    """Wall-clock facts of the closing line."""

    finished_at: str
    play_seconds: float


class EndLine(RecordModel, Generic[ResultsT]):
    """The closing line: the episode's results."""

    type: Literal["end"] = "end"
    results: ResultsT
    wall_clock: EndWallClock | None = None


class Keys:
    """The keys a record model's dump uses, by field name: ``keys(SeatTurn).raw_length``
    is ``"rawLength"``; an unknown field is an AttributeError naming the model.

    Lines are written from JSON objects built without their models (the runner's fast
    path, :func:`dump_doc`) and read as such objects (results lines, a game's
    figures); both name every key through these, so that each key is spelt once, by
    its model.
    """

    def __init__(self, model: type[BaseModel]) -> None:
        for name, info in model.model_fields.items():
            setattr(self, name, info.serialization_alias or info.alias or name)
        self._model = model.__name__

    def __getattr__(self, name: str) -> str:
        # only reached for a name that is no field of the model
        raise AttributeError(f"{self._model} has no field {name!r}")


@cache
def keys(model: type[BaseModel]) -> Keys:
    """The :class:`Keys` of ``model`` (made once per model)."""
    return Keys(model)


def json_object(value: JsonValue) -> JsonObject:
    """``value``, a part of a dumped record line that its models make a JSON object
    (:class:`RecordError` if it is not: a line no record model wrote)."""
    if not isinstance(value, dict):
        raise RecordError(f"expected a JSON object, got {json_type(value)}")
    return value


def json_list(value: JsonValue) -> list[JsonValue]:
    """``value``, a part of a dumped record line that its models make a JSON array."""
    if not isinstance(value, list):
        raise RecordError(f"expected a JSON array, got {json_type(value)}")
    return value


def json_objects(value: JsonValue) -> list[JsonObject]:
    """``value``, a part of a dumped record line that its models make an array of objects."""
    return [json_object(item) for item in json_list(value)]


def json_number(value: JsonValue) -> float:
    """``value``, a part of a dumped record line that its models make a number."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise RecordError(f"expected a number, got {json_type(value)}")
    return float(value)


def json_int(value: JsonValue) -> int:
    """``value``, a part of a dumped record line that its models make a whole number."""
    if type(value) is not int:
        raise RecordError(f"expected a whole number, got {json_type(value)}")
    return value


def json_text(value: JsonValue) -> str:
    """``value``, a part of a dumped record line that its models make a string."""
    if not isinstance(value, str):
        raise RecordError(f"expected a string, got {json_type(value)}")
    return value


def dump_line(model: BaseModel) -> str:
    """One record line: compact JSON in camelCase, keys in model order, no NaN."""
    return dump_doc(model.model_dump(mode="json", by_alias=True))


#: What :func:`json.dumps` with these arguments would build anew for every line. No
#: circular check: a line is a tree of JSON values the harness made (a cycle cannot be
#: built from JSON), and the check costs a dict entry per object of every line.
_LINE_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, check_circular=False)


def dump_doc(doc: Any) -> str:
    """One record line from its JSON object, already in the form :func:`dump_line` gives
    its model (camelCase keys in model order): the same bytes, without the model."""
    return _LINE_ENCODER.encode(doc)


class RecordWriter:
    """Appends record lines to a file, keeping the sha256 of the bytes written.

    With ``flush_lines`` (the default) each line is flushed as it is written, so a
    reader following the file (a live viewer) sees whole lines; without it the lines
    reach the file as the buffer fills, and whole at :meth:`close`, for a record no one
    reads before it is finished (a tournament's partial record).
    """

    def __init__(self, path: Path, *, flush_lines: bool = True) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[bytes] = path.open("wb")
        self._flush_lines = flush_lines
        # hashed as written: a tournament's results line names its record's sha256
        # without reading the record back
        self._sha256 = hashlib.sha256()

    def write(self, model: BaseModel) -> None:
        """Write one line (flushed with ``flush_lines``)."""
        self.write_doc(model.model_dump(mode="json", by_alias=True))

    def write_doc(self, doc: Any) -> None:
        """Write one line given as its JSON object in dump form (see :func:`dump_doc`)."""
        data = (dump_doc(doc) + "\n").encode("utf-8")
        self._sha256.update(data)
        self._file.write(data)
        if self._flush_lines:
            self._file.flush()

    @property
    def sha256(self) -> str:
        """The sha256 (hex) of every byte written so far: the record's, once closed."""
        return self._sha256.hexdigest()

    def close(self, *, sync: bool = True) -> None:
        """Close the file, fsyncing it first unless ``sync`` is False."""
        if self._file.closed:
            return
        try:
            self._file.flush()
            if sync:
                os.fsync(self._file.fileno())
        finally:
            # closed even when the flush failed (a full disk): the error is raised
            # here, not again by the garbage collector
            with contextlib.suppress(OSError):
                self._file.close()

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def validate_line(adapter: TypeAdapter[Any], data: bytes, where: str, number: int) -> Any:
    """One record line (raw bytes) parsed with a game's line adapter.

    Raises :class:`RecordError` (its ``line`` set to ``number``) starting with ``where``
    (``path:line``) for a line that is not UTF-8, not JSON (cut short, say) or does not
    match the game's record models.
    """
    try:
        # pydantic's JSON parser is linear, and refuses nesting past 200 levels and
        # numbers out of range with a validation error like any other.
        return adapter.validate_json(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        if first["type"] == "json_invalid":
            raise RecordError(_invalid_json(where, first["msg"]), line=number) from None
        place = ".".join(str(p) for p in first["loc"])
        raise RecordError(f"{where}: {place}: {first['msg']}", line=number) from None


def decode_line(line: bytes | str, where: str, number: int | None = None) -> Any:
    """One record line decoded as strict JSON (:func:`~harness.json_reply.strict_loads`).

    ``where`` (``path:line``) starts the message of the :class:`RecordError` raised for
    a line that is not UTF-8 or not strict JSON, too deep or cut short; ``number`` is
    the error's ``line``.
    """
    try:
        text = line.decode("utf-8") if isinstance(line, bytes) else line
    except UnicodeDecodeError as exc:
        raise RecordError(
            f"{where}: not UTF-8 (byte {exc.start + 1} of the line)", line=number
        ) from None
    try:
        # Record lines are the harness's own, read offline or on resume: no cap on
        # their size (a tick line holds every seat's turn), only on their depth.
        return strict_loads(text, max_tokens=None)
    except StrictJsonError as exc:
        cut = _CUT if exc.at_end else ""
        raise RecordError(f"{where}: not a JSON line: {exc.reason}{cut}", line=number) from None


def _invalid_json(where: str, message: str) -> str:
    # pydantic says "Invalid JSON: <why> at line 1 column N": the line is the record's
    # line, named by ``where``; the column within a long line helps nobody.
    reason = message.removeprefix("Invalid JSON: ").split(" at line ", 1)[0]
    cut = _CUT if reason.startswith("EOF") else ""
    return f"{where}: not a JSON line: {reason}{cut}"


_CUT = "; the line stops inside a value (cut short?)"


__all__ = [
    "AGENT_SOURCES",
    "FALLBACK_SOURCES",
    "HUMAN_MARK",
    "HUMAN_SOURCES",
    "LENGTH_STOP_REASONS",
    "MODEL_SOURCES",
    "PLAIN_SOURCES",
    "RECORD_VERSION",
    "RETRY_SOURCES",
    "SOURCES",
    "AgentInfo",
    "AgentKind",
    "CallRecord",
    "CallWallClock",
    "DerivedFrom",
    "EndLine",
    "EndWallClock",
    "HeaderLine",
    "HeaderWallClock",
    "Keys",
    "ModelReply",
    "ParseErrorRecord",
    "RecordModel",
    "RecordWriter",
    "SeatInfo",
    "SeatTurn",
    "Source",
    "TickLine",
    "TickWallClock",
    "TurnSources",
    "TurnWallClock",
    "agent_label",
    "decode_line",
    "dump_doc",
    "dump_line",
    "json_int",
    "json_list",
    "json_number",
    "json_object",
    "json_objects",
    "json_text",
    "keys",
    "validate_line",
]
