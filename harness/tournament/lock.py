"""One writer per results folder, and a place checked before anything is written there.

A run or a merge holds an exclusive advisory lock (``flock``) on ``DIR/.lock`` from
before it reads the folder until it is done. The kernel drops the lock when the
process ends, however it ends (SIGKILL included), so a crash never leaves a folder
locked; the file itself stays, holding the pid, host and start time of the last
writer, which is how a refused run names the one in its way. A merge holds a shared
lock on each folder it reads, so it never reads a shard while a run writes it.

The lock file is never deleted: deleting it would let two processes lock two
different files of the same name.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import socket
import stat
import time
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

from harness.errors import FolderError

LOCK = ".lock"
#: How the lock file is opened: never through a symlink (which could point at any file
#: the user may write), never blocking (a FIFO in its place would block the open).
_NOT_FOLLOWED = os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK

#: Entries of a results folder and the kind each must be when present.
_ENTRIES = {"records": stat.S_ISDIR, "episodes.jsonl": stat.S_ISREG, "manifest.json": stat.S_ISREG}


def check_place(out: Path, flag: str = "--out", *, write: bool = True) -> None:
    """Raise a one-line :class:`FolderError` unless a results folder can live at ``out``.

    Reads only; creates nothing. ``out`` is either an existing folder this process may
    write, or a path whose nearest existing parent is such a folder and whose missing
    parts are names the file system accepts. Without ``write`` (a dry run, which only
    reads the folder) a folder or parent this process may not write is fine too.
    """
    if "\0" in str(out):
        raise FolderError(f"{flag}: the path holds a NUL character")
    shown = str(out) if len(str(out)) <= 120 else f"{str(out)[:80]}...{str(out)[-30:]}"
    where = f"{flag}: {shown}"
    try:
        found = out.stat()
    except FileNotFoundError:
        found = None
    except OSError as exc:  # a part is a file, a name too long, a symlink loop, ...
        raise FolderError(f"{where}: {exc.strerror}") from None
    if found is not None:
        if not stat.S_ISDIR(found.st_mode):
            raise FolderError(f"{where} is a file, not a folder")
        if write:
            _may_write(out, where)
        for name, right_kind in _ENTRIES.items():
            with contextlib.suppress(FileNotFoundError):
                if not right_kind(os.stat(out / name).st_mode):
                    raise FolderError(f"{where}: {name} is not a results folder's {name}")
        if write and (out / "records").is_dir():
            _may_write(out / "records", where)
        return
    missing: list[str] = []
    probe = out.absolute()
    while True:
        try:
            found = probe.stat()
            break
        except FileNotFoundError:
            missing.append(probe.name)
            probe = probe.parent
        except OSError as exc:
            raise FolderError(f"{where}: {exc.strerror}") from None
    if not stat.S_ISDIR(found.st_mode):
        raise FolderError(f"{where} cannot be made: {probe} is a file, not a folder")
    if write:
        _may_write(probe, f"{where} cannot be made")
    longest = _limit(probe, "PC_NAME_MAX", 255)
    for name in missing:
        if len(os.fsencode(name)) > longest:
            raise FolderError(f"{where}: a name longer than {longest} bytes ({name[:40]}...)")
    if len(os.fsencode(str(out.absolute()))) >= _limit(probe, "PC_PATH_MAX", 4096):
        raise FolderError(f"{where}: the path is too long for the file system")


def _may_write(path: Path, where: str) -> None:
    if not os.access(path, os.R_OK | os.W_OK | os.X_OK):
        raise FolderError(f"{where}: no permission to write in {path}")


def _limit(path: Path, name: str, default: int) -> int:
    try:
        return os.pathconf(path, name)
    except (OSError, ValueError):
        return default


def _holder(fd: int) -> str:
    """Who holds the lock, as the lock file says (best effort: it is only for the message)."""
    for _ in range(100):  # the holder writes its details just after it takes the lock
        try:
            data = json.loads(os.pread(fd, 4096, 0) or b"null")
            return f"pid {data['pid']} on {data['host']}, started {data['startedAt']}"
        except (OSError, ValueError, KeyError, TypeError):
            time.sleep(0.005)
    return "a process that has not written its details"


class FolderLock:
    """An advisory lock on a results folder: exclusive for a writer, shared for a reader."""

    def __init__(self, root: Path, *, shared: bool = False) -> None:
        self.root = root
        self.shared = shared
        self._fd: int | None = None
        self.created: list[Path] = []
        """The folders this lock made (outermost first), for :meth:`abandon`."""

    def acquire(self) -> FolderLock:
        """Take the lock, making the folder if needed; raise FolderError if another holds it."""
        if not self.shared:
            self._make_folder()
        try:
            fd = self._lock()
        except FolderError:
            self._remove_created()
            raise
        if fd is None:
            return self
        if not self.shared:
            started = datetime.now(UTC).isoformat(timespec="seconds")
            info = {"pid": os.getpid(), "host": socket.gethostname(), "startedAt": started}
            os.ftruncate(fd, 0)
            os.pwrite(fd, (json.dumps(info) + "\n").encode(), 0)
        self._fd = fd
        return self

    def _lock(self) -> int | None:
        try:
            fd = os.open(self.root / LOCK, os.O_RDWR | os.O_CREAT | _NOT_FOLLOWED, 0o644)
        except OSError as exc:
            if self.shared and exc.errno in (errno.EACCES, errno.EROFS):
                return None  # a folder nobody may write: there is no writer to wait for
            if exc.errno == errno.ELOOP:  # a symlink: its target is never written
                raise FolderError(f"{self.root}: {LOCK} is a symlink; remove it") from None
            raise FolderError(f"{self.root}: cannot lock: {exc.strerror}") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise FolderError(f"{self.root}: {LOCK} is not a regular file; remove it")
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if self.shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise FolderError(
                f"{self.root}: another lighthouse process is writing this folder ({holder}); "
                "wait for it to finish, or choose another folder"
            ) from None
        return fd

    def _make_folder(self) -> None:
        missing = []
        probe = self.root
        while not probe.exists() and probe != probe.parent:
            missing.append(probe)
            probe = probe.parent
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise FolderError(f"{self.root}: cannot create the folder: {exc.strerror}") from None
        self.created = missing[::-1]

    def release(self) -> None:
        """Let go of the lock (closing the file is what releases it)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def abandon(self) -> None:
        """Release, and remove the lock file and the folders this lock made, if still empty.

        For a run that stops before writing anything: it leaves the disk as it found it.
        """
        if self.created:
            with contextlib.suppress(OSError):
                (self.root / LOCK).unlink()  # while held, so nobody else has it open
        self.release()
        self._remove_created()

    def _remove_created(self) -> None:
        for folder in reversed(self.created):
            with contextlib.suppress(OSError):
                folder.rmdir()
        self.created = []

    def __enter__(self) -> FolderLock:
        return self.acquire()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.release()


def writer_of(root: Path) -> str | None:
    """Who is writing ``root`` right now, or None when nobody is (reads only)."""
    try:
        fd = os.open(root / LOCK, os.O_RDONLY | _NOT_FOLLOWED)
    except OSError:
        return None  # no lock file: no run has ever written here
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO or a device locks nothing
        os.close(fd)
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return _holder(fd)
    finally:
        os.close(fd)
    return None


__all__ = ["LOCK", "FolderLock", "check_place", "writer_of"]
