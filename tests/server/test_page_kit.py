"""The games' pages share one kit (harness/protocol/page_kit.*), inlined when a page is
read: every served page carries it once, and its Content-Security-Policy allows exactly
the page's inline scripts and styles, the kit's among them, by hash."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.protocol.page_kit import MARKER, kit_html, read_page
from harness.registry import GAMES
from tests.relayroam.live_server import http, running_server


def _hashes(page: str, tag: str) -> set[str]:
    bodies = re.findall(rf"<{tag}>(.*?)</{tag}>", page, flags=re.DOTALL)
    return {
        "'sha256-" + base64.b64encode(hashlib.sha256(b.encode()).digest()).decode() + "'"
        for b in bodies
    }


def _allowed(csp: str, directive: str) -> set[str]:
    found = re.search(rf"{directive} ([^;]*);", csp)
    assert found is not None, csp
    return set(found.group(1).split())


def test_every_served_page_carries_the_kit_once_and_its_policy_allows_it() -> None:
    with running_server(b"k" * 32) as base:
        for name in GAMES:
            reply = http("GET", f"{base}/{name}/")
            assert reply.status == 200, name
            page = reply.raw.decode("utf-8")
            assert MARKER not in page
            assert page.count("const pageKit = ") == 1, name
            assert page.count("<style>") == 2, name
            assert page.count("<script>") == 2, name
            # the kit opens the page: its script in the head, before the page's own
            assert page.index("const pageKit = ") < page.index("</head>")
            assert page.startswith('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset')
            csp = reply.headers["content-security-policy"]
            assert _allowed(csp, "script-src") == _hashes(page, "script"), name
            assert _allowed(csp, "style-src") == _hashes(page, "style"), name


def test_only_a_one_seat_page_gets_the_one_seat_styles() -> None:
    assert "#refusal" in kit_html(solo=True)
    assert "#refusal" not in kit_html()
    assert kit_html().count("<script>") == 1


def test_a_page_without_its_marker_line_is_a_clear_error(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text("<!DOCTYPE html>\n<html><head><title>t</title></head></html>\n")
    with pytest.raises(HarnessError, match="must start with the line <!-- page kit -->"):
        read_page(page)
    page.write_text(f"<title>t</title>\n{MARKER}\n")  # not first
    with pytest.raises(HarnessError, match="must start with"):
        read_page(page)
    page.write_text(f"{MARKER}\n{MARKER}\n")
    with pytest.raises(HarnessError, match="hold it once"):
        read_page(page)
    page.write_text(f"{MARKER}\n<title>t</title>\n")
    assert read_page(page).startswith("<!DOCTYPE html>")
    assert read_page(page).endswith("</script>\n<title>t</title>\n")
