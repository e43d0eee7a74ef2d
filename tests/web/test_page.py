"""The page in a real browser (Debian's Chromium, driven by Playwright): every game played to
its end by clicking on the board against a bot, every move through the page (several moves of
one element picked in the choice panel, each previewed, then confirmed), no error in the
browser's console, and the final scores on the page equal to the engine's when the moves the
page lists are replayed on a fresh engine from the game's seed. Then an illegal click shows the
engine's reason, undo takes back a step, a deep link starts a game, and the keyboard plays.

The full games iterate over every registered game with a board view, each under its
description's ``page`` test options (small where the defaults are long: Uzor on a 9×9 table,
Knot on a 4×4 board with a 20-strand pile); a default-options game of Uzor and Knot runs as
well. (The pictures docs/images/web_*.png are drawn by scripts/web_screenshots.py.)
"""

from __future__ import annotations

import random
import time

import pytest

import envs
from training.agents.levels import agent_levels

SETTLED = 'body[data-state="your-turn"], body[data-state="over"]'
WAIT_MS = 60_000

PAGE_GAMES = [envs.describe(name).short_name for name in envs.GAMES if envs.describe(name).board is not None]
"""Every registered game with a board view (a game without one cannot be played on the page)."""
FULL_GAME_SEED = 3


def deep_link(web, game: str, options: dict, seat: int, seed: int, opponent: str) -> str:
    import json
    from urllib.parse import urlencode

    query = {"game": game, "opponent": opponent, "seat": seat, "seed": seed}
    if options:
        query["options"] = json.dumps(options)
    return f"{web.url}/?{urlencode(query)}"


def open_form(web, page, game: str | None = None) -> None:
    """The page's setup form, with ``game`` (an env name) chosen when given."""
    page.goto(web.url + "/")
    page.wait_for_selector('body[data-state="setup"]', timeout=WAIT_MS)
    if game is not None:
        page.select_option("#game", game)


def settle(page) -> str:
    page.wait_for_selector(SETTLED, timeout=WAIT_MS)
    return page.evaluate("document.body.dataset.state")


def click_a_move(page, rng: random.Random) -> tuple[str, int]:
    """Click one playable element (a choice: open the panel, pick one, confirm); returns how
    it was played and the action."""
    playable = page.locator("#board .el[data-action], #board .el[data-choices]")
    count = playable.count()
    assert count > 0, "your turn, but no element holds a move"
    element = playable.nth(rng.randrange(count))
    single = element.get_attribute("data-action")
    if single is not None:
        element.click()
        return "click", int(single)
    element.click()
    page.wait_for_selector("#choices:not([hidden]) #choice-list [data-choice]", timeout=WAIT_MS)
    choices = page.locator("#choice-list [data-choice]")
    pick = choices.nth(rng.randrange(choices.count()))
    action = int(pick.get_attribute("data-choice"))
    pick.click()
    # the preview is on the board (its element outlined) and the confirm button plays that move
    page.wait_for_selector(f'#confirm[data-action="{action}"]', timeout=WAIT_MS)
    page.wait_for_selector("#board .el.choosing", timeout=WAIT_MS)
    page.click("#confirm")
    return "choice", action


def play_to_the_end(page, rng: random.Random, limit: int = 400) -> dict:
    """Click moves until the game ends; counts the moves played by a click and through the
    choice panel, and the turns on which the board offered an element with several moves
    (``offered``)."""
    moves = {"click": 0, "choice": 0, "offered": 0}
    for _ in range(limit):
        if settle(page) == "over":
            return moves
        moves["offered"] += page.locator("#board .el[data-choices]").count() > 0
        how, _ = click_a_move(page, rng)
        moves[how] += 1
    raise AssertionError(f"no end after {limit} moves")


def page_scores(page) -> list[float]:
    return [float(x) for x in page.eval_on_selector_all("#players .score", "nodes => nodes.map(n => n.dataset.score)")]


