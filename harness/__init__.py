"""Lighthouse tournament harness: exact rules, async seats, crash-safe records."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("lighthouse-harness")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
