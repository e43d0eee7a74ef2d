"""What terminal play and front ends need about tic-tac-toe beyond the rules."""

from __future__ import annotations

from envs.core.description import PlayRules
from tests.toy.tictactoe.render import RULES_SUMMARY

PLAY = PlayRules(undo_rule="in tic-tac-toe every move is final", rules_summary=RULES_SUMMARY)