def page_moves(page) -> list[str]:
    return page.eval_on_selector_all("#log li[data-notation]", "nodes => nodes.map(n => n.dataset.notation)")


def replay(game: str, options: dict, seed: int, notations: list[str]):
    """The moves the page lists, played on a fresh engine from the seed: the engine's end."""
    env = envs.load(game).raw_env(**options)
    env.reset(seed=seed)
    for notation in notations:
        env.step(env.string_to_action(notation))
    assert env.game.is_terminal(), "the page's moves do not end the game on the engine"
    return env.game


def replay_held(web, game: str):
    """Where the bot's moves are secret to the person (Fill's traps), the page cannot list every
    move: the game the server holds is replayed instead, every action it recorded (chance
    outcomes included) applied to a fresh engine."""
    name = envs.describe(game).name
    held = [g for server in list(web.state.servers.values()) for g in server.web.games.values() if g.name == name]
    assert len(held) == 1
    description = envs.describe(name)
    engine = description.new_game(held[0].options)
    for action in held[0].env.history:
        engine.apply(action)
    assert engine.is_terminal()
    return engine


@pytest.mark.parametrize("game", PAGE_GAMES)
def test_a_full_game_clicked_on_the_page_ends_with_the_engines_scores(web, page, game):
    """The game's ``page`` test options (its description), the person in seat 0 against the
    heuristic."""
    description = envs.describe(game)
    options, seat, seed = description.test_options.page_options(), 0, FULL_GAME_SEED
    started = time.monotonic()
    page.goto(deep_link(web, game, options, seat, seed, "heuristic"))
    moves = play_to_the_end(page, random.Random(seed))
    assert moves["click"] + moves["choice"] > 0
    if moves["offered"] >= 3:  # several turns offered a choice: the random clicks took one
        assert moves["choice"] > 0, "no choice was made through the choice panel"
    result = page.locator("[data-result]")
    assert result.count() == 1 and result.get_attribute("data-result") in ("win", "draw", "loss")
    secret = envs.describe(game).play.secret_phases and options.get("traps")
    engine = replay_held(web, game) if secret else replay(game, options, seed, page_moves(page))
    assert page_scores(page) == [float(x) for x in engine.scores()]
    outcome = engine.returns()[seat]
    assert result.get_attribute("data-result") == ("win" if outcome > 0 else "draw" if outcome == 0 else "loss")
    assert not page.locator("[data-action]").count(), "a move is still offered after the end"
    assert page.console.errors == [], page.console.errors
    print(f"{game}: {moves} in {time.monotonic() - started:.1f} s")


def test_a_default_knot_game_on_the_page_with_its_choices(web, page):
    """Knot with its default options (6×6, 72 strands) played to the end through the page; once,
    the choice panel is opened on a square, one of its moves previewed, and cancelled."""
    seed = 1
    page.goto(deep_link(web, "knot", {}, 1, seed, "heuristic"))
    rng = random.Random(seed)
    played, pictured = 0, False
    while settle(page) != "over":
        if played >= 8 and not pictured and page.locator("#board .el[data-choices]").count() > 3:
            pictured = True
            page.locator("#board .el[data-choices]").nth(3).click()
            page.locator("#choice-list [data-choice]").nth(2).click()
            page.wait_for_selector("#board .el.choosing")
            page.click("#cancel")
            page.wait_for_selector("#choices", state="hidden")
        click_a_move(page, rng)
        played += 1
    assert pictured
    engine = replay("knot", {}, seed, page_moves(page))
    assert page_scores(page) == [float(x) for x in engine.scores()]
    assert page.console.errors == [], page.console.errors


def test_uzor_on_its_default_table(web, page):
    """Uzor's default 21×21 table through the page, a dozen moves."""
    page.goto(deep_link(web, "uzor", {}, 0, 2, "heuristic"))
    rng = random.Random(2)
    for _ in range(14):
        assert settle(page) == "your-turn"
        click_a_move(page, rng)
    settle(page)
    assert page.console.errors == [], page.console.errors


