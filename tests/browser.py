"""Headless Chromium (Debian's `chromium`) driven by Playwright, for tests of what a person sees.

Never Playwright's own browser download: the system browser at CHROMIUM.  If it
cannot be started the test fails with the reason (nothing is skipped silently).
"""
from __future__ import annotations

import contextlib
import os

import pytest

CHROMIUM = "/usr/bin/chromium"  # TESSERA_CHROMIUM overrides it
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@contextlib.contextmanager
def chromium_page(width: int = 1400, height: int = 900):
    """A page of a fresh headless Chromium; fails the test (with the reason) if there is none."""
    from playwright.sync_api import Error, sync_playwright

    exe = os.environ.get("TESSERA_CHROMIUM", CHROMIUM)
    if not os.path.exists(exe):
        pytest.fail(f"Chromium is not installed at {exe} (apt-get install chromium; .ci/run does it)")
    with sync_playwright() as pw:
        try:
            browser = pw.chromium.launch(executable_path=exe, args=ARGS, timeout=60_000)
        except Error as exc:
            pytest.fail(f"Chromium at {exe} cannot be started: {exc}")
        try:
            page = browser.new_page(viewport={"width": width, "height": height})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.errors = errors  # type: ignore[attr-defined]
            yield page
        finally:
            browser.close()
