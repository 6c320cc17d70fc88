"""Entrant identities: what makes two runs of an entrant the same entrant.

An entrant's identity is the sha256 of a canonical JSON text of everything that
decides how its episodes are played:

- the game, its ``rules`` table and ``episode_timeout_seconds``, as the config gives
  them;
- every seat's spec, one per seat (one spec for a group equals the same spec listed
  per seat): a baseline by name; an LLM seat with every option it lists (model,
  temperature, max_tokens, seed, structured output, timeouts), its provider's
  ``kind`` and ``base_url`` (which server answers) and its three prompts by the
  sha256 of their contents (the shipped defaults when it names none); a Python
  agent by its import path, timeout, prompts and the sha256 of its code (``source``:
  its module's package, or the module alone; see sources.py), so an edit of the
  agent plays its entrant's episodes again. Both, when the game renders its
  observations in a layout after the first (``promptLayout``, see
  :attr:`~harness.protocol.SeatIO.prompt_layout`), with that layout: the text they
  read changed, so they are other entrants than the ones that read the first.

Left out: the entrant's name (it names the identity), the seeds, variants and
repetitions (they choose episodes, not how one is played), a provider's rate
limits, key variable, transport and prices, and a seat's ``prompt_cache`` (they
change how fast or what a call costs, not what it answers).

The identity is computed from the JSON a manifest keeps (the config as run, its
prompts' sha256 by path and its agents' code by module), so a folder written before
identities existed can be given the identities of the config it was made by. An
episode's record carries its entrant's identity in every seat's agent details
(``entrantIdentity``), and its results line in ``identity``.

Lines written earlier count by what the folder knew then (:class:`LineIdentities`):
a line without an identity by the folder's ``legacyIdentities``, and one whose
identity was computed before an agent's code entered identities (a manifest without
``sources``: no code digest in the text) by ``identityAliases``, which maps it to the
identity with the code as it is at the first run that records it. The same alias
keeps an entrant's episodes across an edit of its agent when the run is told the edit
changed nothing (``--keep-agent-episodes``, recorded as ``keptAgentEdits``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from harness.errors import HarnessError
from harness.llm.fleet import endpoint_label
from harness.llm.prompts import default_prompt_files
from harness.protocol import GameEntry
from harness.records import AgentInfo
from harness.seats import Seat, SeatReply, SeatRequest, is_scripted
from harness.summary import IDENTITY_DETAIL, EpisodeSummary
from harness.tournament.manifest import JsonObject, KeptAgentEdit, Manifest
from harness.tournament.sources import module_of

#: Provider options that decide what answers a call (the rest decide how fast).
_PROVIDER_KEYS = ("kind", "baseUrl")
#: LLM seat options that decide what a call costs, never what it answers.
_COST_KEYS = frozenset({"prompt_cache", "promptCache"})
#: Prompt fields of a seat spec, and the shipped default's attribute for each.
_PROMPT_FIELDS = {"system": "system", "observation": "observation", "retryHint": "retry_hint"}


def _get(data: Mapping[str, Any], camel: str) -> Any:
    """A key of config JSON, in camelCase (as dumped) or snake_case (as written)."""
    if camel in data:
        return data[camel]
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in camel)
    return data.get(snake)


def _prompts(spec: Mapping[str, Any], game: str, role: str, hashes: Mapping[str, Any]) -> Any:
    """The seat's prompts by content; None when a file's sha256 is not known."""
    given = spec.get("prompts")
    defaults = default_prompt_files(game, role)
    out: dict[str, str] = {}
    for key, attr in _PROMPT_FIELDS.items():
        path = _get(given, key) if isinstance(given, Mapping) else str(getattr(defaults, attr))
        digest = hashes.get(path) if isinstance(path, str) else None
        if not isinstance(digest, str):
            return None
        out[key] = digest
    return out


def _seat(
    spec: Any,
    game: str,
    role: str,
    providers: Mapping[str, Any],
    hashes: Mapping[str, Any],
    sources: Mapping[str, str] | None,
    layout: int = 1,
) -> Any:
    """One seat's spec as it enters the identity; None when it cannot be told.

    ``sources`` None: the identity as it was before an agent's code entered it.
    ``layout``: the game's prompt layout (1 leaves the text as it was before layouts)."""
    if not isinstance(spec, Mapping):
        return None
    shown = {"promptLayout": layout} if layout != 1 else {}
    if "python" in spec:  # your own agent: its import path, options, prompts and code
        prompts = _prompts(spec, game, role, hashes)
        if prompts is None:
            return None
        seat = {**spec, "prompts": prompts, **shown}
        if sources is not None:  # null: a module that could not be found
            target = spec["python"]
            seat["source"] = sources.get(module_of(target)) if isinstance(target, str) else None
        return seat
    if "provider" not in spec:
        return dict(spec)  # a baseline: its name is all there is
    provider = providers.get(spec["provider"]) if isinstance(spec["provider"], str) else None
    if not isinstance(provider, Mapping):
        return None
    prompts = _prompts(spec, game, role, hashes)
    if prompts is None:
        return None
    return {
        **{k: v for k, v in spec.items() if k != "provider" and k not in _COST_KEYS},
        "provider": {k: _get(provider, k) for k in _PROVIDER_KEYS},
        "prompts": prompts,
        **shown,
    }