def test_an_illegal_click_shows_the_engines_reason_and_no_move_is_offered_on_the_bots_turn(web, page):
    page.goto(deep_link(web, "linecatch", {}, 0, 1, "heuristic"))
    assert settle(page) == "your-turn"
    # the click's handler takes the moves off the board before the bot's turn begins: counted in
    # the same task as the click (a quick bot can hand the turn back before a later look)
    left = page.evaluate("""() => {
        document.querySelector('#el-sq-12').dispatchEvent(new MouseEvent('click', {bubbles: true}));
        return document.querySelectorAll('#board [data-action], #board [data-choices]').length;
    }""")
    assert left == 0
    assert settle(page) == "your-turn"
    black = page.eval_on_selector_all(
        "#board .el:not([data-action])", "nodes => nodes.map(n => n.dataset.el)")
    assert "sq-12" in black
    page.click("#el-sq-12")
    page.wait_for_selector("#reason:not(:empty)")
    engine = envs.load("linecatch").raw_env()
    engine.reset(seed=1)
    for notation in page_moves(page):
        engine.step(engine.string_to_action(notation))
    assert page.text_content("#reason") == engine.why_illegal(12) == "square c3 is already black"
    assert page.console.errors == [], page.console.errors


def test_undo_takes_back_a_placement_until_the_draw(web, page):
    """Knot: a placement can be taken back until you draw (terminal play's rule)."""
    page.goto(deep_link(web, "knot", {}, 0, 3, "heuristic"))
    assert settle(page) == "your-turn"
    before = {
        "choices": page.eval_on_selector_all("#board .el[data-choices]", "nodes => nodes.map(n => n.dataset.el)"),
        "status": page.text_content("#status"),
    }
    assert page.is_disabled("#undo")
    click_a_move(page, random.Random(0))  # the game's first turn places one strand, then draws
    assert settle(page) == "your-turn"
    assert len(page_moves(page)) == 1 and page.is_enabled("#undo")
    page.click("#undo")
    page.wait_for_selector("#log:empty", state="attached")
    assert settle(page) == "your-turn"
    assert page.text_content("#reason").startswith("took back ")
    after = {
        "choices": page.eval_on_selector_all("#board .el[data-choices]", "nodes => nodes.map(n => n.dataset.el)"),
        "status": page.text_content("#status"),
    }
    assert after == before and page.is_disabled("#undo")
    # once you draw, the turn's placements are final
    click_a_move(page, random.Random(0))
    settle(page)
    page.locator("#board .el[data-action]").first.click()  # a draw: market or pile
    settle(page)
    assert page.is_disabled("#undo")
    assert page.console.errors == [], page.console.errors


def test_a_deep_link_starts_the_game_it_names(web, page):
    page.goto(f"{web.url}/?game=loom&opponent=heuristic&seat=1&seed=7")
    assert settle(page) == "your-turn"
    assert page.text_content("#game-title") == "Loom"
    names = page.eval_on_selector_all("#players .name", "nodes => nodes.map(n => n.textContent)")
    assert names == ["heuristic (player_0)", "you (player_1)"]
    engine = envs.load("loom").raw_env()
    engine.reset(seed=7)
    for notation in page_moves(page):
        engine.step(engine.string_to_action(notation))
    assert len(page_moves(page)) == 1  # the heuristic drafted first
    assert page.text_content("#status") == envs.describe("loom").board.status(engine.game, (1,))
    # options as name=value pairs: a 4x4 board
    page.goto(f"{web.url}/?game=linecatch&opponent=random&seat=0&seed=2&rows=4&cols=4")
    assert settle(page) == "your-turn"
    assert page.locator("#board .el").count() == 16
    # an opponent the server refuses: its reason on the form, no game
    page.goto(f"{web.url}/?game=loom&opponent=/etc/passwd&seed=1")
    page.wait_for_selector("#setup-error:not(:empty)")
    assert "refused" in page.text_content("#setup-error")
    # a seed that is not a whole number JavaScript holds exactly: said, not replaced by a random one
    for seed in ("abc", "-3", "1.5", str(2 ** 53 + 1)):
        page.goto(f"{web.url}/?game=loom&opponent=heuristic&seed={seed}")
        page.wait_for_selector("#setup-error:not(:empty)")
        assert page.text_content("#setup-error").startswith("seed: a whole number from 0 to 9007199254740991"), seed
        assert page.locator("#table").is_hidden()
    assert page.console.errors == [], page.console.errors


