"""The page as a player meets it, in a real browser (Debian's Chromium, driven by Playwright):
the log's move numbers, what the log says of Knot's draws, Fill's clocks ticking and the game
ended on time without a click, "This deal again" as a link that keeps every option, Knot's
final score the same on the board and beside it, a bot that fails or cannot meet the server's
limits, a reload that brings the game back (the address is the game), a slow start that says
what is happening, bad deep links said on the form, players' words (levels by name), the rules
on the page, the middle level chosen first, hints, the hidden items and the replay at the end,
the review of your moves, rematch and swapped seats, a search's thinking, and every game played
whole on a phone's screen.

The test options of each game are its description's ``page`` options (tests/web/test_page.py).
"""

from __future__ import annotations

import html
import json
import random
import re
import time
from urllib.parse import parse_qs, urlparse

import pytest

import envs
from tests.web.conftest import browser_tab
from tests.web.test_page import (
    PAGE_GAMES, WAIT_MS, click_a_move, deep_link, open_form, page_moves, page_scores, play_to_the_end, replay, settle,
)
from training.agents.levels import agent_levels

FAST = 10.0  # the fast clock's rate: Fill's 120 s pass in 12 s


def held_games(web):
    return [game for server in list(web.state.servers.values()) for game in server.web.games.values()]


def log_numbers(page) -> list[tuple[str, str]]:
    """Each numbered entry of the log: its data-ply and the number it shows."""
    return page.eval_on_selector_all(
        "[data-log] [data-ply]", "nodes => nodes.map(n => [n.dataset.ply, n.querySelector('.ply').textContent])")


def check_log_numbers(page) -> None:
    """The moves are numbered 1, 2, … with no gap (chance lines are not moves), each number shown
    whole inside the log."""
    numbers = log_numbers(page)
    assert [int(ply) for ply, _ in numbers] == list(range(1, len(numbers) + 1))
    assert all(shown == f"{ply}." for ply, shown in numbers)
    clipped = page.evaluate("""() => {
        const log = document.querySelector('[data-log]').getBoundingClientRect();
        return [...document.querySelectorAll('[data-log] .ply')].filter(n => {
            const box = n.getBoundingClientRect();
            return box.left < log.left - 0.5 || n.scrollWidth > n.clientWidth + 0.5;
        }).map(n => n.textContent);
    }""")
    assert clipped == []


def test_the_log_numbers_moves_past_100_and_skips_no_number_at_chance_lines(web, page):
    """Loom: the dice thrown are lines of their own, not moves; the numbers run on without a gap.
    Then Knot's default game to its end, well past 100 moves: every number shown whole."""
    page.goto(deep_link(web, "loom", {}, 0, 3, "heuristic"))
    play_to_the_end(page, random.Random(3))
    assert page.locator("[data-log] li.chance").count() > 10  # the throws
    check_log_numbers(page)
    page.goto(deep_link(web, "knot", {}, 0, 4, "random"))
    play_to_the_end(page, random.Random(4))
    assert len(log_numbers(page)) >= 100
    check_log_numbers(page)
    assert page.console.errors == [], page.console.errors


def test_knots_log_tells_a_draw_as_it_resolved(web, page):
    """A market draw: the slot's refill as the board shows it; your own pile draw: what you drew."""
    page.goto(f"{web.url}/?game=knot&opponent=heuristic&seed=21")
    assert settle(page) == "your-turn"
    click_a_move(page, random.Random(0))  # the first turn places one strand, then draws
    assert settle(page) == "your-turn"
    page.click("#el-market-0")
    settle(page)
    text = page.locator("[data-log] li[data-notation='draw 0']").first.text_content()
    (game,) = held_games(web)
    engine = envs.load("knot").raw_env()
    engine.reset(seed=21)
    moves = page_moves(page)
    for notation in moves[:moves.index("draw 0") + 1]:
        engine.step(engine.string_to_action(notation))
    refill = engine.game.market[0]
    assert refill >= 0 and text.endswith(f"the pile refills slot 0 with a {('Cut', 'Run', 'Hook', 'Flip')[refill]}"), text
    assert "stays empty" not in text
    # a pile draw of your own says what you drew
    while settle(page) != "over":
        pile = page.locator("#el-pile[data-action]")
        if pile.count():
            pile.click()
            settle(page)
            mine = page.locator("[data-log] li[data-notation='draw pile'][data-seat='0']").last.text_content()
            assert "(seen by you alone)" in mine and "unseen" not in mine, mine
            break
        click_a_move(page, random.Random(1))
    assert page.console.errors == [], page.console.errors


