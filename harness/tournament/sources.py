"""The code a ``python:`` seat runs, by content: what an entrant's identity covers of it.

An entrant's identity (identity.py) covers everything that decides its play. For a
Python agent that is its code as well as its import path and prompts, so a digest of
the code enters the identity and an edit plays the entrant's episodes again, as a
changed prompt does. The digest is the sha256 of:

- the package the module belongs to, where there is one: every ``.py`` file under the
  outermost folder of regular packages (folders with an ``__init__.py``) that holds
  the module, so an edit of a helper module beside the agent counts too;
- else (a module of its own, e.g. ``my_agents.py``) that one file.

A package of more than :data:`MAX_FILES` Python files or :data:`MAX_BYTES` bytes (an
installed library, say) is covered by the module's own file only. Files other than
Python source (data, weights) are not read. The module is found as a fresh import
would find it, on the import path as the run has it (a config's folder and the
working folder added), without running any of its code.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from collections.abc import Iterator, Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path

from harness.protocol import GameEntry
from harness.seat_spec import PythonSeatConfig
from harness.tournament.config import TournamentConfig

#: The most Python files of a package a digest reads; past it, the module's file only.
MAX_FILES = 2_000
#: The most bytes of a package's Python files a digest reads; past it, the module's only.
MAX_BYTES = 64 * 2**20
#: The module whose code is the program being run (``python my_script.py``).
MAIN_MODULE = "__main__"


def module_of(target: str) -> str:
    """The module of ``MODULE:CALLABLE``."""
    return target.partition(":")[0]


def _spec(name: str, path: Sequence[str] | None) -> ModuleSpec | None:
    """The spec the import system's finders give ``name``, none of them importing it."""
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        try:
            spec = find(name, path)
        except Exception:  # a third-party finder's failure is "not found"
            continue
        if spec is not None:
            return spec  # type: ignore[no-any-return]
    return None


def module_file(name: str) -> Path | None:
    """The file a fresh import of module ``name`` would run, found without running
    anything (a parent package's ``__init__`` is not executed); None when there is no
    such file (not found, built in, a namespace package)."""
    if name == MAIN_MODULE:
        main = getattr(sys.modules.get(MAIN_MODULE), "__file__", None)
        return Path(main) if isinstance(main, str) else None
    path: list[str] | None = None
    spec: ModuleSpec | None = None
    parts = name.split(".")
    for depth in range(1, len(parts) + 1):
        if depth > 1 and path is None:
            return None  # a parent that is no package
        spec = _spec(".".join(parts[:depth]), path)
        if spec is None:
            return None
        locations = spec.submodule_search_locations
        path = list(locations) if locations is not None else None
    if spec is None or not spec.has_location or spec.origin is None:
        return None
    origin = Path(spec.origin)
    return origin if origin.is_file() else None


def package_root(module: Path) -> Path | None:
    """The outermost folder of regular packages holding ``module``; None for a module of
    its own (its folder is no package)."""
    folder = module.parent
    if not (folder / "__init__.py").is_file():
        return None
    while folder.parent != folder and (folder.parent / "__init__.py").is_file():
        folder = folder.parent
    return folder


def _python_files(root: Path) -> Iterator[Path]:
    """Every ``.py`` file under ``root``, in a fixed order; hidden folders and
    ``__pycache__`` left out, symlinked folders not followed."""
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                yield Path(folder) / name


def _regular_size(path: Path) -> int | None:
    """The size of a regular file (a FIFO or a device is never opened); None otherwise."""
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_size if stat.S_ISREG(found.st_mode) else None


def covered_files(module: Path) -> tuple[Path, list[Path]]:
    """The folder the digest names files against, and the files it reads, in order."""
    root = package_root(module)
    if root is None:
        return module.parent, [module]
    files: list[Path] = []
    total = 0
    for path in _python_files(root):
        size = _regular_size(path)
        total += size or 0
        files.append(path)
        if len(files) > MAX_FILES or total > MAX_BYTES:
            return module.parent, [module]  # too big to read whole: the module alone
    if module not in files:  # a module that is no .py file (an extension, say)
        files.append(module)
    return root, files


def source_digest(module: Path) -> str:
    """The sha256 of the code ``module`` runs (see the module docstring)."""
    root, files = covered_files(module)
    digest = hashlib.sha256()
    for path in files:
        name = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
        digest.update(name.encode("utf-8", "surrogateescape") + b"\0")
        size = _regular_size(path)
        try:
            if size is None:
                raise OSError
            with path.open("rb") as handle:
                body = handle.read(size + 1)
        except OSError:
            digest.update(b"unreadable\0")
            continue
        digest.update(f"{len(body)}\0".encode())
        digest.update(body)
    return digest.hexdigest()


def agent_sources(config: TournamentConfig, game: GameEntry) -> dict[str, str]:
    """The digest of every Python agent's code the config's seats run, by module (a
    module that cannot be found is left out: its seats' identities say so)."""
    modules = sorted(
        {
            module_of(spec.python)
            for entrant in config.entrants
            for _, spec in entrant.seat_specs(game).values()
            if isinstance(spec, PythonSeatConfig)
        }
    )
    found = {}
    for module in modules:
        path = module_file(module)
        if path is not None:
            found[module] = source_digest(path)
    return found


__all__ = [
    "MAX_BYTES",
    "MAX_FILES",
    "agent_sources",
    "covered_files",
    "module_file",
    "module_of",
    "package_root",
    "source_digest",
]
