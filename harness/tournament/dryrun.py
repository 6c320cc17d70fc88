"""``lighthouse run CONFIG --dry-run``: the plan, its bounds and its power, calling nothing.

A dry run reads the config, its prompt files and, when the results folder exists,
its manifest and results lines (leniently, without the lock); it creates nothing,
sends nothing and needs no API key (it says which keys a run would need and whether
they are set). It prints:

- episodes planned, already done in the folder (planned now and played by the
  entrant's current identity) and to play;
- per entrant: model seats, the most calls an episode can make and the run's total,
  input tokens (estimated) and output tokens (bounded), and the cost bound from the
  config's prices (budget.py says how each is reached);
- the expected cost of what is left, labelled as an estimate, when the folder has
  finished episodes of an entrant with model seats: the mean recorded cost of its
  finished episodes (their ledgers, priced) times its episodes to play;
- the cost cap, when one is set, against the recorded cost and the bound;
- with ``--detect D``: how many seeds the report's test needs to detect a difference
  of D between two entrants (:mod:`harness.report.methods.planner`): the sign-flip
  test over seed differences (both variants together), Holm over the config's
  k(k-1)/2 comparisons, with the standard deviation of seed differences measured on
  the folder's finished episodes, or else on baseline-only entrants played in memory
  on the config's first :data:`BASELINE_SEEDS` seeds (every variant). It refuses to
  estimate from fewer than 5 seeds, and says where its sigma came from.
"""

from __future__ import annotations

import asyncio
import math
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.episode import run_episode
from harness.errors import RecordError
from harness.files import refusal
from harness.protocol import GameEntry
from harness.report.methods import SeedTable
from harness.report.methods.planner import SeedSpread, plan_seeds, seed_spread
from harness.seats import BaselineSeat, Seat
from harness.summary import EpisodeSummary
from harness.tournament.budget import EpisodeBound, episode_bounds
from harness.tournament.config import (
    BaselineSeatConfig,
    EntrantConfig,
    LLMSeatConfig,
    TournamentConfig,
)
from harness.tournament.growth import (
    classify,
    iter_lines_leniently,
    iter_superseded_lines,
    recorded_cost,
    sort_finished,
)
from harness.tournament.identity import LineIdentities
from harness.tournament.manifest import Manifest
from harness.tournament.narrow import Narrowing
from harness.tournament.plan import DoneSet, PlanIndex
from harness.tournament.prepare import Prepared, prepare
from harness.tournament.store import ResultsFolder

#: The most seeds a dry run plays baseline-only entrants on (every variant of each) to
#: measure the spread of seed differences, when the folder has too few.
BASELINE_SEEDS = 30
#: How many baseline-only entrants it plays: two give paired seed differences.
BASELINE_ENTRANTS = 2

#: One finished cell: (entrant, seed, variant, score).
Row = tuple[str, int, str, float]


def _money(value: float | None) -> str:
    return "no price" if value is None else f"${value:,.2f}"


def _n(value: int, noun: str) -> str:
    return f"{value:,} {noun}{'' if value == 1 else 's'}"


def _count(value: int) -> str:
    return f"{value:,}"