@pytest.fixture(scope="module")
def fast_web():
    """A server whose timed games run on a clock FAST times real time."""
    from tests.web.servers import ThreadServer
    from training.serving.web.app import WebConfig

    origin = time.monotonic()
    server = ThreadServer(WebConfig(game_clock=lambda: origin + (time.monotonic() - origin) * FAST))
    yield server
    server.close()


def test_fills_clock_ticks_and_the_game_ends_on_time_without_a_click(fast_web, page):
    """As reported: seed a cell, then wait past your time. The clock ticks on the page, the end comes
    without a click, the log says what happened (no trap in a game without traps), and a click
    after the end is told the game is over."""
    page.goto(f"{fast_web.url}/?game=fill&opponent=heuristic&seed=3&time_limit=true")
    assert settle(page) == "your-turn"
    page.click("#el-cell-13")  # b3 on 6×6: the seed
    assert settle(page) == "your-turn"  # the heuristic chose stay or swap: your turn again
    clock = page.locator("[data-clock][data-seat='0']")
    first = float(clock.get_attribute("data-clock"))
    page.wait_for_function(
        "v => Number(document.querySelector('[data-clock][data-seat=\"0\"]').dataset.clock) < v", arg=first - 5,
        timeout=WAIT_MS)
    page.wait_for_selector("[data-result]", timeout=WAIT_MS)  # no click: the server ends it on time
    assert page.get_attribute("[data-result]", "data-result") == "loss"
    log = page.text_content("[data-log]")
    assert "you ran out of time" in log and "trap" not in log
    assert float(page.get_attribute("[data-clock][data-seat='0']", "data-clock")) == 0.0
    page.click("#el-cell-8")
    assert page.text_content("#reason") == "the game is over"
    assert page.console.errors == [], page.console.errors


def test_this_deal_again_is_a_link_that_keeps_every_option(web, page):
    options = {"players": 3, **envs.describe("knot").test_options.page_options()}
    page.goto(deep_link(web, "knot", options, 1, 5, "heuristic"))
    play_to_the_end(page, random.Random(5))
    link = page.locator("a#again")
    query = parse_qs(urlparse(link.get_attribute("href")).query)
    assert query["game"] == ["knot"] and query["seat"] == ["1"] and query["seed"] == ["5"]
    assert query["opponent"] == ["heuristic"]
    assert json.loads(query["options"][0]) == options
    link.click()  # a real link: it starts the same deal, three players again
    assert settle(page) in ("your-turn", "over")
    assert page.locator("#players .player").count() == 3
    assert page.console.errors == [], page.console.errors


def test_knots_board_shows_the_scores_the_panel_shows_at_the_end(web, page):
    """The longest-ribbon bonus is in the board's seat key too."""
    options = envs.describe("knot").test_options.page_options()
    page.goto(deep_link(web, "knot", options, 0, 6, "heuristic"))
    play_to_the_end(page, random.Random(6))
    engine = replay("knot", options, 6, page_moves(page))
    assert engine.bonus_owner() >= 0  # the bonus was won: the board must count it
    for seat, score in enumerate(page_scores(page)):
        assert page.locator("#board svg text", has_text=f"player_{seat}: {score:g} points").count() == 1


def test_an_opponent_over_the_servers_limits_is_refused_and_a_failing_bot_is_no_dead_end(web, page):
    from training.serving.protocol import RequestError

    page.goto(f"{web.url}/?game=uzor&opponent=mcts:2000&seat=1&seed=3")
    page.wait_for_selector("[data-error]:not(:empty)", timeout=WAIT_MS)
    assert "longer than the 10 s this server allows a move" in page.text_content("[data-error]")
    assert page.evaluate("document.body.dataset.state") == "setup"
    # a bot that fails mid-game: retry, or let the heuristic play this move
    page.goto(deep_link(web, "linecatch", {}, 0, 2, "random"))
    assert settle(page) == "your-turn"
    (game,) = [g for g in held_games(web) if g.name == "linecatch_v0"]

    class Failing:
        def act(self, observation):
            raise RequestError("over_limit", "agent took longer than 10 s for a move")

    game.agents[1] = Failing()
    click_a_move(page, random.Random(0))
    page.wait_for_selector('body[data-state="bot-failed"]', timeout=WAIT_MS)
    assert "could not move" in page.text_content("#bot-error [data-error]")
    page.click("#board .el >> nth=0")  # the board answers a click with the way on, not "wait"
    assert "retry" in page.text_content("#reason")
    page.click("#retry")
    page.wait_for_selector('body[data-state="bot-failed"]', timeout=WAIT_MS)
    page.click("#stand-in")
    assert settle(page) in ("your-turn", "over")
    assert page.locator("[data-log] li[data-seat='1']").count() >= 1
    assert page.console.errors == [], page.console.errors


