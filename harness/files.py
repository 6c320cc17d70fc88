"""Reading a results folder's files: only regular files inside the folder, each read bounded.

A results folder may come from anywhere (copied, unpacked, shared), so its entries are
judged before anything is opened: a symlink that leads out of the folder, a FIFO
(which would block the read for ever), a device (``/dev/zero`` never ends) or a folder
where a file should be is *refused*: :func:`refusal` says why in a few words, a
listing names it once and skips it, and a reader asked for it raises
:class:`~harness.errors.RecordError`. A symlink to a file inside the folder is read
like the file.

Every read is bounded: a whole file at most ``limit`` bytes (:func:`read_regular`,
the caps below), a file of lines one line at a time, each at most ``limit`` bytes
(:func:`bounded_lines`). A file is opened without blocking and checked with
``fstat`` on the open descriptor, so one swapped for a FIFO after it was judged
still cannot hang the reader.
"""

from __future__ import annotations

import errno
import io
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

from harness.errors import RecordError

#: The largest record read (1 GiB): replies are kept whole up to 1 MiB each (R8), so a
#: record this large is already hundreds of full-size replies.
MAX_RECORD_BYTES = 1 << 30
#: The largest manifest read (64 MiB): a config of a million listed seeds is 12 MiB.
MAX_MANIFEST_BYTES = 64 << 20
#: The longest results line read (1 MiB); a real one is a few KiB.
MAX_LINE_BYTES = 1 << 20
#: The largest of the other small files a folder keeps (the kept ceiling scores).
MAX_SMALL_FILE_BYTES = 64 << 20

_CHUNK = 1 << 16

#: The errors that mean a write found no room, and what each says.
_NO_ROOM = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EFBIG: "a file reached the size limit (ulimit -f)",
}
#: SQLite's own code for a full disk (SQLITE_FULL).
_SQLITE_FULL = 13


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def refusal(path: Path, root: Path | None = None) -> str | None:
    """Why ``path`` is not read, in a few words, or None when it is a regular file (and,
    with ``root``, one inside ``root`` once every symlink is followed). Opens nothing.

    A missing file is refused as "missing"; a caller that expects one may ask first.
    """
    if root is None:
        return _refusal(path, None, None)
    return _refusal(path, os.path.realpath(root), os.path.realpath(path.parent))


def _refusal(path: Path, real_root: str | None, real_parent: str | None) -> str | None:
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return f"cannot be read: {exc.strerror}"
    linked = stat.S_ISLNK(found.st_mode)
    if real_root is not None and real_parent is not None:
        real = os.path.realpath(path) if linked else real_parent
        if not (_inside(real_parent, real_root) and _inside(real, real_root)):
            return f"a symlink out of the folder (to {os.path.realpath(path)})"
    if linked:
        try:
            found = os.stat(path)
        except OSError as exc:
            return f"a broken symlink ({exc.strerror})"
    if not stat.S_ISREG(found.st_mode):
        return _kind(found.st_mode)
    return None


def open_regular(path: Path, root: Path | None = None, *, limit: int | None) -> io.BufferedReader:
    """``path`` opened for reading in binary, when :func:`refusal` has nothing against it
    and it holds at most ``limit`` bytes (None: a file read a bounded line at a time,
    :func:`bounded_lines`); else :class:`RecordError` naming the file.

    :class:`FileNotFoundError` passes through, for callers to whom a missing file is
    an empty one.
    """
    problem = refusal(path, root)
    if problem == "missing":
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), str(path))
    if problem is not None:
        raise RecordError(f"{path}: not read: {problem}")
    try:
        # Without blocking: a FIFO put in the file's place since would block the open.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise RecordError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            raise RecordError(f"{path}: not read: {_kind(found.st_mode)}")
        if limit is not None and found.st_size > limit:
            raise RecordError(
                f"{path}: not read: {found.st_size:,} bytes, over the {_size(limit)} a "
                "file of a results folder may hold"
            )
        os.set_blocking(fd, True)
        return io.BufferedReader(io.FileIO(fd, "rb"))
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: Path, root: Path | None = None, *, limit: int) -> bytes:
    """The bytes of ``path``, as :func:`open_regular` opens it, at most ``limit`` (a file
    that grew past it while being read is refused too)."""
    with open_regular(path, root, limit=limit) as handle:
        try:
            data = handle.read(limit + 1)
        except OSError as exc:
            raise RecordError(f"{path}: cannot read: {exc.strerror}") from None
    if len(data) > limit:
        raise RecordError(f"{path}: not read: over the {_size(limit)} a file may hold")
    return data


def bounded_lines(handle: io.BufferedReader, limit: int = MAX_LINE_BYTES) -> Iterator[bytes | None]:
    """Each line of ``handle`` with its ``\\n`` (the last may lack one: cut short), or
    None for a line longer than ``limit`` bytes, which is read past, never held."""
    while True:
        line = handle.readline(limit + 1)
        if not line:
            return
        if len(line) <= limit or (line.endswith(b"\n") and len(line) == limit + 1):
            yield line
            continue
        while not line.endswith(b"\n"):  # read past the rest of it, a chunk at a time
            line = handle.readline(_CHUNK)
            if not line:
                break
        yield None


def numbered_lines(path: Path, root: Path | None = None) -> Iterator[tuple[int, bytes | None]]:
    """Each line of ``path`` as :func:`bounded_lines` reads it, after its number (from
    1); no line when there is no such file. The file is opened as :func:`open_regular`
    opens one (a :class:`RecordError` for a file it refuses) when the first is asked for.
    """
    try:
        handle = open_regular(path, root, limit=None)
    except FileNotFoundError:
        return
    with handle:
        yield from enumerate(bounded_lines(handle), start=1)


def regular_files(folder: Path, pattern: str, root: Path) -> tuple[list[Path], list[str]]:
    """The files of ``folder`` matching ``pattern`` that can be read (sorted), and a note
    for each that cannot (``records/X.jsonl: skipped: a FIFO``)."""
    kept, notes = [], []
    try:
        found = sorted(folder.glob(pattern))
    except OSError:
        return [], []
    # the folders' real paths once; then one lstat a file (a symlink is followed too)
    real_root, real_folder = os.path.realpath(root), os.path.realpath(folder)
    for path in found:
        problem = _refusal(path, real_root, real_folder)
        if problem is None:
            kept.append(path)
        elif problem != "missing":  # gone since it was listed
            notes.append(f"{_shown(path, root)}: skipped: {problem}")
    return kept, notes


def no_room(exc: BaseException) -> str | None:
    """What ``exc`` says when a write found no room (a full disk or quota, the file-size
    limit; an OSError or SQLite's error), in a few words; None for anything else."""
    if isinstance(exc, OSError) and exc.errno in _NO_ROOM:
        return _NO_ROOM[exc.errno]
    if isinstance(exc, sqlite3.Error) and getattr(exc, "sqlite_errorcode", None) == _SQLITE_FULL:
        return _NO_ROOM[errno.ENOSPC]
    return None


def _shown(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _size(limit: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if limit >= 1 << shift and limit % (1 << shift) == 0:
            return f"{limit >> shift} {unit}"
    return f"{limit:,} bytes"


__all__ = [
    "MAX_LINE_BYTES",
    "MAX_MANIFEST_BYTES",
    "MAX_RECORD_BYTES",
    "MAX_SMALL_FILE_BYTES",
    "bounded_lines",
    "no_room",
    "numbered_lines",
    "open_regular",
    "read_regular",
    "refusal",
    "regular_files",
]
