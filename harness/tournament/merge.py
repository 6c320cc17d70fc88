"""Joining the results folders of one tournament's shards into one."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path

from harness.errors import ConfigError
from harness.tournament.store import ResultsFolder, write_atomically


def merge_folders(sources: Sequence[Path], out: Path) -> int:
    """Copy every finished episode of ``sources`` into ``out``; return how many.

    The shards must come from the same config. An episode found in two shards is
    kept once.
    """
    folders = [ResultsFolder(p) for p in sources]
    manifests = [f.manifest() for f in folders]
    hashes = {m.get("configHash") for m in manifests}
    if len(hashes) != 1:
        raise ConfigError("merge: the folders were made by different configs")
    target = ResultsFolder(out)
    if target.manifest_path.exists():
        raise ConfigError(f"merge: {out} already holds results; choose a new --out")
    target.records.mkdir(parents=True, exist_ok=True)
    manifest = {**manifests[0], "shard": "merged", "mergedFrom": [str(p) for p in sources]}
    manifest["episodes"] = sum(int(m.get("episodes", 0)) for m in manifests)
    write_atomically(target.manifest_path, json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    seen: set[str] = set()
    for folder in folders:
        for summary in folder.summaries():
            if summary.episode_id in seen:
                continue
            record = folder.record_path(summary.episode_id)
            if not record.exists():
                continue
            shutil.copyfile(record, target.record_path(summary.episode_id))
            target.append(summary)
            seen.add(summary.episode_id)
    return len(seen)


__all__ = ["merge_folders"]
