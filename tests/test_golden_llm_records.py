"""LLM golden records: retries, fallbacks and a deadline ending, pinned and validated.

The test only compares; after a deliberate change, rewrite the files with
``python -m tests.golden.update`` (tests/golden/README.md).
"""

from __future__ import annotations

import json
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
    assert stable_lines(fresh) == stable_lines(golden), (
        f"{golden.name} is no longer reproduced; if the change is intended, run "
        "python -m tests.golden.update, review the diff and commit it saying why"
    )
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
