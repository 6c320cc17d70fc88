"""Results folders written by an earlier harness, kept to be read: see make.py for how.

Each is a ``NAME.tar.gz`` of the files a report and the browser read (its manifest,
results lines, kept ceiling, superseded episodes and, where small, its records);
:func:`unpack` lays one out as a folder. ``older`` is not kept: it is ``models`` as a
harness wrote it before identities and before records kept prompts, made on unpacking.
"""

from __future__ import annotations

import gzip
import io
import tarfile
from pathlib import Path

from tests.older_records import folder_before_identities

HERE = Path(__file__).resolve().parent
#: Every folder, in the order a reader meets them: scripted, sharded, grown, with models.
FOLDERS = ("smoke", "shard-1", "half", "merged", "grown", "models", "capped", "older")
#: Folders made from another on unpacking: name -> (source, how).
DERIVED = {"older": ("models", folder_before_identities)}


def pack(folder: Path, archive: Path) -> None:
    """``folder`` as a tar.gz whose bytes depend only on the files' names and contents."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            data = path.read_bytes()
            info = tarfile.TarInfo(path.relative_to(folder).as_posix())
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    archive.write_bytes(gzip.compress(buffer.getvalue(), mtime=0))


def unpack(name: str, where: Path) -> Path:
    """The folder ``name`` laid out at ``where / name`` (which must not exist)."""
    target = where / name
    if name in DERIVED:
        source, make = DERIVED[name]
        return make(unpack(source, where / "sources"), target)
    with tarfile.open(HERE / f"{name}.tar.gz", mode="r:gz") as tar:
        tar.extractall(target, filter="data")
    return target


__all__ = ["DERIVED", "FOLDERS", "HERE", "pack", "unpack"]
