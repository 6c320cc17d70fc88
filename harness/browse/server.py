"""``lighthouse view DIR``: the browser served on 127.0.0.1, read afresh as the folder grows.

The standard library's threading HTTP server is enough here: one person's browser,
GET only, pages rendered from the folder on request. A page is rendered again only
when the folder changed (the results lines, the manifest, the list of records), so a
tournament still running shows its new episodes on reload. Only the index and the
pages of the episodes it lists are served; anything else is a 404. Every answer
carries a Content-Security-Policy that allows nothing from outside the page and no
framing by another page (``frame-ancestors 'none'``), and a request whose ``Host``
header is not the address the server binds is refused with 421 (DNS rebinding:
:mod:`harness.server.hosts`).
"""

from __future__ import annotations

import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from harness.browse.episode import episode_page
from harness.browse.folder import Snapshot, read_folder
from harness.browse.index import index_page
from harness.browse.site import EPISODES_DIR
from harness.errors import ConfigError, HarnessError
from harness.server.hosts import MISDIRECTED, AllowedHosts, allowed_hosts

DEFAULT_PORT = 8001
CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


class FolderPages:
    """The pages of one results folder, rendered when it changes; thread-safe."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock = threading.Lock()
        self._key: tuple[Any, ...] | None = None
        self._snapshot: Snapshot | None = None
        self._index: str | None = None

    def _fingerprint(self) -> tuple[Any, ...]:
        out: list[Any] = []
        for path in (
            self.root / "manifest.json",
            self.root / "episodes.jsonl",
            self.root / "records",
        ):
            try:
                st = path.stat()
            except OSError:
                out.append(None)
                continue
            out.append((st.st_mtime_ns, st.st_size, st.st_ino))
        return tuple(out)

    def snapshot(self) -> tuple[Snapshot, str]:
        """The folder as it is now, and its index page."""
        with self._lock:
            key = self._fingerprint()
            if key != self._key or self._snapshot is None or self._index is None:
                snapshot = read_folder(self.root)
                self._snapshot, self._index, self._key = snapshot, index_page(snapshot), key
            return self._snapshot, self._index

    def page(self, path: str) -> str | None:
        """The page at the URL path ``path``, or None when there is none."""
        snapshot, index = self.snapshot()
        if path in ("/", "/index.html"):
            return index
        prefix = f"/{EPISODES_DIR}/"
        if not path.startswith(prefix):
            return None
        row = snapshot.page_of(unquote(path[len(prefix) :]))
        return episode_page(snapshot, row) if row is not None else None


def _handler(pages: FolderPages, hosts: AllowedHosts) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "lighthouse-view"
        timeout = 30  # seconds a connection may sit idle before its thread lets it go
        sys_version = ""

        def do_GET(self) -> None:
            self._answer(body=True)

        def do_HEAD(self) -> None:
            self._answer(body=False)

        def _answer(self, *, body: bool) -> None:
            refused = hosts.refusal(self.headers.get("Host"))
            if refused is not None:
                self._send(HTTPStatus(MISDIRECTED), refused, body)
                return
            path = urlsplit(self.path).path
            if path == "/favicon.ico":  # asked for by browsers on every page: none
                self.send_response(HTTPStatus.NO_CONTENT)
                self.end_headers()
                return
            try:
                page = pages.page(path)
            except HarnessError as exc:  # a folder or record that cannot be read (now)
                self._send(HTTPStatus.INTERNAL_SERVER_ERROR, f"cannot show {path}: {exc}", body)
                return
            if page is None:
                self._send(HTTPStatus.NOT_FOUND, f"no page at {path}", body)
                return
            self._send(HTTPStatus.OK, page, body, html=True)

        def _send(self, status: HTTPStatus, text: str, body: bool, *, html: bool = False) -> None:
            data = text.encode("utf-8")
            self.send_response(status)
            kind = "text/html" if html else "text/plain"
            self.send_header("Content-Type", f"{kind}; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")  # the folder may grow
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Content-Security-Policy", CSP)
            self.send_header("X-Frame-Options", "DENY")
            self.send_header("Referrer-Policy", "no-referrer")
            self.end_headers()
            if body:
                self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: a page view is not news

    return Handler


def make_server(
    root: Path, host: str = "127.0.0.1", port: int = DEFAULT_PORT
) -> ThreadingHTTPServer:
    """A server of ``root``'s browser bound to ``host:port`` (0: any free port), not yet
    serving. Reads the folder once first, so a folder that cannot be shown fails here."""
    pages = FolderPages(root)
    pages.snapshot()
    try:
        server = ThreadingHTTPServer((host, port), _handler(pages, allowed_hosts(host)))
    except OSError as exc:
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    server.daemon_threads = True
    # Ctrl-C must not wait on a page still being written to a slow client: handler
    # threads are daemons, and closing the server does not join them.
    server.block_on_close = False
    return server


__all__ = ["CSP", "DEFAULT_PORT", "FolderPages", "make_server"]
