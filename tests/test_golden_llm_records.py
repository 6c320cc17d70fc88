"""LLM golden records: retries, fallbacks and a deadline ending, pinned and validated.

Set LIGHTHOUSE_UPDATE_GOLDEN=1 to rewrite the files after a deliberate change.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest

from tests.golden.llm_records import SCENARIOS, build
from tests.test_episode import SCHEMA_FILE, stable_lines

RECORDS = Path(__file__).parent / "golden" / "records"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_llm_golden_record(tmp_path: Path, name: str) -> None:
    golden = RECORDS / f"{name}.jsonl"
    fresh = tmp_path / f"{name}.jsonl"
    build(name, fresh)
    if os.environ.get("LIGHTHOUSE_UPDATE_GOLDEN") == "1":
        golden.write_text(fresh.read_text(encoding="utf-8"), encoding="utf-8")
    assert stable_lines(fresh) == stable_lines(golden)
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_FILE.read_text()))
    for line in golden.read_text(encoding="utf-8").splitlines():
        validator.validate(json.loads(line))


def test_the_llm_records_cover_every_source_and_a_deadline() -> None:
    sources = set()
    reasons = set()
    for path in RECORDS.glob("llm-*.jsonl"):
        for line in map(json.loads, path.read_text(encoding="utf-8").splitlines()):
            if line["type"] == "tick":
                sources |= {turn["source"] for turn in line["seats"].values()}
            if line["type"] == "end":
                reasons.add(line["results"]["reason"])
    assert {"llm", "llm_retry", "fallback_parse", "fallback_api", "baseline"} <= sources
    assert "deadline" in reasons
