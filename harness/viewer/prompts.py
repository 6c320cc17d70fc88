"""What each model seat was sent, made again from its record.

A record keeps each prompt file's text once (the header's ``prompts``, by sha256) and
the sha256 of every call's messages (``promptSha256``), not the messages themselves:
the rest of a prompt is the seat's observation, which the game's rules make again from
the record. Starting from the header's board, each tick's seats are observed and their
recorded decisions resolved, as the episode runner did (synchronously here, without
seats), and each observation is filled into the seat's templates by the same functions
the LLM seat sends (:func:`~harness.llm.prompts.first_messages`,
:func:`~harness.llm.prompts.retry_messages`). Each call's hash then says which of the
possible requests was sent (with or without the reply's schema in the system prompt,
first try or retry) and whether the one made again is exactly it.

A seat sent its earlier ticks (agent detail ``history``: K) is followed the same way:
each tick's first user message and the last reply the record keeps make the
:class:`~harness.llm.prompts.Exchange` the seat remembered, and the last K of them go
before the next tick's prompt, as the seat sent them.

Each seat's observation is rendered in the layout it was sent (agent detail
``promptLayout``, absent in records written before the layout changed: layout 1),
so that an older record's prompts are made again as they were.

Records written before the header kept the texts find them among the shipped prompt
files by their hash; their calls carry no hash, so their prompts are shown unchecked.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ValidationError

from harness.errors import HarnessError, RecordError
from harness.llm.options import MAX_HISTORY
from harness.llm.prompts import PROMPTS_DIR, Exchange, first_messages, retry_messages
from harness.llm.shapes import SCHEMA_IN_PROMPT, every_property_required, schema_in_prompt
from harness.llm.types import Message, messages_sha256
from harness.models import JsonObject
from harness.protocol import AnyHeader, GameEntry, RecordLine, header_of, ticks_of
from harness.records import SeatTurn

#: The agent kinds whose seats are sent prompts: models, and Python agents (which get
#: the same text a model would).
PROMPTED_KINDS = ("llm", "python")
#: The agent details naming a seat's three prompt files.
PROMPT_KEYS = ("systemPromptSha256", "observationPromptSha256", "retryHintSha256")

Check = Literal["exact", "differs", "unchecked"]
"""How a prompt made again compares with what was sent: ``exact`` (every call's hash
matches), ``differs`` (a call's hash matches nothing made again: the harness that wrote
the record rendered it otherwise) or ``unchecked`` (no hash: an older record, or a
Python agent, which makes no calls)."""


@dataclass(frozen=True)
class SentPrompt:
    """One seat's prompt at one tick: the messages of its last request, and their check."""

    messages: tuple[Message, ...]
    check: Check


