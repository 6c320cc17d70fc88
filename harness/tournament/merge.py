"""Joining the results folders of one tournament's shards into one."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path

from harness.errors import ConfigError, RecordError
from harness.protocol import GameEntry
from harness.registry import get_game
from harness.summary import EpisodeSummary
from harness.tournament.audit import audit
from harness.tournament.growth import changed_keys
from harness.tournament.identity import manifest_identities
from harness.tournament.lock import FolderLock, check_place
from harness.tournament.manifest import MERGED, KeptAgentEdit, Manifest
from harness.tournament.planned import missing_shards, plan_of, shards_of
from harness.tournament.store import ResultsFolder


def merge_folders(sources: Sequence[Path], out: Path) -> int:
    """Copy every finished episode of ``sources`` into ``out``; return how many.

    The shards must be of one tournament (the same config, every entrant of the same
    identity in each), and no run may be writing them. Every
    results line is checked against its record first (see ``audit``); a shard with a
    line that does not match is refused, so resume it (``lighthouse run``) to repair
    it. The lines copied carry their record's sha256. An episode found in two shards
    is kept once.
    """
    check_place(out)
    folders = [ResultsFolder(p) for p in sources]
    manifests = [f.manifest() for f in folders]
    game = get_game(manifests[0].game)
    for source, manifest in zip(sources[1:], manifests[1:], strict=True):
        _check_one_tournament(game, (sources[0], manifests[0]), (source, manifest))
    merged = _lines_counted_alike(_merged_manifest(manifests, sources), manifests, sources)
    target = ResultsFolder(out)
    if target.manifest_path.exists():
        raise ConfigError(f"merge: {out} already holds results; choose a new --out")
    with ExitStack() as held:
        for folder in folders:
            held.enter_context(FolderLock(folder.root, shared=True))
        chosen: dict[str, tuple[ResultsFolder, EpisodeSummary]] = {}
        for folder in folders:
            found = audit(folder.episodes_path, folder.records, game)
            if found.problems:
                listed = "; ".join(c.describe() for c in found.problems[:5])
                raise RecordError(
                    f"merge: {folder.episodes_path}: {len(found.problems)} results line(s) do "
                    f"not match their records (line {listed}); run `lighthouse run` on that "
                    "shard to repair it, or `lighthouse replay` it to see every problem"
                )
            for check in found.checks:
                if check.derived is not None:
                    chosen.setdefault(check.derived.episode_id, (folder, check.derived))
        held.enter_context(FolderLock(out))
        target.records.mkdir(parents=True, exist_ok=True)
        target.write_manifest(merged)
        for episode, (folder, summary) in chosen.items():
            shutil.copyfile(folder.record_path(episode), target.record_path(episode))
            target.append(summary)
    return len(chosen)


def _check_one_tournament(
    game: GameEntry, first: tuple[Path, Manifest], other: tuple[Path, Manifest]
) -> None:
    """Refuse two shards that are not of one tournament, naming what differs: another
    config, or the same config whose entrants play otherwise in each (an agent's code
    or a prompt file edited between the two runs, or another harness), which the
    config alone does not tell: the merged folder would count one shard's episodes
    and not the other's."""
    (here, ours), (there, theirs) = first, other
    if ours.config_hash != theirs.config_hash or (
        ours.config_hash is None and ours.config != theirs.config
    ):
        keys = changed_keys(ours.config, theirs.config, skip=())
        differ = f" (they differ in: {', '.join(keys)})" if keys else ""
        raise ConfigError(
            f"merge: {here} and {there} were made by different configs{differ}; "
            "merge the shards of one config"
        )
    mine, yours = manifest_identities(game, ours), manifest_identities(game, theirs)
    # an identity that cannot be told (a folder from before prompts were hashed) is no
    # evidence either way: such shards merge as they always did
    entrants = [
        name
        for name, identity in mine.items()
        if None not in (identity, yours.get(name)) and yours[name] != identity
    ]
    if not entrants:
        return
    why = [
        f"agent code of {module}"
        for module, digest in sorted((ours.sources or {}).items())
        if (theirs.sources or {}).get(module, digest) != digest
    ] + [
        f"prompt file {path}"
        for path, digest in sorted(ours.prompts.items())
        if theirs.prompts.get(path, digest) != digest
    ]
    versions = (ours.harness_version, theirs.harness_version)
    if not why and versions[0] != versions[1]:
        why = [f"the harnesses that started them ({versions[0]}, {versions[1]})"]
    who = f"entrant {entrants[0]}" if len(entrants) == 1 else f"entrants {', '.join(entrants)}"
    differ = f" (they differ in: {'; '.join(why)})" if why else ""
    raise ConfigError(
        f"merge: {here} and {there} are shards of different tournaments: {who} "
        f"played otherwise in each{differ}; merge shards played alike, or play the "
        "shard that differs again (`lighthouse run` on its folder replays its episodes)"
    )


def _lines_counted_alike(
    merged: Manifest, manifests: Sequence[Manifest], sources: Sequence[Path]
) -> Manifest:
    """``merged`` counting every shard's finished lines as that shard does: each shard's
    identity aliases and legacy identities (a shard resumed from an older folder counts
    its lines by them, and so must the merge) and kept agent edits, together. Two
    shards that count one identity otherwise are refused."""
    aliases: dict[str, str] = {}
    legacy: dict[str, str] = {}
    edits: list[KeptAgentEdit] = []
    for source, manifest in zip(sources, manifests, strict=True):
        for kept, given, what in (
            (aliases, manifest.identity_aliases, "the identity"),
            (legacy, manifest.legacy_identities, "the lines without an identity of entrant"),
        ):
            for key, value in (given or {}).items():
                if kept.setdefault(key, value) != value:
                    raise ConfigError(
                        f"merge: {source} counts {what} {key} as {value}, an earlier shard "
                        f"as {kept[key]}: they are shards of different tournaments; merge "
                        "shards played alike"
                    )
        edits += [edit for edit in manifest.kept_agent_edits or () if edit not in edits]
    return merged.model_copy(
        update={
            "identity_aliases": aliases or None,
            "legacy_identities": legacy or None,
            "kept_agent_edits": edits or None,
        }
    )


def _merged_manifest(manifests: Sequence[Manifest], sources: Sequence[Path]) -> Manifest:
    """The first shard's manifest, as the whole tournament's: which shards it holds,
    which it lacks, and the episodes the whole tournament plans (not the sum of the
    shards given, which would call one shard of two complete)."""
    covered = set().union(*(shards_of(m) for m in manifests))
    manifest = manifests[0].model_copy(
        update={
            "shard": MERGED,
            "merged_from": [str(p) for p in sources],
            "shards": sorted(covered, key=_shard_key),
            "missing_shards": list(missing_shards(covered)),
        }
    )
    plan = plan_of(manifest)
    episodes = plan.total if plan is not None else sum(m.episodes or 0 for m in manifests)
    return manifest.model_copy(update={"episodes": episodes})


def _shard_key(label: str) -> tuple[int, ...]:
    parts = label.split("/")
    return tuple(int(p) for p in parts) if all(p.isdecimal() for p in parts) else (0,)


__all__ = ["merge_folders"]