def identity_text(
    game: GameEntry,
    config: Mapping[str, Any],
    entrant: Mapping[str, Any],
    hashes: Mapping[str, Any],
    sources: Mapping[str, str] | None = None,
    layout: int | None = None,
) -> str | None:
    """The canonical text an entrant's identity is the hash of; None when it cannot be told
    (a prompt file whose sha256 was not kept, a provider that is not defined).

    ``sources`` (the agents' code by module) None: the text as it was before an
    agent's code entered it, as a folder of that time computed it. ``layout``: the
    game's prompt layout the seats read (None: the game's own now)."""
    seats = entrant.get("seats")
    providers = config.get("providers")
    if not isinstance(seats, Mapping) or not isinstance(providers, Mapping):
        return None
    by_group: dict[str, list[Any]] = {}
    for group in game.seat_groups:
        spec = seats.get(group.key)
        specs = spec if isinstance(spec, list) else [spec] * len(group.seats)
        if len(specs) != len(group.seats):
            return None
        read = game.seat_io.prompt_layout if layout is None else layout
        resolved = [
            _seat(s, game.name, group.role, providers, hashes, sources, read) for s in specs
        ]
        if any(r is None for r in resolved):
            return None
        by_group[group.key] = resolved
    rules = _get(config, "rules")
    doc = {
        "game": game.name,
        "rules": rules if rules is not None else {},
        "episodeTimeoutSeconds": _get(config, "episodeTimeoutSeconds"),
        "seats": by_group,
    }
    return json.dumps(doc, sort_keys=True, separators=(",", ":"))


def entrant_identities(
    game: GameEntry,
    config: JsonObject | None,
    hashes: Mapping[str, str],
    sources: Mapping[str, str] | None = None,
    layout: int | None = None,
) -> dict[str, str | None]:
    """Each entrant's identity from a config's JSON (as a manifest keeps it), its
    prompts' sha256 by path and its agents' code by module (None: as identities were
    before the code entered them), its seats reading the game's prompt layout
    ``layout`` (None: the game's own now); None for an entrant whose identity cannot
    be told."""
    if config is None:
        return {}
    entrants = config.get("entrants")
    out: dict[str, str | None] = {}
    for entrant in entrants if isinstance(entrants, list) else []:
        name = entrant.get("name") if isinstance(entrant, dict) else None
        if not isinstance(entrant, dict) or not isinstance(name, str):
            continue
        text = identity_text(game, config, entrant, hashes, sources, layout)
        out[name] = None if text is None else hashlib.sha256(text.encode()).hexdigest()
    return out


def manifest_identities(game: GameEntry, manifest: Manifest) -> dict[str, str | None]:
    """The identities a manifest's entrants have now: as recorded, or, for a folder
    written before identities were, computed from the config and prompts it kept."""
    if manifest.identities is not None:
        return dict(manifest.identities)
    return entrant_identities(game, manifest.config, manifest.prompts, manifest.sources)


def legacy_identities(game: GameEntry, manifest: Manifest) -> dict[str, str]:
    """The identity each entrant had when results lines carried none.

    A line without an identity was written before identities existed, under the
    config of the manifest of that time. The first run that records identities in
    such a folder keeps them as ``legacyIdentities``; later runs carry them forward.
    """
    if manifest.legacy_identities is not None:
        return dict(manifest.legacy_identities)
    if manifest.identities is not None:
        return {}  # written with identities from the start: no line lacks one
    found = entrant_identities(game, manifest.config, manifest.prompts, manifest.sources)
    return {k: v for k, v in found.items() if v is not None}


def line_identity(identity: str | None, entrant: str, legacy: Mapping[str, str]) -> str | None:
    """The identity of a finished episode: its own, else its folder's legacy one."""
    return identity if identity is not None else legacy.get(entrant)


