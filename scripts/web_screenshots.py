"""Redraw the web page's pictures in docs/images (web_<game>.png, web_phone.png) by playing on
the page in Debian's Chromium, driven by Playwright (the web and browser extras; no browser is
downloaded): the web server runs in this process on a free port, each game is opened by a deep
link against the heuristic, random moves are clicked (seeded) up to the move the game's
description names for its picture (``gallery.web_move``), and the page is photographed.

    python scripts/web_screenshots.py [--chromium /usr/bin/chromium] [--game knot]
"""

from __future__ import annotations

import argparse
import json
import random
import socket
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import envs  # noqa: E402

IMAGES = ROOT / "docs" / "images"
SETTLED = 'body[data-state="your-turn"], body[data-state="over"]'
DESKTOP = {"width": 1400, "height": 1000}
PHONE = {"width": 390, "height": 844}
SEED = 3
WAIT_MS = 60_000


def serve() -> tuple[str, object]:
    """The web server in a daemon thread on a free port: its address and its uvicorn server."""
    import uvicorn

    from training.serving.web.app import WebConfig, create_app, uvicorn_config

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = WebConfig()
    server = uvicorn.Server(uvicorn_config(create_app(config), "127.0.0.1", port, config))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", server


def link(url: str, game: str, options: dict, seat: int = 0, seed: int = SEED) -> str:
    query = {"game": game, "opponent": "heuristic", "seat": seat, "seed": seed}
    if options:
        query["options"] = json.dumps(options)
    return f"{url}/?{urlencode(query)}"


def click_a_move(page, rng: random.Random) -> None:
    """One random playable element: clicked, or its choice panel opened, a move picked, played."""
    playable = page.locator("#board .el[data-action], #board .el[data-choices]")
    element = playable.nth(rng.randrange(playable.count()))
    single = element.get_attribute("data-action")
    element.click()
    if single is None:
        page.wait_for_selector("#choices:not([hidden]) #choice-list [data-choice]", timeout=WAIT_MS)
        choices = page.locator("#choice-list [data-choice]")
        action = choices.nth(rng.randrange(choices.count())).get_attribute("data-choice")
        page.click(f'#choice-list [data-choice="{action}"]')
        page.wait_for_selector(f'#confirm[data-action="{action}"]', timeout=WAIT_MS)
        page.click("#confirm")


def play(page, moves: int, rng: random.Random) -> None:
    for _ in range(moves):
        page.wait_for_selector(SETTLED, timeout=WAIT_MS)
        if page.evaluate("document.body.dataset.state") == "over":
            return
        click_a_move(page, rng)
    page.wait_for_selector(SETTLED, timeout=WAIT_MS)


def picture(page, name: str) -> Path:
    page.mouse.move(0, 0)
    path = IMAGES / f"web_{name}.png"
    page.screenshot(path=str(path), full_page=True)
    print(path.relative_to(ROOT))
    return path


def draw(browser, url: str, games: list[str]) -> None:
    for short in games:
        description = envs.describe(short)
        page = browser.new_page(viewport=DESKTOP)
        if short == "knot":  # the default board, a choice panel open on a square, one move previewed
            page.goto(link(url, short, {}, seat=1, seed=1))
            rng = random.Random(1)
            play(page, 8, rng)
            while page.locator("#board .el[data-choices]").count() <= 3:  # a turn with squares to choose in
                play(page, 1, rng)
            page.locator("#board .el[data-choices]").nth(3).click()
            page.locator("#choice-list [data-choice]").nth(2).click()
            page.wait_for_selector("#board .el.choosing", timeout=WAIT_MS)
        elif short == "uzor":  # the default 21×21 table, a dozen moves in
            page.goto(link(url, short, {}, seed=2))
            play(page, 14, random.Random(2))
        else:
            page.goto(link(url, short, description.test_options.page_options()))
            play(page, description.gallery.web_move or 6, random.Random(SEED))
        picture(page, short)
        page.close()
    page = browser.new_page(viewport=PHONE)  # a phone: the players above the board, the panel under it
    page.goto(link(url, "loom", {}))
    play(page, 5, random.Random(SEED))
    picture(page, "phone")
    page.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="the browser to drive (default /usr/bin/chromium)")
    parser.add_argument("--game", action="append", help="only this game's picture (repeatable; default: all)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    games = args.game or [envs.describe(name).short_name for name in envs.GAMES if envs.describe(name).board is not None]
    url, server = serve()
    IMAGES.mkdir(parents=True, exist_ok=True)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
            draw(browser, url, games)
            browser.close()
    finally:
        server.should_exit = True


if __name__ == "__main__":
    main()
