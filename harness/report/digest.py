"""A report's episodes in compact form, folded one results line at a time.

A report needs, of each episode, only its cell (seed, variant) and score: the
statistics lay those out on a grid of seeds and variants. Everything else it shows
is a total or a count per entrant (calls, tokens, fallbacks, the game's columns,
reasons), so a
:class:`Digest` adds each results line into per-entrant accumulators as the lines
stream past and keeps, per episode, a seed, a variant number and a score in flat
arrays (and a bit for "without a fallback"): 20 bytes an episode, however large the
tournament. Exact sums
(:class:`ExactSum`) give the same floats as :func:`math.fsum` over every episode, so
the report is the same, byte for byte, as one built from every line held at once.
The episodes without a fallback are a selection of an entrant's, a bit each; while
none of an entrant's episodes has fallen back, the selection's totals are the
entrant's own, summed once (:attr:`EntrantDigest.mirror`).

What grows beyond that is what a report shows over every model call: the latencies
(their percentiles are exact, so every latency is kept, as a float) and, for the
server figures, each episode that made model calls, kept as its results line
(their sums are taken in the report's canonical order, as they always were).
Scripted episodes make no calls and keep none of this.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from harness.protocol import GameEntry
from harness.report.completeness import Completeness, FinishedCount, Plan
from harness.report.faithfulness import FaithfulnessTally
from harness.summary import BatchStats, EpisodeSummary, not_own

#: The canonical order of one entrant's episodes (the entrant itself compared first).
EpisodeKey = tuple[str, int, int, str]


def episode_key(ep: EpisodeSummary) -> EpisodeKey:
    """(variant, seed, repetition, id): an entrant's episodes in the report's order."""
    return (ep.variant, ep.seed, ep.repetition, ep.episode_id)


class ExactSum:
    """A running :func:`math.fsum`: the same float as ``math.fsum`` over every value
    added, in memory that does not grow with the values (Shewchuk's partials, the
    algorithm ``math.fsum`` itself runs)."""

    __slots__ = ("_overflow", "_partials", "_specials")

    def __init__(self) -> None:
        self._partials: list[float] = []
        self._specials: list[float] = []  # inf, -inf, nan: at most one of each
        self._overflow = False

    def add(self, value: float) -> None:
        """Add one value."""
        x = float(value)
        if not math.isfinite(x):
            if repr(x) not in {repr(s) for s in self._specials}:
                self._specials.append(x)
            return
        partials = self._partials
        i = 0
        for y in partials:
            if abs(x) < abs(y):
                x, y = y, x
            hi = x + y
            lo = y - (hi - x)
            if lo:
                partials[i] = lo
                i += 1
            x = hi
        if not math.isfinite(x):
            self._overflow = True  # math.fsum raises on this; so does value()
        partials[i:] = [x]

    def copy(self) -> ExactSum:
        """Another running sum holding what this one holds."""
        other = ExactSum()
        other._partials = list(self._partials)
        other._specials = list(self._specials)
        other._overflow = self._overflow
        return other

    def value(self) -> float:
        """``math.fsum`` of every value added."""
        if self._overflow and not self._specials:
            raise OverflowError("intermediate overflow in fsum")
        return math.fsum(self._partials + self._specials)


#: The plain counts of an entrant's digest, copied as they are by :meth:`EntrantDigest.settle`.
_COUNTS = (
    "retries", "rescued", "calls", "cached", "input_tokens", "output_tokens", "unpriced",
    "fallback_free", "model_seats", "batch_ticks", "batch_calls",
)  # fmt: skip


class EntrantDigest:
    """One entrant's episodes (or its fallback-free ones) as a report needs them."""

    def __init__(
        self,
        numerators: Sequence[str],
        denominators: Sequence[str],
        of: EntrantDigest | None = None,
        groups: Mapping[str, str] | None = None,
        end_name: Callable[[str, Mapping[str, float]], str] | None = None,
    ) -> None:
        self.of = of
        self.end_name = end_name
        """The game's name for what happened at an episode's end (None: its reason)."""
        self.group_of: Mapping[str, str] = groups or {}
        """Seat id -> its seat group's key (a seat none names counts under its role)."""
        """For a selection of an entrant's episodes (those without a fallback): the
        digest of all of them, whose arrays it shares, marking its own in a bitmap."""
        self.mirror = False
        """For a selection: whether it holds every episode of :attr:`of` so far, and so
        leaves its totals to :attr:`of` (they are the same) until :meth:`settle`."""
        self.marks = bytearray()
        self.count = 0
        self.seeds: array[int] | list[int] = array("q")
        self.variants: array[int] = array("I")
        self.scores: array[float] = array("d")
        self.first: EpisodeSummary | None = None
        """The first episode in canonical order: its seats name the entrant's agents."""
        self.first_key: EpisodeKey | None = None
        self.sums = {key: ExactSum() for key in {*numerators, *denominators}}
        self.reasons: Counter[str] = Counter()
        self.ends: Counter[str] = Counter()
        """Episodes by what happened at their end (the game's :meth:`end_name`)."""
        self.turns: Counter[str] = Counter()
        """Turns of seats with model calls, by role."""
        self.fallbacks: Counter[str] = Counter()
        """Fallbacks of seats with model calls, by role."""
        self.group_turns: Counter[str] = Counter()
        """Turns of every seat, model or not, by seat group."""
        self.not_own: Counter[tuple[str, str]] = Counter()
        """Turns that were not the entrant's own (:func:`harness.summary.not_own`), for
        every kind of seat, by (seat group, source)."""
        self.retries = 0
        self.rescued = 0
        self.calls = 0
        self.cached = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.cost = ExactSum()
        self.unpriced = 0
        self.latencies: array[float] = array("d")
        self.fallback_free = 0
        self.model_seats = False
        """Whether any seat of any episode made a model call."""
        self.batch_ticks = 0
        self.batch_calls = 0
        self.with_calls: list[tuple[EpisodeKey, str]] = []
        """Each episode with model calls or batch times: its key and results line."""

    def __len__(self) -> int:
        return self.count

    def add(self, ep: EpisodeSummary, variant: int, *, keep_calls: bool) -> None:
        """Fold one episode in (``variant``: the variant's number in the digest).

        With :attr:`of`, ``ep`` must be the episode just added to it.
        """
        if self.of is not None:
            byte, bit = divmod(len(self.of.scores) - 1, 8)
            self.marks.extend(bytes(byte + 1 - len(self.marks)))
            self.marks[byte] |= 1 << bit
            if self.mirror:  # the same episodes as ``of``: its totals are these
                self.count += 1
                return
        else:
            try:
                self.seeds.append(ep.seed)
            except OverflowError:  # a seed past 64 bits (none of this harness's): ints
                self.seeds = [*self.seeds, ep.seed]
            self.variants.append(variant)
            self.scores.append(ep.score)
        self.count += 1
        self._first(ep)
        for key, total in self.sums.items():
            total.add(ep.metrics.get(key, 0.0))
        self.reasons[ep.reason] += 1
        end = self.end_name
        self.ends[ep.reason if end is None else end(ep.reason, ep.metrics)] += 1
        self.fallback_free += ep.fallback_free
        group_of, group_turns = self.group_of, self.group_turns
        for seat_id, seat in ep.seats.items():
            group = group_of.get(seat_id, seat.role)
            group_turns[group] += seat.turns
            if seat.fallbacks:
                for source, n in seat.fallbacks.items():
                    if n and not_own(source):
                        self.not_own[group, source] += n
            self.input_tokens += seat.input_tokens
            self.output_tokens += seat.output_tokens
            self.unpriced += seat.unpriced
            self.rescued += seat.retries
            if not seat.calls and not seat.cost_usd and not seat.latencies_ms:
                # a seat that made no call (a bot's, an agent's): no latency, no cost
                # (adding a zero cost leaves the exact sum as it is), only its counts
                continue
            if seat.calls:
                self.model_seats = True
                self.turns[seat.role] += seat.turns
                self.fallbacks[seat.role] += sum(seat.fallbacks.values())
                # a turn makes one call, and a second when it sends the retry
                self.retries += seat.calls - seat.turns
                self.cached += seat.cached
            self.latencies.extend(seat.latencies_ms)
            self.cost.add(seat.cost_usd)
            self.calls += seat.calls
        if not ep.batch.first_calls and ep.batch != BatchStats():
            # figures of any two requests of a tick, a seat's retry among them (a line
            # of a record from before ticks counted first calls): they cannot tell a
            # server that answers one at a time, so no server figure takes them
            ep = ep.model_copy(update={"batch": BatchStats()})
        self.batch_ticks += ep.batch.ticks
        self.batch_calls += ep.batch.calls
        calls = any(s.calls for s in ep.seats.values())
        if keep_calls and (calls or ep.batch.call_ms or ep.batch.tick_ms):
            self.with_calls.append((episode_key(ep), ep.model_dump_json()))

    def settle(self) -> None:
        """A mirror's totals, taken from :attr:`of` (whose episodes it all holds), so
        that from now on it adds its own."""
        of = self.of
        if not self.mirror or of is None:
            return
        self.sums = {key: total.copy() for key, total in of.sums.items()}
        self.cost = of.cost.copy()
        self.reasons, self.turns = Counter(of.reasons), Counter(of.turns)
        self.ends = Counter(of.ends)
        self.fallbacks = Counter(of.fallbacks)
        self.group_turns, self.not_own = Counter(of.group_turns), Counter(of.not_own)
        self.latencies = array("d", of.latencies)
        self.first, self.first_key = of.first, of.first_key
        for name in _COUNTS:
            setattr(self, name, getattr(of, name))
        self.mirror = False

    def _first(self, ep: EpisodeSummary) -> None:
        key = episode_key(ep)
        if self.first is None or self.first_key is None or key < self.first_key:
            self.first, self.first_key = ep, key
        elif key == self.first_key and ep.model_dump_json() < self.first.model_dump_json():
            self.first = ep

    def column(self, numerator: str, denominator: str | None) -> tuple[float, float | None]:
        """The exact sums of a column's numerator and denominator."""
        top = self.sums[numerator].value()
        return top, None if denominator is None else self.sums[denominator].value()

    def cell_scores(self, names: Sequence[str]) -> Iterator[tuple[tuple[int, str], float]]:
        """((seed, variant), score) of every episode, in the order the lines came."""
        source = self.of if self.of is not None else self
        rows = zip(source.seeds, source.variants, source.scores, strict=True)
        for index, (seed, variant, score) in enumerate(rows):
            if self.of is None or self.marked(index):
                yield (seed, names[variant]), score

    def marked(self, index: int) -> bool:
        """Whether the ``index``-th episode of :attr:`of` is one of this selection's."""
        byte = index // 8
        # the marks end at the last marked episode's byte: later episodes are unmarked
        return byte < len(self.marks) and bool(self.marks[byte] >> index % 8 & 1)

    def ordered_with_calls(self) -> Iterator[EpisodeSummary]:
        """The episodes with model calls, in canonical order (equal keys by their JSON)."""
        for _, text in sorted(self.with_calls):
            yield EpisodeSummary.model_validate_json(text)

    def held_bytes(self) -> int:
        """Bytes the per-episode arrays and marks hold (for tests and benchmarks)."""
        if self.of is not None:
            return len(self.marks)
        seeds = self.seeds.itemsize if isinstance(self.seeds, array) else 8
        return (seeds + self.variants.itemsize + self.scores.itemsize) * len(self.scores)


