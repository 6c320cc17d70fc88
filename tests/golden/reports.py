"""What ``lighthouse report`` and ``lighthouse view`` make of the folders of folders/.

For each folder (tests/golden/folders/), through the command itself: the report in
Markdown, CSV and JSON, kept as they are under reports/ (``NAME.md``, ``NAME.csv``,
``NAME.json``), and, as the sha256 of each file (``NAME.sha256``), the ``--plot`` SVG
and the browser's static site (``view DIR --out SITE``): its index page, the folder's
path written ``DIR``, and every episode page. tests/results/test_old_folders.py
compares; ``python -m tests.golden.update`` rewrites.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import tempfile
from pathlib import Path

from harness.cli import main
from tests.golden.folders import FOLDERS, unpack

HERE = Path(__file__).resolve().parent / "reports"
#: The files kept per folder, by suffix.
SUFFIXES = (".md", ".csv", ".json", ".sha256")


def _run(*args: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    if status != 0:
        raise ValueError(f"lighthouse {' '.join(args)}: exit {status}: {err.getvalue()}")
    return out.getvalue()


def outputs(name: str) -> dict[str, bytes]:
    """Every file kept for folder ``name``, by suffix, made afresh by the current code."""
    with tempfile.TemporaryDirectory() as scratch:
        root = unpack(name, Path(scratch))
        made = {f".{fmt}": _run("report", str(root), "--format", fmt) for fmt in ("md", "csv")}
        plot = Path(scratch) / "plot.svg"
        made[".json"] = _run("report", str(root), "--format", "json", "--plot", str(plot))
        site = Path(scratch) / "site"
        _run("view", str(root), "--out", str(site))
        index = (site / "index.html").read_text("utf-8").replace(str(root), "DIR")
        files = {"plot.svg": plot.read_bytes(), "index.html": index.encode("utf-8")}
        for page in sorted((site / "episodes").glob("*.html")):
            files[f"episodes/{page.name}"] = page.read_bytes()
        made[".sha256"] = "".join(
            f"{hashlib.sha256(data).hexdigest()}  {path}\n" for path, data in files.items()
        )
    return {suffix: text.encode("utf-8") for suffix, text in made.items()}


def golden_path(name: str, suffix: str) -> Path:
    """Where the file ``suffix`` of folder ``name`` is kept."""
    return HERE / f"{name}{suffix}"


__all__ = ["FOLDERS", "HERE", "SUFFIXES", "golden_path", "outputs"]
