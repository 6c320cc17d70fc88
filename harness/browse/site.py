"""``lighthouse view DIR --out SITE``: the browser as static files that work from file://.

SITE holds ``index.html`` and one page per episode under ``episodes/``; every link is
relative and nothing is fetched, so the folder can be opened, copied or published as
it is. The same results folder gives the same files, byte for byte. SITE must not be
inside DIR (the results folder is only read), and an existing SITE must be empty or
a site written before (its stale episode pages are removed).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from harness.browse.episode import episode_page
from harness.browse.folder import Snapshot, read_folder
from harness.browse.index import index_page
from harness.errors import ConfigError, RecordError

GENERATOR = '<meta name="generator" content="lighthouse view">'
EPISODES_DIR = "episodes"


@dataclass(frozen=True)
class Written:
    """What :func:`write_site` wrote."""

    pages: int
    """Episode pages."""
    skipped: list[str]
    """Episodes whose record could not be drawn (named, with why)."""


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _check_place(root: Path, out: Path) -> None:
    if _inside(out.resolve(), root.resolve()):
        raise ConfigError(
            f"--out {out}: inside the results folder {root}, which the browser only reads; "
            "choose a folder outside it"
        )
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out}: not a folder")
    if out.is_dir() and any(out.iterdir()):
        index = out / "index.html"
        made = index.is_file() and GENERATOR in index.read_text(encoding="utf-8", errors="replace")
        if not made:
            raise ConfigError(
                f"--out {out}: a folder with other files in it; choose an empty or new folder "
                "(or one `lighthouse view --out` wrote)"
            )


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_site(root: Path, out: Path) -> Written:
    """Write the browser of the results folder ``root`` into ``out``."""
    _check_place(root, out)
    snapshot: Snapshot = read_folder(root)
    pages = out / EPISODES_DIR
    pages.mkdir(parents=True, exist_ok=True)
    wanted: set[str] = set()
    skipped = []
    for row in snapshot.rows:
        if row.page is None:
            continue
        try:
            text = episode_page(snapshot, row)
        except RecordError as exc:
            skipped.append(f"{row.episode_id}: {exc}")
            continue
        wanted.add(row.page)
        _write(pages / row.page, text)
    for stale in pages.glob("*.html"):
        if stale.name not in wanted:
            stale.unlink()
    # an episode whose page could not be drawn loses its link: the index is written last
    shown = [r if r.page in wanted else replace(r, record=None) for r in snapshot.rows]
    told = replace(snapshot, rows=shown, notes=[*snapshot.notes, *skipped])
    _write(out / "index.html", index_page(told))
    return Written(len(wanted), skipped)


__all__ = ["EPISODES_DIR", "GENERATOR", "Written", "write_site"]