@pytest.mark.parametrize("written", ["null", "5", '"x"', "[1, 2]", "true", "{not json"])
def test_a_deep_link_whose_options_are_not_an_object_says_so_on_the_form(web, page, written):
    """``options`` in a link must be a JSON object: anything else is said in the element with
    ``data-error`` on the form (no game starts, nothing thrown), and the form works on."""
    from urllib.parse import quote

    for extra in ("", "&bounty=3"):
        page.goto(f"{web.url}/?game=loom&opponent=heuristic&seed=1&options={quote(written)}{extra}")
        page.wait_for_selector("[data-error]:not(:empty)", timeout=WAIT_MS)
        assert page.evaluate("document.body.dataset.state") == "setup"
        assert "options" in page.text_content("[data-error]")
        assert page.locator("#table").is_hidden()
    assert page.console.errors == [], page.console.errors
    page.click("#start")  # the form still starts a game
    assert settle(page) in ("your-turn", "thinking", "over")
    assert page.console.errors == [], page.console.errors


def test_the_page_waits_while_the_server_prepares_the_solvers_table(web, page, monkeypatch):
    """A game against Linecatch's solver on a board whose table is not built yet: the server
    answers that it is preparing it (built in the background), the page says so and asks again
    until the game starts."""
    from envs.linecatch import solver

    real_build = solver.build_table

    def slow(geo, progress=False):
        time.sleep(2.0)
        return real_build(geo, progress)

    monkeypatch.setattr(solver, "build_table", slow)
    monkeypatch.setattr(solver, "_TABLES", {k: v for k, v in solver._TABLES.items() if k != (3, 7, True)})
    monkeypatch.setenv(solver.CACHE_ENV, "off")  # built, not read from a cache
    page.goto(deep_link(web, "linecatch", {"rows": 3, "cols": 7, "pro": True}, 0, 4, "solver"))
    # the page shows "loading the opponent…" at once, then the server's words while it prepares
    page.wait_for_selector("#preparing:not([hidden]):has-text(\"solver's table of the 3×7 pro board\")",
                           timeout=WAIT_MS)
    assert settle(page) == "your-turn"
    assert page.locator("#preparing").is_hidden()
    assert page.console.errors == [], page.console.errors


def test_a_level_in_a_deep_link_plays_or_says_why_not(web, page):
    """level:K goes to the server like any agent spec; a game against that level where the
    server has levels, else the server's reason on the form."""
    page.goto(f"{web.url}/?game=linecatch&opponent=level:1&seat=0&seed=1")
    page.wait_for_selector(f"{SETTLED}, body[data-state='setup']", timeout=WAIT_MS)
    try:
        agent_levels("linecatch")
        calibrated = True
    except ValueError:  # the default board's levels are not calibrated yet
        calibrated = False
    if not calibrated:
        assert page.evaluate("document.body.dataset.state") == "setup"
        assert "Linecatch has no strength levels for these options" in page.text_content("#setup-error")
    else:
        name = agent_levels("linecatch")[0]["name"]
        assert f"{name} (level 1) (player_1)" in page.eval_on_selector_all("#players .name", "n => n.map(x => x.textContent)")


