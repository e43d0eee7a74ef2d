"""What terminal play and other front ends need about Loom beyond the rules
(``GameDescription.play``): every game keeps its ``PLAY`` here, in ``envs/<game>/terminal.py``.
Loom's rules summary and move narration are written beside its text board, in ``render``."""

from __future__ import annotations

from envs.core.description import PlayRules
from envs.loom.render import RULES_SUMMARY, narrate

PLAY = PlayRules(undo_rule="in Loom every weave is final", rules_summary=RULES_SUMMARY, narrate=narrate)
"""What terminal play and other front ends need beyond the rules (``GameDescription.play``)."""

__all__ = ["PLAY"]
