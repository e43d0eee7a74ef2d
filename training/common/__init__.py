"""What every part of training/ shares: command-line flags from config dataclasses
(``flags``), single-threaded worker pools (``processes``), progress lines (``progress``), the think-time
budget that searches check themselves (``time_budget``).

Imports nothing from the rest of ``training``.
"""
