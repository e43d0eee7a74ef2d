"""Play a suite game in the terminal against any agents.

    python -m training.play --game knot --opponent level:4
    python -m training.play --game knot --option players=3 --opponent heuristic --opponent random --seat 1
    python -m training.play --game fill --option traps=true --option gems=true --opponent heuristic

The board is the env's ``ansi`` picture, drawn for your seat (your own hidden items show, an
opponent's never do). Type a move in the game's notation; ``help`` explains the commands, sums
up the rules (the game's ``PlayRules.rules_summary``) and lists the legal moves, grouped when
there are many (as the game groups them, ``PlayRules.group_moves``, or by their first part);
``moves`` lists every legal move in full; ``undo`` takes back a step of your turn where the game
allows it; ``quit`` stops. A mistyped or refused move shows the reason (the engine's ``why_illegal`` sentence) and
asks again. After each move the game's narration (``PlayRules.narrate``, where the game gives
one) says what it did: a caught line, a closed ribbon, the dice thrown. Input is read line by
line from stdin, so a pipe or a pseudo-terminal can drive it as well as a person.

Opponents: one ``--opponent`` plays every other seat, or give one per other seat, in seat
order. Any ``training.load_agent`` spec works (``level:K``: strength level K, docs/agents.md);
the bot in seat ``i`` is seeded ``seed + 1 + i``. Without ``--opponent`` the strongest level that
thinks under a second a move plays (the heuristic where the options have no levels).
``--option name=value`` sets an env option; the value is read as JSON when it parses
(``size=8``, ``traps=true``, ``throws=[[1,2],...]``) and as text otherwise (``lines=strict``).
With Fill's ``time_limit`` on, only your seat has a clock unless ``clocked`` is given.

Undo follows each game's ``PlayRules``: a step can be taken back only in the phases the game
names (``undo_phases``), within your own turn, and never with a clock running (a restore would
wind it back). Knot: placements, until you draw. Fill: a token or trap choice, until you fill a
cell (a fill may spring a hidden trap, so it is final). Linecatch, Loom, Uzor: every move is
final.

An opponent's move is printed in notation unless the rules hide it from you (``secret_phases``:
Fill's trap phase, not even whether there was one).
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from typing import Any

import envs
from envs.registry import canonical_name as game_name
from training.players.load import bot_table, load_agent

PROMPT = "your move> "
GROUP_ABOVE = 30
"""Longer lists of legal moves are shown grouped (:func:`group_moves`)."""


def wrap_items(head: str, items: list[str], separator: str, width: int = 100) -> str:
    """``head`` and the items joined by ``separator``, wrapped at ``width`` between items only
    (a move is never split), continuation lines indented by 6 spaces."""
    lines, line = [], head
    for index, item in enumerate(items):
        piece = item + (separator.rstrip() if index < len(items) - 1 else "")
        if line.strip() and len(line) + len(piece) > width:
            lines.append(line.rstrip())
            line = "      "
        line += piece + (" " if index < len(items) - 1 else "")
    lines.append(line.rstrip())
    return "\n".join(lines)


def group_moves(moves: list[str]) -> list[tuple[str, list[str]]] | None:
    """Moves grouped by their first part, for a long list a person can read.

    A move's first part is its text up to and including its last ``@`` (``cut/ne@`` of
    ``cut/ne@c4``, ``place cedar/azure @ `` of ``place cedar/azure @ h8``), else its first word
    and the space after it (``trap `` of ``trap a1``); the ending is the rest, one word. Groups
    keep the order of their first move; moves that share their first part with no other move,
    or whose ending is not one word, come last under the empty first part, written in full.
    ``None`` when grouping would not shorten the list.
    """
    split = []
    for move in moves:
        cut = move.rfind("@") + 1 or move.find(" ") + 1
        while 0 < cut < len(move) and move[cut] == " ":
            cut += 1
        end = move[cut:]
        split.append((move[:cut], end) if cut and end and " " not in end else ("", move))
    keyed: dict[str, list[str]] = {}
    for prefix, end in split:
        keyed.setdefault(prefix, []).append(end)
    groups = [(prefix, ends) for prefix, ends in keyed.items() if prefix and len(ends) > 1]
    if not groups:
        return None
    grouped = {prefix for prefix, _ in groups}
    single = [prefix + end for prefix, end in split if prefix not in grouped]
    return groups + ([("", single)] if single else [])


def parse_option(text: str) -> tuple[str, Any]:
    name, equals, value = text.partition("=")
    if not equals or not name.strip():
        raise ValueError(f"--option takes name=value, not {text!r}")
    try:
        return name.strip(), json.loads(value)
    except ValueError:
        return name.strip(), value


def phase_of(env) -> str | None:
    """The phase the game's snapshot names (``None`` in games without phases)."""
    return env.snapshot()["state"].get("phase")