class Digest:
    """Every episode of a report, folded in one results line at a time (see module doc)."""

    def __init__(self, game: GameEntry, plan: Plan | None = None) -> None:
        self.game = game
        self.plan = plan
        columns = game.report.report_columns()
        self._numerators = [c.numerator for c in columns]
        self._denominators = [c.denominator for c in columns if c.denominator is not None]
        self._groups = {seat: g.key for g in game.seat_groups for seat in g.seats}
        self.variant_names: list[str] = []
        self._variant_numbers: dict[str, int] = {}
        self.entrants: dict[str, EntrantDigest] = {}
        self._clean: dict[str, EntrantDigest] = {}
        self._finished = FinishedCount(plan)
        self.episodes = 0
        self.faithfulness = FaithfulnessTally(game.seat_groups)
        """Every episode's model seats, for the faithfulness section."""

    def add(self, ep: EpisodeSummary) -> None:
        """Fold in one results line."""
        number = self._variant_numbers.get(ep.variant)
        if number is None:
            number = self._variant_numbers[ep.variant] = len(self.variant_names)
            self.variant_names.append(ep.variant)
        entry = self._entrant(self.entrants, ep.entrant, None)
        clean = self._clean.get(ep.entrant)
        if clean is not None and not ep.fallback_free:
            clean.settle()  # before the entrant's totals take in an episode it lacks
        entry.add(ep, number, keep_calls=True)
        if ep.fallback_free:
            if clean is None:
                clean = self._entrant(self._clean, ep.entrant, entry)
                clean.mirror = len(entry) == 1  # its first episode: all of them so far
            clean.add(ep, number, keep_calls=False)
        self._finished.add(ep.entrant, ep.episode_id)
        self.faithfulness.add(ep)
        self.episodes += 1

    def _entrant(
        self, table: dict[str, EntrantDigest], name: str, of: EntrantDigest | None
    ) -> EntrantDigest:
        found = table.get(name)
        if found is None:
            found = table[name] = EntrantDigest(
                self._numerators, self._denominators, of, self._groups, self.game.report.end_name
            )
        return found

    @property
    def clean(self) -> dict[str, EntrantDigest]:
        """The episodes without any LLM fallback, by entrant (those of an entrant none of
        whose episodes fell back are summed once, for both, until read)."""
        for entry in self._clean.values():
            entry.settle()
        return self._clean

    def completeness(self) -> Completeness:
        """Planned against finished (:func:`harness.report.completeness.completeness`)."""
        return self._finished.result()

    def held_bytes(self) -> int:
        """Bytes the per-episode arrays hold, all entrants (for tests and benchmarks)."""
        return sum(e.held_bytes() for t in (self.entrants, self._clean) for e in t.values())


def digest(game: GameEntry, summaries: Any, plan: Plan | None = None) -> Digest:
    """``summaries`` (any iterable of results lines) folded into a :class:`Digest`."""
    out = Digest(game, plan)
    for s in summaries:
        out.add(s)
    return out


__all__ = ["Digest", "EntrantDigest", "EpisodeKey", "ExactSum", "digest", "episode_key"]
