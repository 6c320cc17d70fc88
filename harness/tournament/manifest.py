"""A results folder's manifest.json: what the folder plans, and how it came to.

Every writer (a run, a resume, a growth, a merge) and every reader (reports, the
browser, replay, dry runs) goes through :class:`Manifest`; none reads the file's
keys. The file is versioned (``version``, :data:`MANIFEST_VERSION` written). A
manifest written before the field existed reads as version 1, whose keys arrived
over time (``prompts``, ``identities``, ``narrowing``, ``maxCostUsd``, ``stopped``,
``updatedAt``, ``sources``, ``identityAliases``, ``keptAgentEdits`` were added to the
first ones); what is absent reads as absent, and
:mod:`~harness.tournament.identity` gives such a folder the identities of the config
it kept. How an old or damaged manifest is read is decided here, in one place
(:meth:`Manifest.read` and the validators below it, as Inspect AI's ``EvalLog``
migrates older logs): a field whose value is not of its type reads as absent (a map
or list keeps its good entries), so a hand-edited folder is reported on, never a
crash. Only a file that is not a JSON object is refused.

The config as run (``config``) is kept as the JSON it was dumped to: entrant
identities are the hash of its text, so it is never parsed and dumped again.
:attr:`Manifest.run` reads what reports need of it (the entrants, the reference,
the name), and :meth:`Manifest.tournament_config` the whole config when this
version can read it. The JSON Schema is published as docs/schemas/manifest.schema.json.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import (
    ConfigDict,
    Field,
    JsonValue,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from harness.errors import ConfigError, RecordError
from harness.models import StrictModel
from harness.report.selection import Narrowed, Stopped
from harness.tournament.config import TournamentConfig

#: The version of the manifest this harness writes.
MANIFEST_VERSION = 2
#: The version of a manifest written before manifests had one.
UNVERSIONED = 1
#: A folder's shard when it is a merge of shards (which plans the whole tournament).
MERGED = "merged"
#: A JSON object, as the manifest keeps the config as run.
JsonObject = dict[str, JsonValue]


class _Lenient(StrictModel):
    """A model read from a folder's manifest: a value not of its field's type reads as
    the field's absence (its default), so a damaged part does not hide the rest."""

    @field_validator("*", mode="wrap")
    @classmethod
    def _or_absent(
        cls, value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo
    ) -> Any:
        try:
            return handler(value)
        except ValidationError:
            field = cls.model_fields[info.field_name or ""]
            return field.get_default(call_default_factory=True)


class HistoryEntry(StrictModel):
    """An earlier config the folder was run with, until it changed."""

    config_hash: str | None
    until: str | None = Field(description="When the last run of that config ended.")


class KeptAgentEdit(StrictModel):
    """A Python agent's code that had changed when a run was told the edit changed
    nothing of its play (``lighthouse run --keep-agent-episodes``): the finished
    episodes of its entrants were kept, not played again."""

    module: str
    earlier: str = Field(description="The sha256 of its code the episodes were played with.")
    now: str = Field(description="The sha256 of its code from that run on.")
    at: str | None = Field(None, description="When that run started.")


class RunEntrant(StrictModel):
    """An entrant of the config as run, as reports read it."""

    name: str
    seats: JsonObject | None = Field(
        None, description="Each seat group's spec as the config dumped it (null: unreadable)."
    )

    def baseline_team(self) -> dict[str, str] | None:
        """The baseline each seat group plays, or None if any seat is not a baseline."""
        if self.seats is None:
            return None
        team: dict[str, str] = {}
        for key, spec in self.seats.items():
            specs = spec if isinstance(spec, list) else [spec]
            names = {s.get("baseline") if isinstance(s, dict) else None for s in specs}
            name = names.pop() if len(names) == 1 else None
            if not isinstance(name, str):
                return None
            team[key] = name
        return team


class RunConfig(_Lenient):
    """What reports read of the config as run; a part that is unreadable reads as absent."""

    model_config = ConfigDict(extra="ignore")

    name: str | None = None
    reference: str | None = None
    entrants: list[RunEntrant] = Field(default_factory=list)
    rules: JsonObject = Field(default_factory=dict)
    episode_timeout_seconds: float | None = None

    @field_validator("entrants", mode="before")
    @classmethod
    def _named(cls, value: Any) -> Any:
        # an entrant without a name is skipped; one whose seats are unreadable is kept
        if not isinstance(value, list):
            return []
        return [
            {
                "name": e["name"],
                "seats": seats if isinstance(seats := e.get("seats"), dict) else None,
            }
            for e in value
            if isinstance(e, dict) and isinstance(e.get("name"), str)
        ]

    @property
    def entrant_names(self) -> list[str]:
        """The entrants' names, in the config's order."""
        return [e.name for e in self.entrants]


def _strings(value: Any) -> Any:
    """A map's entries whose values are texts (others dropped); a non-map as it is."""
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if isinstance(v, str)}
    return value


#: Keys a manifest holds only when they apply (the rest are always written).
_WHEN_SET = (
    "legacyIdentities",
    "identityAliases",
    "keptAgentEdits",
    "history",
    "mergedFrom",
    "shards",
    "missingShards",
)