def position(page) -> list:
    """The board's picture (without the page's own marks: the cursor), the log, the status, the
    moves offered."""
    picture = re.sub(r' class="[^"]*"', "", page.inner_html("#board"))
    offered = page.eval_on_selector_all("#board [data-action], #board [data-choices]",
                                        "n => n.map(x => [x.dataset.el, x.dataset.action, x.dataset.choices])")
    return [picture, page.text_content("[data-log]"), page.text_content("#status"), offered]


def settle_with_review(page) -> str:
    """``settle``, and at the end wait for the review of your moves, which lands in the log
    after the result (the log is compared whole)."""
    state = settle(page)
    if state == "over":
        page.wait_for_selector("[data-log][data-reviewed]", timeout=WAIT_MS)
    return state


@pytest.mark.parametrize("game", PAGE_GAMES)
def test_a_reload_brings_the_same_game_back(web, page, game):
    """The address is the game: after Play it names the game (not its seed, not its moves), and a
    reload shows the same position, log and turn."""
    options = envs.describe(game).test_options.page_options()
    page.goto(deep_link(web, game, options, 0, 7, "heuristic"))
    rng = random.Random(7)
    for _ in range(3):
        if settle(page) == "over":
            break
        click_a_move(page, rng)
    settle_with_review(page)
    address = urlparse(page.url)
    assert set(parse_qs(address.query)) == {"g"}, page.url
    before = position(page)
    page.reload()
    settle_with_review(page)
    assert page.url == address.geturl()
    assert position(page) == before
    if settle(page) == "your-turn":
        click_a_move(page, rng)  # the game plays on
    assert page.console.errors == [], page.console.errors


def test_a_link_to_a_game_that_is_gone_says_so(web, page):
    page.goto(f"{web.url}/?g=nothing-kept-here")
    page.wait_for_selector("[data-error]:not(:empty)", timeout=WAIT_MS)
    assert "no game is kept under this link" in page.text_content("[data-error]")


def test_a_slow_start_says_what_is_happening(web, page, monkeypatch):
    from training.serving.web_games import WebGames

    real = WebGames.make_game

    def slow(self, *args, **kwargs):
        time.sleep(1.5)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(WebGames, "make_game", slow)
    open_form(web, page)
    page.click("#start")
    page.wait_for_selector("#preparing:not([hidden])", timeout=WAIT_MS)
    assert "starting" in page.text_content("#preparing")
    assert page.evaluate("document.body.dataset.state") == "starting"
    settle(page)
    assert page.locator("#preparing").is_hidden()


@pytest.mark.parametrize("query, words", [
    ("game=loom&options={bad", "not JSON"),
    ("game=loom&opponent=heuristic&bogus=1", "not an option of loom"),
    ("game=nothing", "unknown game"),
])
def test_bad_deep_links_are_said_never_a_silent_default(web, page, query, words):
    page.goto(f"{web.url}/?{query}")
    page.wait_for_selector("[data-error]:not(:empty)", timeout=WAIT_MS)
    assert words in page.text_content("[data-error]")
    assert page.evaluate("document.body.dataset.state") == "setup"
    assert page.locator("#table").is_hidden()


def test_players_read_no_developer_words(web, page):
    # a level where the options have none: a sentence, no env name, no Python dict
    page.goto(f"{web.url}/?game=fill&opponent=level:2&seed=3&time_limit=true")
    page.wait_for_selector("[data-error]:not(:empty)", timeout=WAIT_MS)
    said = page.text_content("[data-error]")
    assert "Fill has no strength levels for these options" in said
    assert "fill_v0" not in said and "{" not in said
    # Knot's first turn: no END button yet, so no word of it
    page.goto(f"{web.url}/?game=knot&opponent=heuristic&seed=3")
    assert settle(page) == "your-turn"
    page.click("#el-pile")
    page.wait_for_selector("#reason:not(:empty)")
    assert page.text_content("#reason") == "draw only after placing: place a strand first"
    # a level is named as players know it
    page.goto(f"{web.url}/?game=knot&opponent=level:4&seed=3")
    settle(page)
    names = page.eval_on_selector_all("#players .name", "n => n.map(x => x.textContent)")
    assert f"{agent_levels('knot')[3]['name']} (level 4) (player_1)" in names