@dataclass
class EpisodePrompts:
    """Every prompt of an episode, by tick and seat, and what could not be made again."""

    turns: dict[int, dict[str, SentPrompt]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> JsonObject:
        """For the page: each distinct text once (a system prompt repeats every tick)."""
        texts: dict[str, int] = {}

        def ref(text: str) -> int:
            return texts.setdefault(text, len(texts))

        turns: JsonObject = {
            str(tick): {
                seat: {
                    "messages": [[m.role, ref(m.content)] for m in prompt.messages],
                    "check": prompt.check,
                }
                for seat, prompt in seats.items()
            }
            for tick, seats in self.turns.items()
        }
        return {"texts": [*texts], "turns": turns, "notes": [*self.notes]}


@dataclass(frozen=True)
class _Templates:
    system: str
    observation: str
    retry_hint: str
    schema_in_prompt: bool
    """Whether, when no call says so, the schema went in the system prompt."""
    history: int = 0
    """How many earlier ticks the seat sent before each tick's prompt."""
    layout: int = 1
    """The layout of the observation's text the seat was sent (agent detail ``promptLayout``)."""


def shipped_prompts(game: str) -> dict[str, str]:
    """The text of every prompt file shipped for ``game``, by its sha256."""
    folder = PROMPTS_DIR / game
    texts = (p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.md")))
    return {hashlib.sha256(t.encode("utf-8")).hexdigest(): t for t in texts}


def _templates(header: AnyHeader, notes: list[str]) -> dict[str, _Templates]:
    kept: Mapping[str, str] = header.prompts
    shipped: dict[str, str] | None = None
    found = {}
    for info in header.seats:
        details = info.agent.details
        if info.agent.kind not in PROMPTED_KINDS or not all(k in details for k in PROMPT_KEYS):
            continue
        hashes = [details[k] for k in PROMPT_KEYS]
        if not all(h in kept for h in hashes) and shipped is None:
            shipped = shipped_prompts(header.game)
        texts = [kept.get(h) or (shipped or {}).get(h) for h in hashes]
        if any(t is None for t in texts):
            notes.append(
                f"{info.seat}: its prompt files are not in the record (written before records "
                "kept them) and are not the shipped ones, so its prompts cannot be shown"
            )
            continue
        system, observation, hint = (t or "" for t in texts)
        shape = details.get("structuredOutput")
        found[info.seat] = _Templates(
            system,
            observation,
            hint,
            shape in SCHEMA_IN_PROMPT,
            _count(details.get("history"), MAX_HISTORY),
            max(1, _count(details.get("promptLayout"), 999)),
        )
    return found


def sent_prompts(game: GameEntry, lines: Sequence[RecordLine]) -> EpisodePrompts:
    """The prompt of every prompted seat at every tick of a record's ``lines`` (models).

    Never raises for a record it cannot follow: from the first tick whose decisions the
    rules refuse, prompts are left out and ``notes`` says why.
    """
    out = EpisodePrompts()
    header = header_of(lines)
    seats = _templates(header, out.notes)
    if not seats:
        return out
    roles = {info.seat: info.role for info in header.seats}
    try:
        _replay(game, lines, seats, roles, out.turns)
    except (HarnessError, ValidationError, ValueError, TypeError, KeyError) as exc:
        # The rules refused what the record says: its later states are not this
        # engine's, so no later prompt could be made again faithfully.
        at = max(out.turns, default=None)
        where = "at its start" if at is None else f"at tick {at}"
        out.notes.append(
            f"the rules refuse what the record says {where} ({exc}): no later prompt is shown"
        )
    return out


def _replay(
    game: GameEntry,
    lines: Sequence[RecordLine],
    seats: Mapping[str, _Templates],
    roles: Mapping[str, str],
    turns: dict[int, dict[str, SentPrompt]],
) -> None:
    """Fill ``turns`` tick by tick, observing each seat before resolving the tick."""
    rules, io, codec = game.rules, game.seat_io, game.codec
    state = codec.start_state(header_of(lines))
    schemas: dict[str, JsonObject] = {}
    memory = {seat: deque[Exchange](maxlen=t.history) for seat, t in seats.items() if t.history}
    for line in ticks_of(lines):
        prompts = turns.setdefault(line.tick, {})
        asked = set(rules.active_seats(state))
        if set(line.seats) != asked:  # replay calls this a mismatch of seats
            raise RecordError(f"it has turns of {sorted(line.seats)}, not of {sorted(asked)}")
        for seat, turn in line.seats.items():
            templates = seats.get(seat)
            if templates is None:
                continue
            role = roles[seat]
            if role not in schemas:
                schemas[role] = io.reply_schema(role)
            observation = io.render_observation_as(rules.observe(state, seat), templates.layout)
            past = memory.get(seat)
            prompts[seat] = _prompt(templates, observation, turn, schemas[role], past or ())
            if past is not None and turn.replies:  # as the seat remembered the tick
                own = first_messages(templates.system, templates.observation, observation)
                past.append(Exchange.of(own[-1].content, turn.replies[-1].raw))
        decisions = {
            seat: codec.decision_from_json(turn.decision.model_dump(mode="json", by_alias=True))
            for seat, turn in line.seats.items()
        }
        state, _ = rules.resolve(state, decisions)


def _count(value: str | None, most: int) -> int:
    """An agent detail that is a count (``history``, ``promptLayout``), at most ``most``;
    0 when absent or not a count."""
    if value is None or not value.isascii() or not value.isdigit() or len(value) > 3:
        return 0
    return min(int(value), most)


def _prompt(
    templates: _Templates,
    observation: str,
    turn: SeatTurn[BaseModel],
    schema: JsonObject,
    history: Sequence[Exchange] = (),
) -> SentPrompt:
    """The messages of the turn's last request, checked against every call's hash.

    A record written while every property of the reply schema was required (before
    ``notes`` was optional) sent that schema in its prompt: it is tried too, so that
    such a record's prompts still verify."""
    plain = first_messages(templates.system, templates.observation, observation, history)
    firsts = [plain, schema_in_prompt(plain, schema)]
    earlier = every_property_required(schema)
    olds = [schema_in_prompt(plain, earlier)] if earlier != schema else []
    candidates = list(firsts)
    older = list(olds)
    replies = turn.replies
    if replies and replies[0].parse_error is not None:  # the first reply failed: a retry
        failed, problem = replies[0].raw, replies[0].parse_error.message
        candidates += [retry_messages(m, failed, templates.retry_hint, problem) for m in firsts]
        older += [retry_messages(m, failed, templates.retry_hint, problem) for m in olds]
    by_hash = {messages_sha256(m): m for m in [*candidates, *older]}
    hashes = [call.prompt_sha256 for call in turn.calls if call.prompt_sha256 is not None]
    if hashes and all(h in by_hash for h in hashes):
        return SentPrompt(by_hash[hashes[-1]], "exact")
    # No hash to go by: the last request is the retry if there was one, and the schema
    # was in the prompt if the seat's structured output says it went there.
    guess = candidates[-2 + templates.schema_in_prompt]
    return SentPrompt(guess, "differs" if hashes else "unchecked")


__all__ = [
    "PROMPTED_KINDS",
    "Check",
    "EpisodePrompts",
    "SentPrompt",
    "sent_prompts",
    "shipped_prompts",
]
