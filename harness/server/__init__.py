"""The harness's HTTP server: Relayroam's stateless JSON API and its playable page.

:func:`create_app` builds the ASGI app (Starlette); :func:`serve` runs it with uvicorn
(``lighthouse serve [--host] [--port]``).
"""

from harness.server.app import create_app, serve

__all__ = ["create_app", "serve"]