def test_the_rules_are_on_the_form_and_in_the_game(web, page):
    open_form(web, page)
    page.click("#show-rules")
    rules = page.locator("#setup [data-rules]")
    assert rules.is_visible() and "How to play" in rules.text_content()
    page.select_option("#game", "fill_v0")
    page.wait_for_function("() => document.querySelector('#setup [data-rules] h3').textContent.includes('Fill')")
    page.click("#start")
    settle(page)
    page.click("#rules-button")
    assert page.locator("#table [data-rules]").is_visible()
    assert "How to play Fill" in page.text_content("#table [data-rules]")
    assert page.console.errors == [], page.console.errors


def test_the_default_opponent_is_a_middle_level_named_with_what_elo_means(web, page):
    open_form(web, page, "knot_v0")
    levels = agent_levels("knot")
    page.wait_for_function(  # Knot's own list (Linecatch's, the first game's, has other levels)
        "n => document.querySelectorAll('#opponent optgroup[label=\"strength levels\"] option').length === n",
        arg=len(levels), timeout=WAIT_MS)
    quick = [level for level in levels if level["ms_per_move"] < 1000]
    assert page.eval_on_selector("#opponent", "s => s.value") == f"level:{quick[(len(quick) - 1) // 2]['level']}"
    assert f"Elo is measured against level 1 ({levels[0]['name']}" in page.text_content("#levels-note")


def test_knot_with_three_players_offers_the_levels_of_three_players(web, page):
    """The opponents follow the options on the form: 3 players has levels of its own."""
    open_form(web, page, "knot_v0")
    page.fill('#option-fields input[data-option="players"]', "3")
    page.dispatch_event('#option-fields input[data-option="players"]', "change")
    wanted = [[f"{level['name']} (level {level['level']} · Elo ", level["elo"]] for level in agent_levels("knot", players=3)]
    assert [level["elo"] for level in agent_levels("knot", players=3)] != [level["elo"] for level in agent_levels("knot")]
    page.wait_for_function(  # each level named, numbered and rated as the 3-player levels file says
        """wanted => {
          const shown = [...document.querySelectorAll('#opponent optgroup[label="strength levels"] option')];
          return shown.length === wanted.length && shown.every((o, i) =>
            o.textContent.startsWith(wanted[i][0] + Math.round(wanted[i][1]) + " "));
        }""", arg=wanted, timeout=WAIT_MS)
    page.click("#start")
    assert settle(page) == "your-turn"  # seat 0 of three
    assert page.locator("#players li").count() == 3
    assert page.console.errors == [], page.console.errors


def test_a_hint_shows_a_move_on_the_board_and_is_counted(web, page):
    page.goto(deep_link(web, "linecatch", {}, 0, 11, "heuristic"))
    assert settle(page) == "your-turn"
    page.click("#hint")
    page.wait_for_selector("#board .el.hinted", timeout=WAIT_MS)
    assert page.text_content("#reason").startswith("hint: ")
    assert "hint 1:" in page.text_content("[data-log]")
    play_to_the_end(page, random.Random(11))
    assert "(1 hint)" in page.text_content("[data-result]")


def test_at_the_end_the_hidden_items_show_and_the_replay_steps_through_the_game(web, page):
    options = {"board_size": 9}
    page.goto(deep_link(web, "uzor", options, 0, 8, "heuristic"))
    play_to_the_end(page, random.Random(8))
    (game,) = [g for g in held_games(web) if g.name == "uzor_v0"]
    board = envs.describe("uzor").board

    def texts(svg: str) -> list[str]:
        return sorted(html.unescape(text) for text in re.findall(r">([^<>]+)</text>", svg))

    shown = sorted(page.eval_on_selector_all("#board svg text", "n => n.map(x => x.textContent)"))
    assert shown == texts(board.svg(game.game, (0, 1))) != texts(board.svg(game.game, (0,)))  # both goals
    page.click("#review-first")
    page.wait_for_function("() => document.querySelector('#review-where').textContent.includes('after 0')")
    start = page.inner_html("#board")
    page.click("#review-forward")
    page.wait_for_function("() => document.querySelector('#review-where').textContent.includes('after 1')")
    assert page.inner_html("#board") != start
    page.click("#review-last")
    page.wait_for_function("() => document.querySelector('#review-where').textContent.includes('the end')")
    assert page.console.errors == [], page.console.errors


