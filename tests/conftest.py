"""What the console's and the floor page's browser tests share: Debian's chromium
(``scripts/ensure-chromium.sh``, which ``make test`` runs first), driven by Playwright through its
executable path (no browser is downloaded), and pages that keep what the browser refused."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
#: Without the networking switches Chromium floods a closed network with refused connections.
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-default-apps", "--mute-audio"]
#: Run in every page before its own scripts: each Content-Security-Policy violation is kept.
WATCH_CSP = ("document.addEventListener('securitypolicyviolation', (e) => "
             "(window.cspViolations = window.cspViolations || []).push(`${e.violatedDirective} ${e.blockedURI}`))")


class WatchedBrowser:
    """A headless Chromium whose pages each keep their uncaught errors and everything the browser
    refused under the Content-Security-Policy: ``page.refused()`` lists them."""

    def __init__(self, chromium: Any):
        self.chromium = chromium

    def page(self, viewport: dict[str, int]) -> Any:
        """A page in a new browser context (its own cookies)."""
        context = self.chromium.new_context(viewport=viewport)
        context.add_init_script(WATCH_CSP)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda message: errors.append(message.text)
                if message.type == "error" and "Content Security Policy" in message.text else None)
        page.refused = lambda: errors + page.evaluate("window.cspViolations || []")
        return page


@pytest.fixture(scope="module")
def browser():
    """The module's headless Chromium; its tests skip, saying why, where Playwright or chromium is missing."""
    playwright_api = pytest.importorskip("playwright.sync_api",
                                         reason="Playwright is not installed (pip install -e '.[dev]')")
    if not CHROMIUM.exists():
        pytest.skip("no /usr/bin/chromium: `make test` installs it (scripts/ensure-chromium.sh)")
    with playwright_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        yield WatchedBrowser(chromium)
        chromium.close()
