"""The manifest model: every folder's manifest read, whatever its version or damage,
and written back with nothing lost."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.errors import RecordError
from harness.report.selection import LimitStop
from harness.tournament.manifest import (
    MANIFEST_VERSION,
    UNVERSIONED,
    HistoryEntry,
    KeptAgentEdit,
    Manifest,
)
from harness.tournament.store import ResultsFolder
from tests.golden.folders import FOLDERS, unpack


def read(doc: Any) -> Manifest:
    return Manifest.read(json.dumps(doc).encode(), "manifest.json")


@pytest.mark.parametrize("name", FOLDERS)
def test_an_unversioned_manifest_is_version_1_and_is_written_back_whole(
    name: str, tmp_path: Path
) -> None:
    root = unpack(name, tmp_path)
    raw = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    manifest = ResultsFolder(root).manifest()
    assert manifest.version == UNVERSIONED
    again = json.loads(manifest.to_json())
    assert again.pop("version") == MANIFEST_VERSION
    # every key kept as it was; a key of the time before it existed is written as null
    assert {k: v for k, v in again.items() if k in raw} == raw
    assert all(again[k] in (None, {}) for k in again.keys() - raw.keys())
    # the config as run is kept as its JSON, never dumped from a model again: the
    # identities of a folder from before them are the hash of its text
    assert manifest.config == raw["config"]
    assert json.dumps(manifest.config) == json.dumps(raw["config"])
    assert Manifest.read(manifest.to_json().encode(), "again") == manifest.model_copy(
        update={"version": MANIFEST_VERSION}
    )


def test_what_a_reader_takes_from_the_config_as_run(tmp_path: Path) -> None:
    manifest = ResultsFolder(unpack("grown", tmp_path)).manifest()
    run = manifest.run
    assert (run.name, run.reference) == ("small", "silent")
    assert run.entrant_names == ["lantern", "silent", "lantern-b"]
    assert [e.baseline_team() for e in run.entrants] == [
        {"keeper": "lantern", "runners": "wallhug"},
        {"keeper": "pilot", "runners": "wallhug"},
        {"keeper": "lantern", "runners": "wallhug"},
    ]
    assert run.rules == {"maxTicks": 8}
    assert manifest.title("folder") == "Tournament small"
    config = manifest.tournament_config()
    assert config is not None
    assert [e.name for e in config.entrants] == run.entrant_names
    assert manifest.stopped == LimitStop(limit=3, reason="limit")
    assert manifest.history is not None
    assert len(manifest.history) == 1


@pytest.mark.parametrize(
    ("damage", "read_as"),
    [
        ({"identities": "not a map"}, {"identities": None}),
        ({"identities": {"a": 7, "b": "id-b"}}, {"identities": {"a": None, "b": "id-b"}}),
        ({"legacyIdentities": {"a": None, "b": "x"}}, {"legacy_identities": {"b": "x"}}),
        ({"prompts": {"p.md": 3, "q.md": "sha"}}, {"prompts": {"q.md": "sha"}}),
        ({"prompts": 5}, {"prompts": {}}),
        ({"stopped": ["x"], "narrowing": "y"}, {"stopped": None, "narrowing": None}),
        ({"stopped": {"reason": "bored"}}, {"stopped": None}),
        ({"history": [1, "x", {"configHash": "h", "until": None}]},
         {"history": [HistoryEntry(config_hash="h", until=None)]}),
        ({"history": 3}, {"history": None}),
        ({"sources": {"m": "sha", "n": 4}, "identityAliases": {"a": "b", "c": None}},
         {"sources": {"m": "sha"}, "identity_aliases": {"a": "b"}}),
        ({"sources": "code", "identityAliases": []},
         {"sources": None, "identity_aliases": None}),
        ({"keptAgentEdits": [1, {"module": "m"}, {"module": "m", "earlier": "a", "now": "b"},
                             {"module": "n", "earlier": "a", "now": "b", "at": 5}]},
         {"kept_agent_edits": [KeptAgentEdit(module="m", earlier="a", now="b")]}),
        ({"keptAgentEdits": "all"}, {"kept_agent_edits": None}),
        ({"shard": 4, "shards": ["1/2", 7], "episodes": "many"},
         {"shard": None, "shards": ["1/2"], "episodes": None}),
        ({"game": 5}, {"game": "5"}),
        ({"config": [1, 2]}, {"config": None}),
        ({"version": "two"}, {"version": MANIFEST_VERSION}),
    ],
)  # fmt: skip
def test_a_damaged_field_reads_as_absent_and_the_rest_as_it_is(
    damage: dict[str, Any], read_as: dict[str, Any]
) -> None:
    base = {"game": "lighthouse", "shard": "1/1", "configHash": "h", "episodes": 4}
    manifest = read({**base, **damage})
    for field, value in read_as.items():
        assert getattr(manifest, field) == value, field
    untouched = {"shard": "1/1", "config_hash": "h", "episodes": 4, "game": "lighthouse"}
    for field, value in untouched.items():
        if field not in read_as:
            assert getattr(manifest, field) == value, field


def test_a_damaged_config_reads_as_no_entrants_and_no_plan() -> None:
    manifest = read(
        {"config": {"entrants": [1, "x", {"name": 3}, {"name": "a", "seats": 7}],
                    "reference": 9, "name": ["x"], "rules": "none"}}
    )  # fmt: skip
    run = manifest.run
    assert run.entrant_names == ["a"]
    assert run.entrants[0].seats is None
    assert run.entrants[0].baseline_team() is None
    assert (run.reference, run.name, run.rules) == (None, None, {})
    assert manifest.title("folder") == "Tournament folder"
    assert manifest.tournament_config() is None


def test_a_newer_harnesss_keys_are_kept_and_written_back() -> None:
    manifest = read({"game": "lighthouse", "version": 9, "futureKey": {"x": [1, 2]}})
    assert manifest.version == 9
    written = json.loads(manifest.to_json())
    assert written["futureKey"] == {"x": [1, 2]}
    assert written["version"] == MANIFEST_VERSION  # written as this harness writes it
    # the keys written only when they apply are left out
    assert not {
        "legacyIdentities", "identityAliases", "keptAgentEdits", "history", "mergedFrom", "shards"
    } & set(written)  # fmt: skip


@pytest.mark.parametrize(
    ("data", "problem"),
    [(b"[]", "not a JSON object"), (b'"x"', "not a JSON object"), (b"{", "unreadable manifest"),
     (b"\xff\xfe", "unreadable manifest"), (b"[" * 100_000, "unreadable manifest")],
)  # fmt: skip
def test_a_file_that_is_no_json_object_is_refused_with_its_name(data: bytes, problem: str) -> None:
    with pytest.raises(RecordError, match=problem) as caught:
        Manifest.read(data, "DIR/manifest.json")
    assert str(caught.value).startswith("DIR/manifest.json: unreadable manifest")


def test_a_manifest_made_in_code_is_written_with_its_keys_in_camel_case() -> None:
    made = Manifest(game="lighthouse", shard="1/2", legacy_identities={"a": "x"}, prompts={})
    assert made.version == MANIFEST_VERSION
    written = json.loads(made.to_json())
    assert (written["legacyIdentities"], written["shard"], written["version"]) == (
        {"a": "x"},
        "1/2",
        MANIFEST_VERSION,
    )
    assert "legacy_identities" not in written
    assert list(written) == sorted(written)
