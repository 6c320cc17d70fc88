"""A full disk during a run: one line naming the folder and how much to free.

A write that finds no room (a full disk or quota, the file-size limit: see
:func:`harness.files.no_room`) stops the run like any folder problem, with a
:class:`~harness.errors.FolderError` instead of a traceback. Nothing finished is lost
(an episode is finished only once its record and results line are durable, store.py),
so running the same command again, with room made, goes on where it stopped.
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

from harness.errors import FolderError, RecordError
from harness.files import regular_files
from harness.tournament.store import ResultsFolder


def _mib(size: float) -> str:
    return f"{size / (1 << 20):,.1f} MiB"


def no_room_error(root: Path, why: str, exc: BaseException) -> FolderError:
    """The error a run stops with when a write into the results folder ``root`` found no
    room (``why``, from :func:`~harness.files.no_room`, and the error itself)."""
    folder = ResultsFolder(root)
    name = getattr(exc, "filename", None)
    written = ""
    if isinstance(name, str | os.PathLike):
        try:
            written = f" writing {Path(name).relative_to(root)}"
        except ValueError:
            written = f" writing {name}"
    records, _ = regular_files(folder.records, "*.jsonl", root)
    sizes = []
    for path in records:
        try:
            sizes.append(path.stat().st_size)
        except OSError:
            continue
    try:
        planned = folder.manifest().episodes or 0
    except RecordError:
        planned = 0
    left = max(planned - len(sizes), 0)
    try:
        free = f"; {_mib(shutil.disk_usage(root).free)} free now"
    except OSError:
        free = ""
    if getattr(exc, "errno", None) == errno.EFBIG:  # the per-file limit, not the disk
        largest = f" (the largest record is {_mib(max(sizes))})" if sizes else ""
        need = f"raise the limit{largest}"
    elif sizes and left:
        each = sum(sizes) / len(sizes)
        need = (
            f"free about {_mib(each * left)} on the disk that holds it ({len(sizes):,} "
            f"records take {_mib(sum(sizes))}, about {_mib(each)} each, and {left:,} "
            f"episodes are left{free})"
        )
    else:
        need = f"free space on the disk that holds it{free.replace(';', ' (', 1)}" + (
            ")" if free else ""
        )
    return FolderError(
        f"{root}: {why}{written}: {need}, then run the same command again: it goes on "
        "where it stopped, and nothing finished is lost"
    )


__all__ = ["no_room_error"]