def test_rematch_and_swap_seats_after_the_end(web, page):
    page.goto(deep_link(web, "linecatch", {"rows": 3, "cols": 3}, 0, 12, "heuristic"))
    play_to_the_end(page, random.Random(12))
    page.click("#swap")
    settle(page)
    names = page.eval_on_selector_all("#players .name", "n => n.map(x => x.textContent)")
    assert names == ["heuristic (player_0)", "you (player_1)"]
    assert page.locator("#board .el").count() == 9  # the same options
    first = page_moves(page)
    engine = envs.load("linecatch").raw_env(rows=3, cols=3)
    engine.reset(seed=12)  # the same deal, the other seat
    assert first and first[0] in [engine.action_to_string(a) for a in engine.game.legal_actions()]
    play_to_the_end(page, random.Random(13))
    page.click("#rematch")
    settle(page)
    assert page.eval_on_selector_all("#players .name", "n => n.map(x => x.textContent)") == names
    assert page.console.errors == [], page.console.errors


@pytest.fixture
def phone(browser):
    with browser_tab(browser, {"width": 390, "height": 844}) as tab:
        yield tab


WIDER_THAN_THE_SCREEN = "() => document.documentElement.scrollWidth - window.innerWidth"
SMALLEST_TAP = """() => Math.min(...[...document.querySelectorAll('#board .el.playable')].map(n => {
    const box = n.getBoundingClientRect();
    return Math.min(box.width, box.height);
}))"""


@pytest.mark.parametrize("game", PAGE_GAMES)
def test_a_full_game_on_a_phone(web, phone, game):
    """390×844: the form fits the screen; then at every step of a whole game nothing is wider
    than the screen, every part to tap is at least 32 px, the players sit above the board and
    the side panel under it."""
    page = phone
    open_form(web, page, envs.describe(game).name)
    page.click("#show-rules")
    assert page.evaluate(WIDER_THAN_THE_SCREEN) <= 0
    options = envs.describe(game).test_options.page_options()
    page.goto(deep_link(web, game, options, 0, 9, "heuristic"))
    rng = random.Random(9)
    for _ in range(400):
        state = settle(page)
        assert page.evaluate(WIDER_THAN_THE_SCREEN) <= 0
        if state == "over":
            break
        assert page.evaluate(SMALLEST_TAP) >= 32
        click_a_move(page, rng)
    assert settle(page) == "over"
    top, board_box, side = (page.locator(selector).bounding_box() for selector in ("#top", "#board-area", "#side"))
    assert top["y"] + top["height"] <= board_box["y"] + 1 and board_box["y"] + board_box["height"] <= side["y"] + 1
    assert page.console.errors == [], page.console.errors


def test_the_review_at_the_end_prices_each_of_your_moves(web, page):
    """Linecatch 4×4 (its solver table is built in a moment): the points each of your moves lost
    to perfect play, as the solver reckons the record; Loom: a search's preferred move."""
    from envs.linecatch import solver

    page.goto(deep_link(web, "linecatch", {"rows": 4, "cols": 4}, 0, 14, "heuristic"))
    play_to_the_end(page, random.Random(14))
    page.wait_for_selector("[data-log] .review", timeout=WAIT_MS)
    shown = page.eval_on_selector_all(
        "[data-log] li[data-seat='0'] .review", "n => n.map(x => [x.closest('li').dataset.ply, x.dataset.lost])")
    losses = solver.move_losses(page_moves(page), 4, 4)
    expected = [[str(ply), str(loss.lost)] for ply, loss in enumerate(losses, start=1) if loss.seat == 0]
    assert shown == expected
    page.goto(deep_link(web, "loom", {}, 0, 15, "heuristic"))
    play_to_the_end(page, random.Random(15))
    page.wait_for_selector("[data-log] .review", timeout=WAIT_MS)
    assert page.locator("[data-log] li[data-seat='0'] .review").count() == 16  # one per weave of yours
    assert page.console.errors == [], page.console.errors


def test_a_searchs_thinking_is_shown_beside_its_move(web, page):
    """Against a search, the moves it weighed most with their share of its visits, the move it
    played among them."""
    page.goto(deep_link(web, "loom", {}, 1, 16, "mcts:50"))
    assert settle(page) == "your-turn"
    thought = page.text_content("#thought")
    played = page_moves(page)[-1]
    assert re.fullmatch(r"mcts:50 weighed (\S+ \d+%)( · \S+ \d+%)*; played " + re.escape(played), thought), thought
    assert f"{played} " in thought.split(";")[0]
