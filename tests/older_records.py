"""Records as older harnesses wrote them, made from the golden records by dropping fields.

Dropping a field that a newer harness added gives exactly the line an older one wrote
(the golden LLM records differed only so when the fields arrived), so tests can check
that records written before a field existed still load, replay and view.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any


def _drop_call_hashes(value: Any) -> None:
    if isinstance(value, dict):
        value.pop("promptSha256", None)
        for item in value.values():
            _drop_call_hashes(item)
    elif isinstance(value, list):
        for item in value:
            _drop_call_hashes(item)


def before_prompts(src: Path, dst: Path) -> Path:
    """``src`` as written before records kept prompts (no header ``prompts``, no call's
    ``promptSha256``), in ``dst``."""
    lines = [json.loads(line) for line in src.read_text(encoding="utf-8").splitlines()]
    lines[0].pop("prompts", None)
    for line in lines[1:]:
        _drop_call_hashes(line)
    dst.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), "utf-8")
    return dst


def folder_before_identities(src: Path, dst: Path) -> Path:
    """The results folder ``src`` as written before identities (no manifest
    ``identities``, ``narrowing``, ``maxCostUsd``, ``stopped``, ``updatedAt`` or
    ``prompts``, no config ``maxCost``, no results line ``identity``) and before records
    kept prompts, in ``dst``."""
    shutil.copytree(src, dst)
    manifest = json.loads((dst / "manifest.json").read_text(encoding="utf-8"))
    for key in ("identities", "narrowing", "maxCostUsd", "stopped", "updatedAt", "prompts"):
        manifest.pop(key, None)
    manifest["config"].pop("maxCost", None)
    text = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
    (dst / "manifest.json").write_text(text, encoding="utf-8")
    lines = [json.loads(x) for x in (dst / "episodes.jsonl").read_text("utf-8").splitlines()]
    (dst / "episodes.jsonl").write_text(
        "".join(json.dumps({k: v for k, v in x.items() if k != "identity"}) + "\n" for x in lines),
        encoding="utf-8",
    )
    for record in sorted((dst / "records").glob("*.jsonl")):
        before_prompts(record, record)
    return dst


__all__ = ["before_prompts", "folder_before_identities"]
