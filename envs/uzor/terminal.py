"""What terminal play and other front ends need about Uzor beyond the rules
(``GameDescription.play``): every game keeps its ``PLAY`` here, in ``envs/<game>/terminal.py``.
Uzor's rules summary and move narration are written beside its text board, in ``render``."""

from __future__ import annotations

from envs.core.description import PlayRules
from envs.uzor.render import RULES_SUMMARY, narrate

# no private_notes: a seat's own secret goal is on its board (the pictures show the viewer's hidden items)
PLAY = PlayRules(undo_rule="in Uzor every action is final", rules_summary=RULES_SUMMARY, narrate=narrate)
"""What terminal play and other front ends need beyond the rules (``GameDescription.play``)."""

__all__ = ["PLAY"]
