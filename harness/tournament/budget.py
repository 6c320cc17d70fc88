"""Budgets: the most an episode can cost, and a gate that keeps a run under a cap.

**Calls.** An LLM seat makes at most two calls a turn (one, and one retry with a
hint; decision R5) and has at most one turn a tick, so an episode makes at most
2 x (model seats) x (the game's tick cap) calls. Transport retries of one call are
attempts, not calls, and are not billed.

**Tokens.** Input tokens are estimated at one token per 4 bytes of UTF-8
(:data:`TOKEN_BYTES`) of the messages a turn sends at most: the system prompt and
the rendered first observation (the largest over the config's variants, first seed)
sent twice, plus the failed reply echoed back (at most ``max_tokens``) and the retry
hint with an allowance of :data:`PROBLEM_BYTES` for the problem it names. A seat sent
its last K ticks (``history = K``) sends each call K more exchanges, each estimated
as the first observation and a reply of ``max_tokens``. Output
tokens are bounded by ``max_tokens`` per call. Observations grow a little as notes
and messages accumulate (Lighthouse: up to about 1.3x the first one's size), which
the every-turn-retried path more than covers in practice; the input side stays an
estimate.

**Cost.** Those tokens at the provider's ``prices`` for the model, each at the
dearest rate of its kind (:meth:`harness.llm.pricing.Price.most`: an input token at
the most of the input, cache-read and cache-write rates, an output token at the most
of the output and reasoning rates), the same price that prices each call's ledger:
an upper bound on calls and output, an estimate on input, labelled as an upper bound
everywhere it is shown. A model without a price has no cost bound; ``--max-cost``
refuses to run it.

**Unknown counts.** A call whose server reported no usable token count is priced as
this bound prices it (:func:`harness.llm.pricing.input_tokens_priced`): its input at
the same estimate of what it sent, its output at ``max_tokens``. So its recorded cost
counts against ``--max-cost`` as its share of the episode's bound did.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from harness.errors import ConfigError
from harness.llm.pricing import Price
from harness.llm.prompts import PromptSet, default_prompt_files
from harness.llm.types import TOKEN_BYTES, estimate_tokens
from harness.protocol import GameConfig, GameEntry
from harness.report.selection import CostCapStop, LimitStop
from harness.tournament.config import EntrantConfig, LLMSeatConfig, TournamentConfig

#: Calls an LLM seat makes in one turn at most: the call and one retry with a hint.
CALLS_PER_TURN = 2
#: Bytes allowed for the problem a retry hint names.
PROBLEM_BYTES = 1024


def max_ticks(game: GameEntry, game_config: GameConfig) -> int:
    """The most ticks an episode under ``game_config`` can last: the tick cap its config
    declares (:attr:`~harness.protocol.GameConfig.tick_cap`)."""
    return game_config.tick_cap


@dataclass(frozen=True)
class SeatBound:
    """One LLM seat's share of an episode's bound."""

    seat: str
    model: str
    """``provider-kind:model``."""
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    """None when the provider lists no price for the model."""


@dataclass(frozen=True)
class EpisodeBound:
    """The most one of an entrant's episodes can take: calls, tokens and cost."""

    entrant: str
    seats: tuple[SeatBound, ...]
    ticks: int | None
    """The tick cap; None when the game names none (then nothing is bounded)."""

    @property
    def model_seats(self) -> int:
        """LLM seats of the entrant."""
        return len(self.seats)

    @property
    def calls(self) -> int:
        """Model calls at most."""
        return sum(s.calls for s in self.seats)

    @property
    def input_tokens(self) -> int:
        """Input tokens, estimated on the every-turn-retried path."""
        return sum(s.input_tokens for s in self.seats)

    @property
    def output_tokens(self) -> int:
        """Output tokens at most."""
        return sum(s.output_tokens for s in self.seats)

    @property
    def unpriced(self) -> list[str]:
        """Models of the entrant without a price."""
        return sorted({s.model for s in self.seats if s.cost_usd is None})

    @property
    def cost_usd(self) -> float | None:
        """The cost bound in US dollars; None when a model has no price."""
        if self.unpriced or (self.seats and self.ticks is None):
            return None
        return math.fsum(s.cost_usd or 0.0 for s in self.seats)


