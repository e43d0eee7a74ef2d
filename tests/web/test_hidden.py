"""Honest hidden information in the browser, read off the WebSocket traffic of whole games.

A person plays every registered game that has hidden information and a board view (Knot: the
opponents' hands; Uzor: the opponent's secret goal; Fill with traps: the opponent's traps and
trap stock), under its ``page`` and ``search`` test options, against the heuristic over a real
WebSocket. After
every answer, the game the server holds is taken, the items hidden from the person's seat are
drawn afresh several times (``strip_hidden`` then ``complete_snapshot``: other hands, another
goal, other traps, all consistent with what the seat knows), and the answer's board, status,
scores and legal moves must come out the same from every such state: nothing in them depends on
a hidden item. The traffic never holds a snapshot or any state field, the opponent's secret
phase (Fill's trap phase) is never mentioned, and the seed of an unseeded game stays hidden
until the end.
"""

from __future__ import annotations

import json
import random
import re

import pytest

import envs
from tests.web.servers import SocketClient

def hidden_cases() -> dict[str, tuple[str, dict]]:
    """Every registered game with a board view and hidden information, under its ``page`` and
    ``search`` test options (its description's)."""
    cases = {}
    for name in envs.GAMES:
        description = envs.describe(name)
        if description.board is None or description.facts.information != "imperfect":
            continue
        tests = description.test_options
        for options in (tests.page_options(), tests.search_options()):
            case = description.short_name + "".join(f"-{key}={value}" for key, value in sorted(options.items()))
            cases[case] = (description.short_name, options)
    return cases


GAMES = hidden_cases()
DRAWS = 3  # fresh hidden items per answer
STATE_KEYS = {"snapshot", "state", "hands", "goals", "pile", "live_trap", "recharge", "extra_traps", "facedown", "history"}


def keys(value) -> set[str]:
    """Every key in a message, the game's options aside (Knot's option "pile" is a key there)."""
    found = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.update(item)
            stack.extend(v for k, v in item.items() if k != "options")
        elif isinstance(item, list):
            stack.extend(item)
    return found


def same_view_from(game_name: str, options: dict, snapshot: dict, seat: int) -> dict:
    """The parts of a view that come from the state, computed from ``snapshot``."""
    description = envs.describe(game_name)
    env = envs.load(game_name).raw_env(**options)
    env.restore(snapshot)
    game = env.game
    yours = not game.is_terminal() and game.current_player() == seat
    return {
        "svg": description.board.svg(game, (seat,)),
        "status": description.board.status(game, (seat,)),
        "scores": game.scores(),
        "actions": [{"action": a, "notation": game.action_to_string(a), "element": description.board.element(game, a)}
                    for a in game.legal_actions()] if yours else [],
    }


def check_invariant(web, client_server, answer: dict, rng: random.Random) -> None:
    held = client_server.web.games[answer["game_id"]]
    name, seat = held.name, held.seat
    sampling = envs.describe(name).sampling
    partial = sampling.strip_hidden(held.env.snapshot(), seat)
    for _ in range(DRAWS):
        full = sampling.complete_snapshot(json.loads(json.dumps(partial)), seat, rng)
        seen = same_view_from(name, held.options, full, seat)
        for part, value in seen.items():
            assert answer[part] == value, f"{name}: the answer's {part} changes with items hidden from the seat"


@pytest.mark.parametrize("case", list(GAMES))
def test_a_whole_game_over_the_socket_shows_nothing_hidden_from_the_seat(web, case):
    game, options = GAMES[case]
    rng = random.Random(case)
    client = SocketClient(web.ws_url)
    try:
        answer = client.ok("web_new_game", game=game, opponent="heuristic", options=options, seat=0)
        server = next(s for s in web.state.servers.values() if answer["game_id"] in s.web.games)
        held = server.web.games[answer["game_id"]]
        secret_moves = 0
        answers = 0
        while True:
            check_invariant(web, server, answer, rng)
            answers += 1
            if answer["over"]:
                break
            assert answer["seed"] is None, "the seed of an unseeded game showed before the end"
            if answer["your_turn"]:
                move = rng.choice(answer["actions"])["action"]
                answer = client.ok("web_play", game_id=answer["game_id"], move=move)
            else:
                before = len(held.steps)
                answer = client.ok("web_bot", game_id=answer["game_id"])
                steps = held.steps[before:]
                secret_moves += sum(not step.visible for step in steps)
                listed = [{"seat": step.player, "notation": step.notation}
                          for step in steps if step.visible and step.player is not None]
                assert answer["bot_moves"] == listed
        assert answer["seed"] == held.seed  # shown once the game is over
        # at the end the board is shown again with every seat's hidden items ("revealed"): the
        # game is over, nothing is secret any more; everything else stays the seat's own view
        revealed = [json.loads(text).pop("revealed", None) for text in client.received]
        assert all(picture is None for picture in revealed[:-1]) and revealed[-1] is not None
        traffic = "".join(json.dumps({k: v for k, v in json.loads(text).items() if k != "revealed"}, ensure_ascii=False)
                          for text in client.received)
        for text in client.received:
            message = json.loads(text)
            assert not keys(message) & STATE_KEYS, keys(message) & STATE_KEYS
            for entry in message.get("log", []) + message.get("bot_moves", []):
                if entry.get("seat") not in (None, 0) and entry.get("notation"):  # a bot's move
                    assert not entry["notation"].startswith(("trap ", "no-trap")), entry
        if game == "uzor":
            names = held.env.game.geo.map.names
            goals = held.env.game.goals
            assert f"your secret goal: {names[goals[0]]}" in traffic
            # a goal is named only as the person's own ("double" is a closed goal's points, public)
            named = set(re.findall(r"secret goal: ([A-Za-z0-9-]+)", traffic))
            assert named <= {names[goals[0]], "double"}, named
            assert names[goals[1]] in revealed[-1]  # the other seat's goal, shown once the game is over
        if game == "fill":
            print(f"{case}: {answers} answers checked, {secret_moves} secret moves of the bot")
    finally:
        client.close()


def test_a_preview_is_only_for_one_of_several_moves_and_fill_has_none(web):
    """A preview draws a move without playing it; Fill never offers one (a fill could spring a
    hidden trap), and a lone move of an element is refused."""
    client = SocketClient(web.ws_url)
    try:
        view = client.ok("web_new_game", game="fill", opponent="heuristic", options={"traps": True}, seat=0, seed=1)
        answer = client.ask("web_preview", game_id=view["game_id"], move=view["actions"][0]["action"])
        assert answer["error"]["code"] == "bad_request"
        view = client.ok("web_new_game", game="loom", opponent="heuristic", seat=0, seed=3)
        by_element = {}
        for move in view["actions"]:
            by_element.setdefault(move["element"], []).append(move["action"])
        several = next(moves for moves in by_element.values() if len(moves) > 1)
        preview = client.ok("web_preview", game_id=view["game_id"], move=several[1])
        assert preview["svg"] != view["svg"] and 'stroke-dasharray="6 4"' in preview["svg"]
        again = client.ok("web_view", game_id=view["game_id"])
        assert again["svg"] == view["svg"], "a preview changed the game"
    finally:
        client.close()