@dataclass(frozen=True)
class LineIdentities:
    """How a folder's finished lines are told apart by identity: the identity a line
    counts as, from its own (or its folder's legacy one) through the folder's aliases."""

    legacy: Mapping[str, str] = field(default_factory=dict)
    """Each entrant's identity, for a line that carries none."""
    aliases: Mapping[str, str] = field(default_factory=dict)
    """An identity a line carries -> the identity it counts as now."""

    def of(self, identity: str | None, entrant: str) -> str | None:
        """The identity a finished episode of ``entrant`` carrying ``identity`` counts as."""
        own = line_identity(identity, entrant, self.legacy)
        return None if own is None else self.aliases.get(own, own)


def line_identities(game: GameEntry, manifest: Manifest) -> LineIdentities:
    """How the lines of the folder of ``manifest`` count, as the manifest records it."""
    return LineIdentities(legacy_identities(game, manifest), dict(manifest.identity_aliases or {}))


def _alias(aliases: Mapping[str, str], earlier: str, now: str) -> dict[str, str]:
    """``aliases`` with ``earlier`` counting as ``now``, and every identity that
    counted as ``earlier`` too (one step always reaches the identity now)."""
    out = {k: now if v == earlier else v for k, v in aliases.items()}
    out[earlier] = now
    return {k: v for k, v in out.items() if k != v}


def _with_kept_urls(config: JsonObject, earlier: JsonObject | None) -> JsonObject | None:
    """``config`` with each provider's base URL as ``earlier`` (a config as a folder
    kept it) gives it, where that is the same server's URL with the credentials a
    manifest now leaves out (:func:`~harness.llm.fleet.endpoint_label`); None when no
    provider's differs so."""
    providers, kept = config.get("providers"), _get(earlier or {}, "providers")
    if not isinstance(providers, dict) or not isinstance(kept, Mapping):
        return None
    swapped: JsonObject = {}
    for name, provider in providers.items():
        was = kept.get(name)
        url = _get(was, "baseUrl") if isinstance(was, Mapping) else None
        if isinstance(provider, dict) and url is not None and url != provider.get("baseUrl"):
            urls = [url] if isinstance(url, str) else url
            if isinstance(urls, list) and all(isinstance(u, str) for u in urls):
                labels = [endpoint_label(u) for u in urls]
                if (labels[0] if isinstance(url, str) else labels) == provider.get("baseUrl"):
                    swapped[name] = {**provider, "baseUrl": url}
    return {**config, "providers": {**providers, **swapped}} if swapped else None


