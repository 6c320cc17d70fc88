"""A person's episode joins a results folder as an entrant: ``lighthouse add DIR RECORD --as NAME``.

A tournament never plays a seat a person plays (decision L4): the person plays on the
page of ``lighthouse serve``, which hands back the episode's record, and this module
adds that record to a folder, so that a human baseline sits in the same report as the
models and bots, on the same seeds.

The record must be a finished episode that replays clean, of the folder's game, seed
(one of its seeds), variant and rules (the episode timeout aside: a person's episode
states its own, see docs/rules.md), with at least one seat of kind ``human`` and every
other seat a baseline. Its entrant is made from its seats (``{ human = "Ada" }`` and
the baselines' names) and added to the folder's config unless the folder has it
already with the same seats; the episode takes the entrant's first repetition the
folder does not hold yet. The manifest is written as a run writes it (the config, its
hash, the entrants' identities, the plan, the history), then the record, whose header
alone is rewritten (the episode id, each seat's ``entrantIdentity``), then its results
line: the order a run commits in, so that a crash anywhere leaves a folder a resume
repairs. A later ``lighthouse run`` of the folder plays everyone else and leaves the
human entrant's other episodes unplayed (its row stays marked incomplete).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from pydantic import JsonValue, ValidationError

from harness.errors import ConfigError, RecordError
from harness.files import MAX_RECORD_BYTES, read_regular
from harness.models import JsonObject
from harness.protocol import GameEntry
from harness.reader import open_record
from harness.records import (
    AgentInfo,
    HeaderLine,
    SeatInfo,
    dump_doc,
    json_object,
    json_objects,
    keys,
)
from harness.registry import get_game
from harness.seat_spec import HumanSeatConfig
from harness.summary import IDENTITY_DETAIL, EpisodeSummary, episode_id
from harness.tournament.audit import derive, engine_problem
from harness.tournament.config import EntrantConfig, TournamentConfig
from harness.tournament.growth import next_manifest
from harness.tournament.lock import FolderLock
from harness.tournament.names import ENTRANT_NAME, ENTRANT_RULE
from harness.tournament.plan import PlanIndex, parse_shard
from harness.tournament.prepare import prepare
from harness.tournament.store import ResultsFolder, fsync_path

_HEADER = keys(HeaderLine)
_SEAT = keys(SeatInfo)
_AGENT = keys(AgentInfo)
#: The rules key a person's episode may differ in: it states its own play budget (L4).
_OWN_BUDGET = "episodeTimeoutSeconds"


@dataclass(frozen=True)
class Joined:
    """What :func:`add_record` did."""

    entrant: str
    episode_id: str
    new_entrant: bool
    """True when the entrant was added to the folder's config now."""
    toml: str
    """The entrant as a config file writes it (for the user's own config file)."""
    summary: EpisodeSummary


def add_record(root: Path, record: Path, *, entrant: str) -> Joined:
    """Add the person's episode at ``record`` to the results folder ``root`` as ``entrant``.

    Checked before anything is written (each a :class:`ConfigError` or
    :class:`RecordError` naming what is wrong): the folder (its manifest and config),
    the entrant's name, the record (finished, clean on replay, of the folder's game,
    rules, seeds and variants, a person at one seat at least and baselines at the
    rest), the entrant's seats (those the folder has for it, if any) and a repetition
    left for the episode. Holds the folder's lock while it writes.
    """
    if not ENTRANT_NAME.fullmatch(entrant):
        raise ConfigError(f"--as: {entrant!r} must be {ENTRANT_RULE}")
    folder = ResultsFolder(root)
    if not os.path.lexists(folder.manifest_path):
        raise ConfigError(f"{root}: no manifest.json here; is it a results folder?")
    lock = FolderLock(root)
    lock.acquire()
    try:
        return _add(folder, record, entrant)
    finally:
        lock.release()