def episode_bounds(
    config: TournamentConfig, game: GameEntry, entrants: Sequence[EntrantConfig]
) -> dict[str, EpisodeBound]:
    """Each of ``entrants``' per-episode bound under ``config`` (reads prompt files, plays
    nothing, calls nothing)."""
    if not entrants:
        return {}
    seed = config.seed_order()[0]
    starts = []
    for variant in config.variant_list():
        game_config = config.game_config(variant)
        starts.append((game.rules.new_state(game_config, seed), max_ticks(game, game_config)))
    caps = [t for _, t in starts]
    ticks = None if any(t is None for t in caps) else max(t for t in caps if t is not None)
    out = {}
    for entrant in entrants:
        seats = []
        for seat_id, (role, spec) in entrant.seat_specs(game).items():
            if not isinstance(spec, LLMSeatConfig):
                continue
            options = config.seat_options(spec)
            prompts = PromptSet.load(options.prompts or default_prompt_files(game.name, role))
            shown = [
                prompts.observation.fill(
                    observation=game.seat_io.render_observation(game.rules.observe(state, seat_id))
                )
                for state, _ in starts
            ]
            first = max(estimate_tokens(prompts.system.text + text) for text in shown)
            if options.history:  # each earlier tick: a prompt as large as the first, a reply
                largest = max(estimate_tokens(text) for text in shown)
                first += options.history * (largest + options.max_tokens)
            hint = estimate_tokens(prompts.retry_hint.text) + PROBLEM_BYTES // TOKEN_BYTES
            turns = ticks or 0
            per_turn_in = CALLS_PER_TURN * first + options.max_tokens + hint
            per_turn_out = CALLS_PER_TURN * options.max_tokens
            price = options.provider.prices.get(options.model)
            cost = (
                None
                if price is None
                else Price.of(price).most(turns * per_turn_in, turns * per_turn_out)
            )
            seats.append(
                SeatBound(
                    seat=seat_id,
                    model=f"{options.provider.kind}:{options.model}",
                    calls=CALLS_PER_TURN * turns,
                    input_tokens=turns * per_turn_in,
                    output_tokens=turns * per_turn_out,
                    cost_usd=cost,
                )
            )
        out[entrant.name] = EpisodeBound(entrant.name, tuple(seats), ticks)
    return out


def require_prices(bounds: dict[str, EpisodeBound], flag: str = "--max-cost") -> None:
    """Refuse a cost cap when an entrant's cost cannot be bounded, naming every model."""
    missing = sorted({m for b in bounds.values() for m in b.unpriced})
    if missing:
        raise ConfigError(
            f"{flag}: no price for {', '.join(missing)}; a cost cap needs every model's "
            "price ([providers.NAME] prices = { MODEL = { input_per_mtok = ..., "
            "output_per_mtok = ... } })"
        )
    unbounded = sorted(n for n, b in bounds.items() if b.seats and b.ticks is None)
    if unbounded:
        raise ConfigError(f"{flag}: the game names no tick cap, so {unbounded[0]} is unbounded")


StopReason = Literal["cost_cap", "limit"]


@dataclass(frozen=True)
class Stop:
    """Why a run stopped before playing everything planned."""

    reason: StopReason
    cap_usd: float | None = None
    limit: int | None = None

    def to_json(self, spent_usd: float) -> CostCapStop | LimitStop:
        """As the manifest keeps it (``spentUsd``: the folder's recorded cost at the end)."""
        if self.reason == "cost_cap":
            return CostCapStop(reason="cost_cap", cap_usd=self.cap_usd, spent_usd=spent_usd)
        return LimitStop(reason="limit", limit=self.limit)


class Admission:
    """Admits episodes one at a time under a cost cap and a count limit.

    An episode is admitted when the recorded cost, plus the bounds of the episodes in
    flight, plus its own bound stays within the cap. When it does not fit and others
    are in flight, it waits for them (their real cost replaces their bound); when it
    does not fit with nothing in flight, the run stops admitting. So a run stops with
    a recorded cost within the cap and, when bounds hold, less than one episode's
    bound below it. ``limit`` admits at most that many episodes.
    """

    def __init__(self, *, cap_usd: float | None, spent_usd: float, limit: int | None) -> None:
        self.cap_usd = cap_usd
        self.spent_usd = spent_usd
        self.limit = limit
        self.admitted = 0
        self.stop: Stop | None = None
        self._bounds: list[float] = []
        self._changed = asyncio.Condition()

    @property
    def in_flight(self) -> int:
        """Episodes admitted and not finished."""
        return len(self._bounds)

    async def admit(self, bound_usd: float) -> bool:
        """Whether another episode (of cost bound ``bound_usd``) may start now."""
        async with self._changed:
            while True:
                if self.stop is not None:
                    return False
                if self.limit is not None and self.admitted >= self.limit:
                    self.stop = Stop("limit", limit=self.limit)
                    return False
                cap = self.cap_usd
                if cap is None or self.spent_usd + math.fsum(self._bounds) + bound_usd <= cap:
                    self.admitted += 1
                    self._bounds.append(bound_usd)
                    return True
                if not self._bounds:
                    self.stop = Stop("cost_cap", cap_usd=cap)
                    return False
                await self._changed.wait()

    async def finish(self, bound_usd: float, cost_usd: float) -> None:
        """An admitted episode ended, having cost ``cost_usd``."""
        async with self._changed:
            self._bounds.remove(bound_usd)
            self.spent_usd += cost_usd
            self._changed.notify_all()


__all__ = [
    "CALLS_PER_TURN",
    "PROBLEM_BYTES",
    "TOKEN_BYTES",
    "Admission",
    "EpisodeBound",
    "SeatBound",
    "Stop",
    "StopReason",
    "episode_bounds",
    "estimate_tokens",
    "max_ticks",
    "require_prices",
]
