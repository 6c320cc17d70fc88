"""The manifest and the report have published JSON Schemas, kept equal to their models,
and what the harness writes follows them: configs/smoke.toml played now reports, byte
for byte, what the folder an earlier harness wrote of it reports."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from harness.cli import main
from harness.report.model import report_schema
from harness.report.ratings import ratings_schema
from harness.tournament.manifest import MANIFEST_VERSION, manifest_schema
from tests.golden.folders import FOLDERS, unpack
from tests.golden.reports import golden_path

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "docs" / "schemas"
MAKERS: dict[str, Callable[[], dict[str, Any]]] = {
    "manifest": manifest_schema,
    "report": report_schema,
    "leaderboard": ratings_schema,
}


def validator(name: str) -> Any:
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def problems(name: str, doc: Any) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator(name).iter_errors(doc)]


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_the_published_schema_is_the_models(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    published = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    assert published == MAKERS[name](), (
        f"docs/schemas/{name}.schema.json is stale: "
        f"lighthouse schema --of {name} > docs/schemas/{name}.schema.json"
    )
    assert main(["schema", "--of", name]) == 0
    assert json.loads(capsys.readouterr().out) == published


def test_configs_smoke_toml_reports_as_before_and_follows_the_schemas(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "smoke"
    assert main(["run", str(ROOT / "configs" / "smoke.toml"), "--out", str(out)]) == 0
    # the report the run prints at its end is the one `lighthouse report` prints
    printed = capsys.readouterr().out
    markdown = golden_path("smoke", ".md").read_text(encoding="utf-8")
    assert printed == markdown + "\n"
    assert main(["report", str(out), "--format", "json"]) == 0
    text = capsys.readouterr().out
    assert text == golden_path("smoke", ".json").read_text(encoding="utf-8")
    report = json.loads(text)
    assert problems("report", report) == []
    assert report["episodes"] == 300
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["version"] == MANIFEST_VERSION
    assert problems("manifest", manifest) == []


def test_a_report_that_breaks_the_schema_is_caught() -> None:
    report = json.loads(golden_path("models", ".json").read_text(encoding="utf-8"))
    assert problems("report", report) == []
    report["entrants"][0]["score"]["mean"] = "high"
    del report["completeness"]
    found = problems("report", report)
    assert any("completeness" in p for p in found)
    assert any(p.startswith("['entrants', 0, 'score', 'mean']") for p in found)


@pytest.mark.parametrize("name", FOLDERS)
def test_every_kept_folder_has_a_manifest_the_schema_takes(name: str, tmp_path: Path) -> None:
    root = unpack(name, tmp_path)
    manifest = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    assert "version" not in manifest  # written before manifests had a version
    assert problems("manifest", manifest) == []
    report = json.loads(golden_path(name, ".json").read_text(encoding="utf-8"))
    assert problems("report", report) == []