def narrations(rules, before, applied: list[int], seat: int) -> list[str | None]:
    """What each of ``applied`` (a player's action, then the chance outcomes the env drew after
    it) did, played from ``before`` (left as it is), as ``seat`` may know it (the game's
    ``narrate``; None where it tells nothing). A player's action is told from the position once
    the chance it set off has resolved (the strand drawn, the market slot refilled), each chance
    outcome on its own (the dice). Terminal play and the web page both tell moves this way."""
    states = [before]
    for action in applied:
        states.append(states[-1].clone())
        states[-1].apply(action)
    told = []
    for index, action in enumerate(applied):
        state, after = states[index], states[index + 1]
        if not state.is_chance_node():
            end = index + 1
            while end < len(applied) and states[end].is_chance_node():
                end += 1
            after = states[end]
        told.append(rules.narrate(state, action, after, seat) if rules.narrate else None)
    return told


def opponent_seats(name: str, others: list[int], opponents: list[str]) -> dict[int, str]:
    """The bot spec of each other seat: one ``--opponent`` for all of them, or one a seat."""
    if len(opponents) == 1:
        return dict.fromkeys(others, opponents[0])
    if len(opponents) == len(others):
        return dict(zip(others, opponents))
    raise ValueError(f"{name} with these options has {len(others)} other seats: give one --opponent for all "
                     f"of them or one per seat, not {len(opponents)}")


