"""Fixtures of the web tests: one in-process web server and one browser for each test file, and a
fresh tab for each test."""

from __future__ import annotations

from contextlib import contextmanager

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


@contextmanager
def browser_tab(browser, viewport: dict[str, int]):
    """A fresh tab (its own context: no cookies or storage shared) of ``viewport``'s size, its
    console's errors collected in ``tab.console.errors``."""
    context = browser.new_context(viewport=viewport)
    tab = context.new_page()
    tab.console = Console(tab)
    try:
        yield tab
    finally:
        context.close()


@pytest.fixture
def page(browser):
    with browser_tab(browser, {"width": 1400, "height": 1000}) as tab:
        yield tab