@dataclass(frozen=True)
class Carried:
    """What a run takes over from the folder it resumes, about identities."""

    lines: LineIdentities
    """How the folder's finished lines count now."""
    kept_edits: tuple[KeptAgentEdit, ...] = ()
    """Every change of an agent's code whose episodes were kept, this run's included."""
    code_changed: tuple[str, ...] = ()
    """Entrants whose agent's code changed and nothing else: they play again."""
    notes: tuple[str, ...] = ()
    """What the run says about it (the edits it kept)."""
    earlier_layouts: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Each entrant's identity at each earlier prompt layout of the game: what a line
    played when the harness sent its seats another text counts as."""

    def relaid(self, lines: Iterable[EpisodeSummary]) -> list[str]:
        """The entrants of ``lines`` (set aside) that played them at an earlier prompt
        layout of the game, as it is now otherwise, sorted."""
        return sorted(
            {
                line.entrant
                for line in lines
                if self.lines.of(line.identity, line.entrant)
                in self.earlier_layouts.get(line.entrant, frozenset())
            }
        )

    def recorded_in(self, manifest: Manifest) -> Manifest:
        """``manifest`` with what the folder must keep of it."""
        return manifest.model_copy(
            update={
                "legacy_identities": dict(self.lines.legacy) or None,
                "identity_aliases": dict(self.lines.aliases) or None,
                "kept_agent_edits": list(self.kept_edits) or None,
            }
        )


def carry_identities(
    game: GameEntry,
    old: Manifest | None,
    *,
    config: JsonObject,
    hashes: Mapping[str, str],
    sources: Mapping[str, str],
    identities: Mapping[str, str | None],
    keep_agent_edits: bool = False,
    at: str | None = None,
) -> Carried:
    """How the finished lines of the folder of ``old`` count for the config run now
    (``config``, ``hashes``, ``sources``, whose entrants have ``identities``).

    An entrant whose identity now differs from the one the folder knew by its agents'
    code alone keeps its episodes (an alias) when the folder recorded no code (it was
    written before code entered identities: its lines were played with the code as it
    is now, as far as anyone can tell), or when ``keep_agent_edits`` says the edit
    changed nothing of its play (recorded as a :class:`KeptAgentEdit`, at ``at``);
    else it is named in :attr:`Carried.code_changed` and plays again. An entrant the
    folder knew at an earlier prompt layout of the game (its seats read another text
    then) plays again; :attr:`Carried.earlier_layouts` tells such lines apart.
    """
    if old is None:
        return Carried(LineIdentities())
    legacy = legacy_identities(game, old)
    aliases = dict(old.identity_aliases or {})
    edits = list(old.kept_agent_edits or ())
    # the identities the folder's counted lines carry (or count as)
    known = {v for v in manifest_identities(game, old).values() if v is not None}
    known |= set(legacy.values())
    # each entrant's identity with the code the folder recorded (none: from before code)
    recorded = None if old.sources is None else {**sources, **old.sources}
    before = entrant_identities(game, config, hashes, recorded)
    # lines written when a manifest kept a base URL as given, credentials and all: their
    # identities were taken of that URL; the same server's entrant is the same entrant
    kept = _with_kept_urls(config, old.config)
    if kept is not None:
        for name, was in entrant_identities(game, kept, hashes, recorded).items():
            now = identities.get(name)
            same_code = old.sources is None or before.get(name) == now
            if now is not None and was is not None and was != now and was in known and same_code:
                aliases = _alias(aliases, was, now)
    changed: list[str] = []
    for name, now in identities.items():
        earlier = before.get(name)
        if now is None or earlier is None or earlier == now or earlier not in known:
            continue
        if old.sources is None or keep_agent_edits:
            aliases = _alias(aliases, earlier, now)
        else:
            changed.append(name)
    notes: list[str] = []
    if keep_agent_edits and old.sources is not None:
        when = at or datetime.now(UTC).isoformat(timespec="seconds")
        for module, digest in sorted(sources.items()):
            was = old.sources.get(module)
            if was is not None and was != digest:
                edits.append(KeptAgentEdit(module=module, earlier=was, now=digest, at=when))
                notes.append(
                    f"{module}: its code changed; --keep-agent-episodes keeps the finished "
                    "episodes of its entrants (recorded in the manifest's keptAgentEdits)"
                )
    by_layout = [
        entrant_identities(game, config, hashes, recorded, layout)
        for layout in range(1, game.seat_io.prompt_layout)
    ]
    earlier_layouts = {
        name: frozenset(i for ids in by_layout if (i := ids.get(name)) not in (None, now))
        for name, now in identities.items()
    }
    lines = LineIdentities(legacy, aliases)
    return Carried(lines, tuple(edits), tuple(changed), tuple(notes), earlier_layouts)


@dataclass(frozen=True)
class IdentifiedSeat:
    """A seat whose agent details also name its entrant's identity (for the record)."""

    seat: Seat
    identity: str

    @property
    def agent(self) -> AgentInfo:
        """The wrapped seat's agent, with ``entrantIdentity`` among its details."""
        agent = self.seat.agent
        details = {**agent.details, IDENTITY_DETAIL: self.identity}
        return agent.model_copy(update={"details": details})

    async def decide(self, request: SeatRequest) -> SeatReply:
        """The wrapped seat's answer."""
        return await self.seat.decide(request)

    @property
    def scripted(self) -> bool:
        """Whether the wrapped seat is scripted (:func:`~harness.seats.is_scripted`)."""
        return is_scripted(self.seat)

    def decide_now(self, request: SeatRequest) -> SeatReply:
        """The wrapped scripted seat's answer, at once."""
        if not is_scripted(self.seat):
            raise HarnessError(f"seat {request.seat.seat} is not scripted: ask it with decide")
        return self.seat.decide_now(request)


def identified(seats: Mapping[str, Seat], identity: str) -> dict[str, Seat]:
    """``seats`` with ``identity`` in every seat's agent details."""
    return {seat_id: IdentifiedSeat(seat, identity) for seat_id, seat in seats.items()}


__all__ = [
    "IDENTITY_DETAIL",
    "Carried",
    "IdentifiedSeat",
    "LineIdentities",
    "carry_identities",
    "entrant_identities",
    "identified",
    "identity_text",
    "legacy_identities",
    "line_identities",
    "line_identity",
    "manifest_identities",
]