def _add(folder: ResultsFolder, record: Path, entrant: str) -> Joined:
    old = folder.manifest()
    config = old.tournament_config()
    if config is None or old.shard is None:
        raise ConfigError(
            f"{folder.root}: this harness cannot read the folder's config; add the record "
            "with the harness that made the folder"
        )
    game = get_game(old.game)
    shard = parse_shard(old.shard) if old.shard != "merged" else (1, 1)
    header = _header_doc(record, game)
    seed, variant = _episode_of(header, config, record)
    _check_rules(header, config, variant, record)
    problem = engine_problem(game, record)
    if problem is not None:
        raise RecordError(f"{record}: {problem}")
    seats = _entrant_seats(header, game, record)
    given = EntrantConfig.model_validate({"name": entrant, "seats": seats})
    known = {e.name.casefold(): e for e in config.entrants}
    existing = known.get(entrant.casefold())
    if existing is not None and existing.name != entrant:
        raise ConfigError(f"--as: {entrant!r} differs from the entrant {existing.name!r} by case")
    if existing is not None and _seats_json(existing) != _seats_json(given):
        raise ConfigError(
            f"--as: the folder's entrant {entrant!r} plays other seats "
            f"({_seats_json(existing)}) than this record ({_seats_json(given)}); "
            "choose another name"
        )
    grown = config if existing is not None else _with_entrant(config, given)
    plans = PlanIndex(grown, shard)
    held = {line.episode_id for line in folder.iter_summaries()}
    repetition = next(
        (
            r
            for r in range(grown.repetitions)
            if episode_id(entrant, variant, seed, r) not in held
            and episode_id(entrant, variant, seed, r) in plans
        ),
        None,
    )
    if repetition is None:
        raise ConfigError(
            f"--as: {entrant!r} has every repetition of seed {seed}, variant {variant!r} the "
            f"folder plans ({grown.repetitions}) already, or this shard ({old.shard}) does "
            "not hold it; play another seed"
        )
    episode = episode_id(entrant, variant, seed, repetition)
    prepared = prepare(grown, folder.root, shard=shard, config_file=old.config_file)
    identity = prepared.identities.get(entrant)
    if identity is None:
        raise ConfigError(f"--as: the identity of {entrant!r} cannot be told")
    manifest = prepared.carry(old).recorded_in(prepared.manifest)
    manifest = manifest.model_copy(
        update={
            "narrowing": old.narrowing,
            "max_cost_usd": old.max_cost_usd,
            "stopped": old.stopped,
        }
    )
    folder.open(next_manifest(old, manifest))
    _write_record(folder, record, header, episode, identity)
    summary = derive(game, folder.record_path(episode), folder.root)
    folder.append(summary)
    return Joined(
        entrant=entrant,
        episode_id=episode,
        new_entrant=existing is None,
        toml=entrant_toml(given),
        summary=summary,
    )


def _header_doc(record: Path, game: GameEntry) -> JsonObject:
    """The record's header as JSON, checked: of ``game``, finished, with its seats."""
    opened = open_record(record)
    if opened.game.name != game.name:
        raise RecordError(f"{record}: a {opened.game.name} record, not {game.name}", line=1)
    lines = opened.lines()
    if lines[-1].type != "end":
        raise RecordError(f"{record}: this record has no end line: the episode is not over")
    doc: JsonObject = opened.header.model_dump(mode="json", by_alias=True)
    return doc


def _episode_of(header: JsonObject, config: TournamentConfig, record: Path) -> tuple[int, str]:
    seed, variant = header.get(_HEADER.seed), header.get(_HEADER.variant)
    if not isinstance(seed, int) or not isinstance(variant, str):
        raise RecordError(f"{record}: its header names no seed and variant")
    seeds = config.seed_order()
    if seed not in seeds:
        if isinstance(seeds, range):
            shown = f"{seeds.start}..{seeds.stop - 1}"
        else:
            shown = ", ".join(map(str, seeds[:10])) + (", ..." if len(seeds) > 10 else "")
        raise ConfigError(
            f"{record}: seed {seed} is not one of the folder's seeds ({shown}); play one of them"
        )
    if variant not in config.variant_list():
        raise ConfigError(
            f"{record}: variant {variant!r} is not one of the folder's {config.variant_list()}"
        )
    return seed, variant


def _check_rules(header: JsonObject, config: TournamentConfig, variant: str, path: Path) -> None:
    """The record was played by the folder's rules, but for the play budget it states."""
    played = dict(json_object(header[_HEADER.config]))
    planned = config.game_config(variant).model_dump(mode="json", by_alias=True)
    differ = sorted(
        key for key in played.keys() | planned.keys()
        if key != _OWN_BUDGET and played.get(key) != planned.get(key)
    )  # fmt: skip
    if differ:
        shown = ", ".join(f"{k} {played.get(k)!r} (folder: {planned.get(k)!r})" for k in differ)
        raise ConfigError(f"{path}: played by other rules than the folder's: {shown}")


