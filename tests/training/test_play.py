"""Terminal play (training.play) driven through a pseudo-terminal, as a person would type.

The scripted player asks ``moves`` at every prompt and types one of the listed moves (seeded
choice), so the whole game runs through the notation; on the way it types a refused move
(the engine's why_illegal sentence must appear), takes a step back with ``undo`` where the game
allows it (the legal moves must be those from before), tries ``undo`` where it is not allowed,
and plays to the final scores.
"""

from __future__ import annotations

import json
import os
import random
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest

import envs
from tests.cases import search
from training.serving.terminal import PROMPT, group_moves

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 60
FINAL = re.compile(r"final scores: (.*)\r?\n(you win|a draw: you share first place|you lose)\r?\n")
BOT_MOVE = re.compile(r"^player_(\d+) \([^)]*\) plays (.+?)\r?$", re.MULTILINE)

pytestmark = pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal (POSIX)")


class Terminal:
    """``python -m training.play`` on a pseudo-terminal; ``type`` a line, read up to a prompt."""

    def __init__(self, *args: str):
        master, slave = os.openpty()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "training.play", *args],
            cwd=ROOT, stdin=slave, stdout=slave, stderr=slave, close_fds=True,
        )
        os.close(slave)
        self.master = master
        self.pending = ""
        self.transcript = ""

    def read_until(self, pattern: re.Pattern | str) -> str:
        """Output up to and including the first match; raises if the program stops first."""
        pattern = re.compile(re.escape(pattern)) if isinstance(pattern, str) else pattern
        while not (match := pattern.search(self.pending)):
            ready, _, _ = select.select([self.master], [], [], TIMEOUT_S)
            assert ready, f"no output for {TIMEOUT_S} s; last output:\n{self.pending[-2000:]}"
            try:
                chunk = os.read(self.master, 65536).decode()
            except OSError:  # the child closed the terminal
                chunk = ""
            assert chunk, f"the program ended before {pattern.pattern!r}; last output:\n{self.pending[-2000:]}"
            self.pending += chunk
            self.transcript += chunk
        text, self.pending = self.pending[: match.end()], self.pending[match.end():]
        return text

    def type(self, line: str) -> str:
        """Type a line; the output it caused, up to the next prompt (the echo removed)."""
        os.write(self.master, (line + "\n").encode())
        text = self.read_until(PROMPT)
        echo = line + "\r\n"
        assert text.startswith(echo), text[:200]
        return text[len(echo):]

    def legal_moves(self) -> list[str]:
        """The moves ``moves`` lists, in its order."""
        return parse_legal_moves(self.type("moves"))

    def help(self) -> str:
        return self.type("help")

    def close(self) -> int:
        code = self.process.wait(timeout=TIMEOUT_S)
        os.close(self.master)
        return code


def parse_legal_moves(text: str) -> list[str]:
    """Read the legal moves back from ``help``'s text: ``legal moves (N): a, b, …`` (wrapped),
    or ``legal moves (N), grouped: …`` followed by entries ``  first part… end end …`` and
    ``  move, move, …`` (continuation lines indented further)."""
    text = text.replace(PROMPT, "")
    match = re.search(r"legal moves \((\d+)\)(, grouped: [^\n]*\n|: )(.*)", text, re.DOTALL)
    assert match, text
    count, grouped, body = int(match.group(1)), match.group(2).startswith(","), match.group(3)
    if not grouped:
        moves = [move.strip() for move in " ".join(body.split()).split(",")]
    else:
        entries: list[str] = []
        for line in body.replace("\r", "").split("\n"):
            if line.startswith("      ") and entries:
                entries[-1] += " " + line.strip()
            elif line.startswith("  ") and line.strip():
                entries.append(line[2:])
        moves = []
        for entry in entries:
            if "… " in entry:
                prefix, ends = entry.split("… ", 1)
                moves += [prefix + end for end in ends.split()]
            else:
                moves += [move.strip() for move in " ".join(entry.split()).split(",")]
    assert len(moves) == count, (count, moves)
    return moves


