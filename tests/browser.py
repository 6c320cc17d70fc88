"""Headless Debian Chromium for the browser tests, driven through Selenium, offline.

Import :func:`require_browser` at module level: without Chromium and chromedriver the
module is not run, except in CI (LIGHTHOUSE_REQUIRE_BROWSER, set by .ci/run, which
installs both), where it fails instead. Locally, tests/conftest.py leaves such modules
(and tests using a ``browser`` fixture) out of the run and says so in one line.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")


#: Why browser tests do not run on a machine without them.
MISSING = "chromium and chromedriver are not installed"


def browser_available() -> bool:
    """Whether Chromium and chromedriver are both installed."""
    return bool(CHROMIUM and DRIVER)


def browser_required() -> bool:
    """Whether a missing browser is a failure (CI), not a notice."""
    return bool(os.environ.get("LIGHTHOUSE_REQUIRE_BROWSER"))


def require_browser() -> None:
    """Skip (or in CI, fail) the calling test module when no browser is installed."""
    if browser_available():
        return
    if browser_required():
        pytest.fail("chromium and chromedriver are required", pytrace=False)
    pytest.skip(MISSING, allow_module_level=True)


def chromium(user_data_dir: Path, *, console_log: bool = False) -> Any:
    """A headless Chromium that cannot reach any host but 127.0.0.1."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM or ""
    for arg in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--window-size=1280,900",
        # offline: every request but loopback goes to a dead proxy and no name resolves
        "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        f"--user-data-dir={user_data_dir}",
    ):  # fmt: skip
        options.add_argument(arg)
    if console_log:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(DRIVER or ""), options=options)


__all__ = [
    "CHROMIUM",
    "DRIVER",
    "MISSING",
    "browser_available",
    "browser_required",
    "chromium",
    "require_browser",
]