class Manifest(_Lenient):
    """A results folder's manifest.json (see the module docstring)."""

    # a newer harness's keys are kept, and written back as they were
    model_config = ConfigDict(extra="allow")

    version: int = Field(MANIFEST_VERSION, description="The manifest format (absent: 1).")
    game: str = "lighthouse"
    config_hash: str | None = None
    config: JsonObject | None = Field(None, description="The config as run, as JSON.")
    config_file: str | None = Field(None, description="The config file the run was given.")
    shard: str | None = Field(None, description='"I/N" for a shard\'s folder, or "merged".')
    prompts: dict[str, str] = Field(
        default_factory=dict, description="The sha256 of each prompt file a seat used, by path."
    )
    episodes: int | None = Field(None, description="Episodes the folder plans.")
    identities: dict[str, str | None] | None = Field(
        None,
        description="Each entrant's identity now (null for one that cannot be told); "
        "absent in a folder written before identities.",
    )
    legacy_identities: dict[str, str] | None = Field(
        None, description="Each entrant's identity when results lines carried none."
    )
    sources: dict[str, str] | None = Field(
        None,
        description="The sha256 of the code of each Python agent a seat ran, by module "
        "(see harness/tournament/sources.py); absent in a folder written before an "
        "agent's code entered its entrant's identity.",
    )
    identity_aliases: dict[str, str] | None = Field(
        None,
        description="An identity results lines carry -> the identity they count as now: "
        "one a Python agent's entrant had before its code entered identities, or before "
        "an edit a run was told changed nothing (keptAgentEdits).",
    )
    kept_agent_edits: list[KeptAgentEdit] | None = Field(
        None,
        description="Each change of a Python agent's code whose entrants' finished "
        "episodes a run kept (lighthouse run --keep-agent-episodes).",
    )
    narrowing: Narrowed | None = None
    max_cost_usd: float | None = None
    stopped: Stopped | None = None
    harness_version: str | None = Field(None, description="The harness that started the folder.")
    started_at: str | None = None
    updated_at: str | None = None
    history: list[HistoryEntry] | None = Field(
        None, description="The configs the folder was run with before this one."
    )
    merged_from: list[str] | None = Field(None, description="A merge's source folders.")
    shards: list[str] | None = Field(None, description="The shards a merge holds.")
    missing_shards: list[str] | None = Field(None, description="The shards a merge lacks.")

    # -- reading: every older or damaged form, in one place --------------------------

    @classmethod
    def read(cls, data: bytes, where: str) -> Manifest:
        """The manifest in ``data``, the bytes of the file ``where``, of any version; a
        :class:`RecordError` when they are no JSON object."""
        try:
            raw = json.loads(data)
        except (ValueError, RecursionError) as exc:
            raise RecordError(f"{where}: unreadable manifest: {exc}") from None
        if not isinstance(raw, dict):
            raise RecordError(f"{where}: unreadable manifest: not a JSON object")
        # written before manifests had a version: the keys of their time, as they came
        return cls.model_validate({"version": UNVERSIONED, **raw})

    @model_validator(mode="before")
    @classmethod
    def _readable(cls, data: Any) -> Any:
        """Damaged parts of a map or a list left out, the good ones kept."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        game = data.get("game")
        if game is not None and not isinstance(game, str):
            data["game"] = str(game)  # named in the error that no game is called so
        for key in ("prompts", "legacyIdentities", "sources", "identityAliases"):
            if key in data:
                data[key] = _strings(data[key])
        identities = data.get("identities")
        if isinstance(identities, dict):
            # an identity that is not a text cannot be told
            data["identities"] = {
                k: v if isinstance(v, str) else None for k, v in identities.items()
            }
        for key in ("mergedFrom", "shards", "missingShards"):
            listed = data.get(key)
            if isinstance(listed, list):
                data[key] = [s for s in listed if isinstance(s, str)]
        history = data.get("history")
        if isinstance(history, list):
            data["history"] = [h for h in history if isinstance(h, dict)]
        edits = data.get("keptAgentEdits")
        if isinstance(edits, list):
            data["keptAgentEdits"] = [
                e
                for e in edits
                if isinstance(e, dict)
                and all(isinstance(e.get(k), str) for k in ("module", "earlier", "now"))
                and isinstance(e.get("at", ""), str | None)
            ]
        return data

    # -- what readers take from it ----------------------------------------------------

    @property
    def run(self) -> RunConfig:
        """What reports read of the config as run (nothing, when it is unreadable)."""
        return RunConfig.model_validate(self.config or {})

    def tournament_config(self) -> TournamentConfig | None:
        """The config as run, when this version can read it (else None: the plan of a
        folder from another version cannot be told)."""
        try:
            return TournamentConfig.model_validate(self.config)
        except (ValidationError, ValueError, TypeError, ConfigError):
            return None

    def title(self, folder_name: str) -> str:
        """The report's title: the config's name, else the folder's."""
        return f"Tournament {self.run.name if self.run.name is not None else folder_name}"

    def made_by_hint(self) -> str:
        """How to resume the folder with the config that made it."""
        if self.config_file is not None:
            return f"run {self.config_file}"
        return "run the folder's own config"

    # -- writing -----------------------------------------------------------------------

    def to_json(self) -> str:
        """The manifest as the folder keeps it (:data:`MANIFEST_VERSION`, keys sorted)."""
        data = self.model_dump(mode="json", by_alias=True)
        data["version"] = MANIFEST_VERSION
        for key in _WHEN_SET:
            if data.get(key) is None:
                data.pop(key, None)
        return json.dumps(data, indent=2, sort_keys=True) + "\n"


def manifest_schema() -> JsonObject:
    """The JSON Schema of a manifest (published as docs/schemas/manifest.schema.json)."""
    return Manifest.model_json_schema(by_alias=True, mode="serialization")


__all__ = [
    "MANIFEST_VERSION",
    "MERGED",
    "UNVERSIONED",
    "HistoryEntry",
    "JsonObject",
    "KeptAgentEdit",
    "Manifest",
    "RunConfig",
    "RunEntrant",
    "manifest_schema",
]