def play_to_the_end(terminal: Terminal, rng: random.Random, on_prompt) -> str:
    """Answer every prompt with a listed move (``on_prompt`` may type things first, and then
    returns the moves legal after them)."""
    while True:
        moves = on_prompt(terminal.legal_moves())
        move = rng.choice(moves)
        os.write(terminal.master, (move + "\n").encode())
        text = terminal.read_until(re.compile(re.escape(PROMPT) + "|" + FINAL.pattern))
        if FINAL.search(text):
            return text


def check_final_scores(text: str, seat: int) -> None:
    match = FINAL.search(text)
    scores = {}
    for entry in match.group(1).split(", "):
        name, _, value = entry.rpartition(" ")
        scores[int(re.match(r"player_(\d+)", name).group(1))] = float(value)
    assert f"player_{seat} (you)" in match.group(1)
    mine, best_other = scores[seat], max(v for p, v in scores.items() if p != seat)
    expected = "you win" if mine > best_other else "a draw: you share first place" if mine == best_other else "you lose"
    assert match.group(2) == expected


def test_knot_refused_move_undo_within_the_turn_and_final_scores():
    options = {"size": 5}
    terminal = Terminal("--game", "knot", "--opponent", "heuristic", "--seed", "3", "--option", "size=5")
    opening = terminal.read_until(PROMPT)
    assert "player_0 (you), player_1 (heuristic)" in opening
    assert "turn 1: player_0 to place" in opening  # the ansi board, with the person's hand

    reference = envs.load("knot").raw_env(**options)
    reference.reset(seed=3)
    refused = terminal.type("draw pile")
    assert refused.strip().startswith("illegal: " + reference.why_illegal(reference.string_to_action("draw pile")))

    before = terminal.legal_moves()
    assert sorted(before) == sorted(reference.action_to_string(a) for a in reference.legal_actions())
    placement = next(m for m in before if "@" in m)
    after = terminal.type(placement)
    assert "to draw" in after  # the first turn places one strand, then draws
    assert terminal.type("undo").startswith(f"took back {placement}")
    assert terminal.legal_moves() == before
    assert terminal.type("undo").startswith("nothing to take back")

    drew = []

    def draw_then_try_undo(moves):
        if not drew and any(m.startswith("draw") for m in moves):
            terminal.type(next(m for m in moves if m.startswith("draw")))
            refusal = terminal.type("undo")  # a draw makes the turn's placements final
            assert refusal.startswith("nothing to take back: in Knot, placements can be taken back until you draw")
            drew.append(True)
            return terminal.legal_moves()
        return moves

    end = play_to_the_end(terminal, random.Random(0), draw_then_try_undo)
    assert drew == [True]
    check_final_scores(end, seat=0)
    assert "scores: player_0" in end  # the final board
    assert terminal.close() == 0


def test_fill_with_traps_undo_of_a_trap_choice_and_no_undo_after_a_fill():
    terminal = Terminal(
        "--game", "fill", "--opponent", "heuristic", "--seat", "1", "--seed", "5",
        "--option", "traps=true", "--option", "gems=true",
    )
    opening = terminal.read_until(PROMPT)
    seeded = BOT_MOVE.search(opening)
    assert seeded and seeded.group(1) == "0"  # the bot seeds first

    reference = envs.load("fill").raw_env(traps=True, gems=True)
    reference.reset(seed=5)
    reference.step(reference.string_to_action(seeded.group(2)))
    refused = terminal.type("c4")
    assert refused.strip().startswith("illegal: " + reference.why_illegal(reference.string_to_action("c4")))

    state = {"trap_undone": False, "filled": False, "undo_refused": False}

    def script(moves):
        if not state["trap_undone"] and "no-trap" in moves:
            trap = next(m for m in moves if m.startswith("trap "))
            terminal.type(trap)
            assert terminal.type("undo").startswith(f"took back {trap}")
            assert terminal.legal_moves() == moves
            state["trap_undone"] = True
        elif state["filled"] and not state["undo_refused"]:
            answer = terminal.type("undo")
            assert answer.startswith("nothing to take back: in Fill, a token or trap choice can be taken back until you fill a cell")
            state["undo_refused"] = True
        if state["trap_undone"] and all(re.fullmatch(r"[a-f][1-6]", m) for m in moves):
            state["filled"] = True  # the move chosen now is a fill
        return moves

    end = play_to_the_end(terminal, random.Random(1), script)
    assert state == {"trap_undone": True, "filled": True, "undo_refused": True}
    check_final_scores(end, seat=1)
    # the opponent's trap phase is never shown: no "plays trap" or "plays no-trap" line
    # (a Trap token is public: "plays trap-token" may show)
    assert not re.search(r"player_0 \(heuristic\) plays (no-trap\b|trap [a-h]\d)", terminal.transcript)
    assert terminal.close() == 0