def test_the_keyboard_moves_a_cursor_and_plays(web, page):
    page.goto(deep_link(web, "linecatch", {}, 0, 9, "random"))
    assert settle(page) == "your-turn"
    page.focus("#board")
    page.keyboard.press("ArrowRight")  # the cursor starts on a1, the first playable square
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    settle(page)
    assert page_moves(page)[0] == "b2"
    # a choice by keyboard: Knot's first square with several moves, the second move, Enter
    page.goto(deep_link(web, "knot", {}, 0, 5, "random"))
    assert settle(page) == "your-turn"
    first = page.eval_on_selector("#board .el.playable", "n => n.dataset.el")
    choices = page.get_attribute(f"#el-{first}", "data-choices").split()
    page.focus("#board")
    page.keyboard.press("ArrowLeft")  # the cursor appears on the first playable element
    page.keyboard.press("Enter")
    page.wait_for_selector("#choices:not([hidden])")
    page.keyboard.press("ArrowDown")
    page.wait_for_selector(f'#confirm[data-action="{choices[1]}"]')
    page.keyboard.press("Enter")
    settle(page)
    engine = envs.load("knot").raw_env()
    engine.reset(seed=5)
    assert page_moves(page)[0] == engine.action_to_string(int(choices[1]))
    assert page.console.errors == [], page.console.errors


def test_the_form_starts_a_game_with_its_options_opponent_seat_and_seed(web, page):
    open_form(web, page, "linecatch_v0")
    page.fill('#option-fields input[data-option="rows"]', "4")
    page.fill('#option-fields input[data-option="cols"]', "3")
    page.select_option("#opponent", "random")
    page.fill("#seat", "1")
    page.fill("#seed", "12")
    page.click("#start")
    assert settle(page) == "your-turn"
    assert page.locator("#board .el").count() == 12
    names = page.eval_on_selector_all("#players .name", "nodes => nodes.map(n => n.textContent)")
    assert names == ["random (player_0)", "you (player_1)"]
    assert len(page_moves(page)) >= 1  # random moved first, as player_0
    # a bad option comes back as the server's reason on the form
    page.click("#new")
    page.fill('#option-fields input[data-option="rows"]', "99")
    page.click("#start")
    page.wait_for_selector("#setup-error:not(:empty)")
    assert "rows" in page.text_content("#setup-error")
    assert page.console.errors == [], page.console.errors


def test_the_opponent_list_follows_the_options_on_the_form(web, page):
    """The levels offered are those of the options on the form: Linecatch 4×4 lists its own
    levels (their names and Elo as agent_levels gives them, the middle quick one chosen), a
    board without levels lists the plain agents with the heuristic chosen."""
    open_form(web, page, "linecatch_v0")
    page.fill('#option-fields input[data-option="rows"]', "4")
    page.fill('#option-fields input[data-option="cols"]', "4")
    page.locator('#option-fields input[data-option="cols"]').dispatch_event("change")
    levels = agent_levels("linecatch", rows=4, cols=4)
    expected = [f"{level['name']} (level {level['level']} · Elo {round(level['elo'])}" for level in levels]
    page.wait_for_function(
        "n => document.querySelectorAll('#opponent optgroup[label=\"strength levels\"] option').length === n", arg=len(levels),
        timeout=WAIT_MS)
    shown = page.eval_on_selector_all('#opponent optgroup[label="strength levels"] option', "n => n.map(x => x.textContent)")
    assert [text.split(" · ")[:2] for text in shown] == [text.split(" · ")[:2] for text in expected]
    quick = [level for level in levels if level["ms_per_move"] < 1000]
    # a gentle start: the middle one of the levels that answer within a second
    assert page.eval_on_selector("#opponent", "s => s.value") == f"level:{quick[(len(quick) - 1) // 2]['level']}"
    assert "random" in page.eval_on_selector_all("#opponent option", "n => n.map(x => x.value)")
    # 4×3 has no levels: the plain agents, the heuristic chosen
    page.fill('#option-fields input[data-option="cols"]', "3")
    page.locator('#option-fields input[data-option="cols"]').dispatch_event("change")
    page.wait_for_function("() => !document.querySelector('#opponent optgroup[label=\"strength levels\"]')", timeout=WAIT_MS)
    assert page.eval_on_selector("#opponent", "s => s.value") == "heuristic"
    assert page.console.errors == [], page.console.errors
