"""Fixtures of the web tests: one in-process web server and one browser for each test file."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def web():
    from tests.web.servers import ThreadServer

    server = ThreadServer()
    yield server
    server.close()


@pytest.fixture(scope="module")
def browser():
    from tests.web.servers import browser_or_skip

    sync_playwright, chromium = browser_or_skip()
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield instance
        instance.close()


class Console:
    """The browser console's errors and the page's uncaught exceptions."""

    def __init__(self, page):
        self.errors: list[str] = []
        page.on("console", lambda message: self.errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    tab.console = Console(tab)
    yield tab
    context.close()