def test_linecatch_has_no_undo_and_quit_leaves_the_game():
    terminal = Terminal("--game", "linecatch", "--option", "rows=3", "--option", "cols=3", "--opponent", "random")
    terminal.read_until(PROMPT)
    assert terminal.type("a1").count("plays") == 1
    assert terminal.type("a1").strip().startswith("illegal: square a1 is already black")
    assert terminal.type("undo").strip().startswith("no undo: in Linecatch every move is final")
    assert terminal.type("x9").strip().startswith("not a move: ")
    os.write(terminal.master, b"quit\n")
    assert "you left the game before its end" in terminal.read_until("before its end")
    assert terminal.close() == 0


@pytest.mark.parametrize(
    "args, words",
    [
        (["--game", "chess"], "unknown game 'chess'"),
        (["--game", "knot", "--option", "players=3", "--opponent", "random", "--opponent", "random", "--opponent", "random"],
         "has 2 other seats"),
        (["--game", "loom", "--seat", "2"], "--seat must be 0…1"),
        (["--game", "loom", "--option", "bounty"], "--option takes name=value"),
        (["--game", "loom", "--option", "bounty=1", "--option", "bounty=2"], "given twice"),
        (["--game", "loom", "--option", "dice=3"], "unknown option 'dice'"),
        (["--game", "loom", "--opponent", "grandmaster"], "unknown agent 'grandmaster'"),
    ],
)
def test_bad_command_lines_are_refused_with_a_reason(args, words):
    result = subprocess.run(
        [sys.executable, "-m", "training.play", *args], cwd=ROOT, capture_output=True, text=True,
        timeout=TIMEOUT_S, stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2
    assert words in result.stderr


@pytest.mark.parametrize("game", envs.GAMES)
def test_a_full_game_of_every_game_in_the_terminal(game):
    """Seat 1 against the heuristic, moves picked from `help`, to the final scores (under the
    game's search-test options: small, with its optional hidden items)."""
    options = [word for name, value in search(game).items() for word in ("--option", f"{name}={json.dumps(value)}")]
    terminal = Terminal("--game", game, "--opponent", "heuristic", "--seat", "1", "--seed", "5", *options)
    terminal.read_until(PROMPT)
    text = play_to_the_end(terminal, random.Random(5), lambda moves: moves)
    check_final_scores(text, seat=1)
    assert terminal.close() == 0


def test_help_explains_the_commands_and_the_rules_and_groups_a_long_list():
    """Knot's first turn has hundreds of legal moves: ``help`` shows them as the game groups
    them, a screenful of lines, after the commands and the rules; ``moves`` lists them all."""
    terminal = Terminal("--game", "knot", "--opponent", "random", "--seed", "2")
    terminal.read_until(PROMPT)
    moves = terminal.legal_moves()
    text = terminal.help()
    assert text.startswith("commands: a move in the game's notation; help (this); moves (every legal move, in full); undo (")
    assert "quit" in text.splitlines()[0]
    rules = envs.describe("knot").play
    if rules.rules_summary:
        assert rules.rules_summary.splitlines()[0] in text
    reference = envs.load("knot").raw_env()
    reference.reset(seed=2)
    legal = reference.legal_actions()
    assert len(legal) > 100 and moves == [reference.action_to_string(a) for a in legal]
    listing = text[text.index("legal moves ("):].replace(PROMPT, "").splitlines()
    assert listing[0].startswith(f"legal moves ({len(legal)})") and len(listing) < len(legal) / 5
    if rules.group_moves is not None:  # the game's own lines, wrapped at 100 columns
        entries: list[str] = []
        for line in listing[1:]:
            if line.startswith("      "):
                entries[-1] += " " + line.strip()
            elif line.strip():
                entries.append(line.strip())
        assert entries == [" ".join(line.split()) for line in rules.group_moves(reference.game, legal)]
    else:
        assert sorted(parse_legal_moves(text)) == sorted(moves)
    os.write(terminal.master, b"quit\n")
    terminal.read_until("before its end")
    assert terminal.close() == 0


def test_help_groups_a_long_list_by_first_part_where_the_game_gives_no_grouping():
    """Fill's trap phase: ``trap a1`` … ``trap f6`` and ``no-trap`` are shown as ``trap … a1 b1 …``."""
    assert envs.describe("fill").play.group_moves is None
    terminal = Terminal("--game", "fill", "--option", "traps=true", "--opponent", "heuristic", "--seat", "1", "--seed", "5")
    terminal.read_until(PROMPT)
    moves = terminal.legal_moves()
    while not any(move.startswith("trap ") for move in moves):
        terminal.type(moves[0])
        moves = terminal.legal_moves()
    assert len(moves) > 30
    text = terminal.help().replace(PROMPT, "")
    listing = text[text.index("legal moves ("):]
    assert listing.startswith(f"legal moves ({len(moves)}), grouped: ") and "\n  trap … " in listing
    assert sorted(parse_legal_moves(text)) == sorted(moves)
    os.write(terminal.master, b"quit\n")
    terminal.read_until("before its end")
    assert terminal.close() == 0


def test_group_moves_by_first_part():
    moves = ["cut/ne@a1", "cut/ne@b2", "run/n@a1", "END", "draw pile", "draw market 0", "trap a1", "trap b2",
             "no-trap", "place cedar/azure @ h8", "place cedar/azure @ h9"]
    assert group_moves(moves) == [
        ("cut/ne@", ["a1", "b2"]), ("trap ", ["a1", "b2"]), ("place cedar/azure @ ", ["h8", "h9"]),
        ("", ["run/n@a1", "END", "draw pile", "draw market 0", "no-trap"]),
    ]
    assert group_moves(["a1", "b2", "c3"]) is None  # nothing to group: the plain list


@pytest.mark.parametrize("game", [g for g in envs.GAMES if envs.describe(g).play.rules_summary])
def test_help_shows_the_rules_summary(game):
    terminal = Terminal("--game", game, "--opponent", "random")
    terminal.read_until(PROMPT)
    text = terminal.help()
    for line in envs.describe(game).play.rules_summary.splitlines():
        assert line in text
    os.write(terminal.master, b"quit\n")
    terminal.read_until("before its end")
    assert terminal.close() == 0


def test_moves_are_narrated_where_the_game_says_what_they_did():
    """Linecatch 3×3: a caught line is told (the game's narrate), after the move in notation."""
    terminal = Terminal("--game", "linecatch", "--option", "rows=3", "--option", "cols=3", "--opponent", "heuristic",
                        "--seed", "1")
    terminal.read_until(PROMPT)
    end = play_to_the_end(terminal, random.Random(3), lambda moves: moves)
    told = re.findall(r"^  (player_\d( \(you\))? blackened [a-c][1-3].*)\r?$", terminal.transcript, re.MULTILINE)
    assert any("caught" in sentence for sentence, _ in told), terminal.transcript[-3000:]
    check_final_scores(end, seat=0)
    assert terminal.close() == 0


def test_the_dice_are_narrated_in_loom():
    """Loom: the draft, the leftover weave and the next round's throw are each told."""
    terminal = Terminal("--game", "loom", "--opponent", "heuristic", "--seed", "4")
    terminal.read_until(PROMPT)
    moves = terminal.legal_moves()
    after = terminal.type(moves[0])
    assert re.search(r"^  player_0 drafts \d into [a-d][1-4], leaving \d to player_1: \+\d+", after, re.MULTILINE), after
    assert re.search(r"^player_1 \(heuristic\) plays \d@[a-d][1-4]\r?\n  player_1 weaves the leftover", after, re.MULTILINE), after
    assert re.search(r"^  the shuttle throws \d and \d", after, re.MULTILINE), after
    os.write(terminal.master, b"quit\n")
    terminal.read_until("before its end")
    assert terminal.close() == 0
