"""Play a suite game in the terminal against any agents.

    python -m training.play --game knot --opponent checkpoints/knot/knot__maskppo__0.zip
    python -m training.play --game knot --option players=3 --opponent heuristic --opponent random --seat 1
    python -m training.play --game fill --option traps=true --option gems=true --opponent heuristic

The board is the env's ``ansi`` picture, drawn for your seat where the game's renderer takes a
viewer (Fill shows your own trap). Type a move in the game's notation (``help`` lists the legal
ones), ``undo`` to take back a step of your turn where the game allows it, ``quit`` to stop.
A refused move shows the engine's ``why_illegal`` sentence and asks again. Input is read line by
line from stdin, so a pipe or a pseudo-terminal can drive it as well as a person.

Opponents: one ``--opponent`` plays every other seat, or give one per other seat, in seat
order. Any ``training.load_agent`` spec works; the bot in seat ``i`` is seeded ``seed + 1 + i``.
``--option name=value`` sets an env option; the value is read as JSON when it parses
(``size=8``, ``traps=true``, ``throws=[[1,2],...]``) and as text otherwise (``lines=strict``).
With Fill's ``time_limit`` on, only your seat has a clock unless ``clocked`` is given.

Undo, per game (each game's ``PlayRules``; see docs/protocol.md):

* Knot — placements (and END) can be taken back until you draw, as the seed says.
* Fill — a token or trap choice can be taken back until you fill a cell: it is made before the
  fill in the seed's front end and tells you nothing; a fill may spring a hidden trap, so it is
  final. No undo with ``time_limit`` on (a restore would wind your clock back).
* Linecatch, Loom, Uzor — none: every move is final (the seeds confirm each move; a Loom or
  Uzor turn changes hands or reveals a tile with each action).

An opponent's move is printed in notation unless the rules hide it from you (Fill: anything in
the trap phase, even whether there was one).
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from typing import Any

import envs
from training import bot_table, game_name, load_agent

PROMPT = "your move> "


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
        others = [i for i in range(players) if i != seat]
        if len(opponents) == 1:
            opponents = opponents * len(others)
        if len(opponents) != len(others):
            raise ValueError(
                f"{self.name} with these options has {len(others)} other seats: give one --opponent for all "
                f"of them or one per seat, not {len(opponents)}"
            )
        self.seat = seat
        self.seed = seed
        self.specs = dict(zip(others, opponents))
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

    def show_legal(self) -> None:
        legal = [self.env.action_to_string(a) for a in self.env.legal_actions()]
        text = f"legal moves ({len(legal)}): " + ", ".join(legal)
        self.say(textwrap.fill(text, width=100, subsequent_indent="  ", break_on_hyphens=False))

    # ----- the game --------------------------------------------------------------------------------
    def bot_moves(self) -> None:
        env = self.env
        while not env.game.is_terminal() and env.game.current_player() != self.seat:
            player = env.game.current_player()
            secret = phase_of(env) in self.rules.secret_phases
            action = self.bots[player].act(env.observe(env.possible_agents[player]))
            notation = env.action_to_string(action)
            env.step(action)
            if not secret:
                self.say(f"{self.seat_label(player)} plays {notation}")
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
        snapshot, notation = self.undo_stack.pop()
        self.env.restore(snapshot)
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
        before = env.snapshot() if undoable else None
        notation = env.action_to_string(action)
        env.step(action)
        if undoable:
            self.undo_stack.append((before, notation))
        else:
            self.undo_stack.clear()
        return True

    def play(self) -> bool:
        """Play to the end (True) or until the person quits or the input ends (False)."""
        env = self.env
        env.reset(seed=self.seed)
        labels = ", ".join(self.seat_label(p) for p in range(len(env.possible_agents)))
        self.say(f"{self.name} (seed {self.seed}): {labels}")
        self.say("type a move in the game's notation, or help, undo, quit")
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.play", description="Play a suite game in the terminal.")
    parser.add_argument("--game", required=True, help=f"one of: {', '.join(envs.GAMES)} (the _v0 may be left out)")
    parser.add_argument(
        "--opponent", action="append", default=None,
        help="a load_agent spec (random, heuristic, mcts:200, a .zip or .onnx path); once for every other seat, "
             "or once per other seat in seat order (default: heuristic)",
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
        opponents = args.opponent or ["heuristic" if "heuristic" in bot_table(name) else "random"]
        session = TerminalGame(name, opponents, args.seat, args.seed, options)
    except (ValueError, TypeError, ImportError, OSError) as error:
        parser.error(str(error))
    session.play()
    return 0


if __name__ == "__main__":
    sys.exit(main())
