"""High card: a duel of ``rounds`` rounds of Kuhn poker. Each round chance deals both players a
secret card from a fresh deck of ``cards`` (the higher card wins a showdown); each antes 1 and
the round's first player (``player_0`` in even rounds) checks or bets 1; facing a bet a player
calls or folds; after a check the other may check (showdown for 1) or bet. Scores are the
chips won; more chips after the last round wins.

Actions: 0 check, 1 bet, 2 call, 3 fold; chance outcomes are cards 0…cards−1.
"""

from __future__ import annotations

from typing import Any

from envs.core.game import CHANCE, TERMINAL, Game, IllegalActionError, int_field, int_list, require
from envs.core.options import check_int

WORDS = ("check", "bet", "call", "fold")
HISTORIES = ((), (0,), (1,), (0, 1))  # the betting seen when a player is to act
CARD_NAMES = "JQKA23"


class HighCardGame(Game):
    NAME = "highcard_v0"
    OPTIONS = {"cards": 3, "rounds": 4}
    STATE_KEYS = ("round", "hands", "history", "chips")

    @classmethod
    def check_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        check_int(options, "cards", 3, len(CARD_NAMES))
        check_int(options, "rounds", 1, 20)
        return options

    @classmethod
    def num_actions_for(cls, options: dict[str, Any]) -> int:
        return len(WORDS)

    @classmethod
    def max_game_length_for(cls, options: dict[str, Any]) -> int:
        return 3 * options["rounds"]

    @classmethod
    def max_chance_outcomes_for(cls, options: dict[str, Any]) -> int:
        return options["cards"]

    def __init__(self, options: dict[str, Any], rng=None):
        self.options = options
        self.round = 0
        self.hands = [-1, -1]  # this round's cards, -1 before the deal
        self.history: list[int] = []
        self.chips = [0, 0]

    # ----- whose turn, what is legal -------------------------------------------------------------
    def current_player(self) -> int:
        if self.round == self.options["rounds"]:
            return TERMINAL
        if -1 in self.hands:
            return CHANCE
        starter = self.round % 2
        return starter if len(self.history) % 2 == 0 else 1 - starter

    def legal_actions(self) -> list[int]:
        player = self.current_player()
        if player == CHANCE:
            return [outcome for outcome, _ in self.chance_outcomes()]
        if player == TERMINAL:
            return []
        return [2, 3] if self.history and self.history[-1] == 1 else [0, 1]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.current_player() != CHANCE:
            return super().chance_outcomes()
        left = [card for card in range(self.options["cards"]) if card != self.hands[0]]
        return [(card, 1 / len(left)) for card in left]

    def why_illegal(self, action: Any) -> str | None:
        try:
            action = self._check_action(action)
        except IllegalActionError as error:
            return str(error)
        player = self.current_player()
        if player == TERMINAL:
            return "the game is over"
        if action not in self.legal_actions():
            if player == CHANCE:
                return f"action {action} is not a card left in the deck"
            allowed = " or ".join(WORDS[a] for a in self.legal_actions())
            shown = WORDS[action] if 0 <= action < len(WORDS) else f"action {action}"
            return f"{shown} is not allowed now: player_{player} may {allowed}"
        return None

    def apply(self, action: Any) -> None:
        if self.why_illegal(action) is not None:
            self._raise_illegal(action)
        action = int(action)
        if self.current_player() == CHANCE:
            self.hands[self.hands.index(-1)] = action
            return
        self.history.append(action)
        starter = self.round % 2
        won = {(0, 0): None, (1, 2): None, (0, 1, 2): None, (1, 3): starter, (0, 1, 3): 1 - starter}
        ended = tuple(self.history)
        if ended not in won:
            return
        winner = won[ended]
        stake = 2 if 2 in ended else 1
        if winner is None:  # a showdown
            winner = 0 if self.hands[0] > self.hands[1] else 1
        self.chips[winner] += stake
        self.chips[1 - winner] -= stake
        self.round += 1
        self.hands = [-1, -1]
        self.history = []

    def scores(self) -> list[int]:
        return list(self.chips)

    # ----- notation --------------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        if self.current_player() == CHANCE:
            if not 0 <= action < self.options["cards"]:
                raise ValueError(f"card {action} is not in the deck")
            return f"deal {CARD_NAMES[action]}"
        if not 0 <= action < len(WORDS):
            raise ValueError(f"action {action} is not a move: actions are 0…{len(WORDS) - 1}")
        return WORDS[action]

    def string_to_action(self, text: str) -> int:
        word = text.strip().lower()
        if word not in WORDS:
            raise ValueError(f"{text!r} is not a move: the moves are {', '.join(WORDS)}")
        return WORDS.index(word)

    # ----- copies and snapshots -------------------------------------------------------------------
    def clone(self) -> HighCardGame:
        other = object.__new__(HighCardGame)
        other.__dict__.update(self.__dict__)
        other.hands, other.history, other.chips = self.hands[:], self.history[:], self.chips[:]
        return other

    def state_dict(self) -> dict[str, Any]:
        return {"round": self.round, "hands": list(self.hands), "history": list(self.history),
                "chips": list(self.chips)}

    @classmethod
    def from_state_dict(cls, options: dict[str, Any], state: dict[str, Any]) -> HighCardGame:
        game = cls(options)
        rounds, cards = options["rounds"], options["cards"]
        game.round = int_field(state, "round", 0, rounds)
        game.hands = int_list(state, "hands", 2, -1, cards - 1)
        history = state.get("history")
        require(isinstance(history, list) and all(type(a) is int for a in history) and tuple(history) in HISTORIES,
                f"history {history!r:.60} is no betting to act on")
        game.history = list(history)
        game.chips = int_list(state, "chips", 2, -2 * rounds, 2 * rounds)
        require(game.chips[0] == -game.chips[1], "the chips won must sum to zero")
        require(abs(game.chips[0]) <= 2 * game.round and (game.round != 1 or game.chips[0]), "no game wins those chips")
        require(not (game.hands[0] == -1 and game.hands[1] != -1), "player_0 is dealt first")
        require(game.hands[0] != game.hands[1] or game.hands[0] == -1, "both players hold the same card")
        require((-1 not in game.hands) or not game.history, "betting before the deal")
        require(game.round < rounds or (game.hands == [-1, -1]), "cards dealt after the last round")
        return game
