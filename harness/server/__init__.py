"""The harness's HTTP server: each game's stateless JSON API and playable page (Relayroam's).

:func:`create_app` builds the ASGI app (Starlette); :func:`serve` runs it with uvicorn
(``lighthouse serve``, flags in :mod:`harness.commands.serve`); :mod:`.limits` holds its
deadlines and connection cap. Starlette and uvicorn load only when the app is asked
for, so the ``lighthouse`` command starts without them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.server.app import create_app
    from harness.server.serving import serve

__all__ = ["create_app", "serve"]


def __getattr__(name: str) -> object:
    if name == "create_app":
        from harness.server.app import create_app

        return create_app
    if name == "serve":
        from harness.server.serving import serve

        return serve
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
