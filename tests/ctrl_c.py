"""Children that a test stops with Ctrl-C start as a terminal's foreground job would.

A process started with SIGINT ignored keeps ignoring it (Python installs no
KeyboardInterrupt handler then, and neither do the harness's commands), and a shell
starts its background jobs that way: a suite run from a script in the background
would otherwise see every Ctrl-C test hang. ``FOREGROUND`` goes to ``Popen``.
"""

from __future__ import annotations

import signal
from typing import Any


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


#: ``subprocess.Popen(..., **FOREGROUND)``: SIGINT at its default in the child.
FOREGROUND: dict[str, Any] = {"preexec_fn": _default_sigint}
