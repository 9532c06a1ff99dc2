"""A real Chromium (Debian's, found on PATH) driven by Playwright against a live server.

Every browser context the tests open reports Content-Security-Policy violations (the
`securitypolicyviolation` event and Chromium's own console error), and a test whose pages
broke the policy fails."""

from __future__ import annotations

import os
import shutil

import pytest

from tests.conftest import skip_or_fail, user_in_group

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# What the pages' own JavaScript would have seen: each violation, as a console error.
REPORT_CSP_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  console.error(`CSP violation: ${event.effectiveDirective} blocked ${event.blockedURI} `
    + `at ${event.sourceFile}:${event.lineNumber} on ${document.location.pathname}`);
});
"""
CSP_VIOLATIONS: list[str] = []


def _record_csp_violation(message) -> None:
    text = message.text
    if message.type == "error" and ("Content Security Policy" in text or "CSP violation" in text):
        CSP_VIOLATIONS.append(text)


class CspWatchedBrowser:
    """The browser, each of whose new contexts reports CSP violations into CSP_VIOLATIONS."""

    def __init__(self, browser) -> None:
        self._browser = browser

    def new_context(self, **options):
        context = self._browser.new_context(**options)
        context.add_init_script(script=REPORT_CSP_VIOLATIONS)
        context.on("console", _record_csp_violation)
        return context

    def __getattr__(self, name: str):
        return getattr(self._browser, name)


@pytest.fixture(autouse=True)
def no_csp_violations():
    """Fails the test whose pages broke the Content-Security-Policy (checked after its
    browser contexts closed, so every report is in)."""
    CSP_VIOLATIONS.clear()
    yield CSP_VIOLATIONS
    violations = list(CSP_VIOLATIONS)
    CSP_VIOLATIONS.clear()
    assert not violations, violations


@pytest.fixture(scope="session")
def browser():
    executable = os.environ.get("CHROMIUM") or shutil.which("chromium")
    if not executable:
        skip_or_fail("Chromium not found (apt-get install chromium, or set CHROMIUM)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        skip_or_fail("playwright is not installed (pip install -e '.[dev]')")
    # Playwright's sync API keeps an event loop in this thread; the ORM calls the tests make
    # between browser steps are ordinary synchronous ones.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield CspWatchedBrowser(browser)
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    yield context.new_page()
    context.close()


@pytest.fixture
def producer():
    """The browser tests' producer: they log in as "prod" with the password "pw"."""
    return user_in_group("prod", "Producers")