class TerminalGame:
    """One game: a person in ``seat``, bots in the other seats, text in and out."""

    def __init__(self, game: str, opponents: list[str], seat: int, seed: int, options: dict[str, Any], out=None):
        self.name = game_name(game)
        self.description = envs.describe(self.name)
        self.rules = self.description.play
        self.out = out or sys.stdout
        options = dict(options)
        resolved = self.description.resolve_options(options)
        if resolved.get("time_limit") and "clocked" not in options:
            options["clocked"] = [f"player_{seat}"]  # a bot has no clock; a person does
        self.options = options
        self.timed = bool(resolved.get("time_limit"))
        players = self.description.engine.num_players_for(resolved)
        if not 0 <= seat < players:
            raise ValueError(f"--seat must be 0…{players - 1} in this game, not {seat}")
        # the pictures show what this seat may know (its own hidden items) and nothing more
        self.env = envs.load(self.name).raw_env(render_mode="ansi", viewer=seat, **options)
        self.seat = seat
        self.seed = seed
        self.specs = opponent_seats(self.name, [i for i in range(players) if i != seat], opponents)
        self.bots = {i: load_agent(spec, self.name, seed=seed + 1 + i, **options) for i, spec in self.specs.items()}
        self.undo_stack: list[tuple[dict, str]] = []  # (snapshot before, notation) of this turn's steps

    # ----- output ----------------------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def seat_label(self, player: int) -> str:
        who = "you" if player == self.seat else self.specs[player]
        return f"player_{player} ({who})"

    def board(self) -> str:
        return self.env.render()

    def private_notes(self) -> list[str]:
        """What only you know and the board does not show (from your own observation)."""
        if self.rules.private_notes is None:
            return []
        fields = self.env.observer.decode(self.env.observe(self.env.possible_agents[self.seat]))
        return self.rules.private_notes(self.env.observer, fields)

    def show_position(self) -> None:
        self.say(self.board())
        for line in self.private_notes():
            self.say(line)

    def show_help(self) -> None:
        """The commands, the rules in a few lines, and the legal moves (grouped when many)."""
        undo = "take back a step of your turn" if self.rules.undo_phases else "not in this game"
        self.say(f"commands: a move in the game's notation; help (this); moves (every legal move, in full); "
                 f"undo ({undo}: {self.rules.undo_rule}); quit")
        if self.rules.rules_summary:
            self.say(self.rules.rules_summary)
        self.show_legal(grouped=True)

    def show_legal(self, grouped: bool = False) -> None:
        """The legal moves: in full, one wrapped list; ``grouped``, as the game groups them
        (``PlayRules.group_moves``) or, for a long list, by first part (:func:`group_moves`)."""
        actions = self.env.legal_actions()
        legal = [self.env.action_to_string(a) for a in actions]
        if grouped and self.rules.group_moves is not None:
            self.say(f"legal moves ({len(legal)}), grouped:")
            for line in self.rules.group_moves(self.env.game, actions):
                self.say(textwrap.fill(line, width=100, initial_indent="  ", subsequent_indent="      ",
                                       break_on_hyphens=False, break_long_words=False))
            return
        groups = group_moves(legal) if grouped and len(legal) > GROUP_ABOVE else None
        if groups is None:
            text = f"legal moves ({len(legal)}): " + ", ".join(legal)
            self.say(textwrap.fill(text, width=100, subsequent_indent="  ", break_on_hyphens=False))
            return
        example = next(prefix + ends[0] for prefix, ends in groups if ends)
        self.say(f"legal moves ({len(legal)}), grouped: a first part and one of its endings make a move "
                 f"(e.g. {example})")
        for prefix, ends in groups:
            if prefix:
                self.say(wrap_items(f"  {prefix}… ", ends, " "))
            else:
                self.say(wrap_items("  ", ends, ", "))

    def narrate(self, before, actions: list[int]) -> None:
        """Say what ``actions`` (a player's action, then the chance outcomes the env drew after
        it) did, from ``before``, as this seat may know it (:func:`narrations`)."""
        if self.rules.narrate is None:
            return
        for sentence in narrations(self.rules, before, actions, self.seat):
            if sentence:
                self.say(f"  {sentence}")

    # ----- the game --------------------------------------------------------------------------------
    def step(self, action: int) -> tuple[object, list[int]]:
        """Play ``action``; returns the state before it and the actions applied (the action,
        then the chance outcomes the env drew after it)."""
        env = self.env
        before, played = env.game.clone(), len(env.history)
        env.step(action)
        return before, env.history[played:]

    def bot_moves(self) -> None:
        env = self.env
        while not env.game.is_terminal() and env.game.current_player() != self.seat:
            player = env.game.current_player()
            secret = phase_of(env) in self.rules.secret_phases
            action = self.bots[player].act(env.observe(env.possible_agents[player]))
            notation = env.action_to_string(action)
            before, applied = self.step(action)
            if not secret:
                self.say(f"{self.seat_label(player)} plays {notation}")
                self.narrate(before, applied)
            else:
                self.narrate(env.game, [])  # nothing of a secret move is told
        self.undo_stack.clear()  # the turn changed hands (or the game ended)

    def undo(self) -> None:
        rule = self.rules
        if not rule.undo_phases:
            self.say(f"no undo: {rule.undo_rule}")
            return
        if self.timed:
            self.say("no undo with time_limit on: taking back would wind your clock back")
            return
        if not self.undo_stack:
            self.say(f"nothing to take back: {rule.undo_rule}, within your own turn")
            return
        snapshot, history, notation = self.undo_stack.pop()
        self.env.restore(snapshot)
        self.env.history = history  # the game's past, as before the step taken back
        self.say(f"took back {notation}")

    def person_moves(self, text: str) -> bool:
        """Try the typed move; True when it was played."""
        env = self.env
        try:
            action = env.string_to_action(text)
        except ValueError as error:
            self.say(f"not a move: {error}")
            return False
        reason = env.why_illegal(action)
        if reason is not None:
            self.say(f"illegal: {reason}")
            return False
        undoable = not self.timed and phase_of(env) in self.rules.undo_phases
        saved = (env.snapshot(), list(env.history)) if undoable else None
        notation = env.action_to_string(action)
        before, applied = self.step(action)
        self.narrate(before, applied)
        if undoable:
            self.undo_stack.append((*saved, notation))
        else:
            self.undo_stack.clear()
        return True

    def play(self) -> bool:
        """Play to the end (True) or until the person quits or the input ends (False)."""
        env = self.env
        env.reset(seed=self.seed)
        labels = ", ".join(self.seat_label(p) for p in range(len(env.possible_agents)))
        self.say(f"{self.name} (seed {self.seed}): {labels}")
        self.say("type a move in the game's notation, or help (the commands, the rules and the legal moves), moves, "
                 "undo, quit")
        self.bot_moves()
        show = True
        while not env.game.is_terminal():
            if show:
                self.show_position()
            show = False
            try:
                text = input(PROMPT).strip()
            except EOFError:
                text = "quit"
            if text in ("quit", "exit"):
                self.say("you left the game before its end")
                return False
            if text in ("help", "?"):
                self.show_help()
            elif text == "moves":
                self.show_legal()
            elif text == "undo":
                before = len(self.undo_stack)
                self.undo()
                show = len(self.undo_stack) < before
            elif text:
                if self.person_moves(text):
                    if env.game.current_player() != self.seat:
                        self.bot_moves()
                    show = True
        self.finish()
        return True

    def finish(self) -> None:
        game = self.env.game
        self.say(self.board())
        scores, returns = game.scores(), game.returns()
        self.say("final scores: " + ", ".join(f"{self.seat_label(p)} {scores[p]}" for p in range(len(scores))))
        outcome = returns[self.seat]
        self.say("you win" if outcome > 0 else "a draw: you share first place" if outcome == 0 else "you lose")