def _finished(
    folder: ResultsFolder,
    plans: PlanIndex,
    identities: Any,
    carry: Callable[[Manifest], LineIdentities],
) -> tuple[DoneSet, float, Callable[[], Iterator[EpisodeSummary]]]:
    """The folder's finished episodes that count now (its lines as ``carry`` counts
    them), its recorded cost, and the lines of those episodes (read again when asked
    for)."""
    if not folder.manifest_path.exists():
        return DoneSet(plans), 0.0, lambda: iter(())
    try:
        known = carry(folder.manifest())
    except RecordError:
        known = LineIdentities()

    def lines() -> Iterator[EpisodeSummary]:  # read again for each pass, one at a time
        return (
            line
            for line in iter_lines_leniently(folder.episodes_path, folder.root)
            if refusal(folder.record_path(line.episode_id), folder.root) is None
        )

    done = sort_finished(lines(), plans, identities, known).done
    spent = recorded_cost(lines()) + recorded_cost(iter_superseded_lines(folder.root))
    return (
        done,
        spent,
        lambda: (line for line in lines() if classify(line, plans, identities, known) == "done"),
    )


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = [c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join([first, *rest]).rstrip()

    return [line(header), *(line(r) for r in rows)]


def _baseline_only(entrant: EntrantConfig, game: GameEntry) -> bool:
    return all(isinstance(s, BaselineSeatConfig) for _, s in entrant.seat_specs(game).values())


async def _play_baselines(
    config: TournamentConfig, game: GameEntry, entrants: Sequence[EntrantConfig]
) -> list[Row]:
    """Each baseline-only entrant's score on every variant of the plan's first seeds
    (in memory)."""
    seeds = config.seed_order()[:BASELINE_SEEDS]
    out: list[Row] = []
    for entrant in entrants:
        for seed in seeds:
            for variant in config.variant_list():
                state = game.rules.new_state(config.game_config(variant), seed)
                seats: dict[str, Seat] = {
                    seat: BaselineSeat(spec.baseline)
                    for seat, (_, spec) in entrant.seat_specs(game).items()
                    if isinstance(spec, BaselineSeatConfig)
                }
                outcome = await run_episode(
                    game, state, seats, episode_id=f"dry-run--{variant}--s{seed}", seed=seed
                )
                results: Any = outcome.results
                out.append((entrant.name, seed, variant, float(results.scores[0])))
    return out


def _seed_table(rows: Sequence[Row], names: Sequence[str], variants: Sequence[str]) -> SeedTable:
    """The seed table of ``rows`` (a cell's repetitions averaged, as the report does)."""
    known = {n: i for i, n in enumerate(names)}
    kept = [r for r in rows if r[0] in known and r[2] in variants]
    order = list(variants)
    return SeedTable.from_episodes(
        list(names),
        order,
        [known[e] for e, _, _, _ in kept],
        [s for _, s, _, _ in kept],
        [order.index(v) for _, _, v, _ in kept],
        [x for _, _, _, x in kept],
    )


def _spread(
    config: TournamentConfig, game: GameEntry, done: Sequence[EpisodeSummary]
) -> SeedSpread | None:
    names = [e.name for e in config.entrants]
    variants = config.variant_list()
    rows = [(s.entrant, s.seed, s.variant, s.score) for s in done]
    found = seed_spread(_seed_table(rows, names, variants), config.reference)
    if found is not None:
        return SeedSpread(found.sigma, f"{found.source}, from the folder", found.seeds)
    scripted = [e for e in config.entrants if _baseline_only(e, game)]
    scripted.sort(key=lambda e: e.name != config.reference)
    if not scripted:
        return None
    chosen = scripted[:BASELINE_ENTRANTS]
    played = asyncio.run(_play_baselines(config, game, chosen))
    found = seed_spread(_seed_table(played, [e.name for e in chosen], variants), None)
    if found is None:
        return None
    return SeedSpread(found.sigma, f"{found.source}, played now in memory", found.seeds)


def _detect_lines(
    config: TournamentConfig, game: GameEntry, detect: float, done: Sequence[EpisodeSummary]
) -> list[str]:
    """What ``--detect`` prints: the plan for the report's own test and family."""
    k = len(config.entrants)
    comparisons = max(1, k * (k - 1) // 2)
    return plan_seeds(detect, _spread(config, game, done), comparisons).lines()


def dry_run(
    config: TournamentConfig,
    out: Path,
    *,
    shard: tuple[int, int] = (1, 1),
    narrowing: Narrowing | None = None,
    max_cost: float | None = None,
    detect: float | None = None,
    environ: Mapping[str, str] | None = None,
    keep_agent_episodes: bool = False,
) -> str:
    """The plan of running ``config`` into ``out``, as text. Creates and calls nothing.

    ``keep_agent_episodes``: count the episodes of an entrant whose agent's code alone
    changed as done, as the run would (``--keep-agent-episodes``)."""
    prepared = prepare(
        config,
        out,
        shard=shard,
        narrowing=narrowing,
        max_cost=max_cost,
        keep_agent_episodes=keep_agent_episodes,
        write=False,
    )
    return describe_run(prepared, detect=detect, environ=environ)


def describe_run(
    prepared: Prepared, *, detect: float | None = None, environ: Mapping[str, str] | None = None
) -> str:
    """The run ``prepared`` plans, as text (see the module); ``environ`` is where the
    keys a run needs are looked for (default: the process's environment)."""
    environ = os.environ if environ is None else environ
    config, game = prepared.config, prepared.game
    folder = ResultsFolder(prepared.out)
    done, spent, done_lines = _finished(
        folder, prepared.plans, prepared.identities, lambda old: prepared.carry(old).lines
    )
    planned, to_play = _count_plan(prepared, done)
    bounds = episode_bounds(config, game, config.entrants)
    lines = [_headline(prepared, folder, planned, len(done), sum(to_play.values()))]
    table, priced = _bounds_table(config, bounds, done, to_play)
    lines += ["", *table, ""]
    lines += _notes(bounds, priced)
    lines += _expected(config.entrants, bounds, to_play, done_lines())
    if prepared.cap is not None:
        lines.append(_cap_line(prepared.cap, spent, priced))
    playing = [e for e in config.entrants if to_play[e.name]]
    lines.append(_keys_line(config, game, playing, environ))
    if detect is not None:
        lines += ["", *_detect_lines(config, game, detect, list(done_lines()))]
    return "\n".join(lines) + "\n"


def _count_plan(prepared: Prepared, done: DoneSet) -> tuple[int, dict[str, int]]:
    """Episodes planned, and each entrant's to play now (within ``--limit``): one pass
    over the plan (it may be a million episodes long), counts, not lists. A human
    entrant has none to play: a run leaves a person's episodes to the page (L4)."""
    planned = 0
    to_play: dict[str, int] = dict.fromkeys(prepared.identities, 0)
    people = {e.name for e in prepared.config.entrants if e.has_human()}
    left = prepared.narrowing.limit
    for place, plan in prepared.plans.placed():
        planned += 1
        if plan.entrant.name in people:
            continue
        if not done.has(place) and (left is None or left > 0):
            to_play[plan.entrant.name] += 1
            left = None if left is None else left - 1
    return planned, to_play


def _bounds_table(
    config: TournamentConfig,
    bounds: Mapping[str, EpisodeBound],
    done: DoneSet,
    to_play_by: Mapping[str, int],
) -> tuple[list[str], float | None]:
    """The table of each entrant's calls, tokens and cost bound for what it has to
    play, with the total; and the total cost bound (None when a model has no price)."""
    rows, total_calls, total_in, total_out, costs = [], 0, 0, 0, []
    for entrant in config.entrants:
        bound = bounds[entrant.name]
        to_play = to_play_by[entrant.name]
        cost = None if bound.cost_usd is None else bound.cost_usd * to_play
        calls, tokens_in, tokens_out = (
            bound.calls * to_play,
            bound.input_tokens * to_play,
            bound.output_tokens * to_play,
        )
        total_calls, total_in, total_out = (
            total_calls + calls,
            total_in + tokens_in,
            total_out + tokens_out,
        )
        costs.append(cost if bound.seats and to_play else 0.0)
        rows.append(_row(entrant.name, done.count(entrant.name), to_play, bound, calls,
                         tokens_in, tokens_out, cost))  # fmt: skip
    priced = None if any(c is None for c in costs) else math.fsum(c or 0.0 for c in costs)
    rows.append(["total", "", _count(sum(to_play_by.values())), "", "", _count(total_calls),
                 _count(total_in), _count(total_out), _money(priced)])  # fmt: skip
    header = ["entrant", "done", "to play", "model seats", "calls/episode <=", "calls <=",
              "input tokens ~", "output tokens <=", "cost <= (upper bound)"]  # fmt: skip
    return _table(header, rows), priced


def _headline(prepared: Prepared, folder: ResultsFolder, planned: int, done: int, todo: int) -> str:
    config, shard, narrowing = prepared.config, prepared.shard, prepared.narrowing
    where = "exists" if folder.manifest_path.exists() else "not created"
    part = f", shard {shard[0]}/{shard[1]}" if shard != (1, 1) else ""
    text = (
        f"dry run of tournament {config.name}{part}: nothing is played, called or written\n"
        f"results folder: {prepared.out} ({where})\n"
        f"{_count(planned)} episodes planned ({_n(len(config.entrants), 'entrant')} x "
        f"{_n(len(config.seed_list()), 'seed')} x {_n(len(config.variant_list()), 'variant')} "
        f"x {_n(config.repetitions, 'repetition')}{part}): {_count(done)} already done, "
        f"{_count(todo)} to play"
    )
    if narrowing:
        text += f" (narrowed by {narrowing.flags()})"
    return text


def _row(
    name: str,
    done: int,
    to_play: int,
    bound: EpisodeBound,
    calls: int,
    tokens_in: int,
    tokens_out: int,
    cost: float | None,
) -> list[str]:
    if bound.seats and bound.ticks is None:
        return [name, _count(done), _count(to_play), str(bound.model_seats), "unbounded",
                "unbounded", "-", "-", "-"]  # fmt: skip
    return [
        name,
        _count(done),
        _count(to_play),
        str(bound.model_seats),
        _count(bound.calls),
        _count(calls),
        _count(tokens_in),
        _count(tokens_out),
        _money(cost) if bound.seats else "$0.00",
    ]


def _notes(bounds: Mapping[str, EpisodeBound], priced: float | None) -> list[str]:
    notes = [
        "calls <= model seats x max ticks x 2 (a call and one retry) per episode; input "
        "tokens are estimated at 4 bytes a token from the rendered system prompt and "
        "first observation, every turn retried; output tokens <= max_tokens a call; "
        "the cost is an UPPER BOUND from the config's prices (docs/tournaments.md)"
    ]
    unpriced = sorted({m for b in bounds.values() for m in b.unpriced})
    if unpriced:
        notes.append(f"no price in the config for {', '.join(unpriced)}: no cost bound")
    return notes


def _expected(
    entrants: Sequence[EntrantConfig],
    bounds: Mapping[str, EpisodeBound],
    to_play_by: Mapping[str, int],
    done: Iterable[EpisodeSummary],
) -> list[str]:
    """The expected cost of what is left, from the ledgers of the folder's finished
    episodes: per entrant with model seats, episodes to play x the mean recorded cost
    of its finished ones. Nothing when no entrant with episodes to play has any."""
    finished: dict[str, tuple[int, list[float], int]] = {}
    for line in done:
        count, costs, unpriced = finished.get(line.entrant, (0, [], 0))
        costs.append(math.fsum(seat.cost_usd for seat in line.seats.values()))
        unpriced += sum(seat.unpriced for seat in line.seats.values())
        finished[line.entrant] = (count + 1, costs, unpriced)
    parts, total, whole = [], [], True
    for entrant in entrants:
        to_play = to_play_by.get(entrant.name, 0)
        if not to_play or not bounds[entrant.name].seats:
            continue
        if entrant.name not in finished:
            whole = False
            continue
        count, costs, unpriced = finished[entrant.name]
        if unpriced:
            parts.append(f"{entrant.name} no price (its finished episodes had calls without one)")
            whole = False
            continue
        expected = math.fsum(costs) / count * to_play
        total.append(expected)
        parts.append(f"{entrant.name} ~{_money(expected)} (from {_n(count, 'finished episode')})")
    if not parts:
        return []
    some = "" if whole else " (the entrants named; the others have no estimate)"
    return [
        f"expected cost of what is left ~{_money(math.fsum(total))}{some}: an ESTIMATE, not a "
        "bound: episodes to play x the mean recorded cost of the entrant's finished "
        f"episodes in the folder: {'; '.join(parts)}"
    ]


def _cap_line(cap: float, spent: float, bound: float | None) -> str:
    head = f"max cost {_money(cap)}: {_money(spent)} recorded in the folder"
    if bound is None:
        return head + "; the bound cannot be told (a model has no price), so a run is refused"
    if spent + bound <= cap:
        return head + f"; with the bound {_money(bound)} of what is left, the cap is not reached"
    return (
        head + f"; the bound of what is left ({_money(bound)}) passes the cap, so a run "
        "stops admitting episodes near it (it finishes those in flight)"
    )


def _keys_line(
    config: TournamentConfig,
    game: GameEntry,
    entrants: Sequence[EntrantConfig],
    environ: Mapping[str, str],
) -> str:
    names = sorted(
        {
            name
            for entrant in entrants
            for _, spec in entrant.seat_specs(game).values()
            if isinstance(spec, LLMSeatConfig)
            and (name := config.seat_options(spec).provider.key_env) is not None
        }
    )
    if not names:
        return "API keys: none needed"
    told = [f"{n} {'set' if environ.get(n) else 'NOT SET'}" for n in names]
    return f"API keys a run needs: {', '.join(told)} (a dry run needs none)"


__all__ = ["BASELINE_ENTRANTS", "BASELINE_SEEDS", "dry_run"]
