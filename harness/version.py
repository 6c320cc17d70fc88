"""The harness's installed version, for manifests and ``lighthouse --version``.

A bottom-layer module, so that whatever stamps a file with the version imports down,
never up through the package's lazy API (:mod:`harness`).
"""

from __future__ import annotations

import functools


@functools.cache
def harness_version() -> str:
    """The installed package's version; ``0.0.0+unknown`` in a source tree never installed.

    Looked up on first use: :mod:`importlib.metadata` is slow to load.
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("lighthouse-harness")
    except PackageNotFoundError:
        return "0.0.0+unknown"


__all__ = ["harness_version"]
