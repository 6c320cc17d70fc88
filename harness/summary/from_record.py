"""The results line of one finished episode, derived from its record's lines."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from harness.llm.examples import PromptExamples
from harness.models import JsonObject
from harness.protocol import GameResults, Report
from harness.records import (
    FALLBACK_SOURCES,
    RETRY_SOURCES,
    AgentInfo,
    EndLine,
    HeaderLine,
    SeatInfo,
    SeatTurn,
    TickLine,
    agent_label,
    json_int,
    json_list,
    json_number,
    json_object,
    json_objects,
    json_text,
    keys,
)
from harness.summary.faithfulness import FaithTally
from harness.summary.ids import record_identity
from harness.summary.line import EpisodeSummary
from harness.summary.tally import BatchTally, SeatTally

_HEADER = keys(HeaderLine)
_SEAT = keys(SeatInfo)
_AGENT = keys(AgentInfo)
_TICK = keys(TickLine)
_TURN = keys(SeatTurn)
_END = keys(EndLine[GameResults])
_RESULTS = keys(GameResults)


#: The agent details that name a seat's system and observation templates (the ones
#: whose example replies a copy repeats; harness.llm.prompts.PromptSet.hashes).
_TEMPLATE_DETAILS = ("systemPromptSha256", "observationPromptSha256")


def _examples(agent: JsonObject, prompts: object) -> PromptExamples | None:
    """The example replies of a seat's prompts, from its header; None when the header
    keeps no text of them (an older record, or a seat without prompts)."""
    details = agent.get(_AGENT.details)
    if not isinstance(details, dict) or not isinstance(prompts, dict):
        return None
    texts = [prompts.get(details.get(key)) for key in _TEMPLATE_DETAILS]
    if not all(isinstance(t, str) for t in texts):
        return None
    return PromptExamples.of(t for t in texts if isinstance(t, str))


def summarize(
    report: Report, docs: Sequence[JsonObject], *, entrant: str, repetition: int
) -> EpisodeSummary:
    """The results line of a finished episode from its record's lines as JSON objects.

    ``docs`` are the lines in the form the record models dump them (camelCase keys,
    every field the models write): what a runner writes (pinned to the models in
    tests/test_record_lines.py), or a record read back, validated, and dumped again
    (:func:`summarize_read`). Plain objects, not models: this runs
    for every episode of a tournament, and validating every line would cost more than
    the summary. ``report`` is the game's report part, which gives the ``metrics``.
    """
    header, end = docs[0], docs[-1]
    infos = json_objects(header[_HEADER.seats])
    agents = [json_object(info[_SEAT.agent]) for info in infos]
    prompts = header.get(_HEADER.prompts)
    tallies = {
        json_text(info[_SEAT.seat]): SeatTally(
            json_text(info[_SEAT.role]),
            agent_label(json_text(agent[_AGENT.kind]), json_text(agent[_AGENT.name])),
            faith=FaithTally(examples=_examples(agent, prompts)),
            server=_server(agent),
        )
        for info, agent in zip(infos, agents, strict=True)
    }
    fallbacks = 0
    batches = BatchTally()
    clock_key, seats_key = _TICK.wall_clock, _TICK.seats
    source_key, calls_key = _TURN.source, _TURN.calls
    raw_key, sha_key = _TURN.raw, _TURN.raw_sha256
    for line in docs[1:-1]:
        clock = line.get(clock_key)
        if clock is not None:
            batches.add(json_object(clock))
        for seat_id, turn in json_object(line[seats_key]).items():
            turn = json_object(turn)
            tally = tallies[seat_id]
            tally.turns += 1
            source = json_text(turn[source_key])
            if source in RETRY_SOURCES:
                tally.retries += 1
            if source in FALLBACK_SOURCES:
                fallbacks += 1
                tally.fallbacks[source] = tally.fallbacks.get(source, 0) + 1
            elif tally.faith is not None and turn[calls_key]:
                tally.faith.count_own(json_text(turn[raw_key]), json_text(turn[sha_key]))
            made_calls = turn[calls_key]
            if made_calls:
                for call in json_objects(made_calls):
                    tally.count_call(call)
    results = json_object(end[_END.results])
    scores = [json_number(score) for score in json_list(results[_RESULTS.scores])]
    seed, variant = header[_HEADER.seed], header[_HEADER.variant]
    return EpisodeSummary(
        episode_id=json_text(header[_HEADER.episode_id]),
        entrant=entrant,
        seed=json_int(seed),
        variant=json_text(variant),
        repetition=repetition,
        score=scores[0],
        scores=scores,
        reason=str(results[GameResults.REASON]),
        metrics=report.episode_metrics(docs),
        seats={seat_id: tally.stats() for seat_id, tally in tallies.items()},
        fallback_free=fallbacks == 0,
        identity=record_identity([_details(agent) for agent in agents]),
        batch=batches.stats(),
    )


#: The keys of a model seat's agent details that name its server (harness/llm/seat.py).
SERVER_DETAILS = ("baseUrl", "provider")


def _server(agent: JsonObject) -> str:
    """The server a seat's calls go to, as its details name it: its base URL, else its
    provider (a model seat's details name both; other seats make no calls)."""
    details = agent.get(_AGENT.details)
    if not isinstance(details, dict):
        return ""
    named = next((details[k] for k in SERVER_DETAILS if details.get(k)), "")
    return named if isinstance(named, str) else ""


def _details(agent: JsonObject) -> dict[str, str]:
    return {key: json_text(v) for key, v in json_object(agent[_AGENT.details]).items()}


def summarize_read(
    report: Report, lines: Sequence[BaseModel], *, entrant: str, repetition: int
) -> EpisodeSummary:
    """:func:`summarize` of a record read back: its lines as the record models validated
    them, dumped again into the form :func:`summarize` reads (whatever spelling the
    file used)."""
    docs: list[JsonObject] = [line.model_dump(mode="json", by_alias=True) for line in lines]
    return summarize(report, docs, entrant=entrant, repetition=repetition)
