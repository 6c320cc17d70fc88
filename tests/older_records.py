"""Records as older harnesses wrote them, made from the golden records by dropping fields.

Dropping a field that a newer harness added gives exactly the line an older one wrote
(the golden LLM records differed only so when the fields arrived), so tests can check
that records written before a field existed still load, replay and view.
"""

from __future__ import annotations

import json
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


__all__ = ["before_prompts"]
