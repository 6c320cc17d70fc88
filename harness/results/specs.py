"""What makes two entrants of a folder the same entrant: their specs, read from its manifest.

An entrant's spec for a seat group is the config's spec as run, one per seat (one spec
for the group and the same spec listed per seat are the same entrant), with each
prompt file replaced by its contents' sha256 as the manifest records them: two
entrants whose prompt files hold the same text are the same entrant. A report's
leaderboards compare entrants alike in every other group, and flag identical ones
(:mod:`harness.report.leaderboards`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from pydantic import JsonValue

from harness.protocol import GameEntry
from harness.tournament.manifest import Manifest


def entrant_specs(game: GameEntry, manifest: Manifest) -> dict[str, dict[str, str]]:
    """Each configured entrant's spec per seat group, as canonical text."""
    out: dict[str, dict[str, str]] = {}
    for entrant in manifest.run.entrants:
        if entrant.seats is None:
            continue
        out[entrant.name] = {
            g.key: _canonical(entrant.seats.get(g.key), len(g.seats), manifest.prompts)
            for g in game.seat_groups
        }
    return out


def _canonical(spec: JsonValue, seats: int, hashes: Mapping[str, str]) -> str:
    specs = spec if isinstance(spec, list) else [spec] * seats
    return json.dumps([_by_content(s, hashes) for s in specs], sort_keys=True)


def _by_content(spec: JsonValue, hashes: Mapping[str, str]) -> JsonValue:
    prompts = spec.get("prompts") if isinstance(spec, dict) else None
    if not isinstance(spec, dict) or not isinstance(prompts, dict):
        return spec
    files = {k: hashes.get(v, v) if isinstance(v, str) else v for k, v in prompts.items()}
    return {**spec, "prompts": files}


__all__ = ["entrant_specs"]