def _entrant_seats(header: JsonObject, game: GameEntry, record: Path) -> dict[str, JsonValue]:
    """Each seat group's specs, from the record's seats: a person or a baseline each."""
    by_seat: dict[str, JsonValue] = {}
    people = 0
    for info in json_objects(header[_HEADER.seats]):
        agent = json_object(info[_SEAT.agent])
        seat, kind, name = info[_SEAT.seat], agent[_AGENT.kind], agent[_AGENT.name]
        if not isinstance(seat, str) or not isinstance(name, str):
            raise RecordError(f"{record}: a seat of its header has no id or agent name")
        if kind == "human":
            people += 1
            details = json_object(agent.get(_AGENT.details) or {})
            tick = details.get("tickSeconds")
            spec: JsonObject = {"human": name}
            if isinstance(tick, str):
                spec["tickSeconds"] = float(tick)
            try:
                HumanSeatConfig.model_validate(spec)
            except ValidationError:
                raise RecordError(f"{record}: {seat}: {name!r} is not a player's name") from None
            by_seat[seat] = spec
        elif kind == "baseline":
            by_seat[seat] = {"baseline": name}
        else:
            raise ConfigError(
                f"{record}: {seat} was played by {kind} {name!r}: only a person's episode "
                "(its other seats baselines) is added; a run plays models and agents itself"
            )
    if people == 0:
        raise ConfigError(
            f"{record}: no seat of it was played by a person (kind human); a run plays "
            "baselines itself"
        )
    groups: dict[str, JsonValue] = {}
    for group in game.seat_groups:
        specs = [by_seat.get(seat) for seat in group.seats]
        if any(spec is None for spec in specs):
            raise RecordError(f"{record}: its header lacks a seat of {group.key}")
        same = all(spec == specs[0] for spec in specs)
        groups[group.key] = specs[0] if same else list(specs)
    return groups


def _seats_json(entrant: EntrantConfig) -> str:
    """An entrant's seats as canonical JSON, one spec per seat (a group's one spec listed)."""
    data = entrant.model_dump(mode="json", by_alias=True)["seats"]
    return json.dumps(data, sort_keys=True)


def _with_entrant(config: TournamentConfig, entrant: EntrantConfig) -> TournamentConfig:
    data = config.model_dump(mode="json", by_alias=True)
    data["entrants"] = [*data["entrants"], entrant.model_dump(mode="json", by_alias=True)]
    return TournamentConfig.model_validate(data)


def _write_record(
    folder: ResultsFolder, record: Path, header: JsonObject, episode: str, identity: str
) -> None:
    """The record under its new id: its header rewritten, every other line as it was."""
    data = read_regular(record, None, limit=MAX_RECORD_BYTES)
    _, _, rest = data.partition(b"\n")
    doc = dict(header)
    doc[_HEADER.episode_id] = episode
    seats: list[JsonValue] = []
    for seen in json_objects(header[_HEADER.seats]):
        info = dict(seen)
        agent = dict(json_object(info[_SEAT.agent]))
        agent[_AGENT.details] = {
            **json_object(agent.get(_AGENT.details) or {}),
            IDENTITY_DETAIL: identity,
        }
        info[_SEAT.agent] = agent
        seats.append(info)
    doc[_HEADER.seats] = seats
    partial = folder.partial_path(episode)
    folder.records.mkdir(parents=True, exist_ok=True)
    with partial.open("wb") as handle:
        handle.write((dump_doc(doc) + "\n").encode("utf-8") + rest)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, folder.record_path(episode))
    fsync_path(folder.records)


def entrant_toml(entrant: EntrantConfig) -> str:
    """The entrant as a config file's ``[[entrants]]`` table writes it."""
    lines = ["[[entrants]]", f"name = {json.dumps(entrant.name)}"]
    for key, specs in entrant.model_dump(mode="json", by_alias=True)["seats"].items():
        lines.append(f"{key} = {_toml_value(specs)}")
    return "\n".join(lines) + "\n"


def _toml_value(value: JsonValue) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        snake = {"tickSeconds": "tick_seconds"}
        parts = [f"{snake.get(k, k)} = {_toml_value(v)}" for k, v in value.items() if v is not None]
        return "{ " + ", ".join(parts) + " }"
    return json.dumps(value)


__all__ = ["Joined", "add_record", "entrant_toml"]
