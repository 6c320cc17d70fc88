"""``lighthouse view``'s server over real HTTP: the address it binds, and its policy.

Every answer (the index, an episode's page, a 404, a refusal) carries the
Content-Security-Policy with ``frame-ancestors 'none'``; a ``Host`` header that is
not the address bound (DNS rebinding) gets a 421 with one line saying why.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browse.conftest import serving
from tests.server.test_hosts import FOREIGN, get

#: The view server's policy: nothing from outside the page, no framing by any page.
VIEW_CSP = re.compile(r"default-src 'none'; .*frame-ancestors 'none'")


@pytest.fixture(scope="module")
def viewed(folder200: Path) -> Iterator[int]:
    with serving(folder200) as url:
        yield int(url.rstrip("/").rsplit(":", 1)[1])


def test_view_refuses_another_sites_name_and_serves_its_own(viewed: int) -> None:
    episode = "/episodes/lantern--default--s0--r0.html"
    for path in ("/", "/index.html", episode, "/nothing"):
        for host in FOREIGN:
            status, headers, body = get(viewed, path, host)
            assert status == 421, (host, path)
            assert headers["content-type"] == "text/plain; charset=utf-8"
            text = body.decode()
            assert "answers requests for 127.0.0.1" in text
            assert "\n" not in text
            assert b"<html" not in body  # never the page
    for own in (f"127.0.0.1:{viewed}", "localhost:9999", None):
        assert get(viewed, "/", own)[0] == 200
        assert get(viewed, episode, own)[0] == 200


@pytest.mark.parametrize(
    ("path", "status"),
    [("/", 200), ("/episodes/lantern--default--s0--r0.html", 200), ("/nothing", 404)],
)
def test_every_view_answer_carries_the_policy(viewed: int, path: str, status: int) -> None:
    got, headers, _ = get(viewed, path, f"127.0.0.1:{viewed}")
    assert got == status
    assert VIEW_CSP.fullmatch(headers["content-security-policy"]) is not None
    assert headers["x-frame-options"] == "DENY"
    assert headers["x-content-type-options"] == "nosniff"
