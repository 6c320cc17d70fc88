"""What a call's ledger costs: one price per kind of token, and the bound of the unknown.

A :class:`Price` has a rate (US dollars per million tokens) for each count of the
ledger (:class:`~harness.llm.types.Usage`): input not from the cache, input read
from the cache, input written to it (for five minutes, or for an hour), output, and
reasoning. The config gives the first and the output rate; each other one it leaves
out is the rate the provider's own bill falls back to: a cache read or write at the
input rate, an hour's write at the five-minute write rate, reasoning at the output
rate (docs/llm.md).

A model on OpenAI's service tiers may have rates per tier (``service_tiers`` in its
``prices`` entry): a call is priced at the rates of the tier that served it, as the
answer says (its ``service_tier``), else of the tier the seat asked for; a tier with no
rates of its own is priced at the model's (:meth:`Price.for_tier`). The bound takes
the dearest rate of the model's and every tier's, whichever tier answers.

The same price gives the bound the budget admits an episode under (:meth:`Price.most`)
and the cost a call records (:meth:`Price.cost`): a count the server left unknown is
priced as the bound prices it, so a recorded cost never takes an unknown call for
a free one, and never passes the bound that admitted it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from harness.llm.types import CompletionRequest, Usage, estimate_tokens

if TYPE_CHECKING:
    from harness.llm.options import PriceOptions, RateOptions

#: Tokens per unit a rate is given for.
MTOK = 1_000_000


def input_tokens_priced(request: CompletionRequest) -> int:
    """The input tokens an unknown count of ``request`` is priced at: the budget's
    estimate of what was sent (:func:`~harness.llm.types.estimate_tokens` of its
    messages and schema, one token per 4 bytes), so a recorded cost stays within the
    episode bound that ``--max-cost`` admitted it under (harness.tournament.budget)."""
    text = "".join(m.content for m in request.messages)
    if request.json_schema is not None:
        text += json.dumps(request.json_schema, ensure_ascii=False)
    return estimate_tokens(text)


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens of each kind; None: the rate it falls back to.

    ``tiers``: the prices of OpenAI service tiers priced apart, by tier name.
    """

    input_per_mtok: float
    output_per_mtok: float
    cached_input_per_mtok: float | None = None
    cache_write_per_mtok: float | None = None
    cache_write_1h_per_mtok: float | None = None
    reasoning_per_mtok: float | None = None
    tiers: Mapping[str, Price] = field(default_factory=dict, hash=False)

    @classmethod
    def of(cls, options: PriceOptions) -> Price:
        """The price a config's ``prices`` entry gives, its service tiers' included."""
        tiers: dict[str, Price] = {
            tier: cls.rates(rates) for tier, rates in options.service_tiers.items()
        }
        return replace(cls.rates(options), tiers=tiers)

    @classmethod
    def rates(cls, options: RateOptions) -> Price:
        """The price of one set of rates (a model's, or one tier's)."""
        return cls(
            input_per_mtok=options.input_per_mtok,
            output_per_mtok=options.output_per_mtok,
            cached_input_per_mtok=options.cached_input_per_mtok,
            cache_write_per_mtok=options.cache_write_per_mtok,
            cache_write_1h_per_mtok=options.cache_write_1h_per_mtok,
            reasoning_per_mtok=options.reasoning_per_mtok,
        )

    def for_tier(self, tier: str | None) -> Price:
        """The price of a call served in ``tier``: its own rates where it has them,
        else this price's (None: no tier said)."""
        found = self.tiers.get(tier) if tier is not None else None
        return found if found is not None else self

    @property
    def cache_read(self) -> float:
        """The rate of an input token read from the cache."""
        return _or(self.cached_input_per_mtok, self.input_per_mtok)

    @property
    def cache_write(self) -> float:
        """The rate of an input token written to the cache for five minutes."""
        return _or(self.cache_write_per_mtok, self.input_per_mtok)

    @property
    def cache_write_1h(self) -> float:
        """The rate of an input token written to the cache for an hour."""
        return _or(self.cache_write_1h_per_mtok, self.cache_write)

    @property
    def reasoning(self) -> float:
        """The rate of a reasoning token."""
        return _or(self.reasoning_per_mtok, self.output_per_mtok)

    @property
    def dearest_input(self) -> float:
        """The most an input token can cost: the rate a token of unknown kind is priced at."""
        return max(self.input_per_mtok, self.cache_read, self.cache_write, self.cache_write_1h)

    @property
    def dearest_output(self) -> float:
        """The most an output token can cost."""
        return max(self.output_per_mtok, self.reasoning)

    def most(self, input_tokens: int, output_tokens: int) -> float:
        """The most ``input_tokens`` and ``output_tokens`` of unknown kinds can cost: each
        at its dearest rate, in the dearest tier (the budget's bound of an episode)."""
        own = (input_tokens * self.dearest_input + output_tokens * self.dearest_output) / MTOK
        return max([own, *(t.most(input_tokens, output_tokens) for t in self.tiers.values())])

    def cost(self, usage: Usage, request: CompletionRequest | None = None) -> float:
        """The price of ``usage``, each count at its rate.

        An unknown input or output count is priced as the budget bounds it: with
        ``request``, its estimated input (:func:`input_tokens_priced`) and its
        ``max_tokens``, at the dearest rate of the kind; without one, at zero. A cache
        or reasoning count not reported is none (those tokens are plain input or
        output); counts that claim more than their whole are cut to it.
        """
        tokens_in, tokens_out = usage.input_tokens, usage.output_tokens
        if tokens_in is None:
            tokens_in = input_tokens_priced(request) if request is not None else 0
            cost_in = tokens_in * self.dearest_input
        else:
            read = min(usage.cached_input_tokens or 0, tokens_in)
            write = min(usage.cache_write_tokens or 0, tokens_in - read)
            hour = min(usage.cache_write_1h_tokens or 0, write)
            cost_in = (
                (tokens_in - read - write) * self.input_per_mtok
                + read * self.cache_read
                + (write - hour) * self.cache_write
                + hour * self.cache_write_1h
            )
        if tokens_out is None:
            tokens_out = request.max_tokens if request is not None else 0
            cost_out = tokens_out * self.dearest_output
        else:
            reasoning = min(usage.reasoning_tokens or 0, tokens_out)
            cost_out = (tokens_out - reasoning) * self.output_per_mtok + reasoning * self.reasoning
        return (cost_in + cost_out) / MTOK


def _or(rate: float | None, fallback: float) -> float:
    return fallback if rate is None else rate


__all__ = ["MTOK", "Price", "input_tokens_priced"]
