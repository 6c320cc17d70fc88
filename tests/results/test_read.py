"""One read of a folder serves every command that shows its results."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.cli import main
from harness.errors import ConfigError, RecordError
from harness.results import read_results
from harness.summary import EpisodeSummary
from harness.tournament.manifest import Manifest
from harness.tournament.store import ResultsFolder
from tests.golden.folders import unpack
from tests.golden.reports import golden_path


class Reads:
    """How often the manifest and the results lines of a folder were read."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.manifests = self.lines = 0
        manifest, strict, lenient = (
            ResultsFolder.manifest,
            ResultsFolder.iter_summaries,
            ResultsFolder.readable_summaries,
        )

        def counted_manifest(folder: ResultsFolder) -> Manifest:
            self.manifests += 1
            return manifest(folder)

        def counted_lines(folder: ResultsFolder) -> Iterator[EpisodeSummary]:
            self.lines += 1
            return strict(folder)

        def counted_readable(folder: ResultsFolder) -> tuple[list[EpisodeSummary], list[str]]:
            self.lines += 1
            return lenient(folder)

        monkeypatch.setattr(ResultsFolder, "manifest", counted_manifest)
        monkeypatch.setattr(ResultsFolder, "iter_summaries", counted_lines)
        monkeypatch.setattr(ResultsFolder, "readable_summaries", counted_readable)


def quietly(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = main(list(args))
    return status, out.getvalue()


def test_a_report_with_its_plot_reads_the_folder_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = unpack("models", tmp_path)
    reads = Reads(monkeypatch)
    status, text = quietly("report", str(root), "--plot", str(tmp_path / "p.svg"))
    assert status == 0
    assert text == golden_path("models", ".md").read_text(encoding="utf-8")
    assert (reads.manifests, reads.lines) == (1, 1)
    assert (tmp_path / "p.svg").read_text(encoding="utf-8").startswith("<svg")


def test_the_browser_reads_the_folder_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = unpack("capped", tmp_path)
    reads = Reads(monkeypatch)
    assert quietly("view", str(root), "--out", str(tmp_path / "site"))[0] == 0
    assert (reads.manifests, reads.lines) == (1, 1)


def test_a_merge_counts_what_the_report_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shard = unpack("shard-1", tmp_path)
    (shard / "records").mkdir()  # its records were not kept: a merge copies none
    (shard / "episodes.jsonl").write_text("")
    out = tmp_path / "merged"
    assert main(["merge", str(shard), "--out", str(out)]) == 0
    said = capsys.readouterr().err
    results = read_results(out)
    assert f"0 episodes; {results.completeness.summary()}" in said
    assert results.report.completeness.summary == results.completeness.summary()


def test_the_lines_are_kept_only_when_asked(tmp_path: Path) -> None:
    root = unpack("grown", tmp_path)
    streamed, kept = read_results(root), read_results(root, keep=True)
    built = kept.report
    assert (streamed.counted, streamed.others) == ([], [])
    assert len(kept.counted) == kept.report.episodes == streamed.report.episodes == 7
    assert len(kept.others) == kept.selection.set_aside == 4
    assert kept.report == streamed.report
    assert kept.report is built  # built once, when first asked for
    with pytest.raises(ValueError, match="without its lines"):
        streamed.plot()
    assert kept.plot().startswith("<svg")


def test_a_damaged_line_is_refused_by_a_report_and_skipped_by_the_browser(tmp_path: Path) -> None:
    root = unpack("merged", tmp_path)
    lines = (root / "episodes.jsonl").read_bytes().splitlines(keepends=True)
    (root / "episodes.jsonl").write_bytes(b"".join([lines[0], b"{}\n", *lines[1:]]))
    with pytest.raises(RecordError, match=r"episodes.jsonl:2:"):
        read_results(root)
    lenient = read_results(root, lenient=True)
    assert lenient.report.episodes == len(lines)
    assert [n.split(": ")[0] for n in lenient.notes] == ["episodes.jsonl:2"]


def test_a_reference_must_be_an_entrant_and_a_folder_a_results_folder(tmp_path: Path) -> None:
    root = unpack("merged", tmp_path)
    assert [r.reference for r in read_results(root, reference="lantern").report.paired] == [
        "lantern"
    ]
    assert [r.reference for r in read_results(root).report.paired] == ["silent"]  # the config's
    with pytest.raises(ConfigError, match=r"'nobody' is not an entrant of .*: lantern, silent"):
        read_results(root, reference="nobody")
    with pytest.raises(ConfigError, match=r"no manifest\.json here"):
        read_results(tmp_path / "nowhere")