def default_opponent(name: str, options: dict[str, Any]) -> str:
    """The opponent when none is given: the strongest level that answers within a second a move
    (``training.agents.levels.default_level``), else the heuristic."""
    from training.agents.levels import default_level

    try:
        level = default_level(name, **options)
    except (ValueError, TypeError):  # options the game refuses: TerminalGame says why
        level = None
    return level or ("heuristic" if "heuristic" in bot_table(name) else "random")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="abstract-games play", description="Play a suite game in the terminal.")
    parser.add_argument("--game", required=True, help=f"one of: {', '.join(envs.GAMES)} (the _v0 may be left out)")
    parser.add_argument(
        "--opponent", action="append", default=None,
        help="a load_agent spec (level:K, random, heuristic, mcts:200, a .zip or .onnx path); once for every other "
             "seat, or once per other seat in seat order (default: the strongest level that thinks under a second a "
             "move, docs/agents.md; the heuristic where the options have no levels)",
    )
    parser.add_argument("--seat", type=int, default=0, help="your seat: 0 for player_0 (default), 1, …")
    parser.add_argument("--seed", type=int, default=0, help="the game's seed (default 0)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="an env option; repeatable")
    args = parser.parse_args(argv)
    try:
        name = game_name(args.game)
        options: dict[str, Any] = {}
        for text in args.option:
            key, value = parse_option(text)
            if key in options:
                raise ValueError(f"option {key!r} is given twice")
            options[key] = value
        opponents = args.opponent or [default_opponent(name, options)]
        session = TerminalGame(name, opponents, args.seat, args.seed, options)
    except (ValueError, TypeError, ImportError, OSError) as error:
        parser.error(str(error))
    session.play()
    return 0


if __name__ == "__main__":
    sys.exit(main())
