"""The ``lighthouse`` command run in the test's own process.

A command run as a child costs an interpreter start and the harness's imports (one to
two seconds of CPU each); :func:`lighthouse` runs the same command line through
``harness.cli.main`` and answers what ``subprocess.run(..., capture_output=True,
text=True)`` would: the exit status and what the command printed on stdout and stderr.
Tests about the process itself (the exit status of a real process, signals, a child's
own streams, its environment) keep starting a real one.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from harness.cli import main


@contextlib.contextmanager
def _environment(env: Mapping[str, str] | None) -> Iterator[None]:
    """``env`` as the whole environment meanwhile (None: the environment as it is)."""
    if env is None:
        yield
        return
    before = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(before)


def command(
    entry: Callable[[list[str]], int],
    *args: str | Path,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """The command line ``args`` of the command whose entry point is ``entry``, in this
    process, in folder ``cwd`` (this one when None) and with environment ``env`` (this
    one when None); its exit status and what it printed."""
    argv = [str(arg) for arg in args]
    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.chdir(cwd or Path.cwd()),
        _environment(env),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        status = entry(argv)
    return subprocess.CompletedProcess(argv, status, out.getvalue(), err.getvalue())


def lighthouse(
    *args: str | Path, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``lighthouse ARGS`` in this process (:func:`command` of ``harness.cli.main``)."""
    return command(main, *args, cwd=cwd, env=env)


__all__ = ["command", "lighthouse"]
